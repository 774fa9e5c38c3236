import { Column, CreateDateColumn, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { DB } from '../config/settings';

/** Long text (tool output, model replies): MySQL/MariaDB TEXT holds 65,535 bytes, less than a 64 KiB output plus its note. */
export const LONG_TEXT = DB.kind === 'sqlite' ? 'text' : 'mediumtext';

/** Base columns shared by every table: id, createTime, updateTime. */
export abstract class BaseEntity {
  @PrimaryGeneratedColumn({ comment: 'ID' })
  id: number;

  @Index()
  @CreateDateColumn({ comment: '创建时间' })
  createTime: Date;

  @Index()
  @UpdateDateColumn({ comment: '更新时间' })
  updateTime: Date;
}

/**
 * A row that belongs to a chat session and/or a sub-agent batch (a todo list, an escalation): the base
 * columns plus `sessionId` and `batchId`, both indexed.
 */
export abstract class SessionOwnedEntity extends BaseEntity {
  @Index()
  @Column({ type: 'varchar', length: 64, nullable: true, comment: '会话 ID' })
  sessionId: string | null;

  @Index()
  @Column({ type: 'int', nullable: true, comment: '子 Agent 批次 ID' })
  batchId: number | null;
}
