import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { InjectEntityModel } from '@midwayjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { NetaClawSubagentBatchEntity } from '../entity/batch';
import { NetaClawToolCallEntity } from '../entity/toolcall';
import { invalidInput, notFound } from '../wire/errors';
import { Mutex, dbWriteLock } from '../lib/mutex';
import type { CallRecord } from '../runtime';
import { cutText, storableJson } from '../runtime/limits';
import type { BatchPolicy, BatchRecord as ApiBatchRecord, BatchStatus, NetRefusal, StoredCall } from '../wire/api-types';
import { BatchPageQueryDTO, IdQueryDTO, pageOf } from '../dto/query';

export type { CallRecord } from '../runtime';
export type { StoredCall } from '../wire/api-types';

/** One event of a batch, as the SSE endpoint sends it. */
export interface BatchEvent {
  /** `net`: one connection of the sandbox network, decided (runtime/net/proxy.ts `NetRecord`). */
  type: 'batch' | 'call' | 'result' | 'proxy' | 'proxy-denied' | 'worker-event' | 'net' | 'done';
  data: unknown;
}

/** A batch as the services hold it (the wire type, with its timestamps as dates). */
export type BatchRecord = ApiBatchRecord<Date>;

/** The columns of a new batch row (stored `running`). */
export type NewBatch = Pick<
  NetaClawSubagentBatchEntity,
  | 'agentId'
  | 'parentBatchId'
  | 'sessionId'
  | 'crewRole'
  | 'sessionCwd'
  | 'workspaceRoots'
  | 'shellPermitted'
  | 'writePermitted'
  | 'policy'
  | 'routes'
  | 'driver'
>;

function callView(c: NetaClawToolCallEntity): StoredCall {
  return {
    seq: c.seq,
    name: c.name,
    arguments: c.arguments,
    decision: c.decision,
    reason: c.reason,
    ok: !!c.ok,
    ...(c.output !== null ? { output: c.output } : {}),
    ...(c.error !== null ? { error: c.error } : {}),
    durationMs: c.durationMs,
    rule: (c.rule ?? null) as StoredCall['rule'],
    ...(Array.isArray(c.network) && c.network.length > 0 ? { network: c.network as NetRefusal[] } : {}),
  };
}

export function batchView(b: NetaClawSubagentBatchEntity, calls: NetaClawToolCallEntity[]): BatchRecord {
  return {
    id: b.id,
    agentId: b.agentId,
    parentBatchId: b.parentBatchId,
    sessionId: b.sessionId,
    crewRole: b.crewRole,
    sessionCwd: b.sessionCwd,
    workspaceRoots: b.workspaceRoots ?? [],
    shellPermitted: !!b.shellPermitted,
    writePermitted: !!b.writePermitted,
    // stored by the batch runner from the types below
    policy: b.policy as BatchPolicy,
    routes: b.routes as BatchRecord['routes'],
    driver: b.driver as BatchRecord['driver'],
    status: b.status as BatchStatus,
    error: b.error,
    createTime: b.createTime,
    endTime: b.endTime,
    calls: calls.map(callView),
  };
}

/** A session id as the tables keep it: a string of 1 to 64 characters, or null. */
export function sessionKey(v: string | number | null | undefined): string | null {
  if (v === undefined || v === null) return null;
  const s = String(v);
  if (s === '' || s.length > 64) throw invalidInput('sessionId must be a string or number of 1 to 64 characters');
  return s;
}

/** A call as a batch's events and the stored calls show it. */
export function eventCall(r: CallRecord): StoredCall {
  return {
    seq: r.seq,
    name: r.name,
    arguments: storableJson(r.arguments),
    decision: r.decision,
    reason: r.reason,
    ok: r.ok,
    ...(r.output !== undefined ? { output: r.output } : {}),
    ...(r.error !== undefined ? { error: r.error } : {}),
    durationMs: r.durationMs,
  };
}

/**
 * The storage of sub-agent batches and of tool calls (RUNTIME §5): batch rows, the calls of batches and
 * of sessions' main agents, the admin API's reads. What runs them is `agent/batches.ts`.
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class SubagentService {
  @InjectEntityModel(NetaClawSubagentBatchEntity)
  batches: Repository<NetaClawSubagentBatchEntity>;

  @InjectEntityModel(NetaClawToolCallEntity)
  calls: Repository<NetaClawToolCallEntity>;

  private readonly sessionSeq = new Mutex();

  /** Stores a new batch, `running`. */
  async createBatch(b: NewBatch): Promise<NetaClawSubagentBatchEntity> {
    return dbWriteLock.run(() => this.batches.save(this.batches.create({ ...b, status: 'running', error: null, endTime: null })));
  }

  async storeCall(batchId: number | null, sessionId: string | null, r: CallRecord): Promise<void> {
    await dbWriteLock.run(() =>
      this.calls.insert({
        batchId,
        sessionId,
        seq: r.seq,
        name: [...r.name].slice(0, 200).join(''),
        arguments: storableJson(r.arguments) as object,
        decision: r.decision,
        reason: r.reason,
        ok: r.ok,
        output: r.output === undefined ? null : cutText(r.output),
        error: r.error === undefined ? null : cutText(r.error),
        durationMs: Math.round(r.durationMs),
        rule: (r.rule ?? null) as never,
        network: (r.network?.length ? r.network : null) as never,
      })
    );
  }

  /** A running batch ends (`completed`, `failed` or `killed`); a batch already ended stays as it is. */
  async endBatch(id: number, status: string, error: string | null): Promise<void> {
    await dbWriteLock.run(() =>
      this.batches
        .createQueryBuilder()
        .update(NetaClawSubagentBatchEntity)
        .set({ status, error: error === null ? null : cutText(error), endTime: new Date() })
        .where('id = :id AND status = :running', { id, running: 'running' })
        .execute()
    );
  }

  async record(id: number): Promise<BatchRecord> {
    const b = await this.batches.findOneBy({ id });
    if (!b) throw notFound(`no batch with id ${id}`);
    const calls = await this.calls.find({ where: { batchId: id }, order: { seq: 'ASC', id: 'ASC' } });
    return batchView(b, calls);
  }

  async page(query: BatchPageQueryDTO) {
    const { page, size } = pageOf(query);
    const qb = this.batches.createQueryBuilder('b');
    if (query.agentId) qb.andWhere('b.agentId = :agentId', { agentId: Number(query.agentId) });
    // the batches a chat session started (the chat page lists them with the session)
    if (query.sessionId) qb.andWhere('b.sessionId = :sessionId', { sessionId: String(query.sessionId) });
    qb.orderBy('b.id', 'DESC')
      .skip((page - 1) * size)
      .take(size);
    const [rows, total] = await qb.getManyAndCount();
    return {
      list: rows.map(r => {
        const { calls: _c, ...rest } = batchView(r, []);
        void _c;
        return rest;
      }),
      total,
    };
  }

  async info(query: IdQueryDTO): Promise<BatchRecord> {
    return this.record(Number(query.id));
  }

  /** The events of a batch that is no longer running, from the database: batch, its calls, done. */
  async replay(id: number, listener: (e: BatchEvent) => void): Promise<void> {
    const r = await this.record(id);
    const { calls, ...batch } = r;
    listener({ type: 'batch', data: { ...batch, calls: [] } });
    for (const c of calls) listener({ type: 'result', data: c });
    listener({ type: 'done', data: { id, status: r.status, error: r.error } });
  }

  /**
   * Stores a call of a session's main agent (no batch) with the session's next `seq`: the calls its
   * session worker ran, and those the call port decided itself (a tool not offered, a denial, a delegation).
   */
  async recordSessionCall(session: string | number, call: Omit<CallRecord, 'seq'>): Promise<CallRecord> {
    const sessionId = sessionKey(session);
    return this.sessionSeq.run(async () => {
      const max = await this.calls
        .createQueryBuilder('c')
        .select('MAX(c.seq)', 'max')
        .where('c.sessionId = :sessionId AND c.batchId IS NULL', { sessionId })
        .getRawOne<{ max: number | null }>();
      const record = { seq: Number(max?.max ?? 0) + 1, ...call } as CallRecord;
      await this.storeCall(null, sessionId, record);
      return record;
    });
  }

  /** The calls of a session's main agent, in order. */
  async sessionCalls(session: string | number): Promise<StoredCall[]> {
    const rows = await this.calls.find({
      where: { sessionId: sessionKey(session)!, batchId: IsNull() },
      order: { seq: 'ASC', id: 'ASC' },
    });
    return rows.map(callView);
  }

  /** At start: batches left `running` by a backend that stopped are `failed`. */
  async failStale(): Promise<number> {
    const r = await dbWriteLock.run(() =>
      this.batches
        .createQueryBuilder()
        .update(NetaClawSubagentBatchEntity)
        .set({ status: 'failed', error: 'the backend stopped while the batch was running', endTime: new Date() })
        .where('status = :running', { running: 'running' })
        .execute()
    );
    return r.affected ?? 0;
  }
}
