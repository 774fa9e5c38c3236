import { Column, Entity, Index } from 'typeorm';
import { BaseEntity, LONG_TEXT } from './base';

/** A tool call as the model made it (arguments: the JSON text it sent). */
export interface StoredToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * One message of a session, in order (`seq`). Roles: `user`, `assistant` (with the tool calls it made),
 * `tool` (the result of one call, `toolCallId`), and `error` (a turn that failed: never sent to the
 * model, kept so the session shows what happened).
 */
@Entity('netaclaw_message')
@Index(['sessionId', 'seq'], { unique: true })
export class NetaClawMessageEntity extends BaseEntity {
  @Column({ type: 'int', comment: '会话 ID' })
  sessionId: number;

  @Column({ type: 'int', comment: '序号' })
  seq: number;

  @Column({ type: 'varchar', comment: 'user|assistant|tool|error', length: 20 })
  role: string;

  @Column({ type: LONG_TEXT, comment: '内容', nullable: true })
  content: string | null;

  @Column({ type: 'json', comment: '工具调用', nullable: true })
  toolCalls: StoredToolCall[] | null;

  @Column({ type: 'varchar', comment: '工具调用 ID', length: 200, nullable: true })
  toolCallId: string | null;

  @Column({ type: 'varchar', comment: '工具名 / 错误码', length: 100, nullable: true })
  name: string | null;
}
