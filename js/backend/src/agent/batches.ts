import { Inject, Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { invalidInput } from '../errors';
import { Mutex } from '../mutex';
import { CrewRole, DiagnosticInput, policy } from '../policy';
import { CallRecord, HostEvent, HostTestOptions, WorkerHost } from '../runtime/host';
import { BATCH_EVENTS_MAX_BYTES, BATCH_TIMEOUT_DEFAULT_MS, CONCURRENT_CALLS_MAX, MAIN_CALL_TIMEOUT_MS, SESSION_WORKER_MAX_MS } from '../runtime/limits';
import { NodeFileSystemOperations } from '../runtime/operations/fs';
import { ShellProcessOperations } from '../runtime/operations/process';
import { NodeSearchOperations } from '../runtime/operations/search';
import type { Operations } from '../runtime/operations/types';
import type { Driver, WorkerPolicyWire } from '../runtime/protocol';
import { checkCall } from '../runtime/gate';
import { APPROVAL_REQUIRED, DECISIONS, RUNTIME_REASONS } from '../runtime/codes';
import { shellSandbox } from '../runtime/sandbox';
import type { MainServices } from '../runtime/tools/types';
import { SKILLS_DIR } from '../settings';
import { assertHeldRootClear, assertRootsClear } from '../backendstate';
import { AppError } from '../errors';
import { PinnedRoots, pinRoots } from '../runtime/pinned';
import { confinement } from '../runtime/confine';
import { parseId, requireObject } from '../validate';
import { AgentService, sessionFields } from '../service/agent';
import { ValidateService } from '@midwayjs/validate';
import { checkedBy } from '../dto/check';
import { IdQueryDTO } from '../dto/query';
import { BatchSpecDTO, SubagentRunDTO } from '../dto/subagent';
import { MemoryService } from '../service/memory';
import { TodoService } from '../service/todo';
import { EscalationService } from '../service/escalation';
import { BatchEvent, BatchRecord, SubagentService, batchView, eventCall, sessionKey } from '../service/subagent';
import type { RuntimeDiagnostic } from '../policy';
import type { RulesInput } from '@netaclaw/tool-policy';
import { RulesService } from '../service/rules';
import { errorMessage, errorStack } from '../errortext';
import { log } from '../log';
import { assertWorkdirUsable } from '../runtime/workdir';

export type { CallRecord } from '../runtime/host';
export type { BatchEvent, BatchRecord, StoredCall } from '../service/subagent';

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

export interface BatchHandle {
  id: number;
  policy: WorkerPolicyWire;
  routes: unknown[];
  /** The rules its calls are decided with: the global ones, its agent's, its chat session's and their approvals. */
  rules: RulesInput;
  /** The tools whose route in this batch can run: what its model is offered. */
  offered: string[];
  /** What the batch's diagnostic resolved for its prompt: the tools' prompt hints and the builtin tools a skill may use. */
  resolved: Pick<RuntimeDiagnostic['resolved'], 'toolPromptHints' | 'builtinToolNames'>;
  call(name: string, args: unknown): Promise<CallRecord>;
  /** Stores a call of this batch decided before it reached the worker (by the call port). */
  record(call: Omit<CallRecord, 'seq'>): Promise<CallRecord>;
  finish(): Promise<BatchRecord>;
  kill(reason: string): Promise<BatchRecord>;
  events: { subscribe(listener: (e: BatchEvent) => void): () => void };
}

/**
 * The live part of a running batch: its events so far (for a late subscriber: at most 5,000 and
 * BATCH_EVENTS_MAX_BYTES of JSON; later ones still reach the listeners, and are stored calls anyway) and
 * who listens.
 */
export class LiveBatch {
  readonly events: BatchEvent[] = [];
  readonly listeners = new Set<(e: BatchEvent) => void>();
  /** Database writes of this batch, in order. */
  readonly writes = new Mutex();
  private bytes = 0;

  push(e: BatchEvent): void {
    let size: number;
    try {
      size = Buffer.byteLength(JSON.stringify(e) ?? '', 'utf8');
    } catch {
      size = Infinity;
    }
    if (this.events.length < 5000 && this.bytes + size <= BATCH_EVENTS_MAX_BYTES) {
      this.events.push(e);
      this.bytes += size;
    }
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        /* a listener's failure is its own */
      }
    }
  }

  subscribe(listener: (e: BatchEvent) => void): () => void {
    for (const e of this.events) listener(e);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

const DRIVERS = ['model', 'calls'] as const;

function checkPolicy(v: unknown, field: string): WorkerPolicyWire {
  const o = requireObject(v, field);
  if (!Array.isArray(o.workspaceRoots) || o.workspaceRoots.some(r => typeof r !== 'string')) {
    throw invalidInput(`${field}.workspaceRoots must be an array of strings`);
  }
  if (typeof o.allowShell !== 'boolean') throw invalidInput(`${field}.allowShell must be a boolean`);
  if (typeof o.readonly !== 'boolean') throw invalidInput(`${field}.readonly must be a boolean`);
  return { workspaceRoots: [...(o.workspaceRoots as string[])], allowShell: o.allowShell, readonly: o.readonly };
}

/**
 * Where tools run (RUNTIME §5): sub-agent batches — each a confined worker with its policy and routes —
 * and the main agent's session workers. The agent loop uses `start` (then the handle's
 * `call`/`finish`/`kill`) and `openSessionTools`; the admin API uses `run` and `subscribe`. What they
 * store goes through `SubagentService`.
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class BatchRunner {
  @Inject()
  store: SubagentService;

  @Inject()
  agentService: AgentService;

  @Inject()
  memoryService: MemoryService;

  @Inject()
  todoService: TodoService;

  @Inject()
  escalationService: EscalationService;

  @Inject()
  validateService: ValidateService;

  @Inject()
  rulesService: RulesService;

  private readonly live = new Map<number, LiveBatch>();

  private operations(): Operations {
    return {
      fs: new NodeFileSystemOperations(),
      search: new NodeSearchOperations(),
      process: new ShellProcessOperations(shellSandbox().mode),
    };
  }

  /** `boundSkills`: the agent's skills (a batch reads them at its start, the main agent at each call). */
  private services(todoOwner: { sessionId?: string | null; batchId?: number | null }, boundSkills: () => Promise<readonly string[]>): MainServices {
    return {
      memory: this.memoryService,
      skillsDir: SKILLS_DIR,
      boundSkills,
      todos: { set: items => this.todoService.set(todoOwner, items) },
      escalations: {
        record: async (agentId, reason) => {
          // a sub-agent's escalation belongs to its batch and to the batch's chat session, if any
          const sessionId =
            todoOwner.batchId == null ? (todoOwner.sessionId ?? null) : ((await this.store.batches.findOneBy({ id: todoOwner.batchId }))?.sessionId ?? null);
          return this.escalationService.record({ sessionId, batchId: todoOwner.batchId ?? null }, agentId, reason);
        },
      },
    };
  }

  /**
   * Checks a spec (400 naming the field): its shape by BatchSpecDTO — the same class whether the spec
   * comes from an admin run or from a delegation of the executor — then the role (the package's
   * vocabulary) and the driver.
   */
  parseSpec(input: unknown): BatchSpec {
    const o = checkedBy(this.validateService, BatchSpecDTO, requireObject(input, 'spec'));
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

  /**
   * Computes the batch's policy and routes, starts its worker, stores it `running`. `test`: the host's
   * test-only switches (a test's own worker program); no request can set them.
   */
  async start(input: BatchSpec, test?: HostTestOptions): Promise<BatchHandle> {
    const spec = this.parseSpec(input);
    const agent = await this.agentService.agentFromRequest({ agentId: spec.agentId }, 'agentId', false);
    const d: DiagnosticInput = { ...(await this.agentService.resolverInput(agent)), crewRole: spec.crewRole };
    // the tools the batch asks for, within the agent's own sub-agent selection
    d.subagentTools = this.agentService.subagentSelection(agent, spec.subagentTools);
    const { sessionCwd, workspaceRoots, shellPermitted, writePermitted } = spec;
    for (const [k, v] of Object.entries({ sessionCwd, workspaceRoots, shellPermitted, writePermitted })) {
      if (v !== undefined) (d as Record<string, unknown>)[k] = v;
    }
    if (spec.parent) (d as DiagnosticInput & { parent?: unknown }).parent = spec.parent;
    const diag = policy().runtimeDiagnostic(d);
    await assertRootsClear(diag.policy.workspaceRoots);
    // Each root resolved, checked and held open once for the whole batch (runtime/pinned.ts): the
    // backend-state check again on where the held folder really is (a refusal stores nothing); a root
    // that cannot be held (missing, unreadable, swapped meanwhile) fails the batch when its worker starts.
    let held: PinnedRoots | Error;
    try {
      held = await holdRoots(diag.policy.workspaceRoots);
    } catch (err) {
      if (err instanceof AppError) throw err;
      held = err instanceof Error ? err : new Error(errorMessage(err));
    }
    const workerPolicy: WorkerPolicyWire = {
      workspaceRoots: diag.policy.workspaceRoots,
      allowShell: diag.policy.allowShell,
      readonly: diag.policy.readonly,
    };
    const routes = diag.routes as unknown[];
    // the rules of its agent, and of the chat session it belongs to (a key that names none: no session level)
    const chat = /^[1-9]\d{0,15}$/.test(String(spec.sessionId ?? '')) ? Number(spec.sessionId) : null;
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
    this.live.set(id, live);
    live.push({ type: 'batch', data: batchView(row, []) });
    let ended: Promise<void> | null = null;
    // The batch's worker (its end is the batch's), and the workers that run calls beside it (calls of one
    // answer side by side: at most CONCURRENT_CALLS_MAX workers, one call at a time each, one sequence of
    // call numbers). Those end with the batch.
    const seq = { value: 0 };
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
        shell: shellSandbox().mode,
        ops: this.operations(),
        services: this.services({ batchId: id }, async () => [...agent.skills]),
        test,
        pins: async () => {
          if (held instanceof Error) throw held;
          return held;
        },
        seq,
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
        return await h.call(name, args);
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
      resolved: { toolPromptHints: diag.resolved.toolPromptHints, builtinToolNames: diag.resolved.builtinToolNames },
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

  /** POST /subagent/run: a fresh worker runs the calls in order; answers the finished batch. */
  async run(body: SubagentRunDTO) {
    const calls = body.calls.map(c => ({ name: c.name, arguments: c.arguments === undefined ? {} : c.arguments }));
    const spec = this.parseSpec({ ...body, calls: undefined, crewRole: 'sub', driver: 'calls' });
    // the batch's folder must be one its sandbox can use (400 workdir_*, nothing stored)
    assertWorkdirUsable(body);
    const handle = await this.start(spec);
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

  /**
   * The main agent's tools for one turn of a session: its calls run in ONE confined worker of the session
   * (the batch worker's program, policy and routes, `WorkerHost`'s permission flags and sandbox), started at
   * the first call and ended by `close` (the turn's end), by `signal` (a cancelled turn: the call in progress
   * is killed) or by a fault (the call fails; the next call starts a new worker). The worker decides each
   * call with the gate: `worker-local` tools run there, `main-process-proxy` ones come back to this process,
   * which decides them again (L4) and runs them; denied ones are denied. Each call is recorded with the
   * session id and where it really ran. `test`: the host's test-only switches (no request can set them).
   */
  openSessionTools(input: {
    agentId: number;
    sessionId: string | number;
    policy: WorkerPolicyWire;
    routes: unknown[];
    /** The session's rules (global, agent, session levels and approvals). */
    rules?: RulesInput | null;
    signal?: AbortSignal;
    test?: HostTestOptions;
  }): SessionTools {
    const agentId = parseId(input.agentId, 'agentId');
    const sessionId = sessionKey(input.sessionId);
    if (sessionId === null) throw invalidInput('sessionId must be given');
    const pol = checkPolicy(input.policy, 'policy');
    if (!Array.isArray(input.routes)) throw invalidInput('routes must be an array');
    const rules = input.rules ? structuredClone(input.rules) : null;
    return new SessionWorker({
      sessionId,
      policy: pol,
      routes: structuredClone(input.routes),
      rules,
      signal: input.signal,
      pins: () => holdRoots(pol.workspaceRoots),
      host: opts =>
        new WorkerHost({
          ...opts,
          batchId: 0,
          agentId,
          policy: pol,
          routes: structuredClone(input.routes),
          rules,
          driver: 'calls',
          timeoutMs: SESSION_WORKER_MAX_MS,
          shell: shellSandbox().mode,
          ops: this.operations(),
          services: this.services({ sessionId }, async () => (await this.agentService.agentFromRequest({ agentId }, 'agentId', false)).skills),
          test: input.test,
        }),
      record: call => this.store.recordSessionCall(sessionId, call),
    });
  }

  /** One call of a session's main agent in a worker of its own (started and ended for this call). */
  async runMainTool(input: {
    agentId: number;
    sessionId: string | number;
    policy: WorkerPolicyWire;
    routes: unknown[];
    name: string;
    args: unknown;
    rules?: RulesInput | null;
  }): Promise<CallRecord> {
    if (typeof input.name !== 'string' || input.name === '') throw invalidInput('name must be a non-empty string');
    const tools = this.openSessionTools(input);
    try {
      return await tools.call(input.name, input.args);
    } finally {
      await tools.close();
    }
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

/** The main agent's tools for one turn (`BatchRunner.openSessionTools`). */
export interface SessionTools {
  /** Runs one call in the session's worker and records it with the session; never throws for the call's own failure. */
  call(name: string, args: unknown): Promise<CallRecord>;
  /** Ends the worker (once the call in progress is done). */
  close(): Promise<void>;
}

/**
 * The roots of a batch or a session's turn, held open once (runtime/pinned.ts), with the backend-state
 * check on where each held folder really is, and, when sandboxes run as another user, that user's access.
 */
async function holdRoots(roots: readonly string[]): Promise<PinnedRoots> {
  const c = shellSandbox().mode === 'bwrap' ? confinement() : null;
  // (a sandbox run as the backend's own user keeps its groups: what the backend opened, it can read)
  return pinRoots(roots, { check: assertHeldRootClear, ...(c?.identity.switchUser ? { sandboxUser: c.identity } : {}) });
}

interface SessionWorkerOptions {
  sessionId: string;
  /** The turn's roots held open (checked once; pinned.ts). */
  pins(): Promise<PinnedRoots>;
  /** The session's policy and routes (this process's copy): where a call whose worker failed belongs. */
  policy: WorkerPolicyWire;
  routes: unknown[];
  rules: RulesInput | null;
  signal?: AbortSignal;
  /** A new worker host of the session, not started. */
  host(opts: { onEvent: (e: HostEvent) => void; pins: () => Promise<PinnedRoots> }): WorkerHost;
  record(call: Omit<CallRecord, 'seq'>): Promise<CallRecord>;
}

/**
 * A session turn's workers: the first started at the first call and kept for the next calls; a call that
 * comes while every worker of the turn is busy (calls of one answer run side by side) gets a new worker,
 * up to CONCURRENT_CALLS_MAX (beyond, it waits for a free one). Each worker runs one call at a time; all
 * end with the turn.
 */
class SessionWorker implements SessionTools {
  /** The turn's live workers, and those of them waiting for a call. */
  private readonly hosts = new Set<WorkerHost>();
  private readonly idle: WorkerHost[] = [];
  /** Per worker, the host's number of the call in progress (a proxy request for another call is a forgery). */
  private readonly current = new Map<WorkerHost, number>();
  /** Calls waiting for a place (all places taken), first come first served. */
  private readonly queue: Array<() => void> = [];
  private running = 0;
  private closed = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly onAbort = () => {
    for (const host of this.hosts) void host.kill('the turn was cancelled').catch(() => undefined);
  };
  /** The turn's held roots: pinned at its first worker, reused by every worker of the turn and by a restart (pinned again after a failure). */
  private held: Promise<PinnedRoots> | null = null;

  constructor(private readonly o: SessionWorkerOptions) {
    o.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  call(name: string, args: unknown): Promise<CallRecord> {
    const r = this.slot().then(() => this.run(name, args).finally(() => this.release()));
    const settled = r.catch(() => undefined);
    this.inFlight.add(settled);
    void settled.then(() => this.inFlight.delete(settled));
    return r;
  }

  /** Waits for one of the turn's CONCURRENT_CALLS_MAX places. */
  private slot(): Promise<void> {
    if (this.running < CONCURRENT_CALLS_MAX) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise(resolve => this.queue.push(resolve));
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.running--;
  }

  private onEvent(host: WorkerHost, e: HostEvent): void {
    if (e.type === 'call') this.current.set(host, e.seq);
    // L4 refused a proxy request that is not the call in progress: recorded with the session, as a
    // batch records it (the call in progress is recorded with its own answer).
    if (e.type === 'proxy-denied' && e.record.seq !== this.current.get(host)) {
      const { seq: _seq, ...call } = e.record;
      void _seq;
      void this.o.record(call).catch(err => log().error(`[netaclaw] session ${this.o.sessionId}: cannot store: ${errorStack(err)}`));
    }
  }

  /** A running worker that waits for a call, or a new one (the first call, a busy or failed worker). */
  private async worker(): Promise<WorkerHost> {
    for (let host = this.idle.pop(); host; host = this.idle.pop()) {
      if (!host.status) return host;
      this.hosts.delete(host);
    }
    const host: WorkerHost = this.o.host({ onEvent: e => this.onEvent(host, e), pins: () => this.pins() });
    this.hosts.add(host);
    try {
      await host.start();
    } catch (err) {
      this.hosts.delete(host);
      const why = host.status?.error ?? errorMessage(err);
      await host.kill('the worker could not start').catch(() => undefined);
      throw new Error(why);
    }
    return host;
  }

  private pins(): Promise<PinnedRoots> {
    if (!this.held) {
      const p = this.o.pins();
      this.held = p;
      p.catch(() => {
        if (this.held === p) this.held = null;
      });
    }
    return this.held;
  }

  private async run(name: string, args: unknown): Promise<CallRecord> {
    if (this.closed) throw new Error('the turn is over: its tools no longer run');
    if (this.o.signal?.aborted) throw new Error('cancelled');
    const started = Date.now();
    let outcome: Omit<CallRecord, 'seq' | 'name' | 'arguments'>;
    let timer: NodeJS.Timeout | null = null;
    let host: WorkerHost | null = null;
    try {
      host = await this.worker();
      const h = host;
      timer = setTimeout(() => void h.kill(`the call ran past its time limit of ${MAIN_CALL_TIMEOUT_MS} ms: its worker was killed`), MAIN_CALL_TIMEOUT_MS);
      const { seq: _seq, name: _name, arguments: _args, ...rest } = await host.call(name, args);
      void _seq;
      void _name;
      void _args;
      outcome = rest;
    } catch (err) {
      // The worker could not start, or ended during the call (a crash, the time limit, a cancelled turn):
      // the call fails, with the place the session's routes give it.
      const ended = host?.status?.error;
      outcome = {
        ...this.routePlace(name, args),
        ok: false,
        error: `the tool worker stopped: ${ended ?? errorMessage(err)}`,
        durationMs: Date.now() - started,
      };
    } finally {
      if (timer) clearTimeout(timer);
      if (host && !host.status) this.idle.push(host);
      else if (host) this.hosts.delete(host);
    }
    const record = await this.o.record({ name, arguments: args, ...outcome });
    if (this.o.signal?.aborted) throw new Error('cancelled');
    return record;
  }

  /** Where the session's routes put a call (the package's gate on this process's copy), for a call whose worker failed. */
  private routePlace(name: string, args: unknown): Pick<CallRecord, 'decision' | 'reason' | 'detail' | 'rule'> {
    try {
      const g = checkCall({ policy: this.o.policy, routes: this.o.routes, rules: this.o.rules, asks: 'approved', name, arguments: args });
      return { decision: g.decision, reason: g.reason, detail: g.detail, ...(g.rule ? { rule: g.rule } : {}) };
    } catch (err) {
      return { decision: DECISIONS.denied, reason: RUNTIME_REASONS.invalidArguments, detail: `gate error: ${errorMessage(err)}` };
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.o.signal?.removeEventListener('abort', this.onAbort);
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    await Promise.all(
      [...this.hosts].map(async host => {
        if (host.status) return;
        if (this.o.signal?.aborted) await host.kill('the turn was cancelled');
        else await host.finish();
      })
    );
    const held = this.held;
    this.held = null;
    if (held) await held.then(p => p.close()).catch(() => undefined);
  }
}
