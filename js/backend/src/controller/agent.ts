import { Body, Controller, Get, Inject, Post, Query } from '@midwayjs/core';
import { AgentAddDTO, AgentUpdateDTO } from '../dto/agent';
import { IdDTO } from '../dto/channel';
import { AgentPageDTO } from '../dto/page';
import { IdQueryDTO } from '../dto/query';
import { DiagnosticDTO, PreviewPromptDTO } from '../dto/session';
import { AgentService } from '../service/agent';
import { RunPreparer } from '../agent/run';
import { RemovalService } from '../service/removal';

@Controller('/admin/netaclaw')
export class AgentController {
  @Inject()
  agentService: AgentService;

  @Inject()
  runs: RunPreparer;

  @Inject()
  removal: RemovalService;

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

  /** Deletes the agent with its sessions (docs/backend-api.md "Deleting"); 409 while it runs or sits in a crew. */
  @Post('/agent/delete')
  async delete(@Body() body: IdDTO) {
    return this.removal.deleteAgent(Number(body.id));
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
