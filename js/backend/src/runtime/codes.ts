/**
 * The few places where the runtime names the package's vocabulary itself: the reason codes it answers
 * on its own (a layer that is not `checkToolCall`, RUNTIME §1–§2) and the decisions it acts on. Every
 * other code, route and decision comes from a package answer. Types are the package's, so a code that
 * the package drops stops the build.
 */
import type { RuleReasonCode } from '@netaclaw/tool-policy';
import type { ExecutionMode, ReasonCode, ToolCallDecision } from '../wire/policy';

export const RUNTIME_REASONS = {
  /** L0: the model called a tool it was not offered (the executor). */
  notOffered: 'tool_not_offered', // policy-vocabulary: L0, the executor answers a call outside its offer (RUNTIME §1)
  /** L3: `bash` and `execute_skill` when bwrap cannot run (the host). */
  sandboxUnavailable: 'shell_sandbox_unavailable', // policy-vocabulary: L3, the host answers when bwrap cannot run (RUNTIME §1)
  /** The host's realpath checks (before a call, and again on what a tool opened): a path whose real location leaves every root. */
  outsideWorkspace: 'path_outside_workspace', // policy-vocabulary: the host's symlink check after the lexical one (RUNTIME §1)
  /** Arguments the runtime cannot hand to the gate (not JSON, over the size limit), or a gate that threw. */
  invalidArguments: 'invalid_tool_arguments', // policy-vocabulary: arguments the runtime cannot read before the gate (RUNTIME §2)
  /** L4: a proxy request that is not the call in progress, or that the routes do not proxy. */
  notSelected: 'not_selected_for_subagent', // policy-vocabulary: L4, the main process refuses what the worker's routes do not proxy (RUNTIME §1)
} as const satisfies Record<string, ReasonCode>;

/** The reason of a call the rules ask about where nobody can answer (the package names it; the runtime answers it). */
export const APPROVAL_REQUIRED: RuleReasonCode = 'approval_required';

/** The reason of a call a rule denies, and of one the user denied when asked (docs/runtime.md "Approvals"). */
export const DENIED_BY_RULE: RuleReasonCode = 'denied_by_rule';

/** Where a call runs, as `checkToolCall` decides it: in the worker, or proxied to the main process. */
export const DECISIONS = {
  workerLocal: 'worker-local', // policy-vocabulary: the worker runs the calls decided worker-local (RUNTIME §5)
  proxy: 'main-process-proxy', // policy-vocabulary: the main process runs the calls decided main-process-proxy (RUNTIME §5)
  denied: 'denied',
  /** A rule asks: the user approves or denies first (docs/package.md "Rules"). */
  ask: 'ask',
} as const satisfies Record<string, ToolCallDecision>;

/** The execution mode (a manifest's `executionMode`) whose calls of one model answer may run side by side (seed 000); a call of any other mode runs alone. */
export const CONCURRENT_MODE: ExecutionMode = 'parallel';
