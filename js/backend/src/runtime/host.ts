/**
 * The main process's side of a batch (L4): starts the worker under its permission flags, sends it calls
 * one at a time, answers its `proxy` requests after deciding them again with the gate against the host's
 * OWN copy of the policy and routes (and the same symlink check), and kills the worker on the batch time
 * limit, a crash, a protocol violation or a flood. Nothing a worker sends can throw in the main process.
 */
import type { RulesInput, ToolRuntimeRoute } from '@netaclaw/tool-policy';
import { ChildProcess, fork, spawn } from 'child_process';
import * as path from 'path';
import * as fs from 'fs';
import * as os from 'os';
import {
  FD_CHECKS_PER_SECOND,
  IPC_BYTES_PER_SECOND,
  IPC_MESSAGE_MAX_BYTES,
  IPC_MESSAGES_PER_SECOND,
  OUTPUT_MAX_BYTES,
  WORKER_HEAP_MAX_MB,
  WORKER_STDIO_MAX_BYTES,
  cutText,
} from './limits';
import type { Operations } from './operations/types';
import { CallOutcome, Driver, message, Message, parseFor, ProxyMessage, ResultMessage, WorkerLayers, WorkerPolicyWire } from './protocol';
import { codeReadPaths, permissionFlags } from './permissions';
import { runHere, RunnerContext } from './runner';
import { checkCallText, GateResult } from './gate';
import { closeQuietly, ROOT_FD_FIRST } from './sandbox';
import type { RuntimeEnv } from './env';
import { PinnedRoots, pinnedOperations, pinRoots } from './pinned';
import { PathRulesPlan, pathRulesPlan, unreadableFile } from './pathrules';
import { isInside } from './realpath';
import type { SandboxLimits } from './cgroups';
import { watchDisk } from './diskwatch';
import type { MainServices } from './tools/types';
import { DECISIONS, RUNTIME_REASONS } from './codes';
import { activeCatalog } from '../wire/policy';
import { NetHooks, NetNote, refusalNote } from './net/proxy';
import { log } from '../config/log';
import { openSandboxNet, SandboxNet } from './net/sandbox';
import { errorMessage } from '../lib/errortext';

export interface CallRecord extends CallOutcome {
  seq: number;
  name: string;
  arguments: unknown;
  /** The connections of the sandbox network refused during the call (their notes end its output or error). */
  network?: NetNote[];
}

export type HostEvent =
  | { type: 'started'; pid: number }
  | { type: 'call'; seq: number; name: string; arguments: unknown }
  | { type: 'result'; record: CallRecord }
  | { type: 'proxy'; seq: number; name: string; decision: string; reason: string | null }
  | { type: 'proxy-denied'; record: CallRecord }
  | { type: 'worker-event'; name: string; data?: unknown }
  | { type: 'stderr'; text: string }
  | { type: 'ended'; status: 'completed' | 'failed' | 'killed'; error: string | null };

/** Test-only switches. Never set from a request or the environment. */
export interface HostTestOptions {
  /** Start the worker without Node's permission flags (to show another layer alone). */
  permission?: boolean;
  /** Worker-side layers. */
  gate?: boolean;
  hostCheck?: boolean;
  /** Another worker program (a fixture that misbehaves). */
  workerModule?: string;
}

export interface HostOptions {
  batchId: number;
  agentId: number | null;
  policy: WorkerPolicyWire;
  routes: ToolRuntimeRoute[];
  /**
   * The session's rules (docs/package.md "Rules"); absent or null: none. Their path rules are enforced in
   * the worker's sandbox and in every shell the main process runs for it, too (pathrules.ts).
   */
  rules?: RulesInput | null;
  driver: Driver;
  timeoutMs: number;
  /**
   * The runtime it runs in: its sandbox (where the worker, and the shells the main process runs for it,
   * run) and its registry (the main process's handlers for proxied calls).
   */
  env: RuntimeEnv;
  /** Operations and services the main process uses for proxied calls. */
  ops: Operations;
  services: MainServices;
  onEvent?: (e: HostEvent) => void;
  test?: HostTestOptions;
  /**
   * The run's roots, resolved, checked and held open once (pinned.ts), for each worker the run starts
   * (a restart reuses them). Absent: the host pins the policy's roots itself, for its own life.
   */
  pins?: () => Promise<PinnedRoots>;
  /** The batch's call numbers, shared by the workers that serve one batch side by side (own numbers when absent). */
  seq?: { value: number };
  /** Who answers the rules' `net()` asks and keeps the decisions of the worker's sandbox (net/proxy.ts). */
  network?: NetHooks;
}

export class WorkerError extends Error {}

/** The name of signal number `n` (SIGKILL for 9), or null. */
function signalName(n: number): string | null {
  const found = Object.entries(os.constants.signals).find(([, v]) => v === n);
  return found ? found[0] : null;
}

/** JSON text of a value, or null when JSON cannot print it. */
function jsonText(v: unknown): string | null {
  try {
    const t: unknown = JSON.stringify(v);
    return typeof t === 'string' ? t : null;
  } catch {
    return null;
  }
}

/**
 * How many refused connections a call's result names (each host, port, reason and rule once): a loop of
 * refused connections does not grow the result; every one of them is still recorded (`NetHooks.record`).
 */
export const NET_NOTES_MAX = 20;

/** The refused connections of a call in progress: each distinct one once, at most NET_NOTES_MAX, and how many others. */
interface CallNetNotes {
  notes: NetNote[];
  seen: Set<string>;
  more: number;
}

function noteRefusal(p: Pending, note: NetNote): void {
  const n = (p.net ??= { notes: [], seen: new Set(), more: 0 });
  const key = JSON.stringify([note.host, note.port, note.why, note.rule, note.level]);
  if (n.seen.has(key)) return;
  if (n.notes.length >= NET_NOTES_MAX) {
    n.more += 1;
    return;
  }
  n.seen.add(key);
  n.notes.push(note);
}

/** The notes of the connections refused during a call, at the end of its output (or of its error). */
function withNetNotes(record: CallRecord, net: CallNetNotes | undefined): void {
  if (!net?.notes.length) return;
  record.network = net.notes;
  const lines = net.notes.map(n => n.text);
  if (net.more > 0) lines.push(`network: ${net.more} more refused connection(s), unlike those above, not listed here`);
  const text = lines.join('\n');
  if (record.ok || record.error === undefined) record.output = record.output ? `${record.output.replace(/\n$/, '')}\n${text}` : text;
  else record.error = `${record.error}\n${text}`;
}

const WORKER_MODULE = path.join(__dirname, 'worker', 'main.js');

type Pending = {
  seq: number;
  name: string;
  /** When the host sent the call (Date.now()): a call answered by the host lasts from here. */
  sentAt: number;
  /** The call's record; null when the batch ended first. */
  resolve: (r: CallRecord | null) => void;
  proxied?: boolean;
  /**
   * For a tool the host's routes send to the main process: the host's gate decision for this call, made
   * while the worker decides, with the arguments' JSON text it was made for (used only for a proxy request
   * with the same name and the same arguments).
   */
  early?: { text: string; gate: GateResult };
  /**
   * The arguments as the host sent them, and their JSON text: a proxied call runs exactly these, and a
   * proxy request whose arguments print otherwise breaks the protocol.
   */
  args: unknown;
  text: string | null;
  /** The connections of the sandbox network refused while it runs. */
  net?: CallNetNotes;
};

/** Why a worker did not start when a root moved while bwrap bound it (never a folder other than the held one). */
export const ROOT_MOVED =
  "a workspace root was moved or replaced while the worker's sandbox was being made (a sandbox binds only the folder checked when this run started): the worker did not start";

/** Why a worker did not start when an entry its path rules bind moved while bwrap bound it (pathrules.ts). */
export const PATH_MOVED =
  "a workspace root, or a path its rules keep read-only or hidden, was moved or replaced while the worker's sandbox was being made (a sandbox binds only what was checked when it started): the worker did not start";

/** The fields of a worker's result that must repeat the host's answer to its proxy request. */
const RELAYED = ['decision', 'reason', 'detail', 'ok', 'output', 'error'] as const;

export class WorkerHost {
  private child: ChildProcess | null = null;
  private seq = 0;
  private pending: Pending | null = null;
  /**
   * A call the host answered itself (its proxy request, run here): the worker still owes its `result`,
   * which must repeat the host's answer and come before anything about a later call.
   */
  private relay: { seq: number; outcome: CallOutcome } | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private ended: { status: 'completed' | 'failed' | 'killed'; error: string | null } | null = null;
  private endWaiters: Array<() => void> = [];
  private timer: NodeJS.Timeout | null = null;
  private stdioBytes = 0;
  /** The end of the worker's stderr, to say why it died. */
  private stderrTail = '';
  private windowStart = Date.now();
  private windowCount = 0;
  private windowBytes = 0;
  private fdWindowStart = Date.now();
  private fdWindowCount = 0;
  /** The worker's own pid on the host (inside its sandbox it is a descendant of bwrap), found once. */
  private workerPid: number | null = null;
  /** Whether the worker runs inside its confined bwrap sandbox. */
  private sandboxed = false;
  /** Its sandbox's kernel limits (cgroups.ts), released when the batch ends; the watch of its roots' disk use. */
  private sandboxLimits: SandboxLimits | null = null;
  private stopDiskWatch: (() => void) | null = null;
  private readonly main: RunnerContext;
  /** The tools the host's routes make `main-process-proxy` (the package's answer, read once). */
  private readonly proxied: ReadonlySet<string>;
  private readyResolve: (() => void) | null = null;
  /** The held roots; `ownPins`: pinned by this host (closed when it ends). */
  private pins: PinnedRoots | null = null;
  private ownPins = false;
  /** The path rules' mounts of the worker's sandbox (pathrules.ts), released once the worker has exited. */
  private pathPlan: PathRulesPlan | null = null;
  /** The network of the worker's sandbox (net/sandbox.ts), closed once the worker has exited. */
  private net: SandboxNet | null = null;

  constructor(private readonly opts: HostOptions) {
    // The host's own copy: deep-cloned so nothing the worker side holds can change it.
    this.main = {
      policy: structuredClone(opts.policy),
      routes: structuredClone(opts.routes),
      rules: opts.rules ? structuredClone(opts.rules) : null,
      ops: opts.ops,
      sandbox: opts.env.sandbox,
      tools: opts.env.tools.table('main'),
      agentId: opts.agentId,
      services: opts.services,
    };
    const routes = Array.isArray(this.main.routes) ? this.main.routes : [];
    this.proxied = new Set(routes.filter(r => r && r.route === DECISIONS.proxy && typeof r.name === 'string').map(r => r.name));
  }

  get status() {
    return this.ended;
  }

  private emit(e: HostEvent): void {
    try {
      this.opts.onEvent?.(e);
    } catch {
      /* a listener's failure is not the batch's */
    }
  }

  /**
   * The network hooks of the worker's sandbox and of the shells run for it: the run's own (`network`),
   * each question and record told the call in progress, and each connection refused during a call kept
   * for that call's result (the model reads it there).
   */
  private netHooks(): NetHooks {
    const outer = this.opts.network ?? {};
    const current = () => (this.pending ? { seq: this.pending.seq, name: this.pending.name } : undefined);
    return {
      ...outer,
      ...(outer.ask
        ? {
            ask: q => {
              const call = current();
              return outer.ask!({ ...q, ...(call ? { call } : {}) });
            },
          }
        : {}),
      record: r => {
        const p = this.pending;
        const rec = p ? { ...r, call: { seq: p.seq, name: p.name } } : r;
        if (p && r.outcome === 'refused') noteRefusal(p, refusalNote(r));
        if (outer.record) outer.record(rec);
        else log().info(`[net] batch ${this.opts.batchId}: ${r.method} ${r.host}:${r.port} ${r.outcome}: ${r.detail}`);
      },
    };
  }

  /** Starts the worker and waits for its `ready` event. */
  async start(): Promise<void> {
    const test = this.opts.test ?? {};
    let child: ChildProcess;
    try {
      const pins = await this.pinRoots();
      // a root whose path now leads elsewhere: no worker starts on it (the held one would be bound, but
      // the run is told rather than left to work on a folder its name no longer shows)
      const swapped = pins.swapped();
      if (swapped) throw new Error(swapped);
      this.main.ops = pinnedOperations(this.opts.ops, pins, this.opts.rules, this.netHooks());
      this.main.pins = pins;
      const execArgv = ['--disable-warning=ExperimentalWarning', `--max-old-space-size=${WORKER_HEAP_MAX_MB}`];
      const extraReads = test.workerModule ? [test.workerModule] : [];
      if (test.permission !== false) execArgv.push(...permissionFlags(this.opts.policy, extraReads));
      const module = test.workerModule ?? WORKER_MODULE;
      const env = { NODE_ENV: process.env.NODE_ENV ?? 'production' };
      const c = this.opts.env.sandbox.confinement;
      if (c) {
        // The worker runs inside its own confined sandbox (as the sandbox user, no network, seccomp):
        // Node's permission model (L2) is a second layer inside it.
        const node = fs.realpathSync(process.execPath);
        // the held roots go to bwrap on descriptors 5…, bound with --bind-fd (bwrap mounts the held inode or stops)
        const held = pins.childFds(ROOT_FD_FIRST);
        // the path rules' mounts (pathrules.ts): their descriptors follow the roots'; the worker's shells
        // are its children, in the same mounts
        const plan = this.opts.rules
          ? pathRulesPlan({
              rules: this.opts.rules,
              roots: pins.roots.map(r => ({ given: r.given, fd: r.fd })),
              readonly: this.opts.policy.readonly,
              firstSlot: ROOT_FD_FIRST + held.stdio.length,
              unreadable: unreadableFile(c.dir),
            })
          : null;
        this.pathPlan = plan;
        // the rules' net() hosts, through the sandbox's own proxy; its shells inherit the settings
        const net = (this.net = await openSandboxNet(this.opts.rules, this.netHooks(), c.dir));
        const cmd = this.opts.env.sandbox.wrapWorker({
          net,
          roots: this.opts.policy.workspaceRoots,
          readonly: this.opts.policy.readonly,
          reads: [...(node.startsWith('/usr/') ? [] : [node]), ...codeReadPaths(), ...extraReads],
          rootFds: held.binds,
          pathMounts: plan?.mounts,
          command: [node, ...execArgv, module],
        });
        if (!cmd) throw new Error('the sandbox did not wrap the worker');
        this.sandboxLimits = cmd.limits;
        try {
          child = spawn(cmd.file, cmd.args, {
            env,
            stdio: ['ignore', 'pipe', 'pipe', 'ipc', cmd.seccompFd ?? 'ignore', ...held.stdio, ...(plan?.stdio ?? [])],
            serialization: 'json',
            cwd: '/',
          });
        } finally {
          if (cmd.seccompFd !== null) closeQuietly(cmd.seccompFd);
        }
        this.sandboxed = true;
        if (!this.opts.policy.readonly && this.opts.policy.workspaceRoots.length > 0) {
          this.stopDiskWatch = watchDisk(this.opts.policy.workspaceRoots, why => this.terminate('failed', `${why}: worker killed`));
        }
      } else {
        child = fork(module, [], { execArgv, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], serialization: 'json' });
      }
    } catch (err) {
      this.terminate('failed', `cannot start the worker: ${errorMessage(err)}`);
      throw new WorkerError(this.ended!.error ?? 'cannot start the worker');
    }
    this.child = child;
    const onStdio = (d: Buffer) => {
      this.stdioBytes += d.length;
      if (this.stdioBytes > WORKER_STDIO_MAX_BYTES) {
        this.terminate('failed', `worker flooded its output (more than ${WORKER_STDIO_MAX_BYTES} bytes): killed`);
        return;
      }
      this.emit({ type: 'stderr', text: cutText(d.toString('utf8'), 4096) });
    };
    child.stdout!.on('data', onStdio);
    child.stderr!.on('data', onStdio);
    child.stderr!.on('data', (d: Buffer) => (this.stderrTail = (this.stderrTail + d.toString('utf8')).slice(-4096)));
    child.on('message', raw => this.onMessage(raw));
    child.on('error', err => this.terminate('failed', `worker process error: ${err.message}`));
    // 'close': after the exit AND the end of its output, so that the last words on stderr are in.
    child.on('close', (code, signal) => {
      if (this.ended) return;
      // inside its sandbox, a worker killed by a signal is reported by bwrap as exit code 128 + the signal
      const inner = this.sandboxed && code !== null && code > 128 ? signalName(code - 128) : null;
      const how = signal ? `signal ${signal}` : inner ? `signal ${inner}` : `code ${code}`;
      const oom = this.sandboxLimits?.oomKills() ?? 0;
      const memory = this.opts.env.sandbox.confinement?.limits.memoryBytes ?? null;
      // bwrap binds a held root by the path its descriptor's link shows, then checks that what it mounted
      // is the held inode, and stops when it is not (or when the name has gone meanwhile)
      const moved = this.sandboxed && this.readyResolve ? this.rootMovedInBwrap() : null;
      if (moved) {
        this.terminate('failed', moved);
      } else if (/heap limit|heap out of memory/i.test(this.stderrTail)) {
        // Node prints this before it aborts on a full heap.
        this.terminate('failed', `worker ran out of memory (its heap is limited to ${WORKER_HEAP_MAX_MB} MB) and died (${how})`);
      } else if (oom > 0 && memory !== null) {
        this.terminate(
          'failed',
          `worker's sandbox reached its memory limit of ${Math.round(memory / 1024 / 1024)} MiB (the worker, its shells, /tmp, /dev/shm and memfd pages) and the kernel killed it (${how})`
        );
      } else {
        this.terminate('failed', `worker exited unexpectedly (${how})`);
      }
    });
    this.timer = setTimeout(() => this.terminate('killed', `batch time limit of ${this.opts.timeoutMs} ms reached: worker killed`), this.opts.timeoutMs);
    const ready = new Promise<void>(resolve => (this.readyResolve = resolve));
    const init = message({
      type: 'init',
      batchId: this.opts.batchId,
      policy: this.opts.policy,
      routes: this.opts.routes,
      ...(this.opts.rules ? { rules: this.opts.rules } : {}),
      driver: this.opts.driver,
      limits: { timeoutMs: this.opts.timeoutMs, outputBytes: OUTPUT_MAX_BYTES },
      // inside its sandbox a worker's shells are its children, in the same sandbox
      shell: this.sandboxed ? 'sandboxed' : this.opts.env.sandbox.mode,
      sandboxSystem: [],
      ...(activeCatalog() ? { catalog: activeCatalog() } : {}),
      ...(test.gate === false || test.hostCheck === false
        ? { layers: { gate: test.gate !== false, hostCheck: test.hostCheck !== false } satisfies WorkerLayers }
        : {}),
    });
    this.send(init);
    await Promise.race([ready, this.whenEnded()]);
    if (this.ended) throw new WorkerError(this.ended.error ?? 'worker ended before it was ready');
    this.emit({ type: 'started', pid: child.pid ?? 0 });
  }

  /**
   * Whether bwrap stopped because a held root moved while it bound it: its own race check, or the path
   * its descriptor's link showed gone (a name in the folder of a root) before it could be mounted.
   */
  private rootMovedInBwrap(): string | null {
    const rules = this.pathPlan !== null && this.pathPlan.stdio.length > 0;
    if (/^bwrap: Race condition binding dirfd/m.test(this.stderrTail)) return rules ? PATH_MOVED : ROOT_MOVED;
    const m = /^bwrap: Can't (?:get type of source|bind mount) (?:\/oldroot)?(\/.*?)(?: on \/newroot\/.*)?: (.*)$/m.exec(this.stderrTail);
    if (!m || !this.pins) return null;
    const folder = path.dirname(m[1]);
    const gone = m[2].endsWith('No such file or directory');
    if (gone && this.pins.roots.some(r => folder === path.dirname(r.real) || folder === path.dirname(r.given))) return ROOT_MOVED;
    // an entry the path rules bind (pathrules.ts), inside a root
    if (gone && rules && this.pins.roots.some(r => isInside(m[1], r.real) || isInside(m[1], r.given))) return PATH_MOVED;
    // an entry below a held root that is now under another name in its folder (the root itself was moved)
    return gone && this.pins.roots.some(r => isInside(m[1], path.dirname(r.real)) || isInside(m[1], path.dirname(r.given))) ? ROOT_MOVED : null;
  }

  /** The run's held roots (the caller's), or the policy's roots pinned now for this host's life. */
  private async pinRoots(): Promise<PinnedRoots> {
    if (this.pins) return this.pins;
    if (this.opts.pins) {
      this.pins = await this.opts.pins();
      return this.pins;
    }
    const user = this.opts.env.sandbox.sandboxUser();
    this.pins = await pinRoots(this.opts.policy.workspaceRoots, user ? { sandboxUser: user } : {});
    this.ownPins = true;
    return this.pins;
  }

  /** A message sent once the caller has its answer (see `sendAfter`); null when none waits. */
  private later: Message | null = null;

  /**
   * Sends `m` once the current turn's promise callbacks have run (the caller's continuation among them),
   * before any other message: the channel's order is kept.
   */
  private sendAfter(m: Message): void {
    this.flush();
    this.later = m;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    const m = this.later;
    this.later = null;
    if (m) this.write(m);
  }

  private send(m: Message): void {
    this.flush();
    this.write(m);
  }

  private write(m: Message): void {
    const child = this.child;
    if (!child || !child.connected) return;
    try {
      child.send(m, err => {
        if (err && !this.ended) this.terminate('failed', `cannot reach the worker: ${err.message}`);
      });
    } catch (err) {
      this.terminate('failed', `cannot reach the worker: ${errorMessage(err)}`);
    }
  }

  private whenEnded(): Promise<void> {
    return this.ended ? Promise.resolve() : new Promise(resolve => this.endWaiters.push(resolve));
  }

  private onMessage(raw: unknown): void {
    if (this.ended) return;
    let size: number;
    try {
      size = Buffer.byteLength(JSON.stringify(raw) ?? '', 'utf8');
    } catch {
      size = Infinity;
    }
    if (size > IPC_MESSAGE_MAX_BYTES) {
      this.terminate('failed', `worker sent a message of ${size} bytes (limit ${IPC_MESSAGE_MAX_BYTES}): killed`);
      return;
    }
    let m: Message;
    try {
      m = parseFor('main', raw);
    } catch (err) {
      this.terminate('failed', `worker broke the protocol: ${errorMessage(err)}`);
      return;
    }
    if (m.type === 'fd') return this.onFd(m.id, m.fd);
    // A call answered by the host: the worker owes its result. A proxy request for that call again is a
    // repeated request (denied below, as when it comes before the answer); anything else breaks the protocol.
    const repeated = this.relay !== null && m.type === 'proxy' && m.seq === this.relay.seq;
    if (this.relay && !repeated && (m.type === 'result' || m.type === 'proxy')) return this.onRelay(m);
    // Flood control: messages the host did not ask for. The answer to the call in progress (its result,
    // and its first proxy request) is paced by the host, which sends one call at a time.
    const solicited = (m.type === 'result' && this.pending?.seq === m.seq) || (m.type === 'proxy' && this.pending?.seq === m.seq && !this.pending.proxied);
    if (m.type === 'proxy' && this.pending?.seq === m.seq) this.pending.proxied = true;
    if (!solicited) {
      const now = Date.now();
      if (now - this.windowStart >= 1000) {
        this.windowStart = now;
        this.windowCount = 0;
        this.windowBytes = 0;
      }
      this.windowCount += 1;
      this.windowBytes += size;
      if (this.windowCount > IPC_MESSAGES_PER_SECOND) {
        this.terminate('failed', `worker flooded the channel (more than ${IPC_MESSAGES_PER_SECOND} messages a second): killed`);
        return;
      }
      if (this.windowBytes > IPC_BYTES_PER_SECOND) {
        this.terminate('failed', `worker flooded the channel (more than ${IPC_BYTES_PER_SECOND} bytes a second): killed`);
        return;
      }
    }
    switch (m.type) {
      case 'event':
        if (m.name === 'ready' && this.readyResolve) {
          this.readyResolve();
          this.readyResolve = null;
        } else {
          this.emit({ type: 'worker-event', name: m.name, data: m.data });
        }
        return;
      case 'result':
        return this.onResult(m);
      case 'proxy':
        void this.onProxy(m, solicited);
        return;
      case 'error':
        this.terminate('failed', `worker error: ${cutText(m.message, 4096)}`);
        return;
      case 'done':
        return;
    }
  }

  /**
   * Where a descriptor of the worker points (`/proc/<worker>/fd/N`): the worker checks what it opened
   * against its roots with this (operations/confined.ts). Only while a call runs; rate-limited.
   */
  private onFd(id: number, fd: number): void {
    const now = Date.now();
    if (now - this.fdWindowStart >= 1000) {
      this.fdWindowStart = now;
      this.fdWindowCount = 0;
    }
    this.fdWindowCount += 1;
    if (!this.pending || this.fdWindowCount > FD_CHECKS_PER_SECOND) {
      this.terminate(
        'failed',
        this.pending
          ? `worker flooded the channel (more than ${FD_CHECKS_PER_SECOND} descriptor checks a second): killed`
          : 'worker broke the protocol: a descriptor check outside a call'
      );
      return;
    }
    const pid = this.hostPid();
    void fs.promises
      .readlink(`/proc/${pid}/fd/${fd}`)
      .catch(() => null)
      .then(p => {
        if (!this.ended) this.send(message({ type: 'fd-result', id, path: p }));
      });
  }

  /**
   * The worker's pid on the host: the child itself, or — inside its sandbox — the first process below
   * bwrap that runs the Node binary (bwrap's own init in the pid namespace, then the worker).
   */
  private hostPid(): number | null {
    const top = this.child?.pid ?? null;
    if (!this.sandboxed || top === null) return top;
    if (this.workerPid !== null) return this.workerPid;
    let node: string;
    try {
      node = fs.realpathSync(process.execPath);
    } catch {
      return null;
    }
    let level = [top];
    for (let depth = 0; depth < 4 && level.length > 0; depth++) {
      const next: number[] = [];
      for (const p of level) {
        let kids: number[] = [];
        try {
          kids = fs.readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
        } catch {
          /* gone */
        }
        for (const k of kids) {
          try {
            if (fs.readlinkSync(`/proc/${k}/exe`) === node) return (this.workerPid = k);
          } catch {
            /* gone */
          }
          next.push(k);
        }
      }
      level = next;
    }
    return null;
  }

  /**
   * The worker's `result` for a call the host already answered (a proxied call: the host ran it and
   * resolved the call with its own outcome, so the caller does not wait for this message). It must be
   * for that call and say what the host answered; anything else breaks the protocol.
   */
  private onRelay(m: ResultMessage | ProxyMessage): void {
    const owed = this.relay!;
    this.relay = null;
    if (m.type !== 'result' || m.seq !== owed.seq) {
      this.terminate('failed', `worker broke the protocol: ${m.type} for call ${m.seq} before the result of call ${owed.seq}`);
      return;
    }
    const o = owed.outcome as unknown as Record<string, unknown>;
    const r = m as unknown as Record<string, unknown>;
    const differs = RELAYED.find(k => o[k] !== r[k]);
    if (differs) {
      this.terminate('failed', `worker broke the protocol: its result for call ${m.seq} is not the main process's answer (${differs})`);
    }
  }

  private onResult(m: ResultMessage): void {
    const p = this.pending;
    if (!p || p.seq !== m.seq) {
      this.terminate('failed', `worker broke the protocol: result for call ${m.seq}, which is not in progress`);
      return;
    }
    this.pending = null;
    const { v: _v, type: _t, seq: _s, ...outcome } = m;
    void _v;
    void _t;
    void _s;
    const record: CallRecord = {
      seq: p.seq,
      name: p.name,
      arguments: undefined,
      ...outcome,
      ...(outcome.output !== undefined ? { output: cutText(outcome.output) } : {}),
    };
    p.resolve(record);
  }

  /**
   * L4: a proxy request is decided again here, with the host's copy of the policy and routes. It must
   * belong to the call in progress, and the host's gate must make it `main-process-proxy`; anything else
   * is denied and reported (`proxy-denied`), whatever the worker claims.
   */
  private async onProxy(m: ProxyMessage, first: boolean): Promise<void> {
    const p = this.pending;
    let outcome: CallOutcome;
    const started = Date.now();
    const own = first && p !== null && p.seq === m.seq && p.name === m.name;
    let swapped: string | null = null;
    if (!own) {
      const repeated = !first && ((p !== null && p.seq === m.seq) || this.relay?.seq === m.seq);
      outcome = {
        decision: 'denied',
        reason: RUNTIME_REASONS.notSelected,
        detail: repeated
          ? `a second proxy request for ${m.name} (call ${m.seq}): a call is run by the main process once`
          : `proxy request for ${m.name} (call ${m.seq}) does not match the call in progress`,
        ok: false,
        error: 'proxy request does not match the call in progress',
        durationMs: 0,
      };
    } else if (p!.text === null || jsonText(m.arguments) !== p!.text) {
      // The main process runs what it sent, never what the worker asks instead: a request whose arguments
      // differ is a worker that lies, and the batch fails.
      this.terminate('failed', `worker broke the protocol: its proxy request for call ${m.seq} (${m.name}) carries other arguments than the main process sent`);
      return;
    } else if ((swapped = this.pins?.swapped() ?? null) !== null) {
      // A root's path now leads elsewhere (moved, or replaced by a symlink): the main process runs
      // nothing for this run while that is so (what it runs is reached through the held roots anyway).
      outcome = { decision: 'denied', reason: RUNTIME_REASONS.outsideWorkspace, detail: swapped, ok: false, error: swapped, durationMs: Date.now() - started };
    } else {
      let r;
      try {
        const early = p!.early;
        r = await runHere(this.main, DECISIONS.proxy, m.name, structuredClone(p!.args), early && early.text === p!.text ? early.gate : undefined);
      } catch (err) {
        r = null;
        outcome = {
          decision: 'denied',
          reason: RUNTIME_REASONS.invalidArguments,
          detail: `main process could not decide: ${errorMessage(err)}`,
          ok: false,
          error: errorMessage(err),
          durationMs: Date.now() - started,
        };
      }
      if (r) {
        outcome = r.outcome ?? {
          decision: 'denied',
          reason: r.gate.reason ?? RUNTIME_REASONS.notSelected,
          detail: `the routes make ${m.name} ${r.gate.decision}, not main-process-proxy: the main process refuses to run it for the worker`,
          ok: false,
          error: `${m.name} is not a main-process-proxy tool`,
          durationMs: Date.now() - started,
        };
      }
    }
    outcome = outcome!;
    if (this.ended) return;
    this.emit({ type: 'proxy', seq: m.seq, name: m.name, decision: outcome.decision, reason: outcome.reason });
    if (outcome.decision === 'denied') {
      this.emit({ type: 'proxy-denied', record: { seq: m.seq, name: m.name, arguments: m.arguments, ...outcome } });
    }
    // The host ran (or refused) the call itself: it answers the caller now, with its own outcome, and
    // does not wait for the worker to repeat it (the worker's `result` is checked when it comes). The
    // worker's answer leaves right after the caller's continuation, before any later message.
    // images and audio stay here: the worker relays the text of the answer only
    const { media: _media, ...wire } = outcome;
    void _media;
    if (!own || !p || this.pending !== p) {
      this.send(message({ type: 'proxy-result', id: m.id, ...wire }));
    } else {
      this.sendAfter(message({ type: 'proxy-result', id: m.id, ...wire }));
      this.pending = null;
      this.relay = { seq: m.seq, outcome };
      p.resolve({
        seq: p.seq,
        name: p.name,
        arguments: undefined,
        ...outcome,
        ...(outcome.output !== undefined ? { output: cutText(outcome.output) } : {}),
        durationMs: Date.now() - p.sentAt,
      });
    }
  }

  /** The host's gate decision for a call it sends (undefined when it cannot be made now: decided later). */
  private earlyGate(name: string, text: string | null): { text: string; gate: GateResult } | undefined {
    try {
      // decided on the text the proxy request must repeat (`onProxy`); arguments JSON cannot print are
      // decided when the request comes
      if (text === null) return undefined;
      return { text, gate: checkCallText({ policy: this.main.policy, routes: this.main.routes, rules: this.main.rules, asks: 'approved', name }, text) };
    } catch {
      return undefined;
    }
  }

  /** The number of a call decided before it reached the worker (by the call port): the batch's calls keep one sequence. */
  reserveSeq(): number {
    return this.opts.seq ? ++this.opts.seq.value : ++this.seq;
  }

  /** Runs one call in the worker (calls are queued: one at a time, in order). */
  call(name: string, args: unknown): Promise<CallRecord> {
    const run = async (): Promise<CallRecord> => {
      const seq = this.reserveSeq();
      if (this.ended) throw new WorkerError(`batch ended (${this.ended.status}): ${this.ended.error ?? ''}`);
      this.emit({ type: 'call', seq, name, arguments: args });
      let current: Pending | null = null;
      const record = await new Promise<CallRecord | null>(resolve => {
        const pending: Pending = { seq, name, resolve, sentAt: Date.now(), args, text: jsonText(args === undefined ? null : args) };
        current = pending;
        this.pending = pending;
        this.send(message({ type: 'call', seq, name, arguments: args === undefined ? null : args }));
        // L4 decides the call it sent while the worker decides it too (see onProxy).
        if (this.pending === pending && this.proxied.has(name)) pending.early = this.earlyGate(name, pending.text);
      });
      if (!record) throw new WorkerError(`batch ended (${this.ended!.status}) during call ${seq}: ${this.ended!.error ?? ''}`);
      record.arguments = args;
      withNetNotes(record, (current as Pending | null)?.net);
      this.emit({ type: 'result', record });
      return record;
    };
    const result = this.chain.then(run, run);
    this.chain = result.catch(() => undefined);
    return result;
  }

  /** Ends the batch normally once the calls in flight are done: `completed`. */
  async finish(): Promise<{ status: 'completed' | 'failed' | 'killed'; error: string | null }> {
    await this.chain;
    if (!this.ended) {
      this.send(message({ type: 'done' }));
      const child = this.child;
      const exited = new Promise<void>(resolve => {
        if (!child || child.exitCode !== null || child.signalCode !== null) resolve();
        else child.once('exit', () => resolve());
      });
      const grace = setTimeout(() => child?.kill('SIGKILL'), 5000);
      this.ended = { status: 'completed', error: null };
      await exited;
      clearTimeout(grace);
      this.cleanup();
      this.emit({ type: 'ended', status: 'completed', error: null });
    }
    return this.ended;
  }

  /** Kills the worker now: `killed` with the reason. */
  async kill(reason: string): Promise<{ status: 'completed' | 'failed' | 'killed'; error: string | null }> {
    this.terminate('killed', reason);
    await this.waitExit();
    return this.ended!;
  }

  private async waitExit(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>(resolve => child.once('exit', () => resolve()));
  }

  private terminate(status: 'failed' | 'killed', error: string): void {
    if (this.ended) return;
    this.ended = { status, error };
    try {
      this.child?.kill('SIGKILL');
    } catch {
      /* already gone */
    }
    this.cleanup();
    this.emit({ type: 'ended', status, error });
  }

  private cleanup(): void {
    // the mount points made for missing paths are removed once nothing of the sandbox runs
    const plan = this.pathPlan;
    this.pathPlan = null;
    const child = this.child;
    if (plan && child && child.exitCode === null && child.signalCode === null) child.once('exit', () => plan.release());
    else plan?.release();
    const net = this.net;
    this.net = null;
    if (net && child && child.exitCode === null && child.signalCode === null) child.once('exit', () => void net.close());
    else void net?.close();
    if (this.ownPins) void this.pins?.close();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.stopDiskWatch?.();
    this.stopDiskWatch = null;
    // whatever is left in the sandbox is killed, and its cgroups removed
    this.sandboxLimits?.release();
    // The call in progress, if any, ends with the batch.
    const p = this.pending;
    this.pending = null;
    p?.resolve(null);
    const waiters = this.endWaiters;
    this.endWaiters = [];
    for (const w of waiters) w();
  }

  /** Resolves when the batch has ended (for the service's bookkeeping). */
  ended$(): Promise<{ status: 'completed' | 'failed' | 'killed'; error: string | null }> {
    return this.whenEnded().then(() => this.ended!);
  }
}
