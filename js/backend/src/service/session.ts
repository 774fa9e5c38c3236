import { Inject, Provide, Scope, ScopeEnum } from '@midwayjs/core';
import * as crypto from 'crypto';
import { InjectEntityModel } from '@midwayjs/typeorm';
import { LessThan, MoreThanOrEqual, In, Repository } from 'typeorm';
import { NetaClawMessageEntity, StoredToolCall } from '../entity/message';
import { NetaClawSessionEntity } from '../entity/session';
import { isUniqueViolation } from '../db/health';
import { AppError, notFound } from '../wire/errors';
import { dbWriteLock } from '../lib/mutex';
import { SESSION_LEASE_SECONDS } from '../config/settings';
import { IdQueryDTO, pageOf, SessionPageQueryDTO } from '../dto/query';
import { errorMessage } from '../lib/errortext';
import { log } from '../config/log';
import type { Clock, ClockTimer } from '../lib/clock';

/**
 * `question`: a question the agent asked the user (`clarify`), kept for the page and for finding the turn
 * that waits on it (`toolCallId`: the call it answers); the model reads the answer as that call's result.
 * `resolution`: an operator's answer to one of the session's escalations (`toolCallId`: `escalation:<id>`),
 * which the model reads as a user message.
 */
export type MessageRole = 'user' | 'assistant' | 'tool' | 'error' | 'question' | 'resolution';

export interface NewMessage {
  role: MessageRole;
  content: string | null;
  toolCalls?: StoredToolCall[] | null;
  toolCallId?: string | null;
  name?: string | null;
}

/** The characters a message weighs in the history budget. */
export function messageChars(m: { content: string | null; toolCalls: StoredToolCall[] | null }): number {
  let n = m.content?.length ?? 0;
  for (const tc of m.toolCalls ?? []) n += tc.name.length + tc.arguments.length + tc.id.length;
  return n;
}

const MODEL_ROLES = ['user', 'assistant', 'tool', 'resolution'];

/** 409: another message of the session is being answered (by this instance or another one). */
export function sessionBusy(sessionId: number): AppError {
  return new AppError(409, 'session_busy', `session ${sessionId} is answering another message; wait for it or cancel it`);
}

/** A claim on a session's turn: held (and renewed) until `release`. */
export interface TurnClaim {
  release(): Promise<void>;
}
const PAGE = 200;

/** Sessions and their messages (`netaclaw_session`, `netaclaw_message`). */
@Provide()
@Scope(ScopeEnum.Singleton)
export class SessionService {
  /** The backend's clock (configuration.ts): when a turn's lease runs out, when it is renewed. */
  @Inject('clock')
  clock: Clock;

  @InjectEntityModel(NetaClawSessionEntity)
  repo: Repository<NetaClawSessionEntity>;

  @InjectEntityModel(NetaClawMessageEntity)
  messages: Repository<NetaClawMessageEntity>;

  async create(values: Partial<NetaClawSessionEntity>): Promise<NetaClawSessionEntity> {
    return dbWriteLock.run(() => this.repo.save(this.repo.create(values)));
  }

  async find(id: number): Promise<NetaClawSessionEntity | null> {
    return this.repo.findOneBy({ id });
  }

  async touch(id: number): Promise<void> {
    await dbWriteLock.run(() => this.repo.update({ id }, { updateTime: new Date() }));
  }

  /** The next free `seq` of a session. */
  async nextSeq(sessionId: number): Promise<number> {
    const row = await this.messages
      .createQueryBuilder('m')
      .select('MAX(m.seq)', 'max')
      .where('m.sessionId = :sessionId', { sessionId })
      .getRawOne<{ max: number | string | null }>();
    return Number(row?.max ?? 0) + 1;
  }

  /** Whether a turn of the session is claimed now (by any instance on this database). */
  async turnElsewhere(sessionId: number): Promise<boolean> {
    // the claim's columns are left out of every other read of the row (select: false)
    const row = await this.repo.createQueryBuilder('s').addSelect(['s.turnToken', 's.turnUntil']).where('s.id = :id', { id: sessionId }).getOne();
    return !!row && row.turnToken != null && Number(row.turnUntil ?? 0) > this.clock.now();
  }

  /**
   * Claims the session's turn for this instance: one message at a time per session, on every instance
   * sharing the database. A conditional UPDATE takes the claim when nobody holds it or the holder's lease
   * ran out (an instance that died); null when another turn holds it. While held, the claim is renewed
   * every quarter of NETACLAW_SESSION_LEASE_SECONDS; `onLost` is called if a renewal finds it taken
   * (the lease ran out while the database could not be reached, and another instance claimed it).
   */
  async claimTurn(sessionId: number, onLost: () => void): Promise<TurnClaim | null> {
    const token = crypto.randomBytes(16).toString('hex');
    const leaseMs = SESSION_LEASE_SECONDS * 1000;
    const now = this.clock.now();
    const taken = await dbWriteLock.run(() =>
      this.repo
        .createQueryBuilder()
        .update(NetaClawSessionEntity)
        .set({ turnToken: token, turnUntil: now + leaseMs })
        .where('id = :id', { id: sessionId })
        .andWhere('(turnToken IS NULL OR turnUntil < :now)', { now })
        .execute()
    );
    if ((taken.affected ?? 0) === 0) return null;
    let released = false;
    const renew = async () => {
      const r = await dbWriteLock.run(() =>
        this.repo
          .createQueryBuilder()
          .update(NetaClawSessionEntity)
          .set({ turnUntil: this.clock.now() + leaseMs })
          .where('id = :id AND turnToken = :token', { id: sessionId, token })
          .execute()
      );
      if (!released && (r.affected ?? 0) === 0) {
        log().error(`[netaclaw] session ${sessionId}: the claim on its turn was lost (its lease ran out); stopping the turn`);
        onLost();
      }
    };
    // renewed every quarter of the lease, on the clock, until released
    const every = Math.max(500, Math.floor(leaseMs / 4));
    let timer: ClockTimer;
    const next = (): void => {
      timer = this.clock.setTimer(() => {
        if (released) return;
        void renew().catch(() => undefined);
        next();
      }, every);
    };
    next();
    return {
      release: async () => {
        released = true;
        timer.clear();
        await dbWriteLock
          .run(() =>
            this.repo
              .createQueryBuilder()
              .update(NetaClawSessionEntity)
              .set({ turnToken: null, turnUntil: null })
              .where('id = :id AND turnToken = :token', { id: sessionId, token })
              .execute()
          )
          .catch(err => log().error(`[netaclaw] session ${sessionId}: cannot release its turn (it expires by itself): ${errorMessage(err)}`));
      },
    };
  }

  /**
   * Stores a message at `seq`. The unique (sessionId, seq) index is the last guard of the order: a seq
   * taken by another writer is 409 session_busy, never a second message at the same place.
   */
  async append(sessionId: number, seq: number, m: NewMessage): Promise<NetaClawMessageEntity> {
    return dbWriteLock.run(async () => {
      try {
        return await this.insertMessage(sessionId, seq, m);
      } catch (err) {
        if (isUniqueViolation(err)) throw sessionBusy(sessionId);
        throw err;
      }
    });
  }

  private insertMessage(sessionId: number, seq: number, m: NewMessage): Promise<NetaClawMessageEntity> {
    return this.messages.save(
      this.messages.create({
        sessionId,
        seq,
        role: m.role,
        content: m.content,
        toolCalls: m.toolCalls ?? null,
        toolCallId: m.toolCallId ?? null,
        name: m.name ?? null,
      })
    );
  }

  /** Every model-visible message of a session from `fromSeq` on (the current turn), in order. */
  async turnMessages(sessionId: number, fromSeq: number): Promise<NetaClawMessageEntity[]> {
    return this.messages.find({
      where: { sessionId, seq: MoreThanOrEqual(fromSeq), role: In(MODEL_ROLES) },
      order: { seq: 'ASC' },
    });
  }

  /** The keys (`escalation:<id>`) of the escalation answers the session's model has been given. */
  async deliveredEscalations(sessionId: number): Promise<Set<string>> {
    const rows = await this.messages.find({ where: { sessionId, role: 'resolution' }, select: { toolCallId: true } });
    return new Set(rows.map(r => r.toolCallId ?? ''));
  }

  /**
   * The question the session waits on: its newest `question` message whose call has no result yet, with the
   * seq of the assistant message that asked it (where the resumed turn starts); null when none waits.
   */
  async pendingQuestion(sessionId: number): Promise<{ callId: string; question: string; askedAt: number } | null> {
    const q = await this.messages.findOne({ where: { sessionId, role: 'question' }, order: { seq: 'DESC' } });
    if (!q || !q.toolCallId) return null;
    const answered = await this.messages.findOne({ where: { sessionId, role: 'tool', toolCallId: q.toolCallId, seq: MoreThanOrEqual(q.seq) } });
    if (answered) return null;
    const asked = await this.messages.findOne({ where: { sessionId, role: 'assistant', seq: LessThan(q.seq) }, order: { seq: 'DESC' } });
    return { callId: q.toolCallId, question: q.content ?? '', askedAt: asked?.seq ?? q.seq };
  }

  /**
   * The newest model-visible messages before `beforeSeq` that fit in `budget` characters, oldest
   * first, starting at a user message (whole turns only: an assistant's tool calls are never
   * separated from their results). Read page by page from the newest, so a long session is not
   * loaded whole.
   */
  async earlierTurns(sessionId: number, beforeSeq: number, budget: number): Promise<NetaClawMessageEntity[]> {
    const kept: NetaClawMessageEntity[] = [];
    let used = 0;
    let cursor = beforeSeq;
    for (;;) {
      const page = await this.messages.find({
        where: { sessionId, seq: LessThan(cursor), role: In(MODEL_ROLES) },
        order: { seq: 'DESC' },
        take: PAGE,
      });
      let full = false;
      for (const m of page) {
        const w = messageChars(m);
        if (used + w > budget) {
          full = true;
          break;
        }
        used += w;
        kept.push(m);
      }
      if (full || page.length < PAGE) break;
      cursor = page[page.length - 1].seq;
    }
    kept.reverse();
    const start = kept.findIndex(m => m.role === 'user');
    return start < 0 ? [] : kept.slice(start);
  }

  /** `?page&size&agentId`: newest activity first. */
  async page(query: SessionPageQueryDTO) {
    const { page, size } = pageOf(query);
    const where: Record<string, unknown> = {};
    if (query.agentId) where.agentId = Number(query.agentId);
    const [list, total] = await this.repo.findAndCount({
      where,
      order: { updateTime: 'DESC', id: 'DESC' },
      skip: (page - 1) * size,
      take: size,
    });
    return { list, total };
  }

  /** A session with its messages (in order). The calls are added by the caller. */
  async info(query: IdQueryDTO) {
    const id = Number(query.id);
    const session = await this.repo.findOneBy({ id });
    if (!session) throw notFound(`no session with id ${id}`);
    const messages = await this.messages.find({ where: { sessionId: id }, order: { seq: 'ASC' } });
    return { session, messages };
  }
}
