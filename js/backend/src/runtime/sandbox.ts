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
import { SHELL_COMMAND_MAX_BYTES, SHELL_PROCESSES_MAX } from './limits';

export type ShellMode = 'bwrap' | 'off' | 'unavailable';

/** /etc files a shell and the usual tools need (never /etc as a whole). */
const ETC_FILES = [
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
  '/etc/localtime',
  '/etc/nsswitch.conf',
];

/** Top-level system entries: bound read-only when a folder, recreated when a merged-/usr symlink. */
const SYSTEM_TOP = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

export const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin';

export interface SandboxSpec {
  roots: string[];
  readonly: boolean;
  cwd: string;
  readOnlyBinds?: string[];
  /** From systemArgs(); computed here when absent. */
  system?: string[];
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
 * close-on-exec, such as a descriptor the backend itself inherited), except `keepFd` (a prepared sandbox's
 * command descriptor); then it bounds processes before the command starts: it sets the pid namespace's
 * `pid_max` (Linux ≥ 6.14 keeps one per namespace; it needs the capabilities bwrap leaves to a root caller
 * inside its user namespace) and RLIMIT_NPROC (`ulimit -u`; it binds a non-root caller: the kernel never
 * applies it to uid 0; a prelude that cannot set it stops there, exit 126), then drops every capability
 * (`setpriv`: empty bounding and inheritable sets, so the command and its children hold none) and runs the
 * command with `bash -c`.
 */
export function sandboxCommand(command: string, root = isRoot(), keepFd: number | null = null): string[] {
  const close = 'for f in /proc/self/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && [ "$n" != "$3" ] && eval "exec $n>&-"; done; ';
  const bounds = 'ulimit -u "$1" 2>/dev/null || { echo "netaclaw-sandbox: cannot bound processes" >&2; exit 126; }; ';
  const prelude = root
    ? `${close}echo "$1" > /proc/sys/kernel/pid_max 2>/dev/null; ${bounds}exec /usr/bin/setpriv --bounding-set=-all --inh-caps=-all -- /bin/bash -c "$2"`
    : `${close}${bounds}exec /bin/bash -c "$2"`;
  return ['/bin/bash', '-c', prelude, 'netaclaw-sandbox', String(SHELL_PROCESSES_MAX), command, keepFd === null ? '' : String(keepFd)];
}

/** The descriptor on which a prepared sandbox waits for its command. */
export const COMMAND_FD = 3;

/**
 * The command of a prepared sandbox (`sandboxCommand(PREPARED_COMMAND, root, COMMAND_FD)`): after the prelude (bounds set,
 * capabilities dropped), a bash waits for the command on descriptor 3 (`preparedInput` of it: its text and
 * a closing `.`, then end of input), closes that descriptor, and runs the command with `bash -c`, exactly
 * as `sandboxCommand(command)` would. Input without the closing `.` (cut short, or never sent) runs
 * nothing: exit 126.
 */
export const PREPARED_COMMAND =
  `IFS= read -r -N ${SHELL_COMMAND_MAX_BYTES + 1} c <&${COMMAND_FD}; exec ${COMMAND_FD}<&-; ` +
  `[[ $c == *. ]] || { echo "netaclaw-sandbox: no command received" >&2; exit 126; }; exec /bin/bash -c "\${c%.}"`;

/** What runs inside a prepared sandbox: the prelude keeping its command descriptor, then `PREPARED_COMMAND`. */
export function preparedSandboxCommand(root = isRoot()): string[] {
  return sandboxCommand(PREPARED_COMMAND, root, COMMAND_FD);
}

/** What is written to a prepared sandbox's descriptor 3 for `command`. */
export function preparedInput(command: string): string {
  return `${command}.`;
}

/** Why a command cannot be run (a NUL byte, or longer than one argument may be), or null. */
export function commandError(command: string): string | null {
  if (command.includes('\0')) return 'the command holds a NUL byte, which a shell command cannot hold';
  const bytes = Buffer.byteLength(command, 'utf8');
  if (bytes > SHELL_COMMAND_MAX_BYTES) return `the command is ${bytes} bytes; a shell command is at most ${SHELL_COMMAND_MAX_BYTES} bytes`;
  return null;
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
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
    '--setenv', 'PATH', SANDBOX_PATH,
    '--setenv', 'HOME', '/tmp',
    '--setenv', 'TMPDIR', '/tmp',
    '--setenv', 'LANG', 'C.UTF-8',
    '--setenv', 'TERM', 'dumb',
    ...(spec.system ?? systemArgs()),
    '--proc', '/proc',
    '--dev', '/dev',
    '--tmpfs', '/tmp',
  ];
  for (const dir of spec.readOnlyBinds ?? []) args.push('--ro-bind', dir, dir);
  // each root once, outer roots before inner ones (a later bind covers an earlier one below it)
  for (const root of [...new Set(spec.roots)].sort((a, b) => a.split('/').length - b.split('/').length)) args.push(spec.readonly ? '--ro-bind' : '--bind', root, root);
  args.push('--chdir', spec.cwd);
  return args;
}

/** The bwrap executable: NETACLAW_BWRAP when set (an operator's own build), else `bwrap` on PATH. */
export function bwrapExecutable(): string {
  const v = process.env.NETACLAW_BWRAP;
  return v && v.trim() !== '' ? v : 'bwrap';
}

/** Runs `true` inside the sandbox (roots: a fresh empty temp folder). */
export async function probeBwrap(executable = bwrapExecutable()): Promise<{ ok: boolean; detail: string }> {
  const dir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'netaclaw-probe-'));
  try {
    const args = [...bwrapArgs({ roots: [dir], readonly: true, cwd: dir }), '--', ...sandboxCommand('true')];
    return await new Promise(resolve => {
      let err = '';
      let child;
      try {
        child = spawn(executable, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      } catch (e) {
        resolve({ ok: false, detail: (e as Error).message });
        return;
      }
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

/** The mode from NETACLAW_SHELL_SANDBOX and the probe. */
export async function detectShellMode(): Promise<{ mode: ShellMode; detail: string }> {
  const setting = (process.env.NETACLAW_SHELL_SANDBOX ?? '').trim().toLowerCase();
  if (setting === 'off') return { mode: 'off', detail: 'NETACLAW_SHELL_SANDBOX=off: shell commands run UNCONFINED' };
  if (setting !== '' && setting !== 'bwrap' && setting !== 'auto') {
    throw new Error(`NETACLAW_SHELL_SANDBOX must be bwrap, auto or off, got ${JSON.stringify(process.env.NETACLAW_SHELL_SANDBOX)}`);
  }
  const probe = await probeBwrap();
  return probe.ok
    ? { mode: 'bwrap', detail: probe.detail }
    : { mode: 'unavailable', detail: `${probe.detail}; shell tools are denied (shell_sandbox_unavailable)` };
}

let current: { mode: ShellMode; detail: string } = { mode: 'unavailable', detail: 'not probed yet' };

/** The backend's shell mode, set once at start. */
export function shellSandbox(): { mode: ShellMode; detail: string } {
  return current;
}

export function setShellSandbox(state: { mode: ShellMode; detail: string }): void {
  current = state;
}
