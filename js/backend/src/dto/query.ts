import { Rule } from '@midwayjs/validate';
import { id, nonBlank, queryInt, required, sessionKey } from './rules';

/**
 * The queries of the GET routes. A query string carries strings: an id is a string of digits, a page
 * number is read as an integer; an empty filter (`agentId=`) filters nothing.
 */

/** `?id=` of an `…/info` route (and the batch events). */
export class IdQueryDTO {
  @Rule(required(id()))
  id: string;
}

/** GET /admin/netaclaw/tool/info: `?id=` or `?name=` (the service asks for one of them). */
export class ToolInfoQueryDTO {
  @Rule(id())
  id?: string;

  @Rule(nonBlank(200))
  name?: string;
}

/** GET /admin/netaclaw/session/page: a page of the sessions, of one agent if `agentId`. */
export class SessionPageQueryDTO {
  @Rule(queryInt(1, 1_000_000))
  page?: number | '';

  @Rule(queryInt(1, 1000))
  size?: number | '';

  @Rule(id().allow(''))
  agentId?: string;
}

/** GET /admin/netaclaw/subagent/page: a page of the batches, of one agent or one chat session. */
export class BatchPageQueryDTO extends SessionPageQueryDTO {
  @Rule(sessionKey().allow(''))
  sessionId?: string;
}

/** The page and size a checked page query asks for (1 and 20 when absent or empty). */
export function pageOf(query: SessionPageQueryDTO): { page: number; size: number } {
  return {
    page: query.page === undefined || query.page === '' ? 1 : Number(query.page),
    size: query.size === undefined || query.size === '' ? 20 : Number(query.size),
  };
}
