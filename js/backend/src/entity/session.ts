import { Column, Entity, Index } from 'typeorm';
import type { LevelRulesInput } from '../wire/api-types';
import { BaseEntity } from './base';

/**
 * A chat session of one agent (seed 001 Tasks 7–8): the session fields its runs are resolved under
 * (cwd, roots, permissions — fixed at creation), the channel and crew role of its first turn.
 */
@Entity('netaclaw_session')
export class NetaClawSessionEntity extends BaseEntity {
  @Index()
  @Column({ type: 'int', comment: 'Agent ID' })
  agentId: number;

  @Column({ type: 'int', comment: '模型渠道 ID', nullable: true })
  channelId: number | null;

  @Column({ type: 'varchar', comment: '会话工作目录', length: 1000, nullable: true })
  sessionCwd: string | null;

  @Column({ type: 'json', comment: '额外 workspace 根目录', nullable: true })
  workspaceRoots: string[] | null;

  @Column({ type: 'boolean', comment: '允许 Shell', default: false })
  shellPermitted: boolean;

  @Column({ type: 'boolean', comment: '允许写入', default: false })
  writePermitted: boolean;

  @Column({ type: 'varchar', comment: 'Crew 角色', length: 20, nullable: true })
  crewRole: string | null;

  @Column({ type: 'varchar', comment: '标题（首条消息）', length: 200 })
  title: string;

  /** The session's own rules (they narrow the agent's and the global ones; a sub-agent's batch adds its own); null = none. */
  @Column({ type: 'json', comment: '会话规则（allow / ask / deny）', nullable: true })
  rules: LevelRulesInput | null;

  /** "Allow for this session" answers to approvals: patterns that answer an `ask`, never a `deny`; null = none. */
  @Column({ type: 'json', comment: '本会话已批准的规则', nullable: true })
  approvals: string[] | null;

  /**
   * The claim of the turn in progress (one message at a time per session, on every instance): a random
   * token of the instance answering, and until when (epoch ms) it holds unless renewed. Not part of the
   * API's session row.
   */
  @Column({ type: 'varchar', comment: '进行中回合的持有者', length: 64, nullable: true, select: false })
  turnToken: string | null;

  @Column({ type: 'bigint', comment: '回合持有截止 (epoch ms)', nullable: true, select: false })
  turnUntil: number | string | null;
}
