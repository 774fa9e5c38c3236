/** A batch's spec: what the executor (a delegated task) or the admin console (a run of calls) asks for, checked. */
import { ValidateService } from '@midwayjs/validate';
import { invalidInput } from '../../wire/errors';
import { CrewRole, policy } from '../../wire/policy';
import { BATCH_TIMEOUT_DEFAULT_MS } from '../../runtime/limits';
import type { Driver, WorkerPolicyWire } from '../../runtime';
import { checkedBy } from '../../dto/check';
import { BatchSpecDTO } from '../../dto/subagent';
import { sessionFields } from '../../service/agent';
import { sessionKey } from '../../service/subagent';
import { requireObject } from '../../wire/validate';

/** What the executor (or the admin console) asks for. */
export interface BatchSpec {
  agentId: number;
  parentBatchId?: number | null;
  sessionId?: string | number | null;
  crewRole: CrewRole;
  sessionCwd?: string | null;
  workspaceRoots?: string[] | null;
  shellPermitted?: boolean | null;
  writePermitted?: boolean | null;
  subagentTools?: string[] | null;
  driver: Driver;
  timeoutMs?: number | null;
  /** The parent session's policy: the batch's policy is bounded by it (the package does that). */
  parent?: WorkerPolicyWire | null;
}

const DRIVERS = ['model', 'calls'] as const;

/**
 * Checks a spec (400 naming the field): its shape by BatchSpecDTO — the same class whether the spec
 * comes from an admin run or from a delegation of the executor — then the role (the package's
 * vocabulary) and the driver.
 */
export function parseBatchSpec(validateService: ValidateService, input: unknown): BatchSpec {
  const o = checkedBy(validateService, BatchSpecDTO, requireObject(input, 'spec'));
  const spec: BatchSpec = {
    agentId: Number(o.agentId),
    crewRole: 'sub',
    driver: 'calls',
  };
  if (o.crewRole !== undefined && o.crewRole !== null) {
    const roles: string[] = policy().catalogInfo().vocabulary.crewRole;
    if (!roles.includes(o.crewRole as CrewRole)) throw invalidInput(`crewRole must be one of ${roles.join(', ')}, got ${JSON.stringify(o.crewRole)}`);
    spec.crewRole = o.crewRole as CrewRole;
  }
  if (o.driver !== undefined && o.driver !== null) {
    if (!DRIVERS.includes(o.driver as Driver)) throw invalidInput(`driver must be model or calls, got ${JSON.stringify(o.driver)}`);
    spec.driver = o.driver as Driver;
  }
  if (o.parentBatchId !== undefined && o.parentBatchId !== null) spec.parentBatchId = Number(o.parentBatchId);
  if (o.sessionId !== undefined && o.sessionId !== null) spec.sessionId = sessionKey(o.sessionId);
  Object.assign(spec, sessionFields(o));
  spec.timeoutMs = o.timeoutMs ?? BATCH_TIMEOUT_DEFAULT_MS;
  if (o.parent) spec.parent = { workspaceRoots: [...o.parent.workspaceRoots], allowShell: o.parent.allowShell, readonly: o.parent.readonly };
  return spec;
}
