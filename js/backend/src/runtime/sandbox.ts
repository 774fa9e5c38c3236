/**
 * L3: the shell sandbox. `bash` (and `execute_skill`) run as `bwrap … -- <prelude> … /bin/bash -c <command>`:
 * the workspace roots bound (read-only under `readonly`), system folders read-only, a handful of /etc
 * files, private /proc, /dev and /tmp, every namespace unshared (no network, new PID namespace),
 * `--die-with-parent`, `--new-session`, a cleared environment, cwd = the first root.
 *
 * At start the backend probes bwrap once (`true` inside the same sandbox). Mode:
 * - `bwrap`       the probe ran: shells run sandboxed;
 * - `unavailable` it did not: shell tools are denied `shell_sandbox_unavailable` (fail closed);
 * - `off`         the operator set NETACLAW_SHELL_SANDBOX=off: shells run unconfined (reported loudly).
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { SANDBOX_PROCESSES_MAX, SHELL_ADDRESS_SPACE_KB, SHELL_COMMAND_MAX_BYTES, SHELL_CPU_SECONDS, SHELL_FILE_MAX_KB, SHELL_PROCESSES_MAX } from './limits';
import { acquireSandbox, SandboxLimits } from './cgroups';
import { SizedTmp, sizedTmp } from './tmpfs';
import { Confinement, ConfinementSetup, launcher, openSeccomp } from './confine';
import { errorMessage } from '../lib/errortext';
import { orderedMounts, PathMount } from './pathrules';

/**
 * - `bwrap`: shells run in a confined bwrap sandbox of their own;
 * - `sandboxed`: this process (a worker) already runs inside its confined sandbox: shells run as its
 *   children, inside the same sandbox, with the prelude's limits;
 * - `off`: the operator switched the sandbox off; `unavailable`: shells are denied.
 */
export type ShellMode = 'bwrap' | 'sandboxed' | 'off' | 'unavailable';

/** /etc files a shell and the usual tools need (never /etc as a whole). */
const ETC_FILES = ['/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/ld.so.conf.d', '/etc/alternatives', '/etc/localtime', '/etc/nsswitch.conf'];

/** Top-level system entries: bound read-only when a folder, recreated when a merged-/usr symlink. */
const SYSTEM_TOP = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

export const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin';

export interface SandboxSpec {
  roots: string[];
  readonly: boolean;
  cwd: string;
  /** Folders bound read-only: a path, or `[source, destination]` (a staged copy, confine.ts). */
  readOnlyBinds?: Array<string | [string, string]>;
  /** From systemArgs(); computed here when absent. */
  system?: string[];
  /** Roots held open (pinned.ts): the root → its descriptor number in bwrap's process, bound with `--bind-fd`. */
  rootFds?: ReadonlyMap<string, number>;
  /** The path rules' mounts in the roots (pathrules.ts), placed among the roots' binds. */
  pathMounts?: readonly PathMount[];
}

/**
 * The system part of the sandbox: /usr read-only, the top-level folders (or merged-/usr symlinks), the /etc
 * files. Computed in the main process (a worker under the permission model cannot look at them).
 */
export function systemArgs(): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const top of SYSTEM_TOP) {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(top);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) args.push('--symlink', fs.readlinkSync(top), top);
    else if (st.isDirectory()) args.push('--ro-bind', top, top);
  }
  for (const f of ETC_FILES) args.push('--ro-bind-try', f, f);
  return args;
}

/**
 * What runs inside the sandbox for a shell command (after `--`). A short bash prelude first closes every
 * descriptor above 2 that the sandbox inherited (bwrap passes on whatever its caller holds without
 * close-on-exec, such as a descriptor the backend itself inherited); then it sets the kernel's limits before the command starts — RLIMIT_NPROC
 * (`ulimit -u`: processes of the sandbox user), RLIMIT_AS (address space of each process), RLIMIT_FSIZE
 * (the largest file it may write) and RLIMIT_CPU (CPU seconds of each process); a prelude that cannot set
 * them stops there, exit 126 — and runs the command with `bash -c`. The sandbox already runs as an
 * unprivileged user with no capabilities and `no_new_privs` (confine.ts), so nothing is dropped here.
 */
export function sandboxCommand(command: string): string[] {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: ${f##*/} is the shell's, not a template's
  const close = 'for f in /proc/self/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done; ';
  const bounds =
    `ulimit -u "$1" && ulimit -v ${SHELL_ADDRESS_SPACE_KB} && ulimit -f ${SHELL_FILE_MAX_KB} && ulimit -t ${SHELL_CPU_SECONDS} ` +
    '|| { echo "netaclaw-sandbox: cannot set the limits" >&2; exit 126; }; ';
  const prelude = `${close}${bounds}exec /bin/bash -c "$2"`;
  return ['/bin/bash', '-c', prelude, 'netaclaw-sandbox', String(SHELL_PROCESSES_MAX), command];
}

/** Why a command cannot be run (a NUL byte, or longer than one argument may be), or null. */
export function commandError(command: string): string | null {
  if (command.includes('\0')) return 'the command holds a NUL byte, which a shell command cannot hold';
  const bytes = Buffer.byteLength(command, 'utf8');
  if (bytes > SHELL_COMMAND_MAX_BYTES) return `the command is ${bytes} bytes; a shell command is at most ${SHELL_COMMAND_MAX_BYTES} bytes`;
  return null;
}

/** The bwrap arguments (before `--` and the command). Roots are bound after /tmp so a root under /tmp shows. */
export function bwrapArgs(spec: SandboxSpec): string[] {
  const args = [
    '--unshare-all',
    // its own user namespace, in which no further one can be made (so no capabilities can be regained)
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--clearenv',
    '--setenv',
    'PATH',
    SANDBOX_PATH,
    '--setenv',
    'HOME',
    '/tmp',
    '--setenv',
    'TMPDIR',
    '/tmp',
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--setenv',
    'TERM',
    'dumb',
    ...(spec.system ?? systemArgs()),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
  ];
  // each root once, outer roots before inner ones (a later bind covers an earlier one below it); the
  // read-only binds (a skill's folder) last, so that no root covers them
  // (the path rules' mounts after the bind of the folder they lie in: pathrules.ts)
  args.push(
    ...orderedMounts(
      bindOrder(spec.roots).map(root => ({ dest: root, args: rootBind(root, spec.readonly, spec.rootFds) })),
      spec.pathMounts ?? []
    )
  );
  for (const b of spec.readOnlyBinds ?? []) args.push('--ro-bind', ...(typeof b === 'string' ? [b, b] : b));
  args.push('--chdir', spec.cwd);
  return args;
}

/**
 * One root's bind: its held descriptor (`--bind-fd FD DEST`: exactly the inode the backend checked, no
 * second lookup of the path; pinned.ts) when it has one, else its path.
 */
export function rootBind(root: string, readonly: boolean, fds?: ReadonlyMap<string, number>): string[] {
  const fd = fds?.get(root) ?? fds?.get(path.resolve(root));
  if (fd !== undefined) return [readonly ? '--ro-bind-fd' : '--bind-fd', String(fd), root];
  return [readonly ? '--ro-bind' : '--bind', root, root];
}

/** Roots in binding order: an outer root before the roots inside it (a later bind shadows an earlier one). */
export function bindOrder(roots: string[]): string[] {
  return [...new Set(roots)].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
}

/**
 * The bwrap arguments of a worker's own sandbox: the system folders, the files the worker must read (the
 * Node binary, its own code, the package; `[source, destination]`, see `stageReads`) read-only, its roots (read-only under `readonly`), private
 * /proc, /dev and /tmp, every namespace unshared (no network at all, its own pid namespace). The
 * environment is the one the host gives the process (no `--clearenv`: Node's IPC variables come in it).
 */
export function workerBwrapArgs(
  roots: string[],
  readonly: boolean,
  reads: Array<[string, string]>,
  system?: string[],
  rootFds?: ReadonlyMap<string, number>,
  pathMounts: readonly PathMount[] = []
): string[] {
  const args = [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--unsetenv',
    'PWD',
    ...(system ?? systemArgs()),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
  ];
  const sources = new Map(reads.map(([from, to]) => [to, from]));
  for (const to of bindOrder([...sources.keys()])) args.push('--ro-bind', sources.get(to)!, to);
  args.push(
    ...orderedMounts(
      bindOrder(roots).map(root => ({ dest: root, args: rootBind(root, readonly, rootFds) })),
      pathMounts
    )
  );
  args.push('--chdir', '/');
  return args;
}

/** The bwrap executable: NETACLAW_BWRAP when set (an operator's own build), else `bwrap` on PATH. */
export function bwrapExecutable(): string {
  const v = process.env.NETACLAW_BWRAP;
  return v && v.trim() !== '' ? v : 'bwrap';
}

/** The descriptor on which bwrap reads the seccomp program (`--seccomp 4`). */
export const SECCOMP_FD = 4;

/** The first descriptor on which bwrap gets held roots (`--bind-fd 5 …`; pinned.ts). */
export const ROOT_FD_FIRST = SECCOMP_FD + 1;

/** A confined sandbox's command line (`confinedCommand`). */
export interface ConfinedCommand {
  file: string;
  args: string[];
  /** The seccomp program, opened for this sandbox: pass it as `stdio[SECCOMP_FD]`, close it once started. */
  seccompFd: number;
  /** The sandbox's kernel limits: `release()` once it has ended. */
  limits: SandboxLimits;
}

/**
 * A confined sandbox's command line: the launcher (setpriv as the sandbox user, `no_new_privs`; confine.ts),
 * bwrap with `bwrapArguments` and the seccomp filter, then `command`. `seccompFd` is the seccomp program,
 * opened for this sandbox: pass it as `stdio[SECCOMP_FD]` and close it once the process has started.
 * `c`: the confinement set up at start (held by the bwrap sandbox, sandboxes.ts).
 */
export function confinedCommand(c: Confinement, bwrapArguments: string[], command: string[], executable = bwrapExecutable()): ConfinedCommand {
  // the sandbox's kernel limits (cgroups.ts) and its own sized /tmp and /dev/shm (tmpfs.ts, as root): the
  // caller calls `limits.release()` once it has ended
  const kernel = acquireSandbox(c.limits);
  let tmp: SizedTmp = { args: bwrapArguments, release: () => undefined };
  if (c.limits.tmpBytes !== null && c.identity.switchUser) {
    try {
      tmp = sizedTmp(c.dir, bwrapArguments, c.limits.tmpBytes, kernel.uid ?? c.identity.uid, c.identity.gid);
    } catch (err) {
      kernel.release();
      throw err;
    }
  }
  const limits: SandboxLimits = {
    ...kernel,
    release: () => {
      kernel.release();
      tmp.release();
    },
  };
  const l = launcher(c, executable, SECCOMP_FD, limits.uid);
  const seccompFd = openSeccomp(c);
  const [file, ...enter] = limits.prefix.length > 0 ? [...limits.prefix, l.file] : [l.file];
  return { file, args: [...enter, ...l.prefix, ...tmp.args, ...l.seccomp, '--', ...firstProcessLimits(), ...command], seccompFd, limits };
}

/**
 * What starts a sandbox's first process (inside it, after bwrap made its user namespace): RLIMIT_NPROC and
 * RLIMIT_FSIZE for it and everything it starts — a worker, a shell that skips the prelude, an MCP server.
 * RLIMIT_NPROC counts the processes of the user inside this user namespace, so it bounds this sandbox.
 */
export function firstProcessLimits(): string[] {
  return ['/usr/bin/prlimit', `--nproc=${SANDBOX_PROCESSES_MAX}`, `--fsize=${SHELL_FILE_MAX_KB * 1024}`, '--'];
}

/** Closes a descriptor handed to a child (quietly: it may be closed already). */
export function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    /* closed */
  }
}

/** Runs `true` inside the confined sandbox (roots: a fresh empty temp folder); without a confinement, says why. */
export async function probeBwrap(setup: ConfinementSetup, executable = bwrapExecutable()): Promise<{ ok: boolean; detail: string }> {
  const c = setup.confinement;
  if (!c) return { ok: false, detail: `the sandbox cannot be confined: ${setup.failure}` };
  const dir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'netaclaw-probe-'));
  // the sandbox user binds it: it must be able to reach it
  fs.chmodSync(dir, 0o755);
  try {
    return await new Promise(resolve => {
      let err = '';
      let child;
      let cmd: ReturnType<typeof confinedCommand>;
      try {
        cmd = confinedCommand(c, bwrapArgs({ roots: [dir], readonly: true, cwd: '/' }), sandboxCommand('true'), executable);
      } catch (e) {
        resolve({ ok: false, detail: errorMessage(e) });
        return;
      }
      try {
        child = spawn(cmd.file, cmd.args, { stdio: ['ignore', 'ignore', 'pipe', 'ignore', cmd.seccompFd] });
      } catch (e) {
        cmd.limits.release();
        resolve({ ok: false, detail: errorMessage(e) });
        return;
      } finally {
        closeQuietly(cmd.seccompFd);
      }
      child.on('close', () => cmd.limits.release());
      child.on('error', () => cmd.limits.release());
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.stderr!.on('data', d => (err += d).slice(0, 2000));
      child.on('error', e => {
        clearTimeout(timer);
        resolve({ ok: false, detail: `${executable}: ${e.message}` });
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        resolve(
          code === 0
            ? { ok: true, detail: `${executable} ran a command in a sandbox` }
            : { ok: false, detail: `${executable} exited with ${code ?? signal}: ${err.trim().slice(0, 500)}` }
        );
      });
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
