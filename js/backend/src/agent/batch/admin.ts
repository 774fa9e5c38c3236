/** The admin API's operations on batches: a run of given calls (POST /subagent/run) and a batch's events (GET /subagent/events). */
import { Inject, Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { IdQueryDTO } from '../../dto/query';
import { SubagentRunDTO } from '../../dto/subagent';
import { APPROVAL_REQUIRED } from '../../runtime/codes';
import { assertWorkdirUsable, checkCall } from '../../runtime';
import type { CallRecord } from '../../runtime';
import { BatchEvent, SubagentService } from '../../service/subagent';
import { BatchHandle, BatchLifecycle } from './lifecycle';
import { LiveBatches } from './live';

@Provide()
@Scope(ScopeEnum.Singleton)
export class BatchAdmin {
  @Inject()
  batches: BatchLifecycle;

  @Inject()
  store: SubagentService;

  @Inject()
  live: LiveBatches;

  /** POST /subagent/run: a fresh worker runs the calls in order; answers the finished batch. */
  async run(body: SubagentRunDTO) {
    const calls = body.calls.map(c => ({ name: c.name, arguments: c.arguments === undefined ? {} : c.arguments }));
    const spec = this.batches.parseSpec({ ...body, calls: undefined, crewRole: 'sub', driver: 'calls' });
    // its run prepared first (its roots checked against the backend's own state: that refusal comes first),
    // then its folder must be one its sandbox can use (400 workdir_*); nothing is stored before both hold
    const prepared = await this.batches.prepare(spec);
    assertWorkdirUsable(body, this.batches.workers.runtime.sandbox);
    const handle = await this.batches.launch(prepared);
    for (const c of calls) {
      try {
        // nobody can answer a rule's ask in an admin-run batch: denied approval_required, never run
        const asked = askedHere(handle, c.name, c.arguments);
        if (asked) {
          await handle.record(asked);
          continue;
        }
        await handle.call(c.name, c.arguments);
      } catch {
        break; // the batch ended (killed / failed); its record says why
      }
    }
    const b = await handle.finish();
    return b;
  }

  /**
   * The events of a batch: past ones first, then live ones until `done`. A batch that is no longer
   * running is replayed from the database (batch, its calls, done).
   */
  async subscribe(query: IdQueryDTO, listener: (e: BatchEvent) => void): Promise<() => void> {
    const id = Number(query.id);
    const live = this.live.get(id);
    if (live) return live.subscribe(listener);
    await this.store.replay(id, listener);
    return () => undefined;
  }
}

/**
 * The refusal of a call a rule asks about, decided as where nobody can answer (`asks: 'deny'`): the
 * worker decides calls as approved (the layer above it asked), so a batch without a user refuses them
 * before they reach it. Null: the call goes to the worker.
 */
function askedHere(handle: BatchHandle, name: string, args: unknown): Omit<CallRecord, 'seq'> | null {
  let g;
  try {
    g = checkCall({ policy: handle.policy, routes: handle.routes, rules: handle.rules, asks: 'deny', name, arguments: args });
  } catch {
    return null; // the worker's gate answers it (fail closed there)
  }
  if (g.reason !== APPROVAL_REQUIRED) return null;
  return {
    name,
    arguments: args,
    decision: g.decision,
    reason: g.reason,
    detail: g.detail,
    ok: false,
    error: g.detail ?? g.reason,
    durationMs: 0,
    ...(g.rule ? { rule: g.rule } : {}),
  };
}
