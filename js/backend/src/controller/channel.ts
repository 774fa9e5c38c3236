import { Body, Controller, Get, Inject, Post, Query } from '@midwayjs/core';
import { ChannelAddDTO, ChannelUpdateDTO, IdDTO } from '../dto/channel';
import { PageDTO } from '../dto/page';
import { IdQueryDTO } from '../dto/query';
import { ChannelService } from '../service/channel';

@Controller('/admin/netaclaw/channel')
export class ChannelController {
  @Inject()
  channelService: ChannelService;

  @Post('/page')
  async page(@Body() body: PageDTO) {
    return this.channelService.page(body);
  }

  @Get('/info')
  async info(@Query() query: IdQueryDTO) {
    return this.channelService.info(query);
  }

  @Post('/add')
  async add(@Body() body: ChannelAddDTO) {
    return this.channelService.add(body);
  }

  @Post('/update')
  async update(@Body() body: ChannelUpdateDTO) {
    return this.channelService.update(body);
  }

  @Post('/delete')
  async delete(@Body() body: IdDTO) {
    return this.channelService.delete(body);
  }
}
