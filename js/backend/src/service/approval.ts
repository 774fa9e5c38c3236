import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { InjectEntityModel } from '@midwayjs/typeorm';
import type { RuleMatch } from '@netaclaw/tool-policy';
import { IsNull, Repository } from 'typeorm';
import type { ApprovalAnswerKind, ApprovalStatus, ApprovalView } from '../wire/api-types';
import { NetaClawApprovalEntity } from '../entity/approval';
import { AppError, notFound } from '../wire/errors';
import { dbWriteLock } from '../lib/mutex';

/** A call a rule asks about, as the call port hands it over. */
export interface NewApproval {
  sessionId: number;
  batchId: number | null;
  callId: string;
  toolName: string;
  /** The arguments as the package read them, as JSON text. */
  arguments: string;
  rule: RuleMatch;
  detail: string | null;
  askedAt: number | null;
  /** Until when (ms since the epoch) a running process waits for the answer; null: a stopped turn's (waits across restarts). */
  waitUntil?: number | null;
}

/**
 * How long after its waiter's deadline a pending approval counts as abandoned: the waiter settles it
 * itself at the deadline (`wait`, polling every POLL_MS), so one still pending later has no live waiter.
 */
const ABANDONED_AFTER_MS = 5000;

/** What an answer makes of a pending approval. */
const STATUS_OF: Record<ApprovalAnswerKind, ApprovalStatus> = { once: 'allowed', session: 'allowed', deny: 'denied', timeout: 'expired' };

/** How often a waiting sub-agent call looks for its answer (any instance may store it). */
const POLL_MS = 300;

/**
 * Whether an approval is about a connection of a sandbox network (its rule is a `net()` one): the
 * connection waits for it while its turn runs, as a sub-agent's call does; no turn stops for it.
 */
export function isNetApproval(a: Pick<NetaClawApprovalEntity, 'rule'>): boolean {
  return (a.rule as RuleMatch | null)?.kind === NET_KIND;
}

/** The kind of a `net()` rule (the package's `PatternKind`). */
const NET_KIND: RuleMatch['kind'] = 'net';

export function approvalView(a: NetaClawApprovalEntity): ApprovalView {
  let args: unknown = a.arguments;
  try {
    args = JSON.parse(a.arguments);
  } catch {
    // kept as the text it is
  }
  return {
    id: a.id,
    sessionId: a.sessionId,
    batchId: a.batchId ?? null,
    callId: a.callId,
    toolName: a.toolName,
    arguments: args,
    subject: a.subject,
    rule: a.rule as RuleMatch,
    detail: a.detail ?? null,
    status: a.status,
    answer: a.answer ?? null,
    answeredBy: a.answeredBy ?? null,
    answerTime: a.answerTime ? new Date(a.answerTime).toISOString() : null,
    createTime: new Date(a.createTime).toISOString(),
  };
}

/** 409: the approval has its answer already (given here or on another instance). */
export function alreadyAnswered(a: NetaClawApprovalEntity | ApprovalView): AppError {
  return new AppError(409, 'already_answered', `approval ${a.id} was answered already (${a.answer ?? a.status})`, undefined, {
    approval: 'status' in a ? a.status : undefined,
  });
}

/**
 * The approvals (`netaclaw_approval`): stored when a rule asks, answered once — on whichever instance
 * the answer arrives, by a conditional UPDATE from `pending` — and read by the turn or the sub-agent
 * call that waits on them.
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class ApprovalService {
  @InjectEntityModel(NetaClawApprovalEntity)
  repo: Repository<NetaClawApprovalEntity>;

  async create(a: NewApproval): Promise<NetaClawApprovalEntity> {
    return dbWriteLock.run(() =>
      this.repo.save(
        this.repo.create({
          sessionId: a.sessionId,
          batchId: a.batchId,
          callId: [...a.callId].slice(0, 200).join(''),
          toolName: [...a.toolName].slice(0, 200).join(''),
          arguments: a.arguments,
          subject: a.rule.subject,
          rule: a.rule,
          detail: a.detail,
          askedAt: a.askedAt,
          waitUntil: a.waitUntil ?? null,
          status: 'pending',
          answer: null,
          answeredBy: null,
          answerTime: null,
        })
      )
    );
  }

  async find(id: number): Promise<NetaClawApprovalEntity | null> {
    return this.repo.findOneBy({ id });
  }

  async mustFind(id: number): Promise<NetaClawApprovalEntity> {
    const a = await this.find(id);
    if (!a) throw notFound(`no approval with id ${id}`);
    return a;
  }

  /**
   * Gives a pending approval its answer: true when this call did (the UPDATE found it pending), false when
   * it had one already — on every instance only one answer is ever stored.
   */
  async settle(id: number, answer: ApprovalAnswerKind, answeredBy: string | null): Promise<boolean> {
    const r = await dbWriteLock.run(() =>
      this.repo
        .createQueryBuilder()
        .update(NetaClawApprovalEntity)
        .set({ status: STATUS_OF[answer], answer, answeredBy, answerTime: new Date() })
        .where('id = :id AND status = :pending', { id, pending: 'pending' })
        .execute()
    );
    return (r.affected ?? 0) > 0;
  }

  /** The main agent's approval its stopped turn waits on (the newest pending one), or null. */
  async pendingTurn(sessionId: number): Promise<NetaClawApprovalEntity | null> {
    // a connection's approval waits in a running turn, which it does not stop
    const rows = await this.repo.find({ where: { sessionId, batchId: IsNull(), status: 'pending' }, order: { id: 'DESC' } });
    return rows.find(a => !isNetApproval(a)) ?? null;
  }

  /**
   * Expires (`timeout`) a session's approvals whose waiting process stopped (a restart, a crash): pending
   * past their `waitUntil` (and ABANDONED_AFTER_MS more). Nobody could act on their answer any more; the
   * main agent's stopped turn (no `waitUntil`) keeps waiting. Answers how many it expired.
   */
  async expireAbandoned(sessionId: number, now = Date.now()): Promise<number> {
    const abandoned = 'sessionId = :sessionId AND status = :pending AND waitUntil IS NOT NULL AND waitUntil < :cutoff';
    const params = { sessionId, pending: 'pending', cutoff: now - ABANDONED_AFTER_MS };
    // read first: a listing writes (and takes the write lock) only when there is one to expire
    if ((await this.repo.createQueryBuilder().where(abandoned, params).getCount()) === 0) return 0;
    const r = await dbWriteLock.run(() =>
      this.repo
        .createQueryBuilder()
        .update(NetaClawApprovalEntity)
        .set({ status: STATUS_OF.timeout, answer: 'timeout', answeredBy: null, answerTime: new Date(now) })
        .where(abandoned, params)
        .execute()
    );
    return r.affected ?? 0;
  }

  /** Every pending approval of a session (its main agent's and its sub-agents'), oldest first; the abandoned expire first. */
  async pending(sessionId: number): Promise<ApprovalView[]> {
    await this.expireAbandoned(sessionId);
    const rows = await this.repo.find({ where: { sessionId, status: 'pending' }, order: { id: 'ASC' } });
    return rows.map(approvalView);
  }

  /**
   * Waits for an approval's answer (polling: another instance may store it). When `timeoutMs` passes
   * first, it is answered `timeout` here (unless an answer won the race); a cancel stops the wait.
   */
  async wait(id: number, timeoutMs: number, signal: AbortSignal): Promise<NetaClawApprovalEntity> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const a = await this.mustFind(id);
      if (a.status !== 'pending') return a;
      if (signal.aborted) throw new Error('cancelled');
      if (Date.now() >= until) {
        await this.settle(id, 'timeout', null);
        continue;
      }
      await new Promise<void>(resolve => {
        const t = setTimeout(done, Math.min(POLL_MS, Math.max(1, until - Date.now())));
        function done() {
          clearTimeout(t);
          signal.removeEventListener('abort', done);
          resolve();
        }
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }
}
