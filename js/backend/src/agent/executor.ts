import { Inject, Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { NetaClawModelChannelEntity } from '../entity/channel';
import { NetaClawMessageEntity } from '../entity/message';
import { NetaClawSessionEntity } from '../entity/session';
import { AppError, invalidInput } from '../wire/errors';
import { RuntimeDiagnostic } from '../wire/policy';
import { HISTORY_CHARS } from '../config/settings';
import { ChatDTO } from '../dto/chat';
import { AgentService, AgentView, SessionFields } from '../service/agent';
import { PreparedRun, RunPreparer } from './run';
import { CatalogService } from '../service/catalog';
import { ChannelService } from '../service/channel';
import { messageChars, sessionBusy, SessionService, TurnClaim } from '../service/session';
import { SubagentService } from '../service/subagent';
import { EscalationService } from '../service/escalation';
import { CONCURRENT_MODE } from '../runtime/codes';
import type { ChatAnswer, ChatSessionFields, ChatTurnEvent } from '../wire/api-types';
import { BatchHandle, BatchRunner, NetAsker, SessionTools } from './batches';
import { ChatCompletionMessageParam, ChatCompletionTool, ModelError, ModelToolCall } from './model';
import { LoopHistory, LoopResult, runAgentLoop } from './loop';
import { orDemoChannel } from '../service/demochannel';
import { AskedCall, CallPort, OwnTool, Place, resultText, shownOf, ToolCallView, userDenied } from './port';
import { withMedia } from './media';
import type { ResultMedia, RuntimeEnv } from '../runtime';
import { errorMessage } from '../lib/errortext';
import { log } from '../config/log';
import type { RuleMatch, RulesInput } from '@netaclaw/tool-policy';
import { RulesService } from '../service/rules';
import { alreadyAnswered, ApprovalService, approvalView, isNetApproval, type NewApproval } from '../service/approval';
import { NetaClawApprovalEntity } from '../entity/approval';
import type { ApprovalAnswered } from '../wire/api-types';
import { APPROVAL_WAIT_SECONDS } from '../config/settings';
import { assertWorkdirUsable } from '../runtime';

export type { ToolCallView } from './port';

export type { ChatAnswer, ChatEvent } from '../wire/api-types';

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
    throw invalidInput(`session ${s.id} was started with other ${differs.join(', ')}: a session's fields are fixed (start a new session to change them)`);
  }
}

function toParam(m: NetaClawMessageEntity): ChatCompletionMessageParam {
  // an operator's answer to an escalation is said to the model as the user's side of the conversation
  if (m.role === 'user' || m.role === 'resolution') return { role: 'user', content: m.content ?? '' };
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

/** What one turn of the main agent works with (its sub-agents run inside it). */
interface RunContext {
  /** The turn's run (`prepareRun`): the diagnostic its calls are decided with, its system prompt. */
  run: PreparedRun;
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
  /** The session's worker policy (the package's): every delegated task is bounded by it. */
  policy: RuntimeDiagnostic['policy'];
  /** The rules the session's calls are decided with (global, agent, session levels and approvals). */
  rules: RulesInput;
  /** The hosts (`host:port`) the user approved for the session during this turn (its sandboxes' rules were read before). */
  netApproved: Set<string>;
  /** The hosts the user refused during this turn: a connection to one again is refused without asking. */
  netDenied: Set<string>;
  /** The hosts asked about now: a second connection to one waits for the first's answer instead of asking too. */
  netAsking: Map<string, Promise<unknown>>;
}

/** A turn's context: its prepared run, its session (claimed for the turn) and the session's rules, nothing running yet. */
function turnContext(
  run: PreparedRun,
  channel: NetaClawModelChannelEntity,
  session: NetaClawSessionEntity,
  fields: ChatSessionFields,
  rules: RulesInput,
  signal: AbortSignal,
  emit: Emit
): RunContext {
  return {
    run,
    agent: run.agent,
    session,
    fields,
    channel,
    signal,
    emit,
    running: new Set(),
    batchIds: [],
    tools: null,
    policy: run.diagnostic.policy,
    rules,
    netApproved: new Set(),
    netDenied: new Set(),
    netAsking: new Map(),
  };
}

/** A delegated task, as the package's check of the tool's parameters let it through. */
interface DelegatedTask {
  task: string;
  tools: string[] | null;
  /** The crew member that runs it, by name; absent: a sub-agent of the agent itself. */
  agent?: string;
}

/**
 * The agent executor (seed 001 Tasks 7–9; RUNTIME §6): one service that the REST and the WebSocket
 * paths both call. It resolves with the package, builds the layered prompt, offers the model exactly the
 * tools its session can run, and runs the agent loop (`runAgentLoop`) — for the main agent on the
 * session's stored messages, for each delegated sub-agent on its own batch — with every call going through
 * the call port (`CallPort`). A `clarify` call pauses the turn: the session's next message is its answer.
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class ChatExecutor {
  /** The runtime (its sandbox's user must be able to use a session's folder). */
  @Inject('runtimeEnv')
  runtime: RuntimeEnv;

  @Inject()
  agentService: AgentService;

  @Inject()
  runs: RunPreparer;

  @Inject()
  channelService: ChannelService;

  @Inject()
  sessionService: SessionService;

  @Inject()
  catalogService: CatalogService;

  @Inject()
  store: SubagentService;

  @Inject()
  runner: BatchRunner;

  @Inject()
  escalationService: EscalationService;

  @Inject()
  rulesService: RulesService;

  @Inject()
  approvals: ApprovalService;

  /** Whether a tool's calls may run beside others of the same answer: its manifest's `executionMode` (the package's). */
  private readonly concurrent = (name: string): boolean => this.catalogService.manifest(name)?.executionMode === CONCURRENT_MODE;

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
    const channel = orDemoChannel(await this.channelService.forAgent(agent));
    if (!channel) {
      throw new AppError(
        400,
        'no_model_channel',
        'no model channel is configured: set NETACLAW_MODEL_BASE_URL and NETACLAW_MODEL (and NETACLAW_MODEL_API_KEY) ' +
          'and restart, or add one with POST /admin/netaclaw/channel/add (see docs/runtime.md)'
      );
    }
    // Resolution, routes and prompt (the package; invalid session fields are its invalid_input → 400).
    const prepared = await this.runs.prepareRun(agent, fields, { channel });

    // One message at a time per session, on every instance: a second one waits for nothing, it is refused
    // (409 session_busy, nothing written). A new session is claimed as soon as it exists.
    const turn = new AbortController();
    const stop = () => turn.abort();
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    let claim: TurnClaim | null = null;
    if (session) {
      const waits = await this.approvals.pendingTurn(session.id);
      if (waits) {
        throw new AppError(
          409,
          'approval_pending',
          `session ${session.id} waits for the answer to approval ${waits.id} (${waits.subject}): answer it first (POST /api/netaclaw/approval/answer)`,
          undefined,
          { sessionId: session.id, approvalId: waits.id }
        );
      }
      claim = await this.sessionService.claimTurn(session.id, stop);
      if (!claim) throw sessionBusy(session.id);
    } else {
      // a new session's folder must be one its sandboxes can use (400 workdir_*, nothing stored)
      assertWorkdirUsable(fields, this.runtime.sandbox);
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
    let rules: RulesInput;
    try {
      rules = await this.rulesService.effective(agent.id, session.id);
    } catch (err) {
      await claim.release();
      throw err;
    }
    const ctx = turnContext(prepared, channel, session, fields, rules, turn.signal, emit);
    try {
      return await this.runTurn(ctx, { message: req.message });
    } finally {
      signal.removeEventListener('abort', stop);
      for (const h of ctx.running) await h.kill('cancelled').catch(() => undefined);
      await ctx.tools?.close().catch(err => log().error(`[netaclaw] session ${session!.id}: cannot end the turn's tool worker:`, err));
      await claim.release();
    }
  }

  /**
   * Answers an approval (docs/runtime.md "Approvals"), once on every instance: a sub-agent's lets its
   * waiting call go on (or refuses it); the main agent's resumes its stopped turn — the call runs (once,
   * or with the session's new approval) or is denied, the model reads its result and the turn goes on,
   * answered like a chat message. 404 for an unknown id, 409 for one answered already.
   */
  async answerApproval(
    input: { id: number; answer: 'once' | 'session' | 'deny' },
    answeredBy: string | null,
    emit: Emit,
    signal: AbortSignal
  ): Promise<ApprovalAnswered> {
    // one whose waiting process stopped (a restart, a crash) has expired: nobody could act on the answer
    await this.approvals.expireAbandoned((await this.approvals.mustFind(input.id)).sessionId);
    const a = await this.approvals.mustFind(input.id);
    if (a.status !== 'pending') throw alreadyAnswered(a);
    const pattern = input.answer === 'session' ? approvalPattern(a.rule as RuleMatch) : null;
    // a sub-agent's call and a sandbox's connection wait while their turn runs: the answer lets them go on
    if (a.batchId !== null || isNetApproval(a)) {
      if (!(await this.approvals.settle(a.id, input.answer, answeredBy))) throw alreadyAnswered(await this.approvals.mustFind(a.id));
      if (pattern) await this.rulesService.approve(a.sessionId, [pattern]);
      // the waiting call sees the answer (polling) and streams it on its turn's events
      return { answered: approvalView(await this.approvals.mustFind(a.id)) };
    }
    const session = await this.sessionService.find(a.sessionId);
    if (!session) throw new AppError(404, 'not_found', `no session with id ${a.sessionId}`);
    const agent = await this.agentService.mustGetView(session.agentId);
    const fields = sessionFieldsOf(session);
    const channel = orDemoChannel(await this.channelService.forAgent(agent));
    if (!channel) throw new AppError(400, 'no_model_channel', 'no model channel is configured for this agent: the turn cannot go on (see docs/runtime.md)');
    const prepared = await this.runs.prepareRun(agent, fields, { channel });
    const turn = new AbortController();
    const stop = () => turn.abort();
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    const claim = await this.sessionService.claimTurn(session.id, stop);
    if (!claim) {
      signal.removeEventListener('abort', stop);
      throw sessionBusy(session.id);
    }
    let ctx: RunContext | null = null;
    try {
      // the answer is stored once: a second answer (here or on another instance) finds it answered
      if (!(await this.approvals.settle(a.id, input.answer, answeredBy))) throw alreadyAnswered(await this.approvals.mustFind(a.id));
      if (pattern) await this.rulesService.approve(session.id, [pattern]);
      const answered = approvalView(await this.approvals.mustFind(a.id));
      const rules = await this.rulesService.effective(agent.id, session.id);
      ctx = turnContext(prepared, channel, session, fields, rules, turn.signal, emit);
      const answer = await this.runTurn(ctx, { approval: a, answer: input.answer });
      return { answered, ...answer };
    } finally {
      signal.removeEventListener('abort', stop);
      if (ctx) {
        for (const h of ctx.running) await h.kill('cancelled').catch(() => undefined);
        await ctx.tools?.close().catch(err => log().error(`[netaclaw] session ${session.id}: cannot end the turn's tool worker:`, errorMessage(err)));
      }
      await claim.release();
    }
  }

  private async runTurn(
    ctx: RunContext,
    start: { message: string } | { approval: NetaClawApprovalEntity; answer: 'once' | 'session' | 'deny' }
  ): Promise<ChatAnswer> {
    const sessionId = ctx.session.id;
    const { diagnostic, prompt } = ctx.run;
    const systemPrompt = prompt.systemPrompt;
    let seq = await this.sessionService.nextSeq(sessionId);
    let turnStart = seq;
    if ('message' in start) {
      // A session waiting on a question (`clarify`): this message is its answer, and the paused turn goes on.
      const waiting = await this.sessionService.pendingQuestion(sessionId);
      if (waiting) {
        turnStart = waiting.askedAt;
        await this.sessionService.append(sessionId, seq++, {
          role: 'tool',
          content: 'The user answered in the next message.',
          toolCallId: waiting.callId,
          name: 'clarify',
        });
      }
      await this.sessionService.append(sessionId, seq++, { role: 'user', content: start.message });
    } else {
      // an approval's answer: the stopped turn goes on from the model's answer that made the call
      turnStart = start.approval.askedAt ?? seq;
    }
    await this.sessionService.touch(sessionId);
    const next = { seq, assistant: 0 };
    // the images and audio of this turn's tool results, by call id (agent/media.ts)
    const media = new Map<string, ResultMedia[]>();
    const history: LoopHistory = {
      messages: async () => {
        // the operators' answers to the session's escalations that the model has not read yet
        for (const answer of await this.escalationService.undelivered(sessionId, await this.sessionService.deliveredEscalations(sessionId))) {
          await this.sessionService.append(sessionId, next.seq++, { role: 'resolution', content: answer.content, toolCallId: answer.key, name: 'escalate' });
        }
        return withMedia(await this.history(sessionId, turnStart, systemPrompt), media, ctx.channel.capability);
      },
      assistant: async (content, calls) => {
        next.assistant = next.seq;
        await this.sessionService.append(sessionId, next.seq++, { role: 'assistant', content, toolCalls: calls.length > 0 ? calls : null });
      },
      result: async (call, text, parts) => {
        if (parts?.length) media.set(call.id, parts);
        await this.sessionService.append(sessionId, next.seq++, { role: 'tool', content: text, toolCallId: call.id, name: call.name });
      },
    };
    const place: Place = {
      call: (name, args) => {
        ctx.tools ??= this.runner.openSessionTools({
          agentId: ctx.agent.id!,
          sessionId,
          policy: diagnostic.policy,
          routes: diagnostic.routes,
          rules: ctx.rules,
          signal: ctx.signal,
          netAsk: this.netAsker(ctx, () => null),
        });
        return ctx.tools.call(name, args);
      },
      record: call => this.store.recordSessionCall(sessionId, call),
    };
    const port = new CallPort({
      offered: offeredOf(diagnostic),
      policy: diagnostic.policy,
      routes: diagnostic.routes,
      rules: ctx.rules,
      own: this.ownTools(ctx),
      place,
      sessionId,
      batchId: null,
      asks: 'pause',
      signal: ctx.signal,
      emit: ctx.emit,
    });
    // an approval's answer: its call runs now (approved) or is refused, and the model reads its result
    const resumed: ToolCallView[] = [];
    if ('approval' in start) {
      const a = start.approval;
      const call = { id: a.callId, name: a.toolName, arguments: a.arguments };
      const asked: AskedCall = { arguments: a.arguments, rule: a.rule as RuleMatch, detail: a.detail };
      let view;
      try {
        view = start.answer === 'deny' ? await port.refuse(call, JSON.parse(a.arguments), asked, userDenied(asked)) : await port.call(call, true);
      } catch (err) {
        throw await this.failTurn(ctx, next.seq, ctx.signal.aborted ? new ModelError('cancelled', 'cancelled') : err);
      }
      const shown = shownOf(view);
      resumed.push(shown);
      await history.result(call, resultText(shown), view.media);
    }
    let r: LoopResult;
    try {
      r = await runAgentLoop({
        channel: ctx.channel,
        tools: this.offer(offeredOf(diagnostic)),
        history,
        port,
        concurrent: this.concurrent,
        signal: ctx.signal,
        onDelta: text => ctx.emit({ type: 'delta', sessionId, batchId: null, text }),
      });
    } catch (err) {
      throw await this.failTurn(ctx, next.seq, ctx.signal.aborted ? new ModelError('cancelled', 'cancelled') : err);
    }
    if (r.clarify) {
      await this.sessionService.append(sessionId, next.seq++, { role: 'question', content: r.clarify.question, toolCallId: r.clarify.callId, name: 'clarify' });
    }
    let approval: NetaClawApprovalEntity | null = null;
    if (r.approval) {
      approval = await this.approvals.create({
        sessionId,
        batchId: null,
        callId: r.approval.call.id,
        toolName: r.approval.call.name,
        arguments: r.approval.asked.arguments,
        rule: r.approval.asked.rule,
        detail: r.approval.asked.detail,
        askedAt: next.assistant,
      });
    }
    await this.sessionService.touch(sessionId);
    return {
      sessionId,
      reply: r.reply,
      toolCalls: [...resumed, ...r.calls],
      batchIds: ctx.batchIds,
      stopReason: r.stopReason,
      ...(r.clarify ? { clarify: r.clarify } : {}),
      ...(approval ? { approval: approvalView(approval) } : {}),
    };
  }

  /**
   * The tools the executor runs itself for the main agent: delegation, and the registry's tools that put a
   * question to the user (`clarify`: registry.ts `askers`), whose call pauses the turn.
   */
  private ownTools(ctx: RunContext): Record<string, OwnTool> {
    const asking: Record<string, OwnTool> = {};
    for (const [name, asks] of Object.entries(this.runtime.tools.askers())) asking[name] = async args => ({ pause: asks(args) });
    return {
      ...asking,
      delegate_task: async args => {
        const r = await this.runSubagent(ctx, delegated(args));
        return r.ok ? { ok: true, output: r.output } : { ok: false, error: r.output };
      },
      delegate_parallel: async args => {
        const results = await Promise.all((args.tasks as Record<string, unknown>[]).map(t => this.runSubagent(ctx, delegated(t))));
        return { ok: results.every(r => r.ok), output: results.map((r, i) => `## Task ${i + 1}\n${r.output}`).join('\n\n') };
      },
    };
  }

  /** The tools offered to the model: exactly these names, with the package's description and parameters. */
  private offer(names: readonly string[]): ChatCompletionTool[] {
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
      log().error(`[netaclaw] session ${sessionId}: the turn failed:`, err);
      const message = `the turn failed: ${errorMessage(err).slice(0, 500)}`;
      await this.sessionService.append(sessionId, seq, { role: 'error', content: message, name: 'turn_failed' });
      await this.sessionService.touch(sessionId);
      return new AppError(500, 'turn_failed', message, undefined, { sessionId });
    }
    await this.sessionService.append(sessionId, seq, { role: 'error', content: err.message, name: err.code });
    await this.sessionService.touch(sessionId);
    const status = err.code === 'model_timeout' ? 504 : err.code === 'cancelled' ? 409 : 502;
    return new AppError(status, err.code, err.message, undefined, { sessionId });
  }

  // ---- delegation: a sub-agent batch driven by the same agent loop ----

  /** One delegated task: a batch (crewRole sub, bounded by the session's policy) and its agent loop. */
  private async runSubagent(ctx: RunContext, t: DelegatedTask): Promise<{ ok: boolean; output: string }> {
    const sessionId = ctx.session.id;
    let handle: BatchHandle;
    // the batch's id, once it has one (its sandboxes' asks are shown as its own)
    let started: number | null = null;
    const parent = ctx.policy;
    // who runs the task: a crew member named by the call (its own instructions, channel and toolsets), or
    // a sub-agent of the agent itself
    let member: AgentView = ctx.agent;
    let channel: NetaClawModelChannelEntity | null = ctx.channel;
    if (t.agent !== undefined) {
      const crew = await this.agentService.crewOf(ctx.agent);
      const found = crew.find(a => a.name === t.agent);
      if (!found) {
        const names = crew.map(a => a.name).join(', ');
        return {
          ok: false,
          output: `no member of this agent's crew is named ${JSON.stringify(t.agent)}` + (names ? ` (the crew: ${names})` : ' (this agent has no crew)'),
        };
      }
      member = found;
      channel = orDemoChannel(await this.channelService.forAgent(found));
      if (!channel) return { ok: false, output: `the crew member ${JSON.stringify(t.agent)} has no model channel` };
    }
    try {
      handle = await this.runner.start(
        {
          agentId: member.id!,
          sessionId,
          crewRole: 'sub',
          driver: 'model',
          sessionCwd: ctx.fields.sessionCwd,
          workspaceRoots: ctx.fields.workspaceRoots ?? [],
          shellPermitted: ctx.fields.shellPermitted,
          writePermitted: ctx.fields.writePermitted,
          parent: { workspaceRoots: parent.workspaceRoots, allowShell: parent.allowShell, readonly: parent.readonly },
          subagentTools: t.tools,
        },
        undefined,
        this.netAsker(ctx, () => started)
      );
    } catch (err) {
      return { ok: false, output: `the sub-agent could not start: ${errorMessage(err)}` };
    }
    started = handle.id;
    ctx.running.add(handle);
    ctx.batchIds.push(handle.id);
    ctx.emit({ type: 'batch', sessionId, batchId: handle.id, status: 'running', task: t.task });
    try {
      const reply = await this.subagentLoop(ctx, handle, t, channel);
      await handle.finish();
      ctx.emit({ type: 'batch', sessionId, batchId: handle.id, status: 'completed', task: t.task, reply });
      return { ok: true, output: `[sub-agent batch ${handle.id}]\n${reply}` };
    } catch (err) {
      const message = errorMessage(err);
      await handle.kill(ctx.signal.aborted ? 'cancelled' : message).catch(() => undefined);
      ctx.emit({ type: 'batch', sessionId, batchId: handle.id, status: ctx.signal.aborted ? 'killed' : 'failed', task: t.task, error: message });
      if (ctx.signal.aborted) throw err;
      return { ok: false, output: `[sub-agent batch ${handle.id}] failed: ${message}` };
    } finally {
      ctx.running.delete(handle);
    }
  }

  /**
   * An approval put to the turn's user: stored, announced on the chat stream (an `approval` event), and
   * waited on — polled, as the answer may arrive on any instance — until answered, `signal` ends the wait,
   * or NETACLAW_APPROVAL_WAIT_SECONDS pass (then `timeout`: never allowed); the answer is announced too
   * (`approval-answered`). A wait that ends unanswered settles the approval as `timeout` (nobody answers it
   * any more); `ended` says whether that ending is thrown on (`throw`: a cancelled turn) or read as the
   * approval's state (`read`).
   */
  private async askUser(
    ctx: RunContext,
    ask: Omit<NewApproval, 'sessionId' | 'askedAt'>,
    signal: AbortSignal,
    ended: 'throw' | 'read'
  ): Promise<NetaClawApprovalEntity> {
    const sessionId = ctx.session.id;
    const { batchId } = ask;
    const row = await this.approvals.create({ ...ask, sessionId, askedAt: null, waitUntil: Date.now() + APPROVAL_WAIT_SECONDS * 1000 });
    ctx.emit({ type: 'approval', sessionId, batchId, approval: approvalView(row) });
    let done: NetaClawApprovalEntity;
    try {
      done = await this.approvals.wait(row.id, APPROVAL_WAIT_SECONDS * 1000, signal);
    } catch (err) {
      await this.approvals.settle(row.id, 'timeout', null).catch(() => undefined);
      if (ended === 'throw') throw err;
      done = (await this.approvals.find(row.id).catch(() => null)) ?? row;
    }
    ctx.emit({ type: 'approval-answered', sessionId, batchId, approval: approvalView(done) });
    return done;
  }

  /** A sub-agent's call a rule asks about, put to the parent turn's user (askUser); a cancelled turn ends the wait. */
  private async forwardApproval(ctx: RunContext, batchId: number, call: ModelToolCall, asked: AskedCall): Promise<'once' | 'session' | 'deny' | 'timeout'> {
    const done = await this.askUser(
      ctx,
      { batchId, callId: call.id, toolName: call.name, arguments: asked.arguments, rule: asked.rule, detail: asked.detail },
      ctx.signal,
      'throw'
    );
    return done.answer ?? 'timeout';
  }

  /**
   * Who answers the `net()` asks of the turn's sandboxes (the main agent's worker, and the sub-agents it
   * started): the connection waits while an approval is put to the turn's user (an `approval` event on
   * the chat stream; answered over REST by any instance) — until answered, the wait of the proxy runs out
   * (NETACLAW_APPROVAL_WAIT_SECONDS) or the turn ends. "Allow for this session" stores the session's
   * approval of `net(host:port)` and lets that host through for the rest of the turn; a refused host is
   * refused for the rest of the turn without asking; one question a host at a time.
   */
  private netAsker(ctx: RunContext, batchOf: () => number | null): NetAsker {
    return async q => {
      const batchId = batchOf();
      const key = q.match?.subject ?? `${q.host}:${q.port}`;
      // one question a host at a time (a loop or parallel clients of one host put up one card): a second
      // connection waits for the first's answer; refused in this turn, the host is refused without asking
      for (;;) {
        if (ctx.netApproved.has(key)) return { approved: true, answer: 'session' };
        if (ctx.netDenied.has(key)) return { approved: false, answer: 'deny' };
        const open = ctx.netAsking.get(key);
        if (!open) break;
        await open.catch(() => undefined);
        if (q.signal.aborted || ctx.signal.aborted) return { approved: false, answer: 'timeout' };
      }
      if (!q.match) return { approved: false, answer: 'none' };
      // the proxy's wait ran out, the sandbox ended or the turn was cancelled: read as `timeout`, refused
      const asking = this.askUser(
        ctx,
        {
          batchId: batchId ?? null,
          callId: q.call ? `net:${q.call.seq}` : 'net',
          toolName: q.call?.name ?? 'net',
          arguments: JSON.stringify({ host: q.host, port: q.port, method: q.method }),
          rule: q.match,
          detail: q.message,
        },
        AbortSignal.any([q.signal, ctx.signal]),
        'read'
      );
      ctx.netAsking.set(key, asking);
      let done: NetaClawApprovalEntity;
      try {
        done = await asking;
      } finally {
        ctx.netAsking.delete(key);
      }
      const answer = done.answer ?? 'timeout';
      if (answer === 'session') ctx.netApproved.add(key);
      if (answer === 'deny') ctx.netDenied.add(key);
      return { approved: answer === 'once' || answer === 'session', answer, approvalId: done.id };
    };
  }

  /** The sub-agent's run: the agent loop on its own messages, offered its batch's runnable routes; its calls go to the batch. */
  private async subagentLoop(ctx: RunContext, handle: BatchHandle, t: DelegatedTask, channel: NetaClawModelChannelEntity): Promise<string> {
    const sessionId = ctx.session.id;
    const messages: ChatCompletionMessageParam[] = [
      // the batch's prepared run: the member's prompt, delegated, under the batch's policy and offer
      { role: 'system', content: handle.run.prompt.systemPrompt },
      { role: 'user', content: t.task },
    ];
    const media = new Map<string, ResultMedia[]>();
    const history: LoopHistory = {
      messages: async () => withMedia(messages, media, channel.capability),
      assistant: async (content, calls) => {
        messages.push(
          calls.length > 0
            ? {
                role: 'assistant',
                content: content || null,
                tool_calls: calls.map(c => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
              }
            : { role: 'assistant', content }
        );
      },
      result: async (call, text, parts) => {
        if (parts?.length) media.set(call.id, parts);
        messages.push({ role: 'tool', tool_call_id: call.id, content: text });
      },
    };
    const port = new CallPort({
      offered: handle.offered,
      policy: handle.policy,
      routes: handle.routes,
      rules: handle.rules,
      own: {},
      place: { call: (name, args) => handle.call(name, args), record: call => handle.record(call) },
      sessionId,
      batchId: handle.id,
      // a rule's ask: the call waits here for the parent turn's user (any instance may answer)
      asks: 'wait',
      approve: (call, asked) => this.forwardApproval(ctx, handle.id, call, asked),
      signal: ctx.signal,
      emit: ctx.emit,
    });
    const r = await runAgentLoop({
      channel,
      tools: this.offer(handle.offered),
      history,
      port,
      concurrent: this.concurrent,
      signal: ctx.signal,
      onDelta: text => ctx.emit({ type: 'delta', sessionId, batchId: handle.id, text }),
    });
    return r.reply;
  }
}

/**
 * The pattern an "allow for this session" answer adds (docs/package.md "Rules", approvals): the subject
 * the rule asked about, as a pattern of its kind — `bash(<the command's words>)` (for a text the reader
 * did not understand, `bash(<exactly that text>)`, the only approval that matches it), `read(<path>)`,
 * `write(<path>)`, or the tool's name.
 */
export function approvalPattern(rule: RuleMatch): string {
  return rule.kind === TOOL_KIND ? rule.subject : `${rule.kind}(${rule.subject})`;
}

/** The kind of a rule that names a tool (the package's `PatternKind`). */
const TOOL_KIND: RuleMatch['kind'] = 'tool';

/** The tools the model of a session is offered: those whose route in the session can run (the package's `offered`). */
function offeredOf(d: RuntimeDiagnostic): string[] {
  return d.offered;
}

/** A task of a delegation call, as the package's check of the tool's parameters let it through. */
function delegated(v: Record<string, unknown>): DelegatedTask {
  return {
    task: v.task as string,
    tools: Array.isArray(v.tools) ? (v.tools as string[]) : null,
    ...(typeof v.agent === 'string' ? { agent: v.agent } : {}),
  };
}
