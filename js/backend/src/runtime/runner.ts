/**
 * Deciding and running one call: the gate (L1), the host symlink check, the shell-sandbox check, then the
 * implementation through the given operations. The worker and the main process both use it, each with
 * its own registry, operations and copy of the policy and routes.
 */
import * as path from 'path';
import { checkCall, GateResult, requiresShell, requiresSkillScope } from './gate';
import { cutText, OUTPUT_MAX_BYTES } from './limits';
import { OutsideRootsError } from './operations/confined';
import type { Operations } from './operations/types';
import type { CallOutcome, WorkerLayers, WorkerPolicyWire } from './protocol';
import { checkRealPaths } from './realpath';
import type { ShellMode } from './sandbox';
import { MainServices, ToolError, ToolImpl } from './tools/types';
import { DECISIONS, RUNTIME_REASONS } from './codes';

export interface RunnerContext {
  policy: WorkerPolicyWire;
  routes: unknown[];
  ops: Operations;
  shell: ShellMode;
  tools: Readonly<Record<string, ToolImpl>>;
  agentId: number | null;
  services: MainServices | null;
  /** Test-only: switch off the gate or the symlink check to show another layer alone. */
  layers?: WorkerLayers;
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
      gate = checkCall({ policy: ctx.policy, routes: ctx.routes, name, arguments: args });
    } catch (err) {
      return { decision: DECISIONS.denied, reason: RUNTIME_REASONS.invalidArguments, paths: [], detail: `gate error: ${(err as Error).message}` };
    }
  } else {
    gate = { decision: DECISIONS.workerLocal, reason: null, paths: testPaths(ctx, args), detail: 'gate switched off (test)' };
  }
  if (gate.decision === 'denied') return gate;
  // (a call without paths has nothing to resolve: no wait)
  if (layers.hostCheck && gate.paths.length > 0) {
    const denial = await checkRealPaths(gate.paths, ctx.policy.workspaceRoots);
    if (denial) return { decision: 'denied', reason: denial.reason, paths: gate.paths, detail: denial.detail };
  }
  if (ctx.shell === 'unavailable' && requiresShell(name)) {
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
    return `the skills bound to the agent cannot be read: ${(err as Error).message}`;
  }
  if (bound.includes(skill)) return null;
  const list = bound.length ? bound.map(b => JSON.stringify(b)).join(', ') : 'none';
  return `skill ${JSON.stringify(skill)} is not bound to this agent (bound skills: ${list})`;
}

/** Runs a call already decided runnable here, with the context's registry. */
export async function execute(ctx: RunnerContext, gate: GateResult, name: string, args: unknown, started: number): Promise<CallOutcome> {
  const impl = Object.prototype.hasOwnProperty.call(ctx.tools, name) ? ctx.tools[name] : undefined;
  const base = { decision: gate.decision, reason: gate.reason, detail: gate.detail };
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
      shell: ctx.shell,
      agentId: ctx.agentId,
      services: ctx.services,
    });
    const out = typeof r === 'string' ? { output: r } : r;
    const output = cutText(out.output, OUTPUT_MAX_BYTES);
    return out.error
      ? { ...base, ok: false, output, error: out.error, durationMs: Date.now() - started }
      : { ...base, ok: true, output, durationMs: Date.now() - started };
  } catch (err) {
    if (err instanceof OutsideRootsError) {
      // The host symlink check, made again on the object the tool opened: a path swapped meanwhile.
      return denied(RUNTIME_REASONS.outsideWorkspace, cutText(err.message, 4096), started);
    }
    const message =
      err instanceof ToolError
        ? err.message
        : (err as NodeJS.ErrnoException).code === 'ERR_ACCESS_DENIED'
          ? `permission denied by the worker's process permissions (${(err as Error).message})`
          : `${(err as Error).name ?? 'Error'}: ${(err as Error).message}`;
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
    return { gate, outcome: denied(gate.reason ?? RUNTIME_REASONS.invalidArguments, gate.detail, started) };
  }
  if (here !== 'any' && gate.decision !== here) return { gate, outcome: null };
  return { gate, outcome: await execute(ctx, gate, name, args, started) };
}
