/**
 * Kernel limits per sandbox (docs/runtime.md "Limits", SECURITY.md "The OS boundary"). One mechanism is
 * chosen at start (`detectLimits`), the strongest the host allows, and said in `/health` and the start log:
 *
 * - `cgroup2`: a delegated cgroup v2 folder (`NETACLAW_CGROUP2_DIR`, or the backend's own cgroup when its
 *   `cgroup.subtree_control` already enables `pids` and `memory` and it may write there): one child cgroup
 *   per live sandbox with `pids.max`, `memory.max` and `memory.swap.max`.
 * - `cgroup1`: the cgroup v1 `pids` and `memory` hierarchies, when the backend may write them (as root):
 *   one cgroup per live sandbox in each (`<hierarchy>/netaclaw/<pid>-<start>-<n>`, the backend's pid and
 *   start time in the name so that concurrent backends never collide), with `pids.max`,
 *   `memory.limit_in_bytes` and `memory.memsw.limit_in_bytes` where swap is accounted.
 * - `uid-range`: no writable cgroup, but the backend is root and `NETACLAW_SANDBOX_UIDS` names a range of
 *   uids (`FIRST-LAST`): each live sandbox runs as a uid of its own from the range, so that RLIMIT_NPROC,
 *   set before bwrap makes the sandbox's user namespace, counts that sandbox alone. Memory is bounded by the
 *   worker's heap limit and the shells' RLIMIT_AS only.
 * - `rlimit`: none of the above (a backend run by a normal user without delegation): the rlimits set inside
 *   each sandbox (RLIMIT_NPROC counts per user namespace, so per sandbox; RLIMIT_FSIZE; the shells'
 *   RLIMIT_AS and RLIMIT_CPU). Memory outside a worker's heap, tmpfs and memfd pages are not bounded.
 *
 * A process enters its sandbox's cgroup before it starts bwrap: the launcher is a short `sh` that writes
 * its own pid into each `cgroup.procs` and then runs setpriv and bwrap (`wrap`), so every process of the
 * sandbox — the worker, its shells, a shell that skips the prelude, a stdio MCP server and all their
 * children — is in it from its first instruction. Memory cgroups charge tmpfs (`/tmp`, `/dev/shm`) and
 * memfd pages to the cgroup of the process that touched them, so the memory limit bounds those too. When
 * the sandbox ends (`release`), whatever is left in its cgroup is killed and the cgroup removed; cgroups
 * left by a backend that died are removed at the next start.
 */
import * as fs from 'fs';
import * as path from 'path';
import { SANDBOX_MEMORY_MAX_BYTES, SANDBOX_PROCESSES_MAX, SANDBOX_TMP_MAX_BYTES } from './limits';
import { errorMessage } from '../lib/errortext';

export type LimitsMode = 'cgroup2' | 'cgroup1' | 'uid-range' | 'rlimit';

export interface LimitsState {
  mode: LimitsMode;
  /** One sentence for the start log: the mechanism, its bounds, and what is weaker. */
  detail: string;
  /** The limits that are weaker than a per-sandbox kernel limit with this mechanism (empty: none). */
  weaker: Array<'processes' | 'memory' | 'tmpfs' | 'memfd'>;
  /** Processes and threads of one sandbox. */
  processes: number;
  /** Memory of one sandbox (bytes), when a cgroup bounds it. */
  memoryBytes: number | null;
  /** cgroup1: the folders holding the sandboxes' cgroups, per controller; cgroup2: one folder. */
  dirs: string[];
  /** uid-range: the uids sandboxes take in turn. */
  uids?: { first: number; last: number };
  /** The size of each sandbox's own tmpfs for `/tmp` and `/dev/shm` (tmpfs.ts; a root backend), or null: bwrap's. */
  tmpBytes: number | null;
}

/** One live sandbox's share of the mechanism: how to start inside it, and its end. */
export interface SandboxLimits {
  /** The program and arguments that go before the launcher (setpriv): entering the cgroups. */
  prefix: string[];
  /** uid-range: the uid this sandbox runs as (instead of the sandbox user's). */
  uid: number | null;
  /** How many times the kernel's OOM killer has killed a process of this sandbox (0 without a memory cgroup). */
  oomKills(): number;
  /** Kills what is left in the sandbox's cgroups and removes them; frees its uid. Idempotent. */
  release(): void;
}

const V2_ROOT = '/sys/fs/cgroup';
/** The folder, below each v1 hierarchy, that holds every backend's sandbox cgroups. */
const V1_PARENT = 'netaclaw';

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** This process's start time (clock ticks since boot), from /proc: with the pid it names this backend. */
export function startTime(pid: number | 'self'): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the fields after the command (which may hold spaces and parentheses) start after the last ')'
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** `name-of-this-backend`: its pid and start time. */
export function backendTag(): string {
  return `${process.pid}-${startTime('self') ?? '0'}`;
}

/** A positive integer from the environment (in MiB), or the default. */
function envBytes(name: string, fallback: number): number {
  const v = (process.env[name] ?? '').trim();
  if (v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 16) throw new Error(`${name} must be a whole number of MiB, at least 16, got ${JSON.stringify(v)}`);
  return n * 1024 * 1024;
}

function writable(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** A v1 hierarchy's mount point for `controller`, when it is mounted on its own (or null). */
function v1Mount(controller: 'pids' | 'memory'): string | null {
  let mounts: string;
  try {
    mounts = fs.readFileSync('/proc/self/mounts', 'utf8');
  } catch {
    return null;
  }
  for (const line of mounts.split('\n')) {
    const [, where, type, options] = line.split(' ');
    if (type === 'cgroup' && options?.split(',').includes(controller)) return where;
  }
  return null;
}

/** One try at removing a cgroup: true when it is gone; else every process still in it is killed. */
function tryRemove(dir: string): boolean | 'busy' {
  try {
    fs.rmdirSync(dir);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return true;
    if (code !== 'EBUSY') return false;
  }
  let procs: string[] = [];
  try {
    procs = fs
      .readFileSync(path.join(dir, 'cgroup.procs'), 'utf8')
      .split('\n')
      .filter(p => p !== '');
  } catch {
    /* gone */
  }
  for (const p of procs) {
    try {
      process.kill(Number(p), 'SIGKILL');
    } catch {
      /* gone already */
    }
  }
  return 'busy';
}

/** Kills every process in a cgroup and removes it, waiting (synchronously) for killed processes to go. */
function removeCgroup(dir: string, tries = 20): boolean {
  for (let i = 0; i < tries; i++) {
    const r = tryRemove(dir);
    if (r !== 'busy') return r;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
  }
  return false;
}

/** Like `removeCgroup`, without blocking: retried for about ten seconds. */
function removeCgroupLater(dir: string, tries = 100): void {
  const r = tryRemove(dir);
  if (r === 'busy' && tries > 0) setTimeout(() => removeCgroupLater(dir, tries - 1), 100).unref();
}

/** Removes the sandbox cgroups of backends that are no longer running (their pid and start time gone). */
export function removeStale(parent: string): number {
  let removed = 0;
  let names: string[];
  try {
    names = fs.readdirSync(parent);
  } catch {
    return 0;
  }
  for (const name of names) {
    const m = /^(\d+)-(\d+)-\d+$/.exec(name);
    if (!m) continue;
    if (startTime(Number(m[1])) === m[2]) continue; // that backend is alive
    if (removeCgroup(path.join(parent, name), 5)) removed += 1;
  }
  return removed;
}

function makeV1Parent(mount: string): string {
  const dir = path.join(mount, V1_PARENT);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** A delegated cgroup v2 folder in which sandbox cgroups with pids and memory can be made, or null. */
function v2Dir(): string | null {
  const configured = (process.env.NETACLAW_CGROUP2_DIR ?? '').trim();
  let dir: string;
  if (configured !== '') {
    dir = configured;
  } else {
    try {
      const own = fs
        .readFileSync('/proc/self/cgroup', 'utf8')
        .split('\n')
        .find(l => l.startsWith('0::'));
      const type = fs
        .readFileSync('/proc/self/mounts', 'utf8')
        .split('\n')
        .find(l => l.split(' ')[1] === V2_ROOT)
        ?.split(' ')[2];
      if (!own || type !== 'cgroup2') return null;
      dir = path.join(V2_ROOT, own.slice(3));
    } catch {
      return null;
    }
  }
  try {
    const sub = fs.readFileSync(path.join(dir, 'cgroup.subtree_control'), 'utf8').split(/\s+/);
    if (sub.includes('pids') && sub.includes('memory') && writable(dir)) return dir;
    if (configured !== '')
      throw new Error(`NETACLAW_CGROUP2_DIR ${dir} does not enable pids and memory for its children (cgroup.subtree_control), or is not writable`);
  } catch (err) {
    if (configured !== '') throw err;
  }
  return null;
}

function parseUids(): { first: number; last: number } | null {
  const v = (process.env.NETACLAW_SANDBOX_UIDS ?? '').trim();
  if (v === '') return null;
  const m = /^(\d+)-(\d+)$/.exec(v);
  const first = m ? Number(m[1]) : NaN;
  const last = m ? Number(m[2]) : NaN;
  if (!m || first < 1000 || last < first || last > 0xfffffffe) {
    throw new Error(`NETACLAW_SANDBOX_UIDS must be a range FIRST-LAST of uids from 1000 up (one per live sandbox), got ${JSON.stringify(v)}`);
  }
  return { first, last };
}

const MODES: readonly string[] = ['auto', 'cgroup2', 'cgroup1', 'uid-range', 'rlimit'];

let sequence = 0;
/** The live sandboxes' cgroups: the name → its release, and the hierarchies it was made in. */
const live = new Map<string, { release: () => void; dirs: readonly string[] }>();
const usedUids = new Set<number>();

function mib(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MiB`;
}

/**
 * Chooses the mechanism (once, at start): `NETACLAW_SANDBOX_LIMITS` = `auto` (default: the strongest the
 * host allows) or one mechanism by name, which must then be available (else this throws: fail closed).
 */
export function detectLimits(): LimitsState {
  let active: LimitsState;
  const wanted = (process.env.NETACLAW_SANDBOX_LIMITS ?? '').trim() || 'auto';
  if (!MODES.includes(wanted)) throw new Error(`NETACLAW_SANDBOX_LIMITS must be one of ${MODES.join(', ')}, got ${JSON.stringify(wanted)}`);
  const processes = SANDBOX_PROCESSES_MAX;
  const memoryBytes = envBytes('NETACLAW_SANDBOX_MEMORY_MB', SANDBOX_MEMORY_MAX_BYTES);
  // a root backend mounts a sized tmpfs per sandbox for /tmp and /dev/shm (tmpfs.ts)
  const tmpBytes = isRoot() ? envBytes('NETACLAW_SANDBOX_TMP_MB', SANDBOX_TMP_MAX_BYTES) : null;
  const tmp =
    tmpBytes !== null
      ? `; /tmp and /dev/shm share a tmpfs of ${mib(tmpBytes)} per sandbox`
      : "; /tmp and /dev/shm are bwrap's tmpfs (no size=: the backend is not root)";
  const bounds = `${processes} processes and threads, ${mib(memoryBytes)} of memory (tmpfs and memfd pages included) per sandbox${tmp}`;
  // without a memory cgroup: what is not bounded (a sized tmpfs still bounds /tmp and /dev/shm)
  const unbounded: LimitsState['weaker'] = tmpBytes !== null ? ['memory', 'memfd'] : ['memory', 'tmpfs', 'memfd'];
  const weakerMemory = `WEAKER: memory (no memory cgroup: a worker's memory outside its heap${tmpBytes !== null ? '' : ', tmpfs'} and memfd pages are not bounded)${tmp}`;
  const tried: string[] = [];

  if (wanted === 'auto' || wanted === 'cgroup2') {
    const dir = v2Dir();
    if (dir) {
      active = { mode: 'cgroup2', processes, memoryBytes, tmpBytes, dirs: [dir], weaker: [], detail: `cgroup v2 at ${dir}: ${bounds}` };
      removeStale(dir);
      return active;
    }
    tried.push('no delegated cgroup v2 folder with pids and memory (NETACLAW_CGROUP2_DIR)');
  }
  if (wanted === 'auto' || wanted === 'cgroup1') {
    const pids = v1Mount('pids');
    const memory = v1Mount('memory');
    if (pids && memory && writable(pids) && writable(memory)) {
      try {
        const dirs = [makeV1Parent(pids), makeV1Parent(memory)];
        for (const d of dirs) removeStale(d);
        const memsw = fs.existsSync(path.join(dirs[1], 'memory.memsw.limit_in_bytes'));
        active = {
          mode: 'cgroup1',
          processes,
          memoryBytes,
          tmpBytes,
          dirs,
          weaker: [],
          detail: `cgroup v1 (${dirs.join(', ')}): ${bounds}${memsw ? ', swap included' : ''}`,
        };
        return active;
      } catch (err) {
        tried.push(`the cgroup v1 pids and memory hierarchies cannot be written (${errorMessage(err)})`);
      }
    } else {
      tried.push(pids && memory ? 'the cgroup v1 pids and memory hierarchies are not writable by the backend' : 'no cgroup v1 pids and memory hierarchies');
    }
  }
  if (wanted === 'auto' || wanted === 'uid-range') {
    const uids = parseUids();
    if (uids && isRoot()) {
      active = {
        mode: 'uid-range',
        processes,
        memoryBytes: null,
        tmpBytes,
        dirs: [],
        uids,
        weaker: unbounded,
        detail: `a uid of its own per live sandbox (${uids.first}-${uids.last}, NETACLAW_SANDBOX_UIDS): RLIMIT_NPROC ${processes} per sandbox; ${weakerMemory}`,
      };
      return active;
    }
    tried.push(uids ? 'a uid range needs a root backend' : 'no uid range (NETACLAW_SANDBOX_UIDS)');
  }
  if (wanted !== 'auto' && wanted !== 'rlimit') throw new Error(`NETACLAW_SANDBOX_LIMITS=${wanted} is not available here: ${tried.join('; ')}`);
  active = {
    mode: 'rlimit',
    processes,
    memoryBytes: null,
    tmpBytes,
    dirs: [],
    weaker: unbounded,
    detail:
      `rlimits inside each sandbox (RLIMIT_NPROC ${processes}, counted per user namespace, so per sandbox; RLIMIT_FSIZE; a shell's RLIMIT_AS and RLIMIT_CPU); ` +
      `${weakerMemory}${tried.length ? ` — ${tried.join('; ')}` : ''}`,
  };
  return active;
}

/** The shell that puts itself into each `cgroup.procs` named in its arguments, then runs the rest. */
const ENTER =
  'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || { echo "netaclaw-sandbox: cannot enter the cgroup $1" >&2; exit 125; }; shift; n=$((n-1)); done; exec "$@"';

function writeLimit(dir: string, file: string, value: string): void {
  fs.writeFileSync(path.join(dir, file), value);
}

/** Makes one sandbox's cgroups (and takes its uid). Throws when it cannot: the sandbox is not started. */
export function acquireSandbox(state: LimitsState | null): SandboxLimits {
  if (!state || state.mode === 'rlimit') return { prefix: [], uid: null, oomKills: () => 0, release: () => undefined };
  if (state.mode === 'uid-range') {
    const { first, last } = state.uids!;
    let uid = -1;
    for (let u = first; u <= last; u++) {
      if (!usedUids.has(u)) {
        uid = u;
        break;
      }
    }
    if (uid < 0) throw new Error(`every uid of the sandbox range ${first}-${last} is in use (one per live sandbox; NETACLAW_SANDBOX_UIDS)`);
    usedUids.add(uid);
    let done = false;
    return {
      prefix: [],
      uid,
      oomKills: () => 0,
      release: () => {
        if (done) return;
        done = true;
        usedUids.delete(uid);
      },
    };
  }
  const name = `${backendTag()}-${++sequence}`;
  const made: string[] = [];
  const memory = state.mode === 'cgroup2' ? path.join(state.dirs[0], name) : path.join(state.dirs[1], name);
  let done = false;
  const release = () => {
    if (done) return;
    done = true;
    live.delete(name);
    for (const d of made) removeCgroupLater(d);
  };
  try {
    if (state.mode === 'cgroup2') {
      fs.mkdirSync(memory);
      made.push(memory);
      writeLimit(memory, 'pids.max', String(state.processes));
      writeLimit(memory, 'memory.max', String(state.memoryBytes));
      if (fs.existsSync(path.join(memory, 'memory.swap.max'))) writeLimit(memory, 'memory.swap.max', '0');
    } else {
      const pids = path.join(state.dirs[0], name);
      fs.mkdirSync(pids);
      made.push(pids);
      writeLimit(pids, 'pids.max', String(state.processes));
      fs.mkdirSync(memory);
      made.push(memory);
      writeLimit(memory, 'memory.limit_in_bytes', String(state.memoryBytes));
      // memsw (memory + swap) must not be below the memory limit: written after it
      if (fs.existsSync(path.join(memory, 'memory.memsw.limit_in_bytes'))) writeLimit(memory, 'memory.memsw.limit_in_bytes', String(state.memoryBytes));
    }
  } catch (err) {
    release();
    throw new Error(`cannot make the sandbox's cgroup: ${errorMessage(err)}`);
  }
  live.set(name, { release, dirs: state.dirs });
  const procs = made.map(d => path.join(d, 'cgroup.procs'));
  return {
    prefix: ['/bin/sh', '-c', ENTER, 'netaclaw-limits', String(procs.length), ...procs],
    uid: null,
    oomKills: () => {
      try {
        if (state.mode === 'cgroup2') return Number(/^oom_kill (\d+)$/m.exec(fs.readFileSync(path.join(memory, 'memory.events'), 'utf8'))?.[1] ?? 0);
        return Number(/^oom_kill (\d+)$/m.exec(fs.readFileSync(path.join(memory, 'memory.oom_control'), 'utf8'))?.[1] ?? 0);
      } catch {
        return 0;
      }
    },
    release,
  };
}

/** How many sandboxes of this backend hold cgroups now (for tests). */
export function liveSandboxes(): number {
  return live.size + usedUids.size;
}

// A backend that stops removes its sandboxes' cgroups (bwrap's --die-with-parent ends their processes).
process.once('exit', () => {
  for (const [name, { dirs }] of [...live]) {
    live.delete(name);
    for (const d of dirs) removeCgroup(path.join(d, name), 5);
  }
});
