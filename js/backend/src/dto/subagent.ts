import { Rule, RuleType } from '@midwayjs/validate';
import { BATCH_CALLS_MAX, BATCH_TIMEOUT_MAX_MS } from '../runtime/limits';
import { SessionFieldsDTO } from './session';
import { bool, closedObject, id, intBetween, list, nonBlank, notSettable, nullable, required, reworded, sessionKey, stringList, text } from './rules';

/** What every batch names: its agent, its session fields (`sessionCwd` up to 4096 characters), its timeout. */
class BatchFieldsDTO extends SessionFieldsDTO {
  @Rule(required(id()))
  agentId: number | string;

  @Rule(nullable(text(4096)))
  sessionCwd?: string | null;

  @Rule(nullable(intBetween(1, BATCH_TIMEOUT_MAX_MS)))
  timeoutMs?: number | null;
}

/**
 * The spec of a sub-agent batch, from the admin run or from the executor's delegations (both check it
 * with this class, SubagentService.parseSpec). `crewRole` (the package's vocabulary) and `driver` are
 * checked by the service.
 */
export class BatchSpecDTO extends BatchFieldsDTO {
  crewRole?: unknown;

  driver?: unknown;

  @Rule(nullable(id()))
  parentBatchId?: number | string | null;

  @Rule(nullable(sessionKey()))
  sessionId?: number | string | null;

  @Rule(
    nullable(
      RuleType.object({
        workspaceRoots: required(stringList()),
        allowShell: required(bool()),
        readonly: required(bool()),
      })
    )
  )
  parent?: { workspaceRoots: string[]; allowShell: boolean; readonly: boolean } | null;
}

/** One call of an admin run: a tool name and its arguments (the gate judges both). */
const call = closedObject('call', {
  name: reworded(required(nonBlank(200)), { 'any.required': 'netaclaw.nonBlank' }),
  arguments: RuleType.any(),
});

/**
 * POST /admin/netaclaw/subagent/run: the calls, run in order by a fresh worker. The fields that tie a
 * batch to a chat (role, driver, parent, session) are the executor's, never an admin run's.
 */
export class SubagentRunDTO extends BatchFieldsDTO {
  @Rule(required(list(call, BATCH_CALLS_MAX)))
  calls: Array<{ name: string; arguments?: unknown }>;

  @Rule(notSettable('an admin run'))
  crewRole?: never;

  @Rule(notSettable('an admin run'))
  driver?: never;

  @Rule(notSettable('an admin run'))
  parent?: never;

  @Rule(notSettable('an admin run'))
  parentBatchId?: never;

  @Rule(notSettable('an admin run'))
  sessionId?: never;
}
