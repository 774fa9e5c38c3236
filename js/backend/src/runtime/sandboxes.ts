/**
 * The one `Sandbox` interface of the runtime, and its providers. The backend chooses one at start
 * (`chooseSandbox`: NETACLAW_SHELL_SANDBOX and the probe) and hands it down in its RuntimeEnv (env.ts);
 * nothing else in the runtime asks which mechanism it is: a worker, a shell command and a stdio MCP server
 * are wrapped by the sandbox, and a tool that needs a shell asks `runsShells`. Another provider (a
 * container runtime, a remote sandbox service) is one more implementation of this interface, chosen here.
 *
 * The providers:
 * - `bwrap`: the probe ran: workers, shells and stdio servers run in confined bwrap sandboxes of their own
 *   (confine.ts: the sandbox user, seccomp, kernel limits; sandbox.ts: the command lines);
 * - `sandboxed`: inside a worker that already runs in its confined sandbox: shells run as its children,
 *   inside the same sandbox, with the prelude's limits (what the worker is told at `init`);
 * - `off`: the operator set NETACLAW_SHELL_SANDBOX=off: everything runs unconfined (reported loudly);
 * - `unavailable`: the probe did not run: shell tools are denied `shell_sandbox_unavailable` and stdio MCP
 *   servers refused (fail closed).
 */
import type { SandboxLimits } from './cgroups';
import { Confinement, ConfinementSetup, SandboxIdentity, setupConfinement, stageReads } from './confine';
import type { PathMount } from './pathrules';
import { inheritedNetEnv } from './net/env';
import { bwrapArgs, ConfinedCommand, confinedCommand, probeBwrap, SandboxSpec, sandboxCommand, ShellMode, workerBwrapArgs } from './sandbox';

/** How a process starts: its program and arguments, and, when confined, the seccomp descriptor and limits. */
export interface Launch {
  file: string;
  args: string[];
  /** The seccomp program for `stdio[SECCOMP_FD]` (closed by the caller once started); null: none. */
  seccompFd: number | null;
  /** The sandbox's kernel limits: `release()` once it has ended. */
  limits: SandboxLimits;
}

/** What a worker's own sandbox holds (host.ts). */
/** The sandbox network of one sandbox (net/sandbox.ts): its bwrap arguments and the bridge before its command. */
export interface SandboxNetwork {
  bwrapArgs: string[];
  wrap: (command: string[]) => string[];
}

export interface WorkerSandboxSpec {
  /** Its network (the rules' net() hosts through its proxy); absent: none. */
  net?: SandboxNetwork | null;
  roots: string[];
  readonly: boolean;
  /** Files the worker must read (the Node binary, its code, the package): bound read-only. */
  reads: string[];
  /** The held roots' descriptor numbers in the sandbox's launcher (pinned.ts). */
  rootFds?: ReadonlyMap<string, number>;
  /** The path rules' mounts (pathrules.ts). */
  pathMounts?: readonly PathMount[];
  /** The worker's command line (node, its flags, its module). */
  command: string[];
}

/** What a stdio MCP server's sandbox holds (mcp/client.ts). */
export interface ServerSandboxSpec {
  /** Its network (the global net() hosts through its proxy); absent: none. */
  net?: SandboxNetwork | null;
  /** The roots bound read-only. */
  roots: string[];
  /** The server's code, bound read-only. */
  reads: string[];
  command: string[];
}

export interface Sandbox {
  /** The mechanism's name: what /health and the start log show, and what a worker is told of its shells. */
  readonly mode: ShellMode;
  /** How it was chosen (the probe's answer, the operator's setting). */
  readonly detail: string;
  /** Shell tools (bash, a command tool) and stdio MCP servers can run here. */
  readonly runsShells: boolean;
  /** The OS boundary (identity, seccomp, kernel limits) this sandbox confines with; null when it has none. */
  readonly confinement: Confinement | null;
  /** The user sandboxes run as, when it is another than the backend's (held roots are checked for its access). */
  sandboxUser(): SandboxIdentity | null;
  /** The environment a shell of this sandbox inherits besides its own (a worker's shells: its proxy settings). */
  shellEnv(): Record<string, string>;
  /** Runs `true` inside this sandbox. */
  probe(): Promise<{ ok: boolean; detail: string }>;
  /** A worker's command line inside a sandbox of its own; null: the worker runs as a plain child (Node's permission model alone). */
  wrapWorker(spec: WorkerSandboxSpec): Launch | null;
  /**
   * A shell command's command line. `spec`: the binds of a sandbox of its own (used by a confining
   * sandbox). Throws when shells cannot run here.
   */
  wrapShell(command: string, spec: SandboxSpec, net?: SandboxNetwork | null): Launch;
  /** A stdio MCP server's command line. Throws when servers cannot run here (fail closed). */
  wrapServer(spec: ServerSandboxSpec): Launch;
}

const NO_LIMITS: SandboxLimits = { prefix: [], uid: null, oomKills: () => 0, release: () => undefined };

function confined(cmd: ConfinedCommand): Launch {
  return { file: cmd.file, args: cmd.args, seccompFd: cmd.seccompFd, limits: cmd.limits };
}

/**
 * Confined bwrap sandboxes of their own for every worker, shell and stdio server. Without a confinement
 * (its setup failed) nothing can be confined: the sandbox is unavailable (fail closed).
 */
export function bwrapSandbox(setup: ConfinementSetup, detail = 'bwrap'): Sandbox {
  const c = setup.confinement;
  if (!c) return unavailableSandbox(`the sandbox cannot be confined: ${setup.failure}`);
  return {
    mode: 'bwrap',
    detail,
    runsShells: true,
    confinement: c,
    sandboxUser: () => (c.identity.switchUser ? c.identity : null),
    shellEnv: () => ({}),
    probe: () => probeBwrap(setup),
    wrapWorker: spec => {
      const reads = stageReads(c, spec.reads);
      const args = workerBwrapArgs(spec.roots, spec.readonly, reads, undefined, spec.rootFds, spec.pathMounts);
      return confined(confinedCommand(c, args.concat(spec.net?.bwrapArgs ?? []), spec.net ? spec.net.wrap(spec.command) : spec.command));
    },
    wrapShell: (command, spec, net) =>
      confined(confinedCommand(c, bwrapArgs(spec).concat(net?.bwrapArgs ?? []), net ? net.wrap(sandboxCommand(command)) : sandboxCommand(command))),
    wrapServer: spec => {
      const reads = stageReads(c, spec.reads);
      const args = workerBwrapArgs(spec.roots, true, reads);
      return confined(confinedCommand(c, args.concat(spec.net?.bwrapArgs ?? []), spec.net ? spec.net.wrap(spec.command) : spec.command));
    },
  };
}

/** Inside a worker's own confined sandbox: shells are its children, in the same sandbox. */
export function insideSandbox(detail = "inside the worker's sandbox"): Sandbox {
  return {
    mode: 'sandboxed',
    detail,
    runsShells: true,
    confinement: null,
    sandboxUser: () => null,
    shellEnv: () => inheritedNetEnv(),
    probe: async () => ({ ok: true, detail }),
    wrapWorker: () => null,
    wrapShell: command => {
      const [file, ...args] = sandboxCommand(command);
      return { file, args, seccompFd: null, limits: NO_LIMITS };
    },
    wrapServer: () => {
      throw new Error('a worker starts no MCP server');
    },
  };
}

/** The operator switched the sandbox off: everything runs unconfined. */
export function offSandbox(detail = 'NETACLAW_SHELL_SANDBOX=off: shell commands run UNCONFINED'): Sandbox {
  return {
    mode: 'off',
    detail,
    runsShells: true,
    confinement: null,
    sandboxUser: () => null,
    shellEnv: () => ({}),
    probe: async () => ({ ok: true, detail }),
    wrapWorker: () => null,
    wrapShell: command => ({ file: '/bin/bash', args: ['-c', command], seccompFd: null, limits: NO_LIMITS }),
    wrapServer: spec => {
      const [file, ...args] = spec.command;
      return { file, args, seccompFd: null, limits: NO_LIMITS };
    },
  };
}

/** No sandbox could be set up: shells and stdio servers are refused (fail closed). */
export function unavailableSandbox(detail: string): Sandbox {
  return {
    mode: 'unavailable',
    detail,
    runsShells: false,
    confinement: null,
    sandboxUser: () => null,
    shellEnv: () => ({}),
    probe: async () => ({ ok: false, detail }),
    wrapWorker: () => null,
    wrapShell: () => {
      throw new Error('shell sandbox unavailable');
    },
    wrapServer: () => {
      throw new Error('stdio MCP servers run only in the OS sandbox, which is unavailable here');
    },
  };
}

/**
 * The sandbox a worker is told to use at `init` (protocol.ts `shell`): inside its own sandbox, off, or
 * unavailable. (`bwrap` is never sent to a worker: a worker cannot start a confined sandbox of its own.)
 */
export function workerSandbox(mode: ShellMode): Sandbox {
  if (mode === 'sandboxed') return insideSandbox();
  if (mode === 'off') return offSandbox();
  return unavailableSandbox(mode === 'unavailable' ? 'shell sandbox unavailable' : 'a worker cannot start a confined sandbox of its own');
}

/**
 * The backend's sandbox, chosen once at start from NETACLAW_SHELL_SANDBOX (`bwrap`/`auto`, the default,
 * or `off`) and the probe: bwrap when the probe runs `true` inside a confined sandbox, else unavailable.
 */
export async function chooseSandbox(): Promise<Sandbox> {
  const setting = (process.env.NETACLAW_SHELL_SANDBOX ?? '').trim().toLowerCase();
  if (setting === 'off') return offSandbox();
  if (setting !== '' && setting !== 'bwrap' && setting !== 'auto') {
    throw new Error(`NETACLAW_SHELL_SANDBOX must be bwrap, auto or off, got ${JSON.stringify(process.env.NETACLAW_SHELL_SANDBOX)}`);
  }
  const setup = setupConfinement();
  const probe = await probeBwrap(setup);
  return probe.ok ? bwrapSandbox(setup, probe.detail) : unavailableSandbox(`${probe.detail}; shell tools are denied (shell_sandbox_unavailable)`);
}
