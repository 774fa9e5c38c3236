/**
 * Deciding and running one call: the gate (L1), the host symlink check, the shell-sandbox check, then the
 * implementation through the given operations. The worker and the main process both use it, each with
 * its own registry, operations and copy of the policy and routes.
 */
import * as fs from 'fs';
import * as path from 'path';
import { checkCall, GateResult, requiresShell, requiresSkillScope } from './gate';
import { cutText, OUTPUT_MAX_BYTES } from './limits';
import { OutsideRootsError } from './operations/confined';
import type { Operations } from './operations/types';
import type { CallOutcome, WorkerLayers, WorkerPolicyWire } from './protocol';
import { checkRealPaths } from './realpath';
import type { Sandbox } from './sandboxes';
import type { PinnedRoots } from './pinned';
import { MainServices, ToolError, ToolImpl } from './tools/types';
import { DECISIONS, RUNTIME_REASONS } from './codes';
import type { RulesInput, ToolRuntimeRoute } from '@netaclaw/tool-policy';
import { activeCatalog, policy } from '../wire/policy';
import { errorMessage } from '../lib/errortext';

export interface RunnerContext {
  policy: WorkerPolicyWire;
  routes: ToolRuntimeRoute[];
  /**
   * The session's rules (docs/package.md "Rules"): a `deny` denies here too; an `ask` was put to the user
   * before the call came here, so it takes its route (gate.ts `approved`).
   */
  rules?: RulesInput | null;
  ops: Operations;
  /** Where shell commands run here: a tool that needs a shell is denied where none can run. */
  sandbox: Sandbox;
  tools: Readonly<Record<string, ToolImpl>>;
  agentId: number | null;
  services: MainServices | null;
  /** Test-only: switch off the gate or the symlink check to show another layer alone. */
  layers?: WorkerLayers;
  /** The main process: the run's held roots (pinned.ts); the symlink check resolves against them. */
  pins?: PinnedRoots;
}

const ALL_ON: WorkerLayers = { gate: true, hostCheck: true };

function denied(reason: string, detail: string | null, started: number): CallOutcome {
  return { decision: 'denied', reason, detail, ok: false, error: detail ?? reason, durationMs: Date.now() - started };
}

/**
 * The decision for a call: the gate's, unless the host symlink check or the shell sandbox denies it.
 * A gate error (malformed policy or routes) is a denial too: fail closed.
 */
export async function decide(ctx: RunnerContext, name: string, args: unknown, early?: GateResult): Promise<GateResult> {
  const layers = ctx.layers ?? ALL_ON;
  let gate: GateResult;
  if (layers.gate && early) {
    // the gate's answer for this very call, with this context's policy and routes, computed beforehand
    gate = early;
  } else if (layers.gate) {
    try {
      gate = checkCall({ policy: ctx.policy, routes: ctx.routes, rules: ctx.rules, asks: 'approved', name, arguments: args });
    } catch (err) {
      return { decision: DECISIONS.denied, reason: RUNTIME_REASONS.invalidArguments, paths: [], detail: `gate error: ${errorMessage(err)}` };
    }
  } else {
    gate = { decision: DECISIONS.workerLocal, reason: null, paths: testPaths(ctx, args), detail: 'gate switched off (test)' };
  }
  if (gate.decision === 'denied') return gate;
  // (a call without paths has nothing to resolve: no wait)
  if (layers.hostCheck && gate.paths.length > 0) {
    const denial = ctx.pins ? await ctx.pins.checkRealPaths(gate.paths) : await checkRealPaths(gate.paths, ctx.policy.workspaceRoots);
    if (denial) return { decision: 'denied', reason: denial.reason, paths: gate.paths, detail: denial.detail };
  }
  if (!ctx.sandbox.runsShells && requiresShell(name)) {
    return {
      decision: 'denied',
      reason: RUNTIME_REASONS.sandboxUnavailable,
      paths: gate.paths,
      detail: 'bwrap cannot run on this host; shell commands are refused',
    };
  }
  return gate;
}

/**
 * With the gate switched off (tests only), the paths a tool would have been given: its `path` argument
 * taken as is, resolved against the first root. No check at all: that is the point of switching L1 off.
 */
function testPaths(ctx: RunnerContext, args: unknown): GateResult['paths'] {
  const a = args as { path?: unknown } | null;
  if (!a || typeof a.path !== 'string') return [];
  return [{ argument: 'path', path: path.resolve(ctx.policy.workspaceRoots[0] ?? '/', a.path), write: true }];
}

/**
 * Null when a skill-scoped call names a skill bound to the agent; else why not. The gate has checked the
 * shape of `name`; which tools are skill-scoped is the package's (`requiresSkillScope`).
 */
async function skillScopeError(ctx: RunnerContext, name: string, args: Record<string, unknown>): Promise<string | null> {
  if (!requiresSkillScope(name)) return null;
  if (!ctx.services) return `${name} runs only in the main process`;
  const skill = args.name;
  if (typeof skill !== 'string') return `${name} needs the name of a skill`;
  let bound: readonly string[];
  try {
    bound = await ctx.services.boundSkills();
  } catch (err) {
    return `the skills bound to the agent cannot be read: ${errorMessage(err)}`;
  }
  if (bound.includes(skill)) return null;
  const list = bound.length ? bound.map(b => JSON.stringify(b)).join(', ') : 'none';
  return `skill ${JSON.stringify(skill)} is not bound to this agent (bound skills: ${list})`;
}

/** Runs a call already decided runnable here, with the context's registry. */
export async function execute(ctx: RunnerContext, gate: GateResult, name: string, args: unknown, started: number): Promise<CallOutcome> {
  const impl = Object.prototype.hasOwnProperty.call(ctx.tools, name) ? ctx.tools[name] : undefined;
  const base = { decision: gate.decision, reason: gate.reason, detail: gate.detail, ...(gate.rule ? { rule: gate.rule } : {}) };
  if (!impl) return { ...base, ok: false, error: `no implementation of ${name} here`, durationMs: Date.now() - started };
  const argObj = args !== null && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  const unbound = requiresSkillScope(name) ? await skillScopeError(ctx, name, argObj) : null;
  if (unbound) return { ...base, ok: false, error: unbound, durationMs: Date.now() - started };
  try {
    const r = await impl(argObj, {
      ops: ctx.ops,
      policy: ctx.policy,
      paths: gate.paths,
      within: (ctx.layers ?? ALL_ON).hostCheck ? ctx.policy.workspaceRoots : null,
      sandbox: ctx.sandbox,
      agentId: ctx.agentId,
      services: ctx.services,
    });
    const out = typeof r === 'string' ? { output: r } : r;
    const output = cutText(out.output, OUTPUT_MAX_BYTES);
    return out.error
      ? { ...base, ok: false, output, error: out.error, durationMs: Date.now() - started }
      : { ...base, ok: true, output, durationMs: Date.now() - started, ...(out.media?.length ? { media: out.media } : {}) };
  } catch (err) {
    if (err instanceof OutsideRootsError) {
      // The host symlink check, made again on the object the tool opened: a path swapped meanwhile.
      return denied(RUNTIME_REASONS.outsideWorkspace, cutText(err.message, 4096), started);
    }
    const message =
      err instanceof ToolError
        ? err.message
        : (err as NodeJS.ErrnoException).code === 'ERR_ACCESS_DENIED'
          ? `permission denied by the worker's process permissions (${errorMessage(err)})`
          : err instanceof Error
            ? `${err.name}: ${err.message}`
            : errorMessage(err);
    return { ...base, ok: false, error: cutText(message, 4096), durationMs: Date.now() - started };
  }
}

/**
 * Decide, then run here when the decision is `here`; anything else is returned undecided-for-here.
 * `early`: the gate's answer (`checkCall` with the context's policy and routes) for this same name and
 * arguments, when the caller already has it; the symlink and sandbox checks are made here all the same.
 */
export async function runHere(
  ctx: RunnerContext,
  here: typeof DECISIONS.workerLocal | typeof DECISIONS.proxy | 'any',
  name: string,
  args: unknown,
  early?: GateResult
): Promise<{ gate: GateResult; outcome: CallOutcome | null }> {
  const started = Date.now();
  const gate = await decide(ctx, name, args, early);
  if (gate.decision === 'denied') {
    return { gate, outcome: { ...denied(gate.reason ?? RUNTIME_REASONS.invalidArguments, gate.detail, started), ...(gate.rule ? { rule: gate.rule } : {}) } };
  }
  if (here !== 'any' && gate.decision !== here) return { gate, outcome: null };
  return { gate, outcome: await execute(ctx, gate, name, args, started) };
}

/**
 * Arguments of the shape a JSON Schema describes, made from the schema alone: every property given the
 * first of its `enum`, or a value of its `type` (a one-letter string, the `minimum` or 1, false, an empty
 * list, an object made alike). Only a synthetic call to be checked is made of them (`prepareFirstCall`).
 */
function sampleOf(schema: unknown): unknown {
  const s = schema !== null && typeof schema === 'object' ? (schema as Record<string, unknown>) : {};
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  switch (s.type) {
    case 'string':
      return 'x';
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object': {
      const props = s.properties !== null && typeof s.properties === 'object' ? (s.properties as Record<string, unknown>) : {};
      return Object.fromEntries(Object.keys(props).map(k => [k, sampleOf(props[k])]));
    }
    default:
      return null;
  }
}

/**
 * Does ahead, once, the work that a context's first call would otherwise do on its path, none of which
 * depends on the call, and nothing else:
 * - the manifests' flags the runner reads (`requiresShell`, `requiresSkillScope`) are read;
 * - the package's checker for the context's policy and routes is made (the one its calls then use), and
 *   synthetic calls of each routed tool are checked through it — with empty arguments, and with arguments
 *   made from the tool's schema (`sampleOf`) — so that the WebAssembly code of a check is compiled (V8
 *   compiles each function when it is first called). Their answers are dropped: a check only reads its
 *   inputs (paths are normalized as text, never resolved), and the checker keeps nothing of a call;
 * - `fs.promises` is loaded and its first use paid (libuv's thread pool is started on its first job, the
 *   file-handle code compiled) on a file of the runtime's own code, which this process loaded to start:
 *   resolved, opened, read and closed, never a file of a workspace root.
 * No tool runs, nothing is written, sent or recorded, and later decisions are the same. A failure changes
 * nothing either: the first call meets it again and is answered as before (a gate error is a denial).
 *
 * It runs while the process is idle: one step per turn of the event loop, and it stops as soon as
 * `stop()` says so (a call has come, which then does what is left itself), so a call is never kept
 * waiting longer than one step.
 */
export async function prepareFirstCall(ctx: RunnerContext, stop: () => boolean): Promise<void> {
  const turn = () => new Promise<boolean>(resolve => setImmediate(() => resolve(!stop())));
  const quietly = (step: () => void) => {
    try {
      step();
    } catch {
      /* met again, and answered, by the first call */
    }
  };
  if (!(await turn())) return;
  quietly(() => requiresShell(''));
  let schemas: Map<string, unknown> = new Map();
  if (!(await turn())) return;
  quietly(() => {
    const p = policy();
    schemas = new Map((activeCatalog() ?? p.builtinCatalog()).map(s => [s.name, s.parameters]));
  });
  for (const r of ctx.routes) {
    const name = (r as { name?: unknown } | null)?.name;
    if (typeof name !== 'string') continue;
    if (!(await turn())) return;
    quietly(() => checkCall({ policy: ctx.policy, routes: ctx.routes, rules: ctx.rules, asks: 'approved', name, arguments: {} }));
    quietly(() => checkCall({ policy: ctx.policy, routes: ctx.routes, rules: ctx.rules, asks: 'approved', name, arguments: sampleOf(schemas.get(name)) }));
  }
  if (!(await turn())) return;
  try {
    await fs.promises.realpath(__dirname);
    const fh = await fs.promises.open(__filename, 'r');
    try {
      await fh.stat();
      await fh.readFile();
    } finally {
      await fh.close();
    }
  } catch {
    /* only time is lost */
  }
}
