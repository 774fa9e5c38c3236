/**
 * A sub-agent batch's lifecycle (RUNTIME §5): its run prepared (`prepareRun`), its roots held, its row
 * stored `running`, its worker (and the workers that run its calls side by side) started, its calls run and
 * stored, its end stored — `finish`, `kill`, or its worker's own end.
 */
import { Inject, Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { ValidateService } from '@midwayjs/validate';
import type { RulesInput, ToolRuntimeRoute } from '@netaclaw/tool-policy';
import { AppError } from '../../wire/errors';
import { errorMessage, errorStack } from '../../lib/errortext';
import { log } from '../../config/log';
import { CallRecord, HostEvent, HostTestOptions, WorkerHost } from '../../runtime';
import { BATCH_TIMEOUT_DEFAULT_MS, CONCURRENT_CALLS_MAX } from '../../runtime/limits';
import { PinnedRoots } from '../../runtime';
import type { WorkerPolicyWire } from '../../runtime';
import { AgentService, SessionFields } from '../../service/agent';
import { RulesService } from '../../service/rules';
import { BatchEvent, BatchRecord, SubagentService, batchView, eventCall, sessionKey } from '../../service/subagent';
import { PreparedRun, RunPreparer, runPolicy, runRoutes } from '../run';
import { LiveBatch, LiveBatches } from './live';
import { holdRoots, WorkerServices } from './services';
import { BatchSpec, parseBatchSpec } from './spec';
import { chatSessionId, NetAsker, runNetHooks } from './session';
import { NetDecisionService } from '../../service/netdecision';

/** A checked spec and its prepared run: what `launch` starts. */
export interface PreparedBatch {
  spec: BatchSpec;
  run: PreparedRun;
}

/** A batch started (`launch`): what its starter runs its calls with and ends it by. */
export interface BatchHandle {
  id: number;
  policy: WorkerPolicyWire;
  /** Its routes (its run's): what its worker's gate decides with. */
  routes: ToolRuntimeRoute[];
  /** The rules its calls are decided with: the global ones, its agent's, its chat session's and their approvals. */
  rules: RulesInput;
  /** The tools whose route in this batch can run: what its model is offered. */
  offered: string[];
  /** Its prepared run: the diagnostic its policy and routes come from, and its model's system prompt. */
  run: PreparedRun;
  call(name: string, args: unknown): Promise<CallRecord>;
  /** Stores a call of this batch decided before it reached the worker (by the call port). */
  record(call: Omit<CallRecord, 'seq'>): Promise<CallRecord>;
  finish(): Promise<BatchRecord>;
  kill(reason: string): Promise<BatchRecord>;
  events: { subscribe(listener: (e: BatchEvent) => void): () => void };
}

@Provide()
@Scope(ScopeEnum.Singleton)
export class BatchLifecycle {
  @Inject()
  store: SubagentService;

  @Inject()
  agentService: AgentService;

  @Inject()
  runs: RunPreparer;

  @Inject()
  validateService: ValidateService;

  @Inject()
  rulesService: RulesService;

  @Inject()
  workers: WorkerServices;

  @Inject()
  live: LiveBatches;

  @Inject()
  netDecisions: NetDecisionService;

  /**
   * Checks a spec (400 naming the field): its shape by BatchSpecDTO — the same class whether the spec
   * comes from an admin run or from a delegation of the executor — then the role (the package's
   * vocabulary) and the driver.
   */
  parseSpec(input: unknown): BatchSpec {
    return parseBatchSpec(this.validateService, input);
  }

  /**
   * Checks a spec and prepares its run (`prepareRun`): the spec's agent under its session fields, as its
   * crew role, with the tools it asks for within the agent's own sub-agent selection, bounded by its
   * parent's policy. Nothing is stored or started.
   */
  async prepare(input: BatchSpec): Promise<PreparedBatch> {
    const spec = this.parseSpec(input);
    const agent = await this.agentService.agentFromRequest({ agentId: spec.agentId }, 'agentId', false);
    const session: SessionFields = {};
    if (spec.sessionCwd !== undefined) session.sessionCwd = spec.sessionCwd;
    if (spec.workspaceRoots !== undefined) session.workspaceRoots = spec.workspaceRoots;
    if (spec.shellPermitted !== undefined && spec.shellPermitted !== null) session.shellPermitted = spec.shellPermitted;
    if (spec.writePermitted !== undefined && spec.writePermitted !== null) session.writePermitted = spec.writePermitted;
    const run = await this.runs.prepareRun(agent, session, {
      role: spec.crewRole,
      selection: spec.subagentTools ?? null,
      driver: spec.driver,
      ...(spec.parent ? { parent: spec.parent } : {}),
    });
    return { spec, run };
  }

  /**
   * Prepares a batch's run, starts its worker, stores it `running` (`prepare`, then `launch`). `test`: the
   * host's test-only switches (a test's own worker program); no request can set them.
   */
  async start(input: BatchSpec, test?: HostTestOptions, netAsk?: NetAsker): Promise<BatchHandle> {
    return this.launch(await this.prepare(input), test, netAsk);
  }

  /**
   * Starts the worker of a prepared batch (its policy and routes are its run's) and stores it `running`.
   * `netAsk`: who answers the `net()` asks of its sandboxes — the user of the chat turn that started it;
   * a batch started from the console has no one to ask, so an ask is refused (docs/runtime.md "Network").
   */
  async launch(prepared: PreparedBatch, test?: HostTestOptions, netAsk?: NetAsker): Promise<BatchHandle> {
    const { spec, run } = prepared;
    const { agent, diagnostic: diag } = run;
    // Each root resolved, checked and held open once for the whole batch (runtime/pinned.ts): the
    // backend-state check again on where the held folder really is (a refusal stores nothing); a root
    // that cannot be held (missing, unreadable, swapped meanwhile) fails the batch when its worker starts.
    let held: PinnedRoots | Error;
    try {
      held = await holdRoots(diag.policy.workspaceRoots, this.workers.runtime);
    } catch (err) {
      if (err instanceof AppError) throw err;
      held = err instanceof Error ? err : new Error(errorMessage(err));
    }
    const workerPolicy = runPolicy(run);
    const routes = runRoutes(run);
    // the rules of its agent, and of the chat session it belongs to (a key that names none: no session level)
    const chat = chatSessionId(spec.sessionId);
    const rules = await this.rulesService.effective(spec.agentId, chat && (await this.rulesService.sessionExists(chat)) ? chat : null);
    const releaseRoots = () => void (held instanceof PinnedRoots ? held.close() : undefined);
    let row;
    try {
      row = await this.store.createBatch({
        agentId: spec.agentId,
        parentBatchId: spec.parentBatchId ?? null,
        sessionId: sessionKey(spec.sessionId),
        crewRole: spec.crewRole,
        sessionCwd: spec.sessionCwd ?? null,
        workspaceRoots: spec.workspaceRoots ?? [],
        shellPermitted: !!spec.shellPermitted,
        writePermitted: !!spec.writePermitted,
        policy: diag.policy,
        routes,
        driver: spec.driver,
      });
    } catch (err) {
      releaseRoots();
      throw err;
    }
    const id = row.id;
    const live = new LiveBatch();
    this.live.add(id, live);
    live.push({ type: 'batch', data: batchView(row, []) });
    let ended: Promise<void> | null = null;
    // The batch's worker (its end is the batch's), and the workers that run calls beside it (calls of one
    // answer side by side: at most CONCURRENT_CALLS_MAX workers, one call at a time each, one sequence of
    // call numbers). Those end with the batch.
    const seq = { value: 0 };
    // each connection of its sandboxes: on the batch's live stream, in the log, stored with the batch and
    // its chat session (stored before the call's result is)
    const netWrites = new Set<Promise<unknown>>();
    const network = runNetHooks({
      decisions: this.netDecisions,
      owner: { sessionId: chat, batchId: id },
      ask: netAsk,
      askless: 'no one can approve it: this batch was started from the console, not from a chat, and has no user to ask',
      writes: netWrites,
      also: r => {
        live.push({ type: 'net', data: r });
        log().info(`[net] batch ${id}: ${r.method} ${r.host}:${r.port} ${r.outcome}: ${r.detail}`);
      },
    });
    const extras = new Set<WorkerHost>();
    const idle: WorkerHost[] = [];
    const waiting: Array<(h: WorkerHost) => void> = [];
    const newHost = (primary: boolean): WorkerHost =>
      new WorkerHost({
        batchId: id,
        agentId: spec.agentId,
        policy: workerPolicy,
        routes,
        rules,
        driver: spec.driver,
        timeoutMs: spec.timeoutMs ?? BATCH_TIMEOUT_DEFAULT_MS,
        env: this.workers.runtime,
        ops: this.workers.operations(),
        services: this.workers.services({ batchId: id }, async () => [...agent.skills]),
        test,
        pins: async () => {
          if (held instanceof Error) throw held;
          return held;
        },
        seq,
        network,
        onEvent: (e: HostEvent) => {
          if (!primary && e.type === 'ended') return;
          switch (e.type) {
            case 'call':
              live.push({ type: 'call', data: { seq: e.seq, name: e.name, arguments: e.arguments } });
              return;
            case 'result':
              void live.writes.run(() => this.store.storeCall(id, null, e.record)).catch(err => this.writeFailed(id, err));
              live.push({ type: 'result', data: eventCall(e.record) });
              return;
            case 'proxy':
              live.push({ type: 'proxy', data: { seq: e.seq, name: e.name, decision: e.decision, reason: e.reason } });
              return;
            case 'proxy-denied':
              void live.writes.run(() => this.store.storeCall(id, null, e.record)).catch(err => this.writeFailed(id, err));
              live.push({ type: 'proxy-denied', data: eventCall(e.record) });
              return;
            case 'worker-event':
              live.push({ type: 'worker-event', data: { name: e.name, data: e.data } });
              return;
            case 'ended':
              for (const extra of extras) void extra.kill(`the batch ended (${e.status})`).catch(() => undefined);
              ended = live.writes
                .run(() => this.store.endBatch(id, e.status, e.error))
                .catch(err => this.writeFailed(id, err))
                .then(() => {
                  live.push({ type: 'done', data: { id, status: e.status, error: e.error } });
                  this.live.delete(id);
                });
              return;
            default:
              return;
          }
        },
      });
    const host = newHost(true);
    // the held roots are closed when the batch's own worker ends (the extra workers end with it)
    void host.ended$().then(releaseRoots);
    idle.push(host);
    /** A worker for the next call: a free one, else a new one beside the others, else the first to be free. */
    const acquire = async (): Promise<WorkerHost> => {
      for (let h = idle.pop(); h; h = idle.pop()) {
        if (!h.status) return h;
        extras.delete(h);
      }
      // the batch is over (its calls say so), or the extra worker's start is not worth it
      if (host.status) return host;
      if (extras.size + 1 < CONCURRENT_CALLS_MAX) {
        const extra = newHost(false);
        extras.add(extra);
        try {
          await extra.start();
          if (!extra.status && !host.status) return extra;
        } catch {
          /* it could not start: the call waits for the batch's own worker */
        }
        extras.delete(extra);
        await extra.kill('not needed').catch(() => undefined);
        return host;
      }
      return new Promise(resolve => waiting.push(resolve));
    };
    const release = (h: WorkerHost): void => {
      const next = waiting.shift();
      if (next) next(h.status ? host : h);
      else idle.push(h);
    };
    const callOn = async (name: string, args: unknown): Promise<CallRecord> => {
      const h = await acquire();
      try {
        const r = await h.call(name, args);
        while (netWrites.size > 0) await Promise.all([...netWrites]);
        return r;
      } finally {
        release(h);
      }
    };
    const settle = async (): Promise<BatchRecord> => {
      await host.ended$();
      while (!ended) await new Promise(r => setImmediate(r));
      await ended;
      return this.store.record(id);
    };
    try {
      await host.start();
    } catch {
      // The worker could not start: the batch is already stored `failed` with the error.
    }
    return {
      id,
      policy: workerPolicy,
      routes,
      rules,
      offered: diag.offered,
      run,
      call: (name, args) => {
        const r = callOn(name, args);
        // a call rejected while nobody awaits it yet (the batch killed first) is its caller's to see, not unhandled
        r.catch(() => undefined);
        return r;
      },
      record: async call => {
        const record = { seq: host.reserveSeq(), ...call } as CallRecord;
        live.push({ type: 'result', data: eventCall(record) });
        await live.writes.run(() => this.store.storeCall(id, null, record));
        return record;
      },
      finish: async () => {
        await Promise.all([...extras].map(h => h.finish().catch(() => undefined)));
        await host.finish();
        return settle();
      },
      kill: async reason => {
        await Promise.all([...extras].map(h => h.kill(reason).catch(() => undefined)));
        await host.kill(reason);
        return settle();
      },
      events: { subscribe: listener => live.subscribe(listener) },
    };
  }

  private writeFailed(id: number, err: unknown): void {
    log().error(`[netaclaw] batch ${id}: cannot store: ${errorStack(err)}`);
  }
}
