import { Body, Controller, Get, Inject, Post, Query } from '@midwayjs/core';
import { IdDTO } from '../dto/channel';
import { McpAddDTO, McpUpdateDTO } from '../dto/mcp';
import { PageDTO } from '../dto/page';
import { IdQueryDTO } from '../dto/query';
import { McpService } from '../service/mcp';

@Controller('/admin/netaclaw/mcp')
export class McpController {
  @Inject()
  mcpService: McpService;

  @Post('/page')
  async page(@Body() body: PageDTO) {
    return this.mcpService.page(body);
  }

  @Get('/info')
  async info(@Query() query: IdQueryDTO) {
    return this.mcpService.info(query);
  }

  @Post('/add')
  async add(@Body() body: McpAddDTO) {
    return this.mcpService.add(body);
  }

  @Post('/update')
  async update(@Body() body: McpUpdateDTO) {
    return this.mcpService.update(body);
  }

  @Post('/delete')
  async delete(@Body() body: IdDTO) {
    return this.mcpService.delete(body);
  }

  /** Lists the enabled servers' tools again and registers them (the catalog sync). */
  @Post('/refresh')
  async refresh() {
    return this.mcpService.refresh();
  }
}
