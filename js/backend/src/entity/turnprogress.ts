import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ChatEvent } from '../wire/api-types';

/**
 * The progress of a session's running chat turn, for the pages that follow it from another instance (several
 * backends on one MySQL/MariaDB database): the instance running the turn writes what a page attaching there
 * would get replayed (gateway/turns.ts `LiveTurn`: bounded the same way) at most every TURN_PROGRESS_MS while it
 * changes, and once at its end. One row per session, replaced by the session's next turn.
 */
@Entity('netaclaw_turn_progress')
export class NetaClawTurnProgressEntity {
  @PrimaryColumn({ type: 'int', comment: '会话 ID' })
  sessionId: number;

  @Column({ type: 'varchar', length: 32, comment: '回合标识' })
  token: string;

  @Column({ type: 'text', comment: '用户消息' })
  message: string;

  @Column({ type: 'json', comment: '回合事件 (有界: 合并的文本增量、工具调用与结果、批次)' })
  events: ChatEvent[];

  @Column({ type: 'boolean', comment: '有事件未保留', default: false })
  truncated: boolean;

  @Column({ type: 'json', comment: '结束事件 (done 或 error)', nullable: true })
  endEvent: ChatEvent | null;

  @Column({ type: 'bigint', comment: '最近写入 (epoch ms)' })
  writeTime: number | string;

  @Column({ type: 'bigint', comment: '结束时间 (epoch ms)', nullable: true })
  endTime: number | string | null;

  /** Set by an instance whose page cancels the turn; the running instance reads it and stops the turn. */
  @Column({ type: 'bigint', comment: '请求取消时间 (epoch ms)', nullable: true })
  cancelTime: number | string | null;
}
