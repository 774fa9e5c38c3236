import { Body, Controller, Get, Inject, Post } from '@midwayjs/core';
import type { WorkerPolicy } from '@netaclaw/tool-policy';
import { GlobalRulesUpdateDTO, RulesTryDTO } from '../dto/ruleset';
import { RulesService, RulesTryInput } from '../service/rules';

/** The global rules (allow / ask / deny for tools, commands, paths and hosts) and the "try it" of the rules editors. */
@Controller('/admin/netaclaw/rules')
export class RulesController {
  @Inject()
  rulesService: RulesService;

  @Get('/info')
  async info() {
    return this.rulesService.info();
  }

  /** 400 `invalid_input` naming the pattern (`errors[0].field`), 409 `conflict` for a stale `version`. */
  @Post('/update')
  async update(@Body() body: GlobalRulesUpdateDTO) {
    return this.rulesService.update({ rules: body.rules, ...(body.version === undefined || body.version === null ? {} : { version: body.version }) });
  }

  @Post('/try')
  async try(@Body() body: RulesTryDTO) {
    const input: RulesTryInput = {
      agentId: body.agentId === undefined || body.agentId === null ? null : Number(body.agentId),
      sessionId: body.sessionId === undefined || body.sessionId === null ? null : Number(body.sessionId),
      rules: (body.rules ?? null) as RulesTryInput['rules'],
      policy: (body.policy ?? null) as WorkerPolicy | null,
    };
    for (const k of ['tool', 'command', 'read', 'write', 'net'] as const) if (body[k] !== undefined) input[k] = body[k];
    return this.rulesService.try(input);
  }
}
