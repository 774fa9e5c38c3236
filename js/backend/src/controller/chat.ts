import { Body, Controller, Get, Inject, Post, Query } from '@midwayjs/core';
import { IdDTO } from '../dto/channel';
import { RemovalService } from '../service/removal';
import { Context } from '@midwayjs/koa';
import { ChatDTO } from '../dto/chat';
import { IdQueryDTO, SessionPageQueryDTO } from '../dto/query';
import type { PendingQuestion } from '../wire/api-types';
import { ChatExecutor } from '../agent/executor';
import { SessionService } from '../service/session';
import { SubagentService } from '../service/subagent';
import { TodoService } from '../service/todo';
import { EscalationService } from '../service/escalation';
import { ApprovalService } from '../service/approval';
import { NetDecisionService } from '../service/netdecision';
import { notFound } from '../wire/errors';

/** The REST path of the chat gateway (RUNTIME §6): the same executor as the WebSocket. */
@Controller('/api/netaclaw')
export class ChatController {
  @Inject()
  ctx: Context;

  @Inject()
  executor: ChatExecutor;

  @Post('/chat')
  async chat(@Body() body: ChatDTO) {
    // A client that goes away cancels the turn (the model stream is aborted, running batches killed).
    const abort = new AbortController();
    this.ctx.res.once('close', () => {
      if (!this.ctx.res.writableFinished) abort.abort();
    });
    return this.executor.chat(body, () => undefined, abort.signal);
  }
}

/** Sessions for the chat page: `{ list, total }` newest first, and one session with its messages, calls, todo list and escalations. */
@Controller('/admin/netaclaw/session')
export class SessionController {
  @Inject()
  sessionService: SessionService;

  @Inject()
  subagents: SubagentService;

  @Inject()
  todoService: TodoService;

  @Inject()
  escalationService: EscalationService;

  @Inject()
  approvals: ApprovalService;

  @Inject()
  netDecisions: NetDecisionService;

  @Inject()
  removal: RemovalService;

  private async pendingQuestion(sessionId: number): Promise<PendingQuestion | null> {
    const q = await this.sessionService.pendingQuestion(sessionId);
    return q ? { callId: q.callId, question: q.question } : null;
  }

  @Get('/page')
  async page(@Query() query: SessionPageQueryDTO) {
    return this.sessionService.page(query);
  }

  /** Deletes the session with everything that is its (docs/backend-api.md "Deleting"); 409 while a turn of it runs. */
  @Post('/delete')
  async delete(@Body() body: IdDTO) {
    return this.removal.deleteSession(Number(body.id));
  }

  @Get('/info')
  async info(@Query() query: IdQueryDTO) {
    const { session, messages } = await this.sessionService.info(query);
    return {
      ...session,
      messages,
      calls: await this.subagents.sessionCalls(session.id),
      // the main agent's todo list (the `todo` tool), kept in the database
      todos: await this.todoService.get({ sessionId: String(session.id) }),
      // the question the agent asked (`clarify`) that waits for the user's answer, or null
      pendingQuestion: await this.pendingQuestion(session.id),
      // the escalations of its agents (the `escalate` tool), open and resolved, oldest first
      escalations: await this.escalationService.forSession(session.id),
      // the calls a rule asks about that wait for the user's answer (the main agent's, its sub-agents')
      pendingApprovals: await this.approvals.pending(session.id),
    };
  }

  /**
   * The decided connections of a session's sandboxes (its main agent's and its sub-agents'), oldest first:
   * `{ list }` — allowed, asked and answered, refused — each with its host, port, rule and level.
   */
  @Get('/net')
  async net(@Query() query: IdQueryDTO) {
    const session = await this.sessionService.find(Number(query.id));
    if (!session) throw notFound(`no session with id ${query.id}`);
    return { list: await this.netDecisions.forSession(session.id) };
  }
}
