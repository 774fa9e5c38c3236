import { Rule, RuleType } from '@midwayjs/validate';
import { id, intBetween, nullable, required, text } from './rules';

/** The longest command, path or tool name "try it" takes, in characters. */
const TRY_MAX_CHARS = 8192;

/**
 * POST /admin/netaclaw/rules/update: the global rules (their patterns are checked by the package,
 * RulesService) and the version they were edited from (0: never written).
 */
export class GlobalRulesUpdateDTO {
  @Rule(required(RuleType.any()))
  rules: unknown;

  @Rule(nullable(intBetween(0, Number.MAX_SAFE_INTEGER)))
  version?: number | null;
}

/**
 * POST /admin/netaclaw/rules/try: one tool, command, path read or path written, or host (`host[:port]`,
 * port 443 when absent), tried against the stored
 * rules of an agent and a session, each level replaced by an unsaved edit when given.
 */
export class RulesTryDTO {
  @Rule(nullable(id()))
  agentId?: number | string | null;

  @Rule(nullable(id()))
  sessionId?: number | string | null;

  @Rule(nullable(RuleType.object().unknown(true)))
  rules?: Record<string, unknown> | null;

  @Rule(nullable(RuleType.object().unknown(true)))
  policy?: Record<string, unknown> | null;

  @Rule(text(TRY_MAX_CHARS))
  tool?: string;

  @Rule(text(TRY_MAX_CHARS))
  command?: string;

  @Rule(text(TRY_MAX_CHARS))
  read?: string;

  @Rule(text(TRY_MAX_CHARS))
  write?: string;

  @Rule(text(TRY_MAX_CHARS))
  net?: string;
}
