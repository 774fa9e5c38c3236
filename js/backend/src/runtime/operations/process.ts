import { ChildProcess, spawn } from 'child_process';
import { OUTPUT_MAX_BYTES, SHELL_HARD_CAP_BYTES } from '../limits';
import { bwrapArgs, bwrapExecutable, SANDBOX_PATH, sandboxCommand, ShellMode } from '../sandbox';
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

/**
 * Runs shell commands: inside bwrap (mode `bwrap`) or, only when the operator switched the sandbox off,
 * directly with a cleared environment. Mode `unavailable` never runs anything (the runner denies earlier;
 * this is the second lock). The child is a process-group leader: on timeout or past the hard output cap the
 * whole group is killed. The first OUTPUT_MAX_BYTES of output are kept.
 */
export class ShellProcessOperations implements ProcessOperations {
  /** `system`: the sandbox's system binds (systemArgs() of the main process); computed here when absent. */
  constructor(
    private readonly mode: ShellMode,
    private readonly system?: string[]
  ) {}

  exec(req: ExecRequest): Promise<ExecResult> {
    if (this.mode === 'unavailable') return Promise.reject(new Error('shell sandbox unavailable'));
    let file: string;
    let args: string[];
    if (this.mode === 'bwrap') {
      file = bwrapExecutable();
      args = [
        ...bwrapArgs({ roots: req.roots, readonly: req.readonly, cwd: req.cwd, readOnlyBinds: req.readOnlyBinds, system: this.system }),
        '--',
        ...sandboxCommand(req.command),
      ];
    } else {
      file = '/bin/bash';
      args = ['-c', req.command];
    }
    return new Promise((resolve, reject) => {
      const child = spawn(file, args, {
        cwd: req.cwd,
        env: { PATH: SANDBOX_PATH, LANG: 'C.UTF-8', HOME: req.cwd, TERM: 'dumb' },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      const kept: Buffer[] = [];
      let keptBytes = 0;
      let total = 0;
      let timedOut = false;
      let killedForOutput = false;
      const onData = (chunk: Buffer) => {
        total += chunk.length;
        if (keptBytes < OUTPUT_MAX_BYTES) {
          const part = chunk.subarray(0, OUTPUT_MAX_BYTES - keptBytes);
          kept.push(part);
          keptBytes += part.length;
        }
        if (total > SHELL_HARD_CAP_BYTES && !killedForOutput) {
          killedForOutput = true;
          killGroup(child);
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup(child);
      }, req.timeoutMs);
      child.on('error', err => {
        clearTimeout(timer);
        reject(err);
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        resolve({
          exitCode: code,
          signal: signal ?? null,
          output: Buffer.concat(kept).toString('utf8'),
          outputBytes: total,
          timedOut,
          killedForOutput,
        });
      });
    });
  }
}
