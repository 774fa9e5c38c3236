import { Body, Controller, Inject, Post } from '@midwayjs/core';
import { Context } from '@midwayjs/koa';
import { ApprovalAnswerDTO } from '../dto/approval';
import { ChatExecutor } from '../agent/executor';
import { answererOf } from '../middleware/auth';

/**
 * Answers to approvals (docs/runtime.md "Approvals"): the main agent's resumes its stopped turn and
 * answers like POST /api/netaclaw/chat (with `answered`); a sub-agent's lets its waiting call go on.
 */
@Controller('/api/netaclaw/approval')
export class ApprovalController {
  @Inject()
  ctx: Context;

  @Inject()
  executor: ChatExecutor;

  @Post('/answer')
  async answer(@Body() body: ApprovalAnswerDTO) {
    const abort = new AbortController();
    this.ctx.res.once('close', () => {
      if (!this.ctx.res.writableFinished) abort.abort();
    });
    return this.executor.answerApproval({ id: Number(body.id), answer: body.answer }, answererOf(this.ctx), () => undefined, abort.signal);
  }
}
