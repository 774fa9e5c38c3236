import { Rule, RuleType } from '@midwayjs/validate';
import { RESOLUTION_MAX_CHARS } from '../wire/api-types';
import { PageDTO } from './page';
import { id, nonBlank, nullable, required, sessionKey } from './rules';

/** The statuses an escalation page may filter by. */
const STATUSES = ['open', 'resolved'];

/** POST /admin/netaclaw/escalation/page: a page of escalations, of one session and/or one status. */
export class EscalationPageDTO extends PageDTO {
  @Rule(nullable(sessionKey()))
  sessionId?: string | number | null;

  @Rule(nullable(RuleType.string().valid(...STATUSES)))
  status?: 'open' | 'resolved' | null;
}

/** POST /admin/netaclaw/escalation/resolve: the escalation and the operator's resolution. */
export class EscalationResolveDTO {
  @Rule(required(id()))
  id: number | string;

  @Rule(required(nonBlank(RESOLUTION_MAX_CHARS)))
  resolution: string;
}
