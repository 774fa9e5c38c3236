import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { LONG_TEXT } from './base';

/** One sub-agent run in one worker process (RUNTIME §5). */
@Entity('netaclaw_subagent_batch')
export class NetaClawSubagentBatchEntity {
  @PrimaryGeneratedColumn({ comment: 'ID' })
  id: number;

  @Index()
  @Column({ type: 'int', comment: 'Agent ID' })
  agentId: number;

  @Index()
  @Column({ type: 'int', comment: '父批次 ID', nullable: true })
  parentBatchId: number | null;

  @Index()
  @Column({ type: 'varchar', comment: '会话 ID', length: 64, nullable: true })
  sessionId: string | null;

  @Column({ type: 'varchar', comment: 'Crew 角色', length: 20 })
  crewRole: string;

  @Column({ type: 'text', comment: '会话工作目录', nullable: true })
  sessionCwd: string | null;

  @Column({ type: 'json', comment: '额外 workspace roots' })
  workspaceRoots: string[];

  @Column({ type: 'boolean', comment: '是否允许 shell', default: false })
  shellPermitted: boolean;

  @Column({ type: 'boolean', comment: '是否允许写入', default: false })
  writePermitted: boolean;

  @Column({ type: 'json', comment: 'Worker 策略' })
  policy: unknown;

  @Column({ type: 'json', comment: '工具路由' })
  routes: unknown;

  @Column({ type: 'varchar', comment: '驱动 model|calls', length: 20 })
  driver: string;

  @Index()
  @Column({ type: 'varchar', comment: '状态 running|completed|failed|killed', length: 20 })
  status: string;

  @Column({ type: LONG_TEXT, comment: '错误', nullable: true })
  error: string | null;

  @Index()
  @CreateDateColumn({ comment: '创建时间' })
  createTime: Date;

  @Column({ type: 'datetime', comment: '结束时间', nullable: true })
  endTime: Date | null;
}
