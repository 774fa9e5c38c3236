/** The main agent's tools for a session's turn: the turn's confined workers, and the calls they run and record. */
import { Inject, Provide, Scope, ScopeEnum } from '@midwayjs/core';
import type { RulesInput, ToolRuntimeRoute } from '@netaclaw/tool-policy';
import { invalidInput } from '../../wire/errors';
import { errorMessage, errorStack } from '../../lib/errortext';
import { log } from '../../config/log';
import { NET_RECORDS_MAX } from '../../config/settings';
import { DECISIONS, RUNTIME_REASONS } from '../../runtime/codes';
import { checkCall } from '../../runtime';
import { CallRecord, HostEvent, HostTestOptions, WorkerHost } from '../../runtime';
import { CONCURRENT_CALLS_MAX, MAIN_CALL_TIMEOUT_MS, SESSION_WORKER_MAX_MS } from '../../runtime/limits';
import { PinnedRoots } from '../../runtime';
import type { WorkerPolicyWire } from '../../runtime';
import { AgentService } from '../../service/agent';
import { SubagentService, sessionKey } from '../../service/subagent';
import { parseId, requireObject } from '../../wire/validate';
import { holdRoots, WorkerServices } from './services';
import { NetDecisionService } from '../../service/netdecision';
import type { NetAnswer, NetHooks, NetQuestion, NetRecord } from '../../runtime';

/** Who answers the `net()` asks of a run's sandboxes: the user of the chat turn that runs it. */
export type NetAsker = (q: NetQuestion) => Promise<NetAnswer>;

/**
 * The network hooks of a run's workers: each decision stored (`netaclaw_net_decision`; `writes` holds
 * the stores in flight) and handed to `also`; an `ask` put to `ask`, or — with no one to ask —
 * refused with `askless`. Past NET_RECORDS_MAX decisions (`max`) the run's further ones are neither
 * stored nor handed on, only counted in the log (the first, then every NET_RECORDS_MAX-th).
 */
export function runNetHooks(o: {
  decisions: NetDecisionService;
  owner: { sessionId: number | null; batchId: number | null };
  ask?: NetAsker;
  askless: string;
  writes: Set<Promise<unknown>>;
  also?: (r: NetRecord) => void;
  max?: number;
}): NetHooks {
  const max = o.max ?? NET_RECORDS_MAX;
  let seen = 0;
  return {
    ...(o.ask ? { ask: o.ask } : { askless: o.askless }),
    record: r => {
      seen += 1;
      if (seen > max) {
        const over = seen - max;
        if (over === 1 || over % max === 0) {
          const who = o.owner.batchId !== null ? `batch ${o.owner.batchId}` : `session ${o.owner.sessionId}`;
          log().warn(
            `[netaclaw] ${who}: ${over} network decision(s) past the first ${max} of this run are not stored (the last: ${r.method} ${r.host}:${r.port} ${r.outcome})`
          );
        }
        return;
      }
      o.also?.(r);
      const w = o.decisions
        .record(o.owner, r)
        .catch(err => log().error(`[netaclaw] cannot store a network decision (${r.host}:${r.port} ${r.outcome}): ${errorStack(err)}`));
      o.writes.add(w);
      void w.then(() => o.writes.delete(w));
    },
  };
}

/** A chat session's id as a number (the key of a console batch that names no chat session: null). */
export function chatSessionId(key: string | number | null | undefined): number | null {
  return /^[1-9]\d{0,15}$/.test(String(key ?? '')) ? Number(key) : null;
}

function checkPolicy(v: unknown, field: string): WorkerPolicyWire {
  const o = requireObject(v, field);
  if (!Array.isArray(o.workspaceRoots) || o.workspaceRoots.some(r => typeof r !== 'string')) {
    throw invalidInput(`${field}.workspaceRoots must be an array of strings`);
  }
  if (typeof o.allowShell !== 'boolean') throw invalidInput(`${field}.allowShell must be a boolean`);
  if (typeof o.readonly !== 'boolean') throw invalidInput(`${field}.readonly must be a boolean`);
  return { workspaceRoots: [...(o.workspaceRoots as string[])], allowShell: o.allowShell, readonly: o.readonly };
}

/** What a session's tools are opened with: the session, its run's policy and routes, its rules. */
export interface SessionToolsInput {
  agentId: number;
  sessionId: string | number;
  policy: WorkerPolicyWire;
  routes: ToolRuntimeRoute[];
  /** The session's rules (global, agent, session levels and approvals). */
  rules?: RulesInput | null;
  signal?: AbortSignal;
  test?: HostTestOptions;
  /** Who answers the `net()` asks of its sandboxes (the turn's user); absent: no one, an ask is refused. */
  netAsk?: NetAsker;
}

@Provide()
@Scope(ScopeEnum.Singleton)
export class MainAgentTools {
  @Inject()
  store: SubagentService;

  @Inject()
  agentService: AgentService;

  @Inject()
  workers: WorkerServices;

  @Inject()
  netDecisions: NetDecisionService;

  /**
   * The main agent's tools for one turn of a session: its calls run in ONE confined worker of the session
   * (the batch worker's program, policy and routes, `WorkerHost`'s permission flags and sandbox), started at
   * the first call and ended by `close` (the turn's end), by `signal` (a cancelled turn: the call in progress
   * is killed) or by a fault (the call fails; the next call starts a new worker). The worker decides each
   * call with the gate: `worker-local` tools run there, `main-process-proxy` ones come back to this process,
   * which decides them again (L4) and runs them; denied ones are denied. Each call is recorded with the
   * session id and where it really ran. `test`: the host's test-only switches (no request can set them).
   */
  openSessionTools(input: SessionToolsInput): SessionTools {
    const agentId = parseId(input.agentId, 'agentId');
    const sessionId = sessionKey(input.sessionId);
    if (sessionId === null) throw invalidInput('sessionId must be given');
    const pol = checkPolicy(input.policy, 'policy');
    if (!Array.isArray(input.routes)) throw invalidInput('routes must be an array');
    const rules = input.rules ? structuredClone(input.rules) : null;
    // each connection of its sandboxes stored with the session (stored before the call's result is)
    const writes = new Set<Promise<unknown>>();
    const network = runNetHooks({
      decisions: this.netDecisions,
      owner: { sessionId: chatSessionId(sessionId), batchId: null },
      ask: input.netAsk,
      askless: 'no one can approve it here',
      writes,
    });
    return new SessionWorker({
      flush: async () => {
        while (writes.size > 0) await Promise.all([...writes]);
      },
      sessionId,
      policy: pol,
      routes: structuredClone(input.routes),
      rules,
      signal: input.signal,
      pins: () => holdRoots(pol.workspaceRoots, this.workers.runtime),
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
          env: this.workers.runtime,
          ops: this.workers.operations(),
          services: this.workers.services({ sessionId }, async () => (await this.agentService.agentFromRequest({ agentId }, 'agentId', false)).skills),
          test: input.test,
          network,
        }),
      record: call => this.store.recordSessionCall(sessionId, call),
    });
  }

  /** One call of a session's main agent in a worker of its own (started and ended for this call). */
  async runMainTool(input: SessionToolsInput & { name: string; args: unknown }): Promise<CallRecord> {
    if (typeof input.name !== 'string' || input.name === '') throw invalidInput('name must be a non-empty string');
    const tools = this.openSessionTools(input);
    try {
      return await tools.call(input.name, input.args);
    } finally {
      await tools.close();
    }
  }
}

/** The main agent's tools for one turn (`MainAgentTools.openSessionTools`). */
export interface SessionTools {
  /** Runs one call in the session's worker and records it with the session; never throws for the call's own failure. */
  call(name: string, args: unknown): Promise<CallRecord>;
  /** Ends the worker (once the call in progress is done). */
  close(): Promise<void>;
}

interface SessionWorkerOptions {
  sessionId: string;
  /** The turn's roots held open (checked once; pinned.ts). */
  pins(): Promise<PinnedRoots>;
  /** The session's policy and routes (this process's copy): where a call whose worker failed belongs. */
  policy: WorkerPolicyWire;
  routes: ToolRuntimeRoute[];
  rules: RulesInput | null;
  signal?: AbortSignal;
  /** A new worker host of the session, not started. */
  host(opts: { onEvent: (e: HostEvent) => void; pins: () => Promise<PinnedRoots> }): WorkerHost;
  record(call: Omit<CallRecord, 'seq'>): Promise<CallRecord>;
  /** Waits for the network decisions in flight to be stored. */
  flush(): Promise<void>;
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
    await this.o.flush();
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
