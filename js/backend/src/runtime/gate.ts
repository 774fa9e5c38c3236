/**
 * The one gate (L1): every tool call, in the worker and in the main process, is decided by the package's
 * `ToolCallChecker` (what `checkToolCall` answers, the policy and routes read once) against a policy and
 * routes. Nothing here restates a rule; this module only calls the package and shapes its answer for the
 * runtime.
 */
import type { RuleMatch, RulesInput, ToolCallCheck, ToolCallChecker, ToolCallPath, ToolRuntimeRoute, WorkerPolicy } from '@netaclaw/tool-policy';
import { activeCatalog, policy, ToolCallDecision, ToolSchema } from '../wire/policy';
import { APPROVAL_REQUIRED, DECISIONS } from './codes';

export type GateDecision = ToolCallDecision;

/** A path a call touches, as the package answers it (the argument it came from; absolute, normalized; written or not). */
export type GatePath = ToolCallPath;

export interface GateResult {
  decision: GateDecision;
  reason: string | null;
  paths: GatePath[];
  /** A short explanation, or null. */
  detail: string | null;
  /** The arguments the package read from the text it decided on (`checkCallText`; absent when it could not read them). */
  arguments?: unknown;
  /** The rule that decided the call (docs/package.md "Rules"), when rules were given and one spoke. */
  rule?: RuleMatch;
  /** For an `ask`: where the call runs once approved. */
  onApproval?: ToolCallDecision;
}

export type AskMode = 'pause' | 'deny' | 'approved';

export interface GateInput {
  policy: WorkerPolicy;
  routes: readonly ToolRuntimeRoute[];
  /** The session's rules (global, agent, session levels and approvals); absent or null: none. */
  rules?: RulesInput | null;
  /**
   * What a rule's `ask` becomes here (default `deny`):
   * - `pause`: it stays `ask`; the caller puts it to a user (the chat's approval card);
   * - `deny`: nobody can answer here: `denied` `approval_required`, never run;
   * - `approved`: a layer below the one that asked (the worker, the main process running a proxied call):
   *   the call reached it only once approved, so it takes the route the package names for it
   *   (`onApproval`). A rule's `deny` denies in every mode.
   */
  asks?: AskMode;
  name: string;
  arguments: unknown;
}

interface Prepared {
  policy: WorkerPolicy;
  rules: RulesInput | null;
  catalog: ToolSchema[] | undefined;
  /** The policy and routes as JSON text: how a copy of them is recognized. */
  text: string;
  checker: ToolCallChecker;
}

/**
 * Prepared checkers (`ToolCallChecker`: the policy, routes and catalog read once). A worker, or the main
 * process for one batch, decides every call against the same policy and routes objects: found by the
 * routes list itself. A caller that passes a fresh copy of the same policy and routes on each call (the
 * main agent's own calls) finds its checker by their JSON text among the last few. A checker no longer
 * referenced is freed when it is collected (the package's classes register for that).
 */
const byRoutes = new WeakMap<object, Prepared>();
const recent: Prepared[] = [];
const RECENT = 8;

function checkerFor(input: Omit<GateInput, 'arguments'>): ToolCallChecker {
  const rules = input.rules ?? null;
  const p = policy();
  const catalog = activeCatalog();
  // (a caller's routes that are not an array still reach the package, which refuses them: invalid_input)
  const key: object = Array.isArray(input.routes) ? input.routes : [];
  const known = byRoutes.get(key);
  if (known && known.policy === input.policy && known.rules === rules && known.catalog === catalog) return known.checker;
  const text = JSON.stringify([input.policy, input.routes, rules]);
  let found = recent.find(r => r.text === text && r.catalog === catalog);
  if (!found) {
    // A package error (a malformed policy or routes) propagates from here; nothing is kept.
    const checker = new p.ToolCallChecker({
      ...(catalog ? { catalog } : {}),
      ...(rules ? { rules } : {}),
      policy: input.policy,
      // the package reads them, never keeps or edits them
      routes: input.routes as ToolRuntimeRoute[],
    });
    found = { policy: input.policy, rules, catalog, text, checker };
    recent.unshift(found);
    recent.length = Math.min(recent.length, RECENT);
  }
  byRoutes.set(key, { ...found, policy: input.policy, rules });
  return found.checker;
}

/**
 * Decides one call with the package's `ToolCallChecker`, which answers what `checkToolCall` answers for
 * the same policy, routes and call. A package error (`invalid_input`: a malformed policy or routes)
 * propagates; the caller turns it into a failed call (fail closed). The policy and routes are read when
 * first seen: a caller changes them by passing new objects, never by editing them in place.
 */
export function checkCall(input: GateInput): GateResult {
  const args = input.arguments === undefined ? null : input.arguments;
  // The arguments' JSON text through `checkText` (the package's faster form, the same answer as
  // `check`); arguments JSON cannot print (a BigInt, a cycle, a function) go through `check`, which
  // answers them as the package does.
  let text: string | undefined;
  try {
    text = JSON.stringify(args);
  } catch {
    text = undefined;
  }
  if (typeof text === 'string') {
    // the caller has the arguments: the package's reading of their text is left out
    const { arguments: _read, ...decided } = checkCallText(input, text);
    void _read;
    return decided;
  }
  return answer(checkerFor(input).check({ name: input.name, arguments: args }), input.asks ?? 'deny');
}

/**
 * Decides a call whose arguments are given as JSON text (what `JSON.stringify` printed, or the text the
 * model sent): the text is what is decided, and what runs is what the package read from it (`arguments`
 * of the answer, absent when the text is not JSON). The same checker and answer as `checkCall`.
 */
export function checkCallText(input: Omit<GateInput, 'arguments'>, argumentsJson: string): GateResult {
  return answer(checkerFor(input).checkText(input.name, argumentsJson), input.asks ?? 'deny');
}

/**
 * The package's answer shaped for the runtime, a rule's `ask` as `asks` says (GateInput): kept for a
 * caller that puts it to a user, the route once approved for a layer below it, and anywhere else
 * `denied` `approval_required` with the package's sentence, its rule kept (fail closed: an ask nobody
 * can answer never runs).
 */
function answer(r: ToolCallCheck, asks: AskMode): GateResult {
  let decision = r.decision;
  let reason: string | null = r.reason ?? null;
  let paths = Array.isArray(r.paths) ? r.paths : [];
  let detail = typeof r.detail === 'string' ? r.detail : null;
  let onApproval: ToolCallDecision | undefined;
  if (r.decision === DECISIONS.ask) {
    if (asks === 'pause') {
      onApproval = r.onApproval;
    } else if (asks === 'approved' && r.onApproval) {
      decision = r.onApproval;
      detail = null;
    } else {
      decision = DECISIONS.denied;
      reason = APPROVAL_REQUIRED;
      paths = [];
    }
  }
  // the package's order of fields: decision, reason, paths, detail, then what a rule adds
  return {
    decision,
    reason,
    paths,
    detail,
    ...(r.arguments !== undefined ? { arguments: r.arguments } : {}),
    ...(r.rule ? { rule: r.rule } : {}),
    ...(onApproval ? { onApproval } : {}),
  };
}

/** The tools whose manifests say `requiresShell` and `requiresSkillScope`, per catalog (read in one pass each). */
const flagsByCatalog = new WeakMap<readonly ToolSchema[], { shell: Set<string>; skillScope: Set<string> }>();
/** The package's builtin catalog (where no catalog was set: a test's process), read once. */
let builtin: ToolSchema[] | undefined;

/**
 * The flags of the catalog in force now: an MCP refresh replaces the catalog (a new array), and its tools'
 * flags are read then, once.
 */
function toolFlags(): { shell: Set<string>; skillScope: Set<string> } {
  const p = policy();
  const catalog = activeCatalog() ?? (builtin ??= p.builtinCatalog());
  let flags = flagsByCatalog.get(catalog);
  if (!flags) {
    const all = catalog.map(s => p.toolManifest(s));
    flags = { shell: new Set(all.filter(m => m.requiresShell).map(m => m.name)), skillScope: new Set(all.filter(m => m.requiresSkillScope).map(m => m.name)) };
    flagsByCatalog.set(catalog, flags);
  }
  return flags;
}

/**
 * Whether a tool needs the shell sandbox (its manifest's `requiresShell`, from the package). Such a tool
 * is denied `shell_sandbox_unavailable` when bwrap cannot run.
 */
export function requiresShell(name: string): boolean {
  return toolFlags().shell.has(name);
}

/**
 * Whether a tool acts on one skill, named by its `name` argument (its manifest's `requiresSkillScope`,
 * from the package). Such a call runs only for a skill bound to the agent.
 */
export function requiresSkillScope(name: string): boolean {
  return toolFlags().skillScope.has(name);
}
