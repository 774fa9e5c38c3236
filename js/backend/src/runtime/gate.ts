/**
 * The one gate (L1): every tool call, in the worker and in the main process, is decided by the package's
 * `checkToolCall` against a policy and routes. Nothing here restates a rule; this module only calls the
 * package and shapes its answer for the runtime.
 */
import { activeCatalog, policy, ToolCallDecision } from '../policy';

export type GateDecision = ToolCallDecision;

export interface GatePath {
  /** The argument the path came from (as the package names it). */
  argument: string;
  /** Absolute, lexically normalized. */
  path: string;
  write: boolean;
}

export interface GateResult {
  decision: GateDecision;
  reason: string | null;
  paths: GatePath[];
  /** A short explanation, or null. */
  detail: string | null;
}

export interface GateInput {
  policy: unknown;
  routes: unknown[];
  name: string;
  arguments: unknown;
}

interface PackageCheck {
  decision: GateDecision;
  reason: string | null;
  paths?: GatePath[];
  detail?: string | null;
  message?: string | null;
}

/**
 * Decides one call. A package error (`invalid_input`: a malformed policy or routes) propagates; the caller
 * turns it into a failed call (fail closed).
 */
export function checkCall(input: GateInput): GateResult {
  const p = policy() as unknown as { checkToolCall?: (i: unknown) => PackageCheck };
  if (typeof p.checkToolCall !== 'function') {
    throw new Error('the installed @netaclaw/tool-policy has no checkToolCall: rebuild pkg/ (scripts/build-pkg.sh)');
  }
  const catalog = activeCatalog();
  const r = p.checkToolCall({
    ...(catalog ? { catalog } : {}),
    policy: input.policy,
    routes: input.routes,
    call: { name: input.name, arguments: input.arguments === undefined ? null : input.arguments },
  });
  return {
    decision: r.decision,
    reason: r.reason ?? null,
    paths: Array.isArray(r.paths) ? r.paths : [],
    detail: typeof r.detail === 'string' ? r.detail : typeof r.message === 'string' ? r.message : null,
  };
}

let shellTools: Set<string> | undefined;
let skillScopeTools: Set<string> | undefined;

function manifests() {
  const p = policy();
  return (activeCatalog() ?? p.builtinCatalog()).map(s => p.toolManifest(s));
}

/**
 * Whether a tool needs the shell sandbox (its manifest's `requiresShell`, from the package). Such a tool
 * is denied `shell_sandbox_unavailable` when bwrap cannot run.
 */
export function requiresShell(name: string): boolean {
  if (!shellTools) shellTools = new Set(manifests().filter(m => m.requiresShell).map(m => m.name));
  return shellTools.has(name);
}

/**
 * Whether a tool acts on one skill, named by its `name` argument (its manifest's `requiresSkillScope`,
 * from the package). Such a call runs only for a skill bound to the agent.
 */
export function requiresSkillScope(name: string): boolean {
  if (!skillScopeTools) skillScopeTools = new Set(manifests().filter(m => m.requiresSkillScope).map(m => m.name));
  return skillScopeTools.has(name);
}
