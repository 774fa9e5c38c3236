import { Column, Entity, Index } from 'typeorm';
import type { EscalationStatus } from '../wire/api-types';
import { SessionOwnedEntity } from './base';

/**
 * A task an agent handed to a human with the `escalate` tool: recorded with its reason, shown to an
 * operator on the chat page, resolved there with a resolution text. It belongs to a chat session (the
 * main agent's, or the session of the batch whose sub-agent escalated) and, for a sub-agent, to its batch.
 */
@Entity('netaclaw_escalation')
export class NetaClawEscalationEntity extends SessionOwnedEntity {
  @Index()
  @Column({ type: 'int', comment: 'Agent ID' })
  agentId: number;

  @Column({ type: 'text', comment: '升级原因' })
  reason: string;

  @Index()
  @Column({ type: 'varchar', length: 20, default: 'open', comment: '状态 open|resolved' })
  status: EscalationStatus;

  @Column({ type: 'text', nullable: true, comment: '处理结果' })
  resolution: string | null;

  @Column({ type: 'datetime', nullable: true, comment: '处理时间' })
  resolveTime: Date | null;
}
