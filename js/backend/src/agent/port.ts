/**
 * The call port: every tool call of a model — the main agent's and every sub-agent's — enters here as the
 * model's own argument text. The port checks only L0 (was the tool offered to this model?); the package
 * decides the rest (`checkCallText`: the text as it reads it, the tool's parameters, paths, routes), and
 * the port runs the call where that decision puts it: the executor's own tools here, every other tool at
 * its place (the session's worker, or the batch's), which records it with where it really ran.
 */
import type { RuleMatch, RulesInput } from '@netaclaw/tool-policy';
import type { ChatTurnEvent } from '../wire/api-types';
import { policy, ToolRuntimeRoute, WorkerPolicy } from '../wire/policy';
import { APPROVAL_REQUIRED, DECISIONS, DENIED_BY_RULE, RUNTIME_REASONS } from '../runtime/codes';
import { AskMode, checkCallText, GateResult } from '../runtime';
import type { CallRecord } from '../runtime';
import type { ModelToolCall } from './model';
import { errorMessage } from '../lib/errortext';

/** A tool call as the chat answer and the stream show it: the runtime's record, with the model's call id. */
export type ToolCallView = Omit<CallRecord, 'seq'> & { id: string };

/** What an executor tool answers: an outcome, or a question that pauses the turn (`clarify`). */
export type OwnOutcome = { ok: boolean; output?: string; error?: string } | { pause: { question: string } };

/** A tool the executor runs itself, in the main process, with the arguments the package read. */
export type OwnTool = (args: Record<string, unknown>) => Promise<OwnOutcome>;

/** Where the tools that are not the executor's own run, and where the port's own decisions are stored. */
export interface Place {
  /** Runs a call the package let through; the place decides it again, runs and records it. */
  call(name: string, args: unknown): Promise<CallRecord>;
  /** Stores a call the port decided or ran itself. */
  record(call: Omit<CallRecord, 'seq'>): Promise<unknown>;
}

export interface PortOptions {
  /** The tools offered to this model (L0). */
  offered: readonly string[];
  policy: WorkerPolicy | { workspaceRoots: string[]; allowShell: boolean; readonly: boolean };
  routes: ToolRuntimeRoute[];
  /** The rules the calls are decided with (docs/package.md "Rules"). */
  rules?: RulesInput | null;
  /**
   * What a rule's `ask` does here (docs/runtime.md "Approvals"): `pause` — the call is not run, its view
   * carries the approval (`pause.approval`) and the turn stops for the user; `wait` — the call waits here
   * for `approve` (a sub-agent's, forwarded to its parent turn's user); `deny` (default) — nobody can
   * answer: `denied` `approval_required`.
   */
  asks?: 'pause' | 'wait' | 'deny';
  /** With `asks: 'wait'`: puts the call to the user and resolves with the answer. */
  approve?(call: ModelToolCall, asked: AskedCall): Promise<'once' | 'session' | 'deny' | 'timeout'>;
  own: Readonly<Record<string, OwnTool>>;
  place: Place;
  sessionId: number;
  batchId: number | null;
  /** The turn's: an executor tool that fails because the turn was cancelled ends the turn. */
  signal: AbortSignal;
  emit(event: ChatTurnEvent): void;
}

/** A call a rule asks about: the arguments as the package read them (JSON text), the rule and its sentence. */
export interface AskedCall {
  arguments: string;
  rule: RuleMatch;
  detail: string | null;
}

/** A call's view, and what it waits on when it pauses the turn: a question (`clarify`) or an approval. */
export type PortResult = ToolCallView & { pause?: { question: string } | { approval: AskedCall } };

/** Longest argument text kept in a record of a call whose arguments could not be read. */
const UNREAD_TEXT_KEPT = 1000;

export class CallPort {
  private readonly offered: Set<string>;

  constructor(private readonly o: PortOptions) {
    this.offered = new Set(o.offered);
  }

  /**
   * Decides one call and runs it where the package puts it. `approved`: the user allowed this call (an
   * approval's answer): a rule's `ask` takes the route the package names for it (`onApproval`), a `deny`
   * still denies.
   */
  async call(tc: ModelToolCall, approved = false): Promise<PortResult> {
    const { sessionId, batchId } = this.o;
    const started = Date.now();
    const mode: AskMode = approved ? 'approved' : this.o.asks === 'pause' || this.o.asks === 'wait' ? 'pause' : 'deny';
    let gate = this.decide(tc, mode);
    // L0: a tool this model was not offered is denied whatever the routes say (the package's reading of
    // its arguments is kept for the record)
    if (!this.offered.has(tc.name)) {
      // why it was not offered, when its route says (a read-only session's write_file): the model and the
      // user read the cause, not only the offer
      const because = gate.decision === DECISIONS.denied && gate.reason ? `; not offered because: ${gate.reason}` : '';
      gate = {
        ...gate,
        decision: DECISIONS.denied,
        reason: RUNTIME_REASONS.notOffered,
        detail: `${JSON.stringify(tc.name)} is not one of the tools offered to this agent${because}`,
      };
    }
    const read = 'arguments' in gate;
    const shown = read ? gate.arguments : tc.arguments.slice(0, UNREAD_TEXT_KEPT);
    this.o.emit({ type: 'tool-call', sessionId, batchId, id: tc.id, name: tc.name, arguments: shown });
    if (gate.decision === DECISIONS.ask && read && gate.rule) {
      const asked: AskedCall = { arguments: JSON.stringify(gate.arguments), rule: gate.rule, detail: gate.detail };
      if (this.o.asks === 'wait' && this.o.approve) {
        const answer = await this.o.approve(tc, asked);
        if (answer === 'once' || answer === 'session') return this.run(tc, this.decide(tc, 'approved'), shown, started);
        return this.refuse(tc, shown, asked, answer === 'deny' ? userDenied(asked) : unanswered(asked), started);
      }
      // the turn stops here: the call runs (or is refused) once the user answers
      const view: PortResult = {
        id: tc.id,
        name: tc.name,
        arguments: shown,
        decision: DECISIONS.ask,
        reason: null,
        detail: gate.detail,
        ok: false,
        durationMs: Date.now() - started,
        rule: gate.rule,
        pause: { approval: asked },
      };
      this.o.emit({ type: 'tool-result', sessionId, batchId, ...shownOf(view) });
      return view;
    }
    return this.run(tc, gate, shown, started);
  }

  /**
   * Refuses a call a rule asked about without running it (the user denied it, nobody answered, or another
   * call of the same answer waits already): recorded with the rule, the model reads the denial.
   */
  async refuse(tc: ModelToolCall, shown: unknown, asked: AskedCall, why: { reason: string; detail: string }, started = Date.now()): Promise<PortResult> {
    const view: PortResult = {
      id: tc.id,
      name: tc.name,
      arguments: shown,
      decision: DECISIONS.denied,
      reason: why.reason,
      detail: why.detail,
      ok: false,
      error: why.detail,
      durationMs: Date.now() - started,
      rule: asked.rule,
    };
    await this.o.place.record(strip(view));
    this.o.emit({ type: 'tool-result', sessionId: this.o.sessionId, batchId: this.o.batchId, ...shownOf(view) });
    return view;
  }

  private decide(tc: ModelToolCall, asks: AskMode): GateResult {
    try {
      return checkCallText({ policy: this.o.policy, routes: this.o.routes, rules: this.o.rules, asks, name: tc.name }, tc.arguments);
    } catch (err) {
      return { decision: DECISIONS.denied, reason: RUNTIME_REASONS.invalidArguments, paths: [], detail: `gate error: ${errorMessage(err)}` };
    }
  }

  private async run(tc: ModelToolCall, gate: GateResult, shown: unknown, started: number): Promise<PortResult> {
    const { sessionId, batchId } = this.o;
    const own = Object.prototype.hasOwnProperty.call(this.o.own, tc.name) ? this.o.own[tc.name] : undefined;
    const read = 'arguments' in gate;
    const rule = gate.rule ? { rule: gate.rule } : {};
    let view: PortResult;
    if (gate.decision === DECISIONS.denied || gate.decision === DECISIONS.ask || !read) {
      const detail = gate.detail ?? null;
      const reason = gate.decision === DECISIONS.ask ? APPROVAL_REQUIRED : (gate.reason ?? RUNTIME_REASONS.invalidArguments);
      view = {
        id: tc.id,
        name: tc.name,
        arguments: shown,
        decision: DECISIONS.denied,
        reason,
        detail,
        ok: false,
        error: detail ?? reason,
        durationMs: Date.now() - started,
        ...rule,
      };
      await this.o.place.record(strip(view));
    } else if (own) {
      let r: OwnOutcome;
      try {
        r = await own(gate.arguments as Record<string, unknown>);
      } catch (err) {
        if (this.o.signal.aborted) throw err;
        r = { ok: false, error: errorMessage(err) };
      }
      const base = {
        id: tc.id,
        name: tc.name,
        arguments: shown,
        decision: gate.decision,
        reason: gate.reason,
        detail: null,
        durationMs: Date.now() - started,
        ...rule,
      };
      view = 'pause' in r ? { ...base, ok: true, output: "waiting for the user's answer", pause: r.pause } : { ...base, ...r };
      await this.o.place.record(strip(view));
    } else {
      const { seq: _seq, ...record } = await this.o.place.call(tc.name, gate.arguments);
      void _seq;
      view = { id: tc.id, ...record };
    }
    this.o.emit({ type: 'tool-result', sessionId, batchId, ...shownOf(view) });
    return view;
  }
}

/** A call's view without what it waits on, nor its images and audio (the model's only). */
export function shownOf(v: PortResult): ToolCallView {
  const { pause: _p, media: _m, ...shown } = v;
  void _p;
  void _m;
  return shown;
}

/** The user answered "deny": the model reads a denial naming the rule that asked. */
export function userDenied(asked: AskedCall): { reason: string; detail: string } {
  return { reason: DENIED_BY_RULE, detail: `the user denied this call when asked. ${asked.detail ?? ''}`.trim() };
}

/** Nobody answered in time (or nobody can): `approval_required`, never run. */
export function unanswered(asked: AskedCall): { reason: string; detail: string } {
  return { reason: APPROVAL_REQUIRED, detail: `nobody approved this call in time. ${asked.detail ?? ''}`.trim() };
}

function strip(v: PortResult): Omit<CallRecord, 'seq'> {
  const { id: _id, pause: _pause, ...call } = v;
  void _id;
  void _pause;
  return call;
}

/** The package's English label of a reason code (the code itself for one it does not know). */
function reasonLabel(code: string): string {
  try {
    return policy().label('reasons', code, 'en');
  } catch {
    return code;
  }
}

/** The text a tool result gives the model. */
export function resultText(r: ToolCallView): string {
  if (r.decision === DECISIONS.denied) {
    const reason = r.reason ?? DECISIONS.denied;
    const why = r.reason ? reasonLabel(r.reason) : DECISIONS.denied;
    return `Tool call denied (${reason}): ${why}` + (r.detail ? `. ${r.detail}` : '');
  }
  if (!r.ok) return `Tool call failed: ${r.error ?? 'unknown error'}` + (r.output ? `\n${r.output}` : '');
  return r.output ?? '';
}
