import { Body, Controller, Inject, Post } from '@midwayjs/core';
import { EscalationPageDTO, EscalationResolveDTO } from '../dto/escalation';
import { EscalationService } from '../service/escalation';

/** The escalations of the `escalate` tool: listed for an operator, resolved once with a resolution. */
@Controller('/admin/netaclaw/escalation')
export class EscalationController {
  @Inject()
  escalationService: EscalationService;

  @Post('/page')
  async page(@Body() body: EscalationPageDTO) {
    return this.escalationService.page({
      sessionId: body.sessionId === undefined || body.sessionId === null ? null : String(body.sessionId),
      status: body.status ?? null,
      page: body.page ?? 1,
      size: body.size ?? 20,
    });
  }

  /** 404 for an unknown id, 409 `escalation_resolved` when it has its resolution already. */
  @Post('/resolve')
  async resolve(@Body() body: EscalationResolveDTO) {
    return this.escalationService.resolve(Number(body.id), body.resolution);
  }
}
