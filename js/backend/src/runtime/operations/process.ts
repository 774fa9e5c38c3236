import { ChildProcess, spawn } from 'child_process';
import * as path from 'path';
import { OUTPUT_MAX_BYTES, SHELL_HARD_CAP_BYTES } from '../limits';
import { closeQuietly, commandError, ROOT_FD_FIRST, SANDBOX_PATH } from '../sandbox';
import type { Sandbox } from '../sandboxes';
import type { ExecRequest, ExecResult, ProcessOperations } from './types';
import { stageOnce } from '../confine';
import { watchDisk } from '../diskwatch';
import { PathRulesPlan, pathRulesPlan, unreadableFile } from '../pathrules';
import { PinnedRoots, pinRoots } from '../pinned';
import { wantsNetwork } from '../net/decide';
import type { SandboxNet } from '../net/sandbox';

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
  /** Why the sandbox was stopped from outside (its disk bound), or null. */
  private killedFor: string | null = null;
  private error: Error | null = null;
  private end: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private settle: (() => void) | null = null;

  constructor(private readonly child: ChildProcess) {
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

  /** Stops the shell's whole group, saying why. */
  stop(why: string): void {
    this.killedFor ??= why;
    killGroup(this.child);
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
            ...(this.killedFor ? { killedFor: this.killedFor } : {}),
          });
        }
      };
      this.settle();
    });
  }
}

/**
 * Runs shell commands as the sandbox wraps them (sandboxes.ts): in a confined sandbox of its own (a
 * sandbox with a confinement: the main process), as a child inside this process's own sandbox (a worker),
 * or, only when the operator switched the sandbox off, directly with a cleared environment. A sandbox that
 * runs no shells never runs anything (the runner denies earlier; this is the second lock). The child is a
 * process-group leader: on timeout or past the hard output cap the whole group is killed. The first
 * OUTPUT_MAX_BYTES of output are kept.
 */
export class ShellProcessOperations implements ProcessOperations {
  /** `system`: the sandbox's system binds (systemArgs() of the main process); computed here when absent. */
  constructor(
    private readonly sandbox: Sandbox,
    private readonly system?: string[]
  ) {}

  private spawnShell(file: string, args: string[], cwd: string, seccompFd: number | null = null, stdin?: string, rootFds: number[] = []): ShellChild {
    let child: ChildProcess;
    const input = stdin === undefined ? 'ignore' : 'pipe';
    try {
      child = spawn(file, args, {
        cwd,
        // a worker's shells get the proxy settings its sandbox was given (net/sandbox.ts)
        env: { PATH: SANDBOX_PATH, LANG: 'C.UTF-8', HOME: cwd, TERM: 'dumb', ...this.sandbox.shellEnv() },
        // the command's stdin is /dev/null unless text is given; bwrap reads the seccomp program on descriptor 4
        // (and the held roots on descriptors 5… : ROOT_FD_FIRST)
        stdio: seccompFd !== null ? [input, 'pipe', 'pipe', 'ignore', seccompFd, ...rootFds] : [input, 'pipe', 'pipe'],
        detached: true,
      });
    } finally {
      if (seccompFd !== null) closeQuietly(seccompFd);
    }
    if (stdin !== undefined && child.stdin) {
      // a command that does not read its input must not fail the call
      child.stdin.on('error', () => undefined);
      child.stdin.end(stdin);
    }
    return new ShellChild(child);
  }

  async exec(req: ExecRequest): Promise<ExecResult> {
    if (!this.sandbox.runsShells) throw new Error('shell sandbox unavailable');
    const invalid = commandError(req.command);
    if (invalid) throw new Error(invalid);
    const c = this.sandbox.confinement;
    if (!c) {
      // the sandbox off, or a worker inside its own confined sandbox: the shell is its child, in the same
      // sandbox, with the prelude's limits
      const plain = this.sandbox.wrapShell(req.command, { roots: req.roots, readonly: req.readonly, cwd: req.cwd });
      return this.spawnShell(plain.file, plain.args, req.cwd, null, req.stdin).run(req.timeoutMs);
    }
    // bwrap runs as the sandbox user, which may not reach a folder bound read-only (a skill's, in the
    // backend's data folder): such a folder is staged for this sandbox
    const extra = stageOnce(c, req.readOnlyBinds ?? []);
    let release = (): void => undefined;
    let stopWatch = (): void => undefined;
    let plan: PathRulesPlan | null = null;
    let ownPins: PinnedRoots | null = null;
    let net: SandboxNet | null = null;
    try {
      // the rules' net() hosts, through the sandbox's own proxy (net/sandbox.ts); none: no network at all
      // (loaded only here: a worker, which runs its shells in its own sandbox, never loads the proxy)
      if (wantsNetwork(req.rules)) net = await (await import('../net/sandbox')).openSandboxNet(req.rules, req.network, c.dir);
      let held = [...(req.rootFds ?? new Map<string, number>())];
      if (req.rules && held.length === 0 && req.roots.length > 0) {
        // path rules are enforced through held roots (pathrules.ts): a request without them holds its own
        ownPins = await pinRoots(req.roots, c.identity.switchUser ? { sandboxUser: c.identity } : {});
        held = ownPins.roots.map(r => [r.given, r.fd]);
      }
      const rootFds = new Map(held.map(([root], i) => [root, ROOT_FD_FIRST + i]));
      if (req.rules) {
        plan = pathRulesPlan({
          rules: req.rules,
          roots: held.map(([root, fd]) => ({ given: path.resolve(root), fd })),
          readonly: req.readonly,
          firstSlot: ROOT_FD_FIRST + held.length,
          unreadable: unreadableFile(c.dir),
        });
      }
      const cmd = this.sandbox.wrapShell(
        req.command,
        {
          roots: req.roots,
          readonly: req.readonly,
          cwd: req.cwd,
          readOnlyBinds: extra.reads,
          system: this.system,
          rootFds,
          pathMounts: plan?.mounts,
        },
        net
      );
      release = () => cmd.limits.release();
      // nor the working folder from the host's side: bwrap starts in /
      const shell = this.spawnShell(cmd.file, cmd.args, '/', cmd.seccompFd, req.stdin, [...held.map(([, fd]) => fd), ...(plan?.stdio ?? [])]);
      if (!req.readonly) stopWatch = watchDisk(req.roots, why => shell.stop(why));
      const r = await shell.run(req.timeoutMs);
      const memory = c.limits.memoryBytes;
      if (!r.killedFor && r.exitCode !== 0 && cmd.limits.oomKills() > 0 && memory !== null) {
        r.killedFor = `the sandbox reached its memory limit of ${Math.round(memory / 1024 / 1024)} MiB (its processes, /tmp, /dev/shm and memfd pages): the kernel killed a process`;
      }
      return r;
    } finally {
      stopWatch();
      // whatever is left in the sandbox is killed, and its cgroups removed
      release();
      extra.done();
      // then the mount points made for missing paths go, and the held entries are closed
      plan?.release();
      await ownPins?.close();
      await net?.close();
    }
  }

  /** Nothing is kept between commands (kept for the worker's shutdown path). */
  async close(): Promise<void> {}
}
