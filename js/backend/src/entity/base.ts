import { CreateDateColumn, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { DB } from '../settings';

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
