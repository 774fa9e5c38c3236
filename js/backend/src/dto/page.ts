import { Rule } from '@midwayjs/validate';
import { intBetween, nullable, str } from './rules';

/** The body of a `…/page` request: `page` and `size`, both optional (1 and 20). */
export class PageDTO {
  @Rule(nullable(intBetween(1, 1_000_000)))
  page?: number | null;

  @Rule(nullable(intBetween(1, 1000)))
  size?: number | null;
}

/** POST /admin/netaclaw/agent/page: a page, filtered by a part of the name. */
export class AgentPageDTO extends PageDTO {
  @Rule(nullable(str()))
  name?: string | null;
}

/**
 * POST /admin/netaclaw/tool/page: a page, filtered by a part of the name, a toolset, a capability (as
 * stored in the rows) and a status (0 or 1).
 */
export class ToolPageDTO extends PageDTO {
  @Rule(nullable(str()))
  name?: string | null;

  @Rule(nullable(str()))
  toolset?: string | null;

  @Rule(nullable(str()))
  capability?: string | null;

  @Rule(nullable(intBetween(0, 1)))
  status?: number | null;
}
