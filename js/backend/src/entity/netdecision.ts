import { Column, Entity, Index } from 'typeorm';
import { BaseEntity } from './base';

/**
 * One decided connection of a sandbox network (docs/runtime.md "Network"): its host and port, the rule
 * that decided it with its level, what happened (connected, refused, failed) and, for an `ask`, the
 * user's answer. It belongs to a chat session (the main agent's calls, and those of the sub-agents the
 * session started) and, for a sub-agent or a console batch, to its batch.
 */
@Entity('netaclaw_net_decision')
export class NetaClawNetDecisionEntity extends BaseEntity {
  @Index()
  @Column({ type: 'int', nullable: true, comment: '会话 ID' })
  sessionId: number | null;

  @Index()
  @Column({ type: 'int', nullable: true, comment: '子 Agent 批次 ID（主 Agent 为空）' })
  batchId: number | null;

  @Column({ type: 'varchar', length: 200, nullable: true, comment: '连接发生时进行中的工具调用' })
  toolName: string | null;

  @Column({ type: 'varchar', length: 255, comment: '主机' })
  host: string;

  @Column({ type: 'int', comment: '端口' })
  port: number;

  @Column({ type: 'varchar', length: 20, comment: 'CONNECT 或 HTTP 方法' })
  method: string;

  @Column({ type: 'varchar', length: 10, comment: '规则的决定 allow|ask|deny' })
  decision: string;

  @Column({ type: 'varchar', length: 20, comment: '结果 connected|refused|failed' })
  outcome: string;

  @Column({ type: 'varchar', length: 20, nullable: true, comment: '询问的回答 once|session|deny|timeout|none' })
  answer: string | null;

  @Column({ type: 'int', nullable: true, comment: '审批 ID' })
  approvalId: number | null;

  @Column({ type: 'varchar', length: 300, nullable: true, comment: '决定的规则 net(…)' })
  rule: string | null;

  @Column({ type: 'varchar', length: 20, nullable: true, comment: '规则的层级 global|agent|session' })
  level: string | null;

  @Column({ type: 'text', comment: '说明' })
  detail: string;
}
