import { Body, Controller, Get, Inject, Post, Query } from '@midwayjs/core';
import { ChannelService } from '../service/channel';

@Controller('/admin/netaclaw/channel')
export class ChannelController {
  @Inject()
  channelService: ChannelService;

  @Post('/page')
  async page(@Body() body: unknown) {
    return { data: await this.channelService.page(body) };
  }

  @Get('/info')
  async info(@Query() query: Record<string, unknown>) {
    return { data: await this.channelService.info(query) };
  }

  @Post('/add')
  async add(@Body() body: unknown) {
    return { data: await this.channelService.add(body) };
  }

  @Post('/update')
  async update(@Body() body: unknown) {
    return { data: await this.channelService.update(body) };
  }

  @Post('/delete')
  async delete(@Body() body: unknown) {
    return { data: await this.channelService.delete(body) };
  }
}
