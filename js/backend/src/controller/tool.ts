import { Body, Controller, Get, Inject, Post, Query } from '@midwayjs/core';
import { ToolService } from '../service/tool';

@Controller('/admin/netaclaw/tool')
export class ToolController {
  @Inject()
  toolService: ToolService;

  @Post('/page')
  async page(@Body() body: unknown) {
    return { data: await this.toolService.page(body) };
  }

  @Get('/info')
  async info(@Query() query: Record<string, unknown>) {
    return { data: await this.toolService.info(query) };
  }

  @Post('/update')
  async update(@Body() body: unknown) {
    return { data: await this.toolService.update(body) };
  }

  @Get('/all')
  async all() {
    return { data: await this.toolService.all() };
  }

  @Post('/sync')
  async sync() {
    return { data: await this.toolService.sync() };
  }

  @Get('/forAgent')
  async forAgent() {
    return { data: await this.toolService.forAgent() };
  }
}
