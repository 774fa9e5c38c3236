import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { LONG_TEXT } from './base';

/** One tool call, in a batch or in a main-process session (RUNTIME §5). */
@Entity('netaclaw_tool_call')
export class NetaClawToolCallEntity {
  @PrimaryGeneratedColumn({ comment: 'ID' })
  id: number;

  @Index()
  @Column({ type: 'int', comment: '批次 ID', nullable: true })
  batchId: number | null;

  @Index()
  @Column({ type: 'varchar', comment: '会话 ID', length: 64, nullable: true })
  sessionId: string | null;

  @Column({ type: 'int', comment: '序号' })
  seq: number;

  @Column({ type: 'varchar', comment: '工具名', length: 200 })
  name: string;

  @Column({ type: 'json', comment: '参数 (至多 64 KiB)', nullable: true })
  arguments: unknown;

  @Column({ type: 'varchar', comment: '决定（checkToolCall 的 decision）', length: 40 })
  decision: string;

  @Column({ type: 'varchar', comment: '原因', length: 60, nullable: true })
  reason: string | null;

  @Column({ type: 'boolean', comment: '是否成功', default: false })
  ok: boolean;

  @Column({ type: LONG_TEXT, comment: '输出 (至多 64 KiB)', nullable: true })
  output: string | null;

  @Column({ type: LONG_TEXT, comment: '错误', nullable: true })
  error: string | null;

  @Column({ type: 'int', comment: '耗时 ms', default: 0 })
  durationMs: number;

  @Column({ type: 'json', comment: '决定此调用的规则 (JSON)', nullable: true })
  rule: unknown;

  @Column({ type: 'json', comment: '调用期间被拒绝的网络连接 (JSON)', nullable: true })
  network: unknown;

  @Index()
  @CreateDateColumn({ comment: '创建时间' })
  createTime: Date;
}
