/**
 * The operating-system boundary under every sandbox (a worker, a `bash`): who the sandbox runs as, the
 * seccomp filter bwrap installs, and the kernel limits. Set up once at start (`setupConfinement`) and held by
 * the bwrap sandbox (sandboxes.ts), which hands it to `sandbox.ts` whenever it builds a bwrap command line.
 *
 * - **Identity.** A sandbox never runs as the host's uid 0. When the backend runs as root, bwrap itself is
 *   started as an unprivileged user (`setpriv --reuid/--regid --clear-groups`), so the user namespace it
 *   makes maps that user's uid, not 0: files the sandbox creates belong to it, `/proc/sys` is not writable
 *   (it belongs to the host's root), a setuid bit it sets gives nothing. The user is
 *   `NETACLAW_SANDBOX_USER` (default `netaclaw-sandbox`, a system user the backend creates when it is
 *   missing). When the backend runs as another user, the sandbox runs as that user (an unprivileged user
 *   namespace; nothing else can be done without privileges). Always `no_new_privs`, no capabilities.
 * - **seccomp.** A filter denying the system calls that reach the kernel's namespace, mount, module,
 *   tracing, keyring, BPF and perf machinery (`SECCOMP_DENIED`), new namespaces through `clone` flags, and
 *   `clone3` (answered ENOSYS so libc falls back to `clone`, whose flags the filter can read), sockets of
 *   any family but AF_UNIX, AF_INET and AF_INET6 (`SECCOMP_SOCKET_FAMILIES`), built by
 *   libseccomp (Debian's `python3-seccomp`) as a BPF program that bwrap loads (`--seccomp FD`). Another
 *   architecture's system calls kill the process (libseccomp's default for a foreign ABI).
 * - **Limits.** Kernel limits per sandbox, the strongest mechanism the host allows (cgroups.ts: cgroup v2
 *   where delegated, else the cgroup v1 `pids` and `memory` hierarchies, else a uid per sandbox, else the
 *   rlimits alone); `/health` and the log say which, and which limit is weaker.
 */
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { detectLimits, LimitsState } from './cgroups';
import { errorMessage } from '../lib/errortext';

/** System calls the sandbox may not make (EPERM). */
export const SECCOMP_DENIED = [
  'mount',
  'umount2',
  'pivot_root',
  'chroot',
  'unshare',
  'setns',
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'bpf',
  'keyctl',
  'add_key',
  'request_key',
  'perf_event_open',
  'userfaultfd',
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'open_by_handle_at',
  'name_to_handle_at',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'move_mount',
  'open_tree',
  'mount_setattr',
  'swapon',
  'swapoff',
  'reboot',
  'acct',
  'quotactl',
  'syslog',
  'vhangup',
  'iopl',
  'ioperm',
  'settimeofday',
  'clock_settime',
  'clock_adjtime',
  'adjtimex',
  'personality',
  'lookup_dcookie',
  'nfsservctl',
  'uselib',
  'kcmp',
] as const;

/**
 * The socket families a sandbox may open: local sockets and IPv4/IPv6 (the worker's IPC channel is a Unix
 * socket; a sandbox has no network of its own anyway). `socket()` and `socketpair()` with any other family
 * below 64 (the kernel knows 46: AF_NETLINK, AF_PACKET, AF_VSOCK, AF_ALG, AF_BLUETOOTH…; it refuses the
 * others itself) are answered EAFNOSUPPORT, so that no kernel code of another family is reached. Nothing a
 * sandbox runs needs AF_NETLINK: glibc's lookups with AI_ADDRCONFIG, which ask over netlink, fall back when
 * it is refused (test/sockets.test.js shows one answering).
 */
export const SECCOMP_SOCKET_FAMILIES = [1, 2, 10] as const; // AF_UNIX, AF_INET, AF_INET6

/** System calls answered ENOSYS, so that callers fall back to what the filter can inspect or do without. */
export const SECCOMP_ENOSYS = ['clone3', 'io_uring_setup', 'io_uring_enter', 'io_uring_register'] as const;

/**
 * The libseccomp program (run by Debian's python3): the filter as BPF on standard output. `clone` with any
 * namespace flag and `ioctl(TIOCSTI)` / `ioctl(TIOCLINUX)` (typing into a terminal) are denied as well, and
 * `socket` / `socketpair` of a family outside SECCOMP_SOCKET_FAMILIES (EAFNOSUPPORT).
 */
const SECCOMP_SCRIPT = `
import errno, seccomp, sys, json
names = json.loads(sys.argv[1]); enosys = json.loads(sys.argv[2]); families = json.loads(sys.argv[3])
f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
for n in names:
    f.add_rule(seccomp.ERRNO(errno.EPERM), n)
for n in enosys:
    f.add_rule(seccomp.ERRNO(errno.ENOSYS), n)
for flag in (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000, 0x00000080):
    f.add_rule(seccomp.ERRNO(errno.EPERM), 'clone', seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
for req in (0x5412, 0x541C):
    f.add_rule(seccomp.ERRNO(errno.EPERM), 'ioctl', seccomp.Arg(1, seccomp.MASKED_EQ, 0xffffffff, req))
# the family is an int: only its low 32 bits count (the kernel's view), whatever the high ones hold
for call in ('socket', 'socketpair'):
    for family in range(64):
        if family not in families:
            f.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), call, seccomp.Arg(0, seccomp.MASKED_EQ, 0xffffffff, family))
f.export_bpf(sys.stdout)
`;

/** The Python that has Debian's libseccomp binding (never a user's pyenv). */
const SYSTEM_PYTHON = '/usr/bin/python3';

export interface SandboxIdentity {
  uid: number;
  gid: number;
  /** The user's name, for the log and /health. */
  user: string;
  /** bwrap is started through setpriv as this user (the backend runs as root). */
  switchUser: boolean;
}

export interface Confinement {
  identity: SandboxIdentity;
  /** A private folder the sandbox's user can enter (the staged code lives below it). */
  dir: string;
  /** A file holding the seccomp BPF program (opened for each sandbox and handed to bwrap). */
  seccompFile: string;
  limits: LimitsState;
}

/** What `setupConfinement` made: the confinement, or null and why it could not be set up. */
export type ConfinementSetup = { confinement: Confinement; failure: null } | { confinement: null; failure: string };

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function lookupUser(name: string): { uid: number; gid: number } | null {
  const r = spawnSync('getent', ['passwd', name], { encoding: 'utf8' });
  if (r.status !== 0 || !r.stdout) return null;
  const parts = r.stdout.trim().split(':');
  const uid = Number(parts[2]);
  const gid = Number(parts[3]);
  return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : null;
}

/** The user sandboxes run as (created as a system user when the backend is root and it is missing). */
export function sandboxIdentity(): SandboxIdentity {
  if (!isRoot()) {
    const info = os.userInfo();
    return { uid: info.uid, gid: info.gid, user: info.username, switchUser: false };
  }
  const name = (process.env.NETACLAW_SANDBOX_USER ?? '').trim() || 'netaclaw-sandbox';
  let found = lookupUser(name);
  if (!found && name === 'netaclaw-sandbox') {
    execFileSync('useradd', ['--system', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', '--user-group', name], {
      stdio: 'ignore',
    });
    found = lookupUser(name);
  }
  if (!found) throw new Error(`the sandbox user ${JSON.stringify(name)} does not exist (NETACLAW_SANDBOX_USER)`);
  if (found.uid === 0 || found.gid === 0) throw new Error(`the sandbox user ${JSON.stringify(name)} is root (uid or gid 0): a sandbox never runs as root`);
  return { ...found, user: name, switchUser: true };
}

/** Builds the seccomp BPF program into a private file. */
export function buildSeccomp(dir: string): string {
  if (!fs.existsSync(SYSTEM_PYTHON)) throw new Error(`${SYSTEM_PYTHON} is missing (install python3-seccomp)`);
  const r = spawnSync(
    SYSTEM_PYTHON,
    ['-c', SECCOMP_SCRIPT, JSON.stringify(SECCOMP_DENIED), JSON.stringify(SECCOMP_ENOSYS), JSON.stringify(SECCOMP_SOCKET_FAMILIES)],
    {
      maxBuffer: 1 << 20,
      env: { PATH: '/usr/bin:/bin' },
    }
  );
  if (r.status !== 0 || !r.stdout || r.stdout.length === 0 || r.stdout.length % 8 !== 0) {
    throw new Error(
      `cannot build the seccomp filter (python3-seccomp): ${(r.stderr?.toString('utf8') || r.error?.message || `exit ${r.status}`).trim().slice(0, 300)}`
    );
  }
  const file = path.join(dir, 'seccomp.bpf');
  fs.writeFileSync(file, r.stdout, { mode: 0o600 });
  return file;
}

/**
 * Sets up identity, seccomp and limits (once, at start: the bwrap sandbox holds what it made, sandboxes.ts);
 * on failure the confinement is null and the setup says why.
 */
export function setupConfinement(): ConfinementSetup {
  try {
    const identity = sandboxIdentity();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-confine-'));
    const seccompFile = buildSeccomp(dir);
    // the sandbox's user may pass through (to the staged code), not list it
    fs.chmodSync(dir, 0o711);
    return { confinement: { identity, seccompFile, dir, limits: detectLimits() }, failure: null };
  } catch (err) {
    return { confinement: null, failure: errorMessage(err) };
  }
}

/** The paths staged so far: the confinement's folder and the path → where it is staged below it. */
const staged = new Map<string, string>();

/**
 * The code a worker's sandbox binds, as the sandbox's user can reach it. bwrap, started as that user,
 * must walk to every folder it binds; the backend may be installed below a folder that user cannot enter
 * (a checkout in a private home or temp folder). So each path is staged once in the confinement's folder:
 * its files hard-linked (copied where a link cannot be made), its folders made anew, readable by all;
 * the sandbox binds the staged copy at the original path. A path already reachable is bound as it is.
 * Returns `[source, destination]` pairs.
 */
export function stageReads(c: Confinement, paths: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const p of paths) {
    if (reachable(p)) {
      out.push([p, p]);
      continue;
    }
    const key = `${c.dir}\0${p}`;
    let at = staged.get(key);
    if (!at) {
      at = path.join(c.dir, 'code', String(staged.size));
      fs.mkdirSync(path.dirname(at), { recursive: true, mode: 0o755 });
      fs.chmodSync(path.dirname(at), 0o755);
      stage(fs.realpathSync(p), at);
      staged.set(key, at);
    }
    out.push([at, p]);
  }
  return out;
}

/**
 * Like `stageReads`, for data that changes between calls (a skill's folder): staged anew for one sandbox
 * when the sandbox's user cannot reach it; `done()` removes the staged copy once the sandbox has ended.
 */
export function stageOnce(c: Confinement, paths: string[]): { reads: Array<[string, string]>; done: () => void } {
  const made: string[] = [];
  const reads = paths.map((p): [string, string] => {
    if (reachable(p)) return [p, p];
    const at = fs.mkdtempSync(path.join(c.dir, 'once-'));
    fs.chmodSync(at, 0o755);
    made.push(at);
    stage(fs.realpathSync(p), path.join(at, 'x'));
    return [path.join(at, 'x'), p];
  });
  return { reads, done: () => made.forEach(d => fs.rmSync(d, { recursive: true, force: true })) };
}

/** Whether every folder above `p` lets others pass, and `p` lets others read (an approximation that fails safe: staging). */
function reachable(p: string): boolean {
  try {
    let cur = path.resolve(p);
    const st = fs.statSync(cur);
    if ((st.mode & 0o004) === 0 || (st.isDirectory() && (st.mode & 0o001) === 0)) return false;
    for (;;) {
      const parent = path.dirname(cur);
      if (parent === cur) return true;
      const ps = fs.statSync(parent);
      if ((ps.mode & 0o001) === 0) return false;
      cur = parent;
    }
  } catch {
    return false;
  }
}

function stage(from: string, to: string): void {
  const st = fs.lstatSync(from);
  if (st.isSymbolicLink()) {
    fs.symlinkSync(fs.readlinkSync(from), to);
  } else if (st.isDirectory()) {
    fs.mkdirSync(to, { mode: 0o755 });
    fs.chmodSync(to, 0o755);
    for (const name of fs.readdirSync(from)) stage(path.join(from, name), path.join(to, name));
  } else if (st.isFile()) {
    try {
      fs.linkSync(from, to);
    } catch {
      fs.copyFileSync(from, to);
      fs.chmodSync(to, st.mode & 0o755);
    }
  }
}

/**
 * How to start bwrap confined: the program and the arguments before bwrap's own (setpriv as the sandbox
 * user, no_new_privs), and the bwrap arguments that load the seccomp filter from descriptor `seccompFd`.
 */
export function launcher(c: Confinement, bwrap: string, seccompFd: number, uid: number | null = null): { file: string; prefix: string[]; seccomp: string[] } {
  const { identity } = c;
  // `uid`: a uid of the sandbox's own (cgroups.ts, `uid-range`), with the sandbox user's group
  const prefix = identity.switchUser
    ? [
        '--reuid',
        String(uid ?? identity.uid),
        '--regid',
        String(identity.gid),
        '--clear-groups',
        '--no-new-privs',
        '--inh-caps=-all',
        '--bounding-set=-all',
        '--',
        bwrap,
      ]
    : ['--no-new-privs', '--', bwrap];
  return { file: '/usr/bin/setpriv', prefix, seccomp: ['--seccomp', String(seccompFd)] };
}

/** Opens the seccomp program for one sandbox (the caller closes it once the sandbox has started). */
export function openSeccomp(c: Confinement): number {
  return fs.openSync(c.seccompFile, 'r');
}
