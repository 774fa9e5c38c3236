/**
 * Where tools run (RUNTIME §5): sub-agent batches — each a confined worker with its policy and routes —
 * and the main agent's session workers. `BatchRunner` is their one door; each part is a file of
 * `agent/batch/`: a batch's spec (`spec.ts`), its lifecycle (`lifecycle.ts`), its live events (`live.ts`),
 * the admin API's operations (`admin.ts`), the session's workers (`session.ts`), and what every worker's
 * calls use of the backend (`services.ts`).
 */
import { Inject, Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { IdQueryDTO } from '../dto/query';
import { SubagentRunDTO } from '../dto/subagent';
import type { CallRecord, HostTestOptions } from '../runtime';
import type { BatchEvent, BatchRecord } from '../service/subagent';
import { BatchAdmin } from './batch/admin';
import { BatchHandle, BatchLifecycle, PreparedBatch } from './batch/lifecycle';
import { MainAgentTools, NetAsker, SessionTools, SessionToolsInput } from './batch/session';
import type { BatchSpec } from './batch/spec';

export type { CallRecord } from '../runtime';
export type { BatchEvent, BatchRecord, StoredCall } from '../service/subagent';
export type { BatchHandle, PreparedBatch } from './batch/lifecycle';
export { LiveBatch } from './batch/live';
export type { NetAsker, SessionTools, SessionToolsInput } from './batch/session';
export type { BatchSpec } from './batch/spec';

/**
 * The agent loop uses `start` (or `prepare` then `launch`; then the handle's `call`/`finish`/`kill`) and
 * `openSessionTools`; the admin API uses `run` and `subscribe`. What they store goes through
 * `SubagentService`.
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class BatchRunner {
  @Inject()
  batches: BatchLifecycle;

  @Inject()
  admin: BatchAdmin;

  @Inject()
  mainTools: MainAgentTools;

  /** Checks a spec (400 naming the field). */
  parseSpec(input: unknown): BatchSpec {
    return this.batches.parseSpec(input);
  }

  /** Checks a spec and prepares its run: nothing stored or started. */
  prepare(input: BatchSpec): Promise<PreparedBatch> {
    return this.batches.prepare(input);
  }

  /** Starts a prepared batch's worker and stores it `running`. */
  launch(prepared: PreparedBatch, test?: HostTestOptions, netAsk?: NetAsker): Promise<BatchHandle> {
    return this.batches.launch(prepared, test, netAsk);
  }

  /** `prepare`, then `launch`. */
  start(input: BatchSpec, test?: HostTestOptions, netAsk?: NetAsker): Promise<BatchHandle> {
    return this.batches.start(input, test, netAsk);
  }

  /** POST /subagent/run: a fresh worker runs the calls in order; answers the finished batch. */
  run(body: SubagentRunDTO): Promise<BatchRecord> {
    return this.admin.run(body);
  }

  /** The events of a batch: past ones first, then live ones until `done`. */
  subscribe(query: IdQueryDTO, listener: (e: BatchEvent) => void): Promise<() => void> {
    return this.admin.subscribe(query, listener);
  }

  /** The main agent's tools for one turn of a session (`MainAgentTools.openSessionTools`). */
  openSessionTools(input: SessionToolsInput): SessionTools {
    return this.mainTools.openSessionTools(input);
  }

  /** One call of a session's main agent in a worker of its own (started and ended for this call). */
  runMainTool(input: SessionToolsInput & { name: string; args: unknown }): Promise<CallRecord> {
    return this.mainTools.runMainTool(input);
  }
}
