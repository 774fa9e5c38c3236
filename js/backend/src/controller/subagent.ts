import { Body, Controller, Get, Inject, Post, Query } from '@midwayjs/core';
import { Context } from '@midwayjs/koa';
import { PassThrough } from 'stream';
import { BatchPageQueryDTO, IdQueryDTO } from '../dto/query';
import { SubagentRunDTO } from '../dto/subagent';
import { SubagentService } from '../service/subagent';
import { BatchRunner } from '../agent/batches';

@Controller('/admin/netaclaw/subagent')
export class SubagentController {
  @Inject()
  ctx: Context;

  @Inject()
  subagentService: SubagentService;

  @Inject()
  runner: BatchRunner;

  @Post('/run')
  async run(@Body() body: SubagentRunDTO) {
    return this.runner.run(body);
  }

  @Get('/page')
  async page(@Query() query: BatchPageQueryDTO) {
    return this.subagentService.page(query);
  }

  @Get('/info')
  async info(@Query() query: IdQueryDTO) {
    return this.subagentService.info(query);
  }

  /**
   * Server-Sent Events: `event: <type>` / `data: <json>` per batch event — past events first, then live
   * ones; the stream ends after `done`.
   */
  @Get('/events')
  async events(@Query() query: IdQueryDTO) {
    const stream = new PassThrough();
    let unsubscribe: () => void = () => undefined;
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      unsubscribe();
      stream.end();
    };
    unsubscribe = await this.runner.subscribe(query, e => {
      if (closed) return;
      stream.write(`event: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`);
      if (e.type === 'done') setImmediate(close);
    });
    if (closed) unsubscribe();
    this.ctx.req.on('close', close);
    this.ctx.set('Cache-Control', 'no-cache');
    this.ctx.set('X-Accel-Buffering', 'no');
    this.ctx.type = 'text/event-stream';
    this.ctx.status = 200;
    this.ctx.body = stream;
  }
}
