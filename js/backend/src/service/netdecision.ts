import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { InjectEntityModel } from '@midwayjs/typeorm';
import { Repository } from 'typeorm';
import type { NetDecisionView } from '../wire/api-types';
import { NetaClawNetDecisionEntity } from '../entity/netdecision';
import type { NetRecord } from '../runtime';
import { dbWriteLock } from '../lib/mutex';

/** Whose sandbox made a connection: a chat session (its main agent, or a sub-agent it started) and/or a batch. */
export interface NetOwner {
  sessionId: number | null;
  batchId: number | null;
}

/** How many of a session's decisions a listing returns (the newest). */
const LIST_MAX = 500;

function cut(s: string, n: number): string {
  return [...s].slice(0, n).join('');
}

export function netDecisionView(d: NetaClawNetDecisionEntity): NetDecisionView {
  return {
    id: d.id,
    sessionId: d.sessionId ?? null,
    batchId: d.batchId ?? null,
    toolName: d.toolName ?? null,
    host: d.host,
    port: d.port,
    method: d.method,
    decision: d.decision as NetDecisionView['decision'],
    outcome: d.outcome as NetDecisionView['outcome'],
    answer: (d.answer as NetDecisionView['answer']) ?? null,
    approvalId: d.approvalId ?? null,
    rule: d.rule ?? null,
    level: d.level ?? null,
    detail: d.detail,
    createTime: new Date(d.createTime).toISOString(),
  };
}

/**
 * The decisions of the sandbox network (`netaclaw_net_decision`, docs/runtime.md "Network"): every
 * connection a session's or a batch's sandboxes asked for — allowed, asked and answered, refused — with
 * the rule and level that decided it; listed per session for the chat page.
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class NetDecisionService {
  @InjectEntityModel(NetaClawNetDecisionEntity)
  repo: Repository<NetaClawNetDecisionEntity>;

  async record(owner: NetOwner, r: NetRecord): Promise<void> {
    await dbWriteLock.run(() =>
      this.repo.insert({
        sessionId: owner.sessionId,
        batchId: owner.batchId,
        toolName: r.call ? cut(r.call.name, 200) : null,
        host: cut(r.host, 255),
        port: r.port,
        method: cut(r.method, 20),
        decision: r.decision.verdict,
        outcome: r.outcome,
        answer: r.answer ?? null,
        approvalId: r.approvalId ?? null,
        rule: r.decision.rule ? cut(r.decision.rule, 300) : null,
        level: r.decision.level ?? null,
        detail: cut(r.detail, 4000),
      })
    );
  }

  /** A session's decisions (its main agent's and its sub-agents'), oldest first: the newest LIST_MAX. */
  async forSession(sessionId: number): Promise<NetDecisionView[]> {
    const rows = await this.repo.find({ where: { sessionId }, order: { id: 'DESC' }, take: LIST_MAX });
    return rows.reverse().map(netDecisionView);
  }
}
