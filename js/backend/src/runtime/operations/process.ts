import { ChildProcess, spawn } from 'child_process';
import { OUTPUT_MAX_BYTES, SHELL_HARD_CAP_BYTES, SHELL_PREPARE_IDLE_MS } from '../limits';
import {
  bwrapArgs,
  bwrapExecutable,
  commandError,
  preparedSandboxCommand,
  preparedInput,
  SANDBOX_PATH,
  sandboxCommand,
  ShellMode,
} from '../sandbox';
import type { ExecRequest, ExecResult, ProcessOperations } from './types';

/** Kills the whole process group of a detached child. */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    try {
      child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

/** What a sandbox is built for: the folders bound, how, and where the command starts. */
export type ShellSpec = Pick<ExecRequest, 'roots' | 'readonly' | 'cwd' | 'readOnlyBinds'>;

function specKey(spec: ShellSpec): string {
  return JSON.stringify([spec.roots, spec.readonly, spec.cwd, spec.readOnlyBinds ?? []]);
}

/**
 * One shell process (bwrap, or bash with the sandbox off), from its start to its end: its output is
 * collected from the start (the first OUTPUT_MAX_BYTES kept), and past the hard cap its group is killed.
 * `run` starts the time limit and answers when the process has ended and its output is in.
 */
class ShellChild {
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  private total = 0;
  private timedOut = false;
  private killedForOutput = false;
  private error: Error | null = null;
  private end: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private settle: (() => void) | null = null;

  constructor(readonly child: ChildProcess) {
    const onData = (chunk: Buffer) => {
      this.total += chunk.length;
      if (this.keptBytes < OUTPUT_MAX_BYTES) {
        const part = chunk.subarray(0, OUTPUT_MAX_BYTES - this.keptBytes);
        this.kept.push(part);
        this.keptBytes += part.length;
      }
      if (this.total > SHELL_HARD_CAP_BYTES && !this.killedForOutput) {
        this.killedForOutput = true;
        killGroup(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('error', err => {
      this.error ??= err;
      this.settle?.();
    });
    child.on('close', (code, signal) => {
      this.end = { code, signal };
      this.settle?.();
    });
  }

  /** Ended (or failed to start) before it was given anything to run. */
  get over(): boolean {
    return this.end !== null || this.error !== null;
  }

  kill(): void {
    killGroup(this.child);
  }

  /** Resolves once the process has ended (or could not start). */
  closed(): Promise<void> {
    if (this.over) return Promise.resolve();
    return new Promise(resolve => {
      this.child.once('close', () => resolve());
      this.child.once('error', () => resolve());
    });
  }

  run(timeoutMs: number): Promise<ExecResult> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.timedOut = true;
        killGroup(this.child);
      }, timeoutMs);
      this.settle = () => {
        if (this.error) {
          clearTimeout(timer);
          reject(this.error);
        } else if (this.end) {
          clearTimeout(timer);
          resolve({
            exitCode: this.end.code,
            signal: this.end.signal ?? null,
            output: Buffer.concat(this.kept).toString('utf8'),
            outputBytes: this.total,
            timedOut: this.timedOut,
            killedForOutput: this.killedForOutput,
          });
        }
      };
      this.settle();
    });
  }
}

/** A sandbox started ahead, waiting on descriptor 3 for its one command, and what it was built for. */
interface Prepared {
  key: string;
  shell: ShellChild;
}

/**
 * Runs shell commands: inside bwrap (mode `bwrap`) or, only when the operator switched the sandbox off,
 * directly with a cleared environment. Mode `unavailable` never runs anything (the runner denies earlier;
 * this is the second lock). The child is a process-group leader: on timeout or past the hard output cap the
 * whole group is killed. The first OUTPUT_MAX_BYTES of output are kept.
 *
 * With `prepare` (a worker: one batch, one policy), the next sandbox is started ahead, off the call's path:
 * when the worker has been idle for SHELL_PREPARE_IDLE_MS after `prepare(spec)` or after a command, for
 * the same roots, `readonly` and working folder. A
 * command is handed to it only when it asks for exactly that; any other command gets a sandbox of its own
 * and the prepared one is killed. Each sandbox runs one command, never more; `close()` kills the one
 * waiting, and none is started after it.
 */
export class ShellProcessOperations implements ProcessOperations {
  private prepared: Prepared | null = null;
  private pending: NodeJS.Timeout | null = null;
  private closed = false;

  /** `system`: the sandbox's system binds (systemArgs() of the main process); computed here when absent. */
  constructor(
    private readonly mode: ShellMode,
    private readonly system?: string[],
    private readonly options: { prepare?: boolean } = {}
  ) {}

  private spawnShell(file: string, args: string[], cwd: string, commandFd: boolean): ShellChild {
    const child = spawn(file, args, {
      cwd,
      env: { PATH: SANDBOX_PATH, LANG: 'C.UTF-8', HOME: cwd, TERM: 'dumb' },
      // the command's stdin is /dev/null; a prepared sandbox reads its command on descriptor 3 alone
      stdio: commandFd ? ['ignore', 'pipe', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    // a sandbox that died before its command was written: its end says why, not this write
    child.stdio[3]?.on('error', () => undefined);
    return new ShellChild(child);
  }

  private bwrap(spec: ShellSpec, command: string[], commandFd: boolean): ShellChild {
    const args = [
      ...bwrapArgs({ roots: spec.roots, readonly: spec.readonly, cwd: spec.cwd, readOnlyBinds: spec.readOnlyBinds, system: this.system }),
      '--',
      ...command,
    ];
    return this.spawnShell(bwrapExecutable(), args, spec.cwd, commandFd);
  }

  /**
   * Starts a sandbox for `spec` that waits for its command, once nothing has run for SHELL_PREPARE_IDLE_MS
   * (bwrap mode with `prepare` only; the one waiting before is killed). A command that comes first cancels
   * it. Failing to start is not an error here: the next command starts its own.
   */
  prepare(spec: ShellSpec): void {
    if (this.mode !== 'bwrap' || !this.options.prepare || this.closed) return;
    this.cancel();
    this.pending = setTimeout(() => {
      this.pending = null;
      this.start(spec);
    }, SHELL_PREPARE_IDLE_MS);
    this.pending.unref();
  }

  private cancel(): void {
    if (this.pending) clearTimeout(this.pending);
    this.pending = null;
  }

  private start(spec: ShellSpec): void {
    if (this.closed) return;
    this.discard();
    try {
      this.prepared = { key: specKey(spec), shell: this.bwrap(spec, preparedSandboxCommand(), true) };
    } catch {
      this.prepared = null;
    }
  }

  /** Kills the sandbox waiting, if any, and waits for it to end; nothing is prepared afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    this.cancel();
    const p = this.prepared;
    this.discard();
    if (p) await p.shell.closed();
  }

  private discard(): void {
    const p = this.prepared;
    this.prepared = null;
    p?.shell.kill();
  }

  /** The prepared sandbox when it was built for `spec` and still waits; else null (and it is killed). */
  private take(spec: ShellSpec): ShellChild | null {
    const p = this.prepared;
    if (!p) return null;
    this.prepared = null;
    if (p.key === specKey(spec) && !p.shell.over) return p.shell;
    p.shell.kill();
    return null;
  }

  async exec(req: ExecRequest): Promise<ExecResult> {
    if (this.mode === 'unavailable') throw new Error('shell sandbox unavailable');
    const invalid = commandError(req.command);
    if (invalid) throw new Error(invalid);
    if (this.mode !== 'bwrap') return this.spawnShell('/bin/bash', ['-c', req.command], req.cwd, false).run(req.timeoutMs);
    this.cancel();
    let shell = this.take(req);
    if (shell) {
      (shell.child.stdio[3] as NodeJS.WritableStream).end(preparedInput(req.command));
    } else {
      shell = this.bwrap(req, sandboxCommand(req.command), false);
    }
    const result = await shell.run(req.timeoutMs);
    // the next sandbox is built once this one is gone and the worker is idle
    this.prepare(req);
    return result;
  }
}
