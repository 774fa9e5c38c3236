import { Inject, Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { InjectDataSource } from '@midwayjs/typeorm';
import * as crypto from 'crypto';
import { Brackets, DataSource, EntityManager, In } from 'typeorm';
import { NetaClawAgentEntity } from '../entity/agent';
import { NetaClawApprovalEntity } from '../entity/approval';
import { NetaClawSubagentBatchEntity } from '../entity/batch';
import { NetaClawEscalationEntity } from '../entity/escalation';
import { NetaClawMemoryEntity } from '../entity/memory';
import { NetaClawMessageEntity } from '../entity/message';
import { NetaClawNetDecisionEntity } from '../entity/netdecision';
import { NetaClawSessionEntity } from '../entity/session';
import { NetaClawTodoListEntity } from '../entity/todo';
import { NetaClawToolCallEntity } from '../entity/toolcall';
import { NetaClawTurnProgressEntity } from '../entity/turnprogress';
import { AppError, notFound } from '../wire/errors';
import { dbWriteLock } from '../lib/mutex';
import type { Clock } from '../lib/clock';

/** 409 `session_running`: a turn of the session is being answered; nothing was deleted. */
export function sessionRunning(id: number): AppError {
  return new AppError(409, 'session_running', `session ${id} is answering a message; stop the turn (or wait for it to end) and delete it then`);
}

/** 409 `agent_running`: a session or a sub-agent batch of the agent is running; nothing was deleted. */
export function agentRunning(id: number, what: string): AppError {
  return new AppError(409, 'agent_running', `agent ${id} is running (${what}); stop it (or wait for it to end) and delete it then`);
}

/** 409 `agent_in_crew`: other agents list the agent in their crew; nothing was deleted. */
export function agentInCrew(id: number, owners: NetaClawAgentEntity[]): AppError {
  return new AppError(
    409,
    'agent_in_crew',
    `agent ${id} is a member of the crew of ${owners.map(a => `${a.id} ${JSON.stringify(a.name)}`).join(', ')}: remove it from those crews first`,
    undefined,
    { agents: owners.map(a => ({ id: a.id, name: a.name })) }
  );
}

/**
 * Deleting sessions and agents with everything that is theirs (docs/backend-api.md "Deleting"). A delete
 * never stops anything that runs: a session with a running turn, or an agent with a running session or
 * batch, is refused (409) and nothing is deleted. The check and the delete are one transaction under the
 * write lock, and the delete first takes the turn claim of each session it removes — the same conditional
 * UPDATE a turn takes (SessionService.claimTurn) — so a turn another instance starts meanwhile either holds
 * its claim (the delete is refused) or cannot start (its session is gone).
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class RemovalService {
  @InjectDataSource()
  dataSource: DataSource;

  /** The backend's clock (configuration.ts), the one turn leases are read on. */
  @Inject('clock')
  clock: Clock;

  /** Deletes a chat session: its messages, tool calls, batches (and theirs), todo lists, escalations, approvals, turn progress, decided connections. */
  async deleteSession(id: number): Promise<{ id: number }> {
    return dbWriteLock.run(() =>
      this.dataSource.transaction(async em => {
        const row = await em.findOneBy(NetaClawSessionEntity, { id });
        if (!row) throw notFound(`no session with id ${id}`);
        if (!(await this.claimIdle(em, [id]))) throw sessionRunning(id);
        const running = await em.count(NetaClawSubagentBatchEntity, { where: { sessionId: String(id), status: 'running' } });
        if (running > 0) throw sessionRunning(id);
        await this.removeSessions(em, [id]);
        return { id };
      })
    );
  }

  /**
   * Deletes an agent: its sessions (as `deleteSession` does), the batches it ran outside any session, its
   * memory and its escalations; its rules live on its row. Refused while one of its sessions answers a
   * message or a batch of it runs (409 `agent_running`), and while other agents list it in their crew (409
   * `agent_in_crew`: removing it there is their edit). Batches it ran as a crew member in the sessions of
   * other agents stay with those sessions: they are that session's record, deleted with it.
   */
  async deleteAgent(id: number): Promise<{ id: number; sessions: number }> {
    return dbWriteLock.run(() =>
      this.dataSource.transaction(async em => {
        const row = await em.findOneBy(NetaClawAgentEntity, { id });
        if (!row) throw notFound(`no agent with id ${id}`);
        const others = await em.find(NetaClawAgentEntity, { order: { id: 'ASC' } });
        const owners = others.filter(a => a.id !== id && (a.crewMembers ?? []).includes(id));
        if (owners.length > 0) throw agentInCrew(id, owners);
        const sessions = (await em.find(NetaClawSessionEntity, { where: { agentId: id }, select: { id: true } })).map(s => s.id);
        if (!(await this.claimIdle(em, sessions))) throw agentRunning(id, 'one of its sessions is answering a message');
        const keys = sessions.map(String);
        const running = await em
          .createQueryBuilder(NetaClawSubagentBatchEntity, 'b')
          .where("b.status = 'running'")
          .andWhere(
            new Brackets(w => {
              w.where('b.agentId = :id', { id });
              if (keys.length > 0) w.orWhere('b.sessionId IN (:...keys)', { keys });
            })
          )
          .getCount();
        if (running > 0) throw agentRunning(id, 'a sub-agent batch of it is running');
        await this.removeSessions(em, sessions);
        // what is left of its batches: those it ran outside any chat session (POST /subagent/run) are its
        // own; one in the chat session of another agent is that session's record and stays with it
        const left = await em.find(NetaClawSubagentBatchEntity, { where: { agentId: id }, select: { id: true, sessionId: true } });
        const named = [...new Set(left.map(b => b.sessionId).filter((k): k is string => k !== null && /^[1-9][0-9]{0,15}$/.test(k)))];
        const chats = named.length ? await em.find(NetaClawSessionEntity, { where: { id: In(named.map(Number)) }, select: { id: true } }) : [];
        const chatKeys = new Set(chats.map(s => String(s.id)));
        await this.removeBatches(
          em,
          left.filter(b => b.sessionId === null || !chatKeys.has(b.sessionId)).map(b => b.id)
        );
        await em.delete(NetaClawMemoryEntity, { agentId: id });
        await em.delete(NetaClawAgentEntity, { id });
        return { id, sessions: sessions.length };
      })
    );
  }

  /**
   * Takes the turn claim of every session given, as a turn does; false (and nothing taken that the
   * transaction keeps) when one of them is held by a running turn.
   */
  private async claimIdle(em: EntityManager, ids: number[]): Promise<boolean> {
    if (ids.length === 0) return true;
    const now = this.clock.now();
    const r = await em
      .createQueryBuilder()
      .update(NetaClawSessionEntity)
      .set({ turnToken: `delete:${crypto.randomBytes(8).toString('hex')}`, turnUntil: now + 60_000 })
      .where('id IN (:...ids)', { ids })
      .andWhere('(turnToken IS NULL OR turnUntil < :now)', { now })
      .execute();
    return (r.affected ?? 0) === ids.length;
  }

  private async removeSessions(em: EntityManager, ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    const keys = ids.map(String);
    const batches = (await em.find(NetaClawSubagentBatchEntity, { where: { sessionId: In(keys) }, select: { id: true } })).map(b => b.id);
    await this.removeBatches(em, batches);
    await em.delete(NetaClawToolCallEntity, { sessionId: In(keys) });
    await em.delete(NetaClawTodoListEntity, { sessionId: In(keys) });
    await em.delete(NetaClawEscalationEntity, { sessionId: In(keys) });
    await em.delete(NetaClawApprovalEntity, { sessionId: In(ids) });
    await em.delete(NetaClawTurnProgressEntity, { sessionId: In(ids) });
    await em.delete(NetaClawNetDecisionEntity, { sessionId: In(ids) });
    await em.delete(NetaClawMessageEntity, { sessionId: In(ids) });
    await em.delete(NetaClawSessionEntity, { id: In(ids) });
  }

  /** Batches with their tool calls, todo lists, escalations, approvals and decided connections. */
  private async removeBatches(em: EntityManager, ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await em.delete(NetaClawToolCallEntity, { batchId: In(ids) });
    await em.delete(NetaClawTodoListEntity, { batchId: In(ids) });
    await em.delete(NetaClawEscalationEntity, { batchId: In(ids) });
    await em.delete(NetaClawApprovalEntity, { batchId: In(ids) });
    await em.delete(NetaClawNetDecisionEntity, { batchId: In(ids) });
    await em.delete(NetaClawSubagentBatchEntity, { id: In(ids) });
  }
}
