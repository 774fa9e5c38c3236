import { CreateDateColumn, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { DB } from '../settings';

/** A text column for long content (tool output, model replies): MEDIUMTEXT on MySQL/MariaDB (TEXT holds 64 KB). */
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
