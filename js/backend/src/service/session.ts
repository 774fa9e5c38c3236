import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { InjectEntityModel } from '@midwayjs/typeorm';
import { LessThan, MoreThanOrEqual, In, Repository } from 'typeorm';
import { NetaClawMessageEntity, StoredToolCall } from '../entity/message';
import { NetaClawSessionEntity } from '../entity/session';
import { invalidInput, notFound } from '../errors';
import { dbWriteLock } from '../mutex';
import { has, Obj, parseId, queryInt } from '../validate';

export type MessageRole = 'user' | 'assistant' | 'tool' | 'error';

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

const MODEL_ROLES = ['user', 'assistant', 'tool'];
const PAGE = 200;

/** Sessions and their messages (`netaclaw_session`, `netaclaw_message`). */
@Provide()
@Scope(ScopeEnum.Singleton)
export class SessionService {
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

  async append(sessionId: number, seq: number, m: NewMessage): Promise<NetaClawMessageEntity> {
    return dbWriteLock.run(() =>
      this.messages.save(
        this.messages.create({
          sessionId,
          seq,
          role: m.role,
          content: m.content,
          toolCalls: m.toolCalls ?? null,
          toolCallId: m.toolCallId ?? null,
          name: m.name ?? null,
        })
      )
    );
  }

  /** Every model-visible message of a session from `fromSeq` on (the current turn), in order. */
  async turnMessages(sessionId: number, fromSeq: number): Promise<NetaClawMessageEntity[]> {
    return this.messages.find({
      where: { sessionId, seq: MoreThanOrEqual(fromSeq), role: In(MODEL_ROLES) },
      order: { seq: 'ASC' },
    });
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
  async page(query: Obj) {
    const page = queryInt(query, 'page', 1, 1_000_000, 1);
    const size = queryInt(query, 'size', 1, 1000, 20);
    const where: Record<string, unknown> = {};
    if (has(query, 'agentId') && query.agentId !== '') where.agentId = parseId(query.agentId, 'agentId');
    const [list, total] = await this.repo.findAndCount({
      where,
      order: { updateTime: 'DESC', id: 'DESC' },
      skip: (page - 1) * size,
      take: size,
    });
    return { list, total };
  }

  /** A session with its messages (in order). The calls are added by the caller. */
  async info(query: Obj) {
    if (!has(query, 'id')) throw invalidInput('id is required');
    const id = parseId(query.id, 'id');
    const session = await this.repo.findOneBy({ id });
    if (!session) throw notFound(`no session with id ${id}`);
    const messages = await this.messages.find({ where: { sessionId: id }, order: { seq: 'ASC' } });
    return { session, messages };
  }
}
