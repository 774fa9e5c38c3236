import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { InjectEntityModel } from '@midwayjs/typeorm';
import { FindOptionsWhere, Repository } from 'typeorm';
import type { EscalationRecord, EscalationStatus } from '../wire/api-types';
import { NetaClawEscalationEntity } from '../entity/escalation';
import { AppError, notFound } from '../wire/errors';
import { dbWriteLock } from '../lib/mutex';

/** Who escalated: the chat session and, for a sub-agent, its batch. */
export interface EscalationOwner {
  sessionId?: string | null;
  batchId?: number | null;
}

/** The key of an escalation's answer among a session's messages. */
export function escalationKey(id: number): string {
  return `escalation:${id}`;
}

/** 409: the escalation has its resolution already; nothing was written. */
export function escalationResolved(id: number): AppError {
  return new AppError(409, 'escalation_resolved', `escalation ${id} is already resolved`);
}

function view(r: NetaClawEscalationEntity): EscalationRecord<Date> {
  return {
    id: r.id,
    sessionId: r.sessionId,
    batchId: r.batchId,
    agentId: r.agentId,
    reason: r.reason,
    status: r.status,
    resolution: r.resolution,
    createTime: r.createTime,
    resolveTime: r.resolveTime,
  };
}

/**
 * The escalations of the `escalate` tool (`netaclaw_escalation`), storage only: recorded open with the
 * agent's reason, listed, resolved once by an operator with a resolution text.
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class EscalationService {
  @InjectEntityModel(NetaClawEscalationEntity)
  repo: Repository<NetaClawEscalationEntity>;

  async record(owner: EscalationOwner, agentId: number, reason: string): Promise<EscalationRecord<Date>> {
    const row = this.repo.create({
      sessionId: owner.sessionId ?? null,
      batchId: owner.batchId ?? null,
      agentId,
      reason,
      status: 'open',
      resolution: null,
      resolveTime: null,
    });
    return view(await dbWriteLock.run(() => this.repo.save(row)));
  }

  /** A page of escalations, newest first; of one session and/or one status when given. */
  async page(query: { sessionId?: string | null; status?: EscalationStatus | null; page: number; size: number }) {
    const where: FindOptionsWhere<NetaClawEscalationEntity> = {};
    if (query.sessionId !== undefined && query.sessionId !== null) where.sessionId = query.sessionId;
    if (query.status !== undefined && query.status !== null) where.status = query.status;
    const [list, total] = await this.repo.findAndCount({
      where,
      order: { id: 'DESC' },
      skip: (query.page - 1) * query.size,
      take: query.size,
    });
    return { list: list.map(view), pagination: { page: query.page, size: query.size, total } };
  }

  /**
   * Resolves an open escalation with `resolution`: 404 for an unknown id, 409 `escalation_resolved` when
   * it is resolved already (the first resolution stays; two operators at once: one of them wins).
   */
  async resolve(id: number, resolution: string): Promise<EscalationRecord<Date>> {
    return dbWriteLock.run(async () => {
      const now = new Date();
      const r = await this.repo
        .createQueryBuilder()
        .update(NetaClawEscalationEntity)
        .set({ status: 'resolved', resolution, resolveTime: now })
        .where('id = :id AND status = :open', { id, open: 'open' })
        .execute();
      const row = await this.repo.findOneBy({ id });
      if (!row) throw notFound(`escalation ${id} does not exist`);
      if (!r.affected) throw escalationResolved(id);
      return view(row);
    });
  }

  /**
   * The operators' answers to a session's escalations (its main agent's and its batches') that are not
   * among `delivered` (keys `escalation:<id>`), in the order they were resolved: the key, and the text its
   * model reads.
   */
  async undelivered(sessionId: string | number, delivered: ReadonlySet<string>): Promise<{ key: string; content: string }[]> {
    const rows = await this.repo.find({ where: { sessionId: String(sessionId), status: 'resolved' }, order: { resolveTime: 'ASC', id: 'ASC' } });
    return rows
      .filter(r => !delivered.has(escalationKey(r.id)))
      .map(r => {
        const reason = [...r.reason].length > 500 ? [...r.reason].slice(0, 500).join('') + '…' : r.reason;
        const whose = r.batchId === null ? `your escalation #${r.id}` : `escalation #${r.id} of sub-agent batch ${r.batchId}`;
        return { key: escalationKey(r.id), content: `An operator answered ${whose} (${JSON.stringify(reason)}): ${r.resolution ?? ''}` };
      });
  }

  /** Every escalation of a chat session (its main agent's and its batches'), oldest first. */
  async forSession(sessionId: string | number): Promise<EscalationRecord<Date>[]> {
    const rows = await this.repo.find({ where: { sessionId: String(sessionId) }, order: { id: 'ASC' } });
    return rows.map(view);
  }
}
