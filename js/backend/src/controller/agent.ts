import { Body, Controller, Get, Inject, Post, Query } from '@midwayjs/core';
import { AgentAddDTO, AgentUpdateDTO } from '../dto/agent';
import { AgentPageDTO } from '../dto/page';
import { IdQueryDTO } from '../dto/query';
import { DiagnosticDTO, PreviewPromptDTO } from '../dto/session';
import { AgentService } from '../service/agent';
import { RunPreparer } from '../agent/run';

@Controller('/admin/netaclaw')
export class AgentController {
  @Inject()
  agentService: AgentService;

  @Inject()
  runs: RunPreparer;

  @Post('/agent/add')
  async add(@Body() body: AgentAddDTO) {
    return this.agentService.add(body);
  }

  @Get('/agent/info')
  async info(@Query() query: IdQueryDTO) {
    return this.agentService.info(query);
  }

  @Post('/agent/update')
  async update(@Body() body: AgentUpdateDTO) {
    return this.agentService.update(body);
  }

  @Post('/agent/page')
  async page(@Body() body: AgentPageDTO) {
    return this.agentService.page(body);
  }

  @Post('/agent/previewPrompt')
  async previewPrompt(@Body() body: PreviewPromptDTO) {
    return this.runs.previewPrompt(body);
  }

  /** Runtime diagnostic lives under /tool (docs/backend-api.md). */
  @Post('/tool/diagnostic')
  async diagnostic(@Body() body: DiagnosticDTO) {
    return this.runs.diagnostic(body);
  }
}
