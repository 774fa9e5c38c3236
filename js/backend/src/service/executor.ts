import { Inject, Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { NetaClawModelChannelEntity } from '../entity/channel';
import { NetaClawMessageEntity } from '../entity/message';
import { NetaClawSessionEntity } from '../entity/session';
import { AppError, invalidInput } from '../errors';
import { CrewRole, policy, RuntimeDiagnostic, ToolRuntimeRoute, WorkerPolicy } from '../policy';
import {
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ModelError,
  ModelToolCall,
  ModelTurn,
  streamTurn,
} from '../runtime/model';
import { buildSystemPrompt } from '../runtime/prompt';
import { HISTORY_CHARS, MAX_STEPS } from '../settings';
import { Obj } from '../validate';
import { ChatDTO } from '../dto/chat';
import { AgentService, AgentView, SessionFields } from './agent';
import { CatalogService } from './catalog';
import { ChannelService } from './channel';
import { messageChars, sessionBusy, SessionService, TurnClaim } from './session';
import { BatchHandle, CallRecord, SessionTools, SubagentService } from './subagent';
import { DECISIONS, isRunnable, OWN_TOOL_STATUS, RUNTIME_REASONS } from '../runtime/codes';
import { checkCall, GateResult } from '../runtime/gate';
import type { ChatAnswer, ChatSessionFields, ChatTurnEvent } from '../api-types';

/** Characters of one tool call's argument text. */
export const ARGUMENTS_MAX_CHARS = 65536;

/** A tool call as the chat answer and the stream show it: the runtime's record, with the model's call id. */
export type ToolCallView = Omit<CallRecord, 'seq'> & { id: string };

export type { ChatAnswer, ChatEvent } from '../api-types';

/** Sends an event of the running turn (`done` and `error` are sent by the gateway). */
export type Emit = (event: ChatTurnEvent) => void;

interface ChatRequest {
  agentId: number;
  message: string;
  sessionId: number | null;
  session: Omit<SessionFields, 'subagentTools'>;
}

/** The request of a validated chat message (its shape is ChatDTO's). */
function chatRequest(dto: ChatDTO): ChatRequest {
  const session: ChatRequest['session'] = {};
  if (dto.sessionCwd !== undefined) session.sessionCwd = dto.sessionCwd;
  if (dto.workspaceRoots !== undefined) session.workspaceRoots = dto.workspaceRoots;
  if (dto.shellPermitted !== undefined) session.shellPermitted = dto.shellPermitted;
  if (dto.writePermitted !== undefined) session.writePermitted = dto.writePermitted;
  return {
    agentId: Number(dto.agentId),
    message: dto.message,
    sessionId: dto.sessionId === undefined || dto.sessionId === null ? null : Number(dto.sessionId),
    session,
  };
}

function sessionFieldsOf(s: NetaClawSessionEntity): ChatSessionFields {
  return {
    sessionCwd: s.sessionCwd,
    workspaceRoots: s.workspaceRoots ?? [],
    shellPermitted: !!s.shellPermitted,
    writePermitted: !!s.writePermitted,
  };
}

/** A request that names an existing session may repeat its fields, not change them. */
function checkSameSession(s: NetaClawSessionEntity, given: SessionFields) {
  const stored = sessionFieldsOf(s);
  const differs: string[] = [];
  if (given.sessionCwd !== undefined && (given.sessionCwd ?? null) !== stored.sessionCwd) differs.push('sessionCwd');
  if (given.workspaceRoots !== undefined && JSON.stringify(given.workspaceRoots ?? []) !== JSON.stringify(stored.workspaceRoots)) {
    differs.push('workspaceRoots');
  }
  if (given.shellPermitted !== undefined && given.shellPermitted !== stored.shellPermitted) differs.push('shellPermitted');
  if (given.writePermitted !== undefined && given.writePermitted !== stored.writePermitted) differs.push('writePermitted');
  if (differs.length > 0) {
    throw invalidInput(
      `session ${s.id} was started with other ${differs.join(', ')}: a session's fields are fixed (start a new session to change them)`
    );
  }
}

function isPlainObject(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
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
function resultText(r: ToolCallView): string {
  if (r.decision === 'denied') {
    const reason = r.reason ?? 'denied';
    const why = r.reason ? reasonLabel(r.reason) : 'denied';
    return `Tool call denied (${reason}): ${why}` + (r.detail ? `. ${r.detail}` : '');
  }
  if (!r.ok) return `Tool call failed: ${r.error ?? 'unknown error'}` + (r.output ? `\n${r.output}` : '');
  return r.output ?? '';
}

function toParam(m: NetaClawMessageEntity): ChatCompletionMessageParam {
  if (m.role === 'user') return { role: 'user', content: m.content ?? '' };
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId ?? '', content: m.content ?? '' };
  const calls = m.toolCalls ?? [];
  return calls.length > 0
    ? {
        role: 'assistant',
        content: m.content || null,
        tool_calls: calls.map(c => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
      }
    : { role: 'assistant', content: m.content ?? '' };
}

/** What one run (the main agent of a turn, or a delegated sub-agent) works with. */
interface RunContext {
  agent: AgentView;
  session: NetaClawSessionEntity;
  fields: ChatSessionFields;
  channel: NetaClawModelChannelEntity;
  signal: AbortSignal;
  emit: Emit;
  /** Batches started by this turn (killed on cancel). */
  running: Set<BatchHandle>;
  batchIds: number[];
  /** The main agent's tools of this turn: one confined worker, opened at the first call that needs it. */
  tools: SessionTools | null;
}

/**
 * The agent executor (seed 001 Tasks 7–9; RUNTIME §6): one service that the REST and the WebSocket
 * paths both call. It resolves with the package, builds the layered prompt, offers exactly the resolved
 * tools (L0), streams the model, runs each call (the tools in the turn's confined worker under the
 * session's policy and routes; `delegate_*` as sub-agent batches), feeds results back until the model
 * answers without calls or the step limit, and records the session, its messages and the calls.
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class ChatExecutor {
  @Inject()
  agentService: AgentService;

  @Inject()
  channelService: ChannelService;

  @Inject()
  sessionService: SessionService;

  @Inject()
  catalogService: CatalogService;

  @Inject()
  subagents: SubagentService;

  /** The tool implementations the executor runs itself (delegation); others go to the tool runtime. */
  private readonly ownTools: Record<string, (ctx: RunContext, args: Obj) => Promise<{ ok: boolean; output?: string; error?: string }>> = {
    delegate_task: (ctx, args) => this.delegateTask(ctx, args),
    delegate_parallel: (ctx, args) => this.delegateParallel(ctx, args),
  };

  /**
   * Runs one chat turn of a validated message (ChatDTO: the controller's pipe and the WebSocket gateway
   * validate it). Request problems (before anything is stored) throw 400/404; a turn that fails
   * after its session exists throws an AppError with the `sessionId` (the session stays usable).
   */
  async chat(input: ChatDTO, emit: Emit, signal: AbortSignal): Promise<ChatAnswer> {
    const req = chatRequest(input);
    const agent = await this.agentService.mustGetView(req.agentId);
    let session: NetaClawSessionEntity | null = null;
    if (req.sessionId !== null) {
      session = await this.sessionService.find(req.sessionId);
      if (!session) throw new AppError(404, 'not_found', `no session with id ${req.sessionId}`);
      if (session.agentId !== agent.id) {
        throw invalidInput(`session ${session.id} belongs to agent ${session.agentId}, not to agent ${agent.id}`);
      }
      checkSameSession(session, req.session);
    }
    const fields: ChatSessionFields = session
      ? sessionFieldsOf(session)
      : {
          sessionCwd: req.session.sessionCwd ?? null,
          workspaceRoots: req.session.workspaceRoots ?? [],
          shellPermitted: req.session.shellPermitted ?? false,
          writePermitted: req.session.writePermitted ?? false,
        };
    const channel = await this.channelService.forAgent(agent);
    if (!channel) {
      throw new AppError(
        400,
        'no_model_channel',
        'no model channel is configured: set NETACLAW_MODEL_BASE_URL and NETACLAW_MODEL (and NETACLAW_MODEL_API_KEY) ' +
          'and restart, or add one with POST /admin/netaclaw/channel/add (see docs/runtime.md)'
      );
    }
    // Resolution, routes and prompt (the package; invalid session fields are its invalid_input → 400).
    const prepared = await this.agentService.prepare(agent, fields, { channel });

    // One message at a time per session, on every instance: a second one waits for nothing, it is refused
    // (409 session_busy, nothing written). A new session is claimed as soon as it exists.
    const turn = new AbortController();
    const stop = () => turn.abort();
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    let claim: TurnClaim | null = null;
    if (session) {
      claim = await this.sessionService.claimTurn(session.id, stop);
      if (!claim) throw sessionBusy(session.id);
    } else {
      session = await this.sessionService.create({
        agentId: agent.id!,
        channelId: channel.id,
        sessionCwd: fields.sessionCwd,
        workspaceRoots: fields.workspaceRoots,
        shellPermitted: fields.shellPermitted,
        writePermitted: fields.writePermitted,
        crewRole: agent.crewRole,
        title: [...req.message.trim().replace(/\s+/g, ' ')].slice(0, 100).join(''),
      });
      claim = await this.sessionService.claimTurn(session.id, stop);
      if (!claim) throw sessionBusy(session.id);
    }
    const ctx: RunContext = { agent, session, fields, channel, signal: turn.signal, emit, running: new Set(), batchIds: [], tools: null };
    try {
      return await this.runTurn(ctx, prepared.diagnostic, prepared.prompt.systemPrompt, req.message);
    } finally {
      signal.removeEventListener('abort', stop);
      for (const h of ctx.running) await h.kill('cancelled').catch(() => undefined);
      await ctx.tools?.close().catch(err => console.error(`[netaclaw] session ${session!.id}: cannot end the turn's tool worker:`, err));
      await claim.release();
    }
  }

  private async runTurn(ctx: RunContext, diagnostic: RuntimeDiagnostic, systemPrompt: string, message: string): Promise<ChatAnswer> {
    const sessionId = ctx.session.id;
    let seq = await this.sessionService.nextSeq(sessionId);
    const turnStart = seq;
    await this.sessionService.append(sessionId, seq++, { role: 'user', content: message });
    await this.sessionService.touch(sessionId);

    const offered = diagnostic.resolved.toolNames;
    const tools = this.offer(offered);
    const calls: ToolCallView[] = [];
    let reply = '';
    let stopReason: ChatAnswer['stopReason'] = 'step_limit';
    for (let step = 1; step <= MAX_STEPS; step++) {
      const messages = await this.history(sessionId, turnStart, systemPrompt);
      let turn: ModelTurn;
      try {
        turn = await streamTurn(ctx.channel, { messages, tools }, ctx.signal, text =>
          ctx.emit({ type: 'delta', sessionId, batchId: null, text })
        );
      } catch (err) {
        throw await this.failTurn(ctx, seq, err);
      }
      reply = turn.content;
      await this.sessionService.append(sessionId, seq++, {
        role: 'assistant',
        content: turn.content,
        toolCalls: turn.toolCalls.length > 0 ? turn.toolCalls : null,
      });
      if (turn.toolCalls.length === 0) {
        stopReason = turn.cut ? 'length' : 'stop';
        break;
      }
      for (let i = 0; i < turn.toolCalls.length; i++) {
        const tc = turn.toolCalls[i];
        let view: ToolCallView;
        try {
          if (ctx.signal.aborted) throw new ModelError('cancelled', 'cancelled');
          view = await this.runMainCall(ctx, diagnostic.policy, diagnostic.routes, new Set(offered), tc);
        } catch (err) {
          // the history stays valid: every call of the assistant message gets a result
          const note = ctx.signal.aborted ? 'Tool call cancelled.' : `Tool call failed: ${(err as Error)?.message ?? err}`;
          for (const rest of turn.toolCalls.slice(i)) {
            await this.sessionService.append(sessionId, seq++, { role: 'tool', content: note, toolCallId: rest.id, name: rest.name });
          }
          throw await this.failTurn(ctx, seq, ctx.signal.aborted ? new ModelError('cancelled', 'cancelled') : err);
        }
        calls.push(view);
        await this.sessionService.append(sessionId, seq++, { role: 'tool', content: resultText(view), toolCallId: tc.id, name: tc.name });
      }
    }
    await this.sessionService.touch(sessionId);
    return { sessionId, reply, toolCalls: calls, batchIds: ctx.batchIds, stopReason };
  }

  /** The tools offered to the model: exactly these names, with the package's description and parameters. */
  private offer(names: string[]): ChatCompletionTool[] {
    return names.map(name => {
      const manifest = this.catalogService.manifest(name);
      const parameters = this.catalogService.parameters(name);
      return {
        type: 'function' as const,
        function: {
          name,
          ...(manifest && manifest.description ? { description: manifest.description } : {}),
          ...(parameters ? { parameters } : {}),
        },
      };
    });
  }

  /**
   * The messages of a model request: the system prompt, the earlier turns that fit in
   * NETACLAW_HISTORY_CHARS (oldest dropped first), then the current turn — whose oldest tool results
   * are shortened when the turn alone is over the budget.
   */
  private async history(sessionId: number, turnStart: number, systemPrompt: string): Promise<ChatCompletionMessageParam[]> {
    const turn = await this.sessionService.turnMessages(sessionId, turnStart);
    let budget = HISTORY_CHARS - systemPrompt.length;
    let turnChars = turn.reduce((n, m) => n + messageChars(m), 0);
    for (const m of turn) {
      if (turnChars <= budget) break;
      if (m.role !== 'tool' || (m.content?.length ?? 0) < 200) continue;
      const note = `[tool result of ${m.content!.length} characters left out to keep the conversation within its size limit]`;
      turnChars -= m.content!.length - note.length;
      m.content = note;
    }
    budget -= turnChars;
    const earlier = budget > 0 ? await this.sessionService.earlierTurns(sessionId, turnStart, budget) : [];
    return [{ role: 'system', content: systemPrompt }, ...[...earlier, ...turn].map(toParam)];
  }

  /** Records why a turn stopped (an `error` message) and gives the error the caller answers with. */
  private async failTurn(ctx: RunContext, seq: number, err: unknown): Promise<AppError> {
    const sessionId = ctx.session.id;
    // another writer took the session's message order: nothing more is written here
    if (err instanceof AppError && err.code === 'session_busy') return err;
    if (!(err instanceof ModelError)) {
      // not the model's doing (a tool runtime or database failure): logged, answered 500 turn_failed
      console.error(`[netaclaw] session ${sessionId}: the turn failed:`, err);
      const message = `the turn failed: ${String((err as Error)?.message ?? err).slice(0, 500)}`;
      await this.sessionService.append(sessionId, seq, { role: 'error', content: message, name: 'turn_failed' });
      await this.sessionService.touch(sessionId);
      return new AppError(500, 'turn_failed', message, undefined, { sessionId });
    }
    await this.sessionService.append(sessionId, seq, { role: 'error', content: err.message, name: err.code });
    await this.sessionService.touch(sessionId);
    const status = err.code === 'model_timeout' ? 504 : err.code === 'cancelled' ? 409 : 502;
    return new AppError(status, err.code, err.message, undefined, { sessionId });
  }

  /**
   * One call of the main agent: L0 (offered?), the argument text, then either a tool the executor runs
   * itself (delegation) or the turn's worker under the session's policy and routes (`openSessionTools`).
   */
  private async runMainCall(
    ctx: RunContext,
    sessionPolicy: WorkerPolicy,
    routes: ToolRuntimeRoute[],
    offered: Set<string>,
    tc: ModelToolCall
  ): Promise<ToolCallView> {
    const sessionId = ctx.session.id;
    const checked = this.checkCall(tc, offered);
    ctx.emit({ type: 'tool-call', sessionId, batchId: null, id: tc.id, name: tc.name, arguments: checked.args });
    let view: ToolCallView;
    const started = Date.now();
    if ('denied' in checked) {
      view = checked.denied;
      await this.record(sessionId, view);
    } else {
      const own = Object.prototype.hasOwnProperty.call(this.ownTools, tc.name) ? this.ownTools[tc.name] : undefined;
      const ownCheck = own ? checkOwnCall(sessionPolicy, routes, tc.name, checked.args) : null;
      if (ownCheck && ownCheck.decision === DECISIONS.denied) {
        view = { id: tc.id, name: tc.name, arguments: checked.args, decision: DECISIONS.denied, reason: ownCheck.reason, detail: ownCheck.detail, ok: false, durationMs: Date.now() - started };
        await this.record(sessionId, view);
      } else if (own) {
        let r: { ok: boolean; output?: string; error?: string };
        try {
          r = await own(ctx, checked.args);
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          r = { ok: false, error: (err as Error).message };
        }
        view = { id: tc.id, name: tc.name, arguments: checked.args, decision: DECISIONS.proxy, reason: null, detail: null, ...r, durationMs: Date.now() - started };
        await this.record(sessionId, view);
      } else {
        ctx.tools ??= this.subagents.openSessionTools({
          agentId: ctx.agent.id!,
          sessionId,
          policy: sessionPolicy,
          routes,
          signal: ctx.signal,
        });
        view = fromRecord(tc.id, await ctx.tools.call(tc.name, checked.args));
      }
    }
    ctx.emit({ type: 'tool-result', sessionId, batchId: null, ...view });
    return view;
  }

  /** Stores a call the executor decided or ran itself, in the session's calls (`netaclaw_tool_call`). */
  private async record(sessionId: number, v: ToolCallView): Promise<void> {
    await this.subagents.recordSessionCall(sessionId, {
      name: v.name,
      arguments: v.arguments,
      decision: v.decision,
      reason: v.reason,
      detail: v.detail,
      ok: v.ok,
      ...(v.output !== undefined ? { output: v.output } : {}),
      ...(v.error !== undefined ? { error: v.error } : {}),
      durationMs: v.durationMs,
    });
  }

  /** L0 and the argument text: a denied view, or the parsed arguments. */
  private checkCall(tc: ModelToolCall, offered: Set<string>): { args: unknown; denied: ToolCallView } | { args: Obj } {
    const deny = (reason: string, detail: string, args: unknown) => ({
      args,
      denied: { id: tc.id, name: tc.name, arguments: args, decision: 'denied' as const, reason, detail, ok: false, durationMs: 0 },
    });
    const raw = tc.arguments.trim() === '' ? '{}' : tc.arguments;
    if (raw.length > ARGUMENTS_MAX_CHARS) {
      const reason = offered.has(tc.name) ? RUNTIME_REASONS.invalidArguments : RUNTIME_REASONS.notOffered;
      return deny(reason, `the arguments are over ${ARGUMENTS_MAX_CHARS} characters`, raw.slice(0, 1000));
    }
    let args: unknown;
    let parseError: string | null = null;
    try {
      args = JSON.parse(raw);
    } catch (err) {
      args = raw;
      parseError = (err as Error).message;
    }
    if (!offered.has(tc.name)) {
      return deny(RUNTIME_REASONS.notOffered, `${JSON.stringify(tc.name)} is not one of the tools offered to this agent`, args);
    }
    if (parseError !== null) return deny(RUNTIME_REASONS.invalidArguments, `the arguments are not valid JSON (${parseError})`, raw);
    if (!isPlainObject(args)) return deny(RUNTIME_REASONS.invalidArguments, 'the arguments must be a JSON object', args);
    return { args };
  }

  // ---- delegation: sub-agent batches driven by a nested model loop ----

  // Both run only after the package's check of the tool's catalog `parameters` (`checkOwnCall`): a task is
  // `{ task: non-empty string, tools?: tool names }`, and `delegate_parallel` has 1 to 10 of them.
  private async delegateTask(ctx: RunContext, args: Obj) {
    const r = await this.runSubagent(ctx, checkedTask(args));
    return r.ok ? { ok: true, output: r.output } : { ok: false, error: r.output };
  }

  private async delegateParallel(ctx: RunContext, args: Obj) {
    const tasks = (args.tasks as Obj[]).map(checkedTask);
    const results = await Promise.all(tasks.map(t => this.runSubagent(ctx, t)));
    return {
      ok: results.every(r => r.ok),
      output: results.map((r, i) => `## Task ${i + 1}\n${r.output}`).join('\n\n'),
    };
  }

  /** One delegated task: a batch (crewRole sub, bounded by the session's policy) and its model loop. */
  private async runSubagent(ctx: RunContext, t: { task: string; tools: string[] | null }): Promise<{ ok: boolean; output: string }> {
    const sessionId = ctx.session.id;
    let handle: BatchHandle;
    try {
      const parent = await this.agentService.prepare(ctx.agent, ctx.fields, { channel: ctx.channel });
      handle = await this.subagents.start({
        agentId: ctx.agent.id!,
        sessionId,
        crewRole: 'sub',
        driver: 'model',
        sessionCwd: ctx.fields.sessionCwd,
        workspaceRoots: ctx.fields.workspaceRoots ?? [],
        shellPermitted: ctx.fields.shellPermitted,
        writePermitted: ctx.fields.writePermitted,
        parent: {
          workspaceRoots: parent.diagnostic.policy.workspaceRoots,
          allowShell: parent.diagnostic.policy.allowShell,
          readonly: parent.diagnostic.policy.readonly,
        },
        subagentTools: t.tools,
      });
    } catch (err) {
      return { ok: false, output: `the sub-agent could not start: ${(err as Error).message}` };
    }
    ctx.running.add(handle);
    ctx.batchIds.push(handle.id);
    ctx.emit({ type: 'batch', sessionId, batchId: handle.id, status: 'running', task: t.task });
    try {
      const reply = await this.subagentLoop(ctx, handle, t);
      await handle.finish();
      ctx.emit({ type: 'batch', sessionId, batchId: handle.id, status: 'completed', task: t.task, reply });
      return { ok: true, output: `[sub-agent batch ${handle.id}]\n${reply}` };
    } catch (err) {
      const message = (err as Error).message;
      await handle.kill(ctx.signal.aborted ? 'cancelled' : message).catch(() => undefined);
      ctx.emit({ type: 'batch', sessionId, batchId: handle.id, status: ctx.signal.aborted ? 'killed' : 'failed', task: t.task, error: message });
      if (ctx.signal.aborted) throw err;
      return { ok: false, output: `[sub-agent batch ${handle.id}] failed: ${message}` };
    } finally {
      ctx.running.delete(handle);
    }
  }

  /** The sub-agent's own loop: offered its batch's runnable routes; its calls go to the batch. */
  private async subagentLoop(ctx: RunContext, handle: BatchHandle, t: { task: string; tools: string[] | null }): Promise<string> {
    const sessionId = ctx.session.id;
    const resolved = (
      await this.agentService.prepare(ctx.agent, ctx.fields, {
        channel: ctx.channel,
        crewRole: 'sub' as CrewRole,
        subagentTools: t.tools,
        parent: handle.policy,
      })
    ).diagnostic.resolved;
    const runnable = (handle.routes as ToolRuntimeRoute[]).filter(isRunnable).map(r => r.name);
    const prompt = buildSystemPrompt({
      agent: ctx.agent,
      delegated: true,
      sessionCwd: ctx.fields.sessionCwd,
      policy: handle.policy,
      toolNames: runnable,
      toolPromptHints: resolved.toolPromptHints,
    });
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: prompt.systemPrompt },
      { role: 'user', content: t.task },
    ];
    const tools = this.offer(runnable);
    let reply = '';
    for (let step = 1; step <= MAX_STEPS; step++) {
      const turn = await streamTurn(ctx.channel, { messages, tools }, ctx.signal, text =>
        ctx.emit({ type: 'delta', sessionId, batchId: handle.id, text })
      );
      reply = turn.content;
      if (turn.toolCalls.length === 0) return reply;
      messages.push({
        role: 'assistant',
        content: turn.content || null,
        tool_calls: turn.toolCalls.map(c => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
      });
      for (const tc of turn.toolCalls) {
        // Inside a batch its own gate decides (L1, and L4 for what it proxies) and records every call,
        // a name it was not offered and malformed arguments included.
        const args = parseArguments(tc.arguments);
        ctx.emit({ type: 'tool-call', sessionId, batchId: handle.id, id: tc.id, name: tc.name, arguments: args });
        const view = fromRecord(tc.id, await handle.call(tc.name, args));
        ctx.emit({ type: 'tool-result', sessionId, batchId: handle.id, ...view });
        messages.push({ role: 'tool', tool_call_id: tc.id, content: resultText(view) });
      }
    }
    return reply;
  }
}

function fromRecord(id: string, r: CallRecord): ToolCallView {
  const { seq: _seq, ...rest } = r;
  return { id, ...rest };
}

/** The arguments a model sent: the parsed JSON, or the text itself when it is not JSON. */
function parseArguments(text: string): unknown {
  const raw = text.trim() === '' ? '{}' : text;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/**
 * The package's decision on a call of one of the executor's own tools (delegation): `checkToolCall` with the
 * session's policy and the tool's route as the executor runs it (in the main process), so its arguments are
 * checked against the tool's catalog `parameters` (a task's text, at most 10 tasks, tool names) like every
 * other call's. A gate error is a denial (fail closed).
 */
function checkOwnCall(policy: WorkerPolicy, routes: ToolRuntimeRoute[], name: string, args: unknown): GateResult {
  const route = routes.find(r => r.name === name);
  try {
    return checkCall({ policy, routes: route ? [{ ...route, status: OWN_TOOL_STATUS }] : [], name, arguments: args });
  } catch (err) {
    return { decision: DECISIONS.denied, reason: RUNTIME_REASONS.invalidArguments, paths: [], detail: `gate error: ${(err as Error).message}` };
  }
}

/** A task of a delegation call, as the package's check of the tool's parameters let it through. */
function checkedTask(v: Obj): { task: string; tools: string[] | null } {
  return { task: v.task as string, tools: Array.isArray(v.tools) ? (v.tools as string[]) : null };
}
