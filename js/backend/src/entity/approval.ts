import { Column, Entity, Index } from 'typeorm';
import type { ApprovalAnswerKind, ApprovalStatus } from '../wire/api-types';
import { BaseEntity, LONG_TEXT } from './base';

/**
 * A call a rule asks about (docs/runtime.md "Approvals"), put to the session's user: pending until it is
 * answered (allow once, allow for this session, deny) on any instance, or — a sub-agent's — until its
 * wait runs out. The main agent's turn waits stopped (`askedAt`: where its history starts again); a
 * sub-agent's call waits in its running batch (`batchId`), a sandbox's connection in its proxy, each
 * until `waitUntil`.
 */
@Entity('netaclaw_approval')
export class NetaClawApprovalEntity extends BaseEntity {
  @Index()
  @Column({ type: 'int', comment: '会话 ID' })
  sessionId: number;

  @Index()
  @Column({ type: 'int', nullable: true, comment: '子 Agent 批次 ID（主 Agent 为空）' })
  batchId: number | null;

  @Column({ type: 'varchar', length: 200, comment: '模型的调用 ID' })
  callId: string;

  @Column({ type: 'varchar', length: 200, comment: '工具名' })
  toolName: string;

  @Column({ type: LONG_TEXT, comment: '参数（包读到的 JSON 文本）' })
  arguments: string;

  @Column({ type: 'text', comment: '询问的对象（命令、路径或工具）' })
  subject: string;

  @Column({ type: 'json', comment: '询问的规则 (JSON)' })
  rule: unknown;

  @Column({ type: 'text', nullable: true, comment: '包给出的说明' })
  detail: string | null;

  @Column({ type: 'int', nullable: true, comment: '暂停的回合从此消息序号继续（主 Agent）' })
  askedAt: number | null;

  /**
   * Until when (ms since the epoch) a running process waits for the answer (a sub-agent's call, a
   * sandbox's connection); null: the main agent's stopped turn, which waits across restarts.
   */
  @Column({ type: 'bigint', nullable: true, comment: '等待者的期限（ms；子 Agent 的调用与网络连接）' })
  waitUntil: number | string | null;

  @Index()
  @Column({ type: 'varchar', length: 20, default: 'pending', comment: '状态 pending|allowed|denied|expired' })
  status: ApprovalStatus;

  @Column({ type: 'varchar', length: 20, nullable: true, comment: '回答 once|session|deny|timeout' })
  answer: ApprovalAnswerKind | null;

  @Column({ type: 'varchar', length: 100, nullable: true, comment: '回答者（login:… 或 token）' })
  answeredBy: string | null;

  @Column({ type: 'datetime', nullable: true, comment: '回答时间' })
  answerTime: Date | null;
}
