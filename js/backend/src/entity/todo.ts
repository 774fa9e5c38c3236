import { Column, Entity, Index } from 'typeorm';
import { SessionOwnedEntity } from './base';

/**
 * The todo list an agent keeps with the `todo` tool: one list per owner — a chat session's main agent
 * (`session:<id>`) or a sub-agent batch (`batch:<id>`) — replaced whole by each call.
 */
@Entity('netaclaw_todo_list')
export class NetaClawTodoListEntity extends SessionOwnedEntity {
  @Index({ unique: true })
  @Column({ type: 'varchar', length: 80, comment: '所属 (session:<id> / batch:<id>)' })
  owner: string;

  @Column({ type: 'json', comment: '待办事项 [{ text, done }]' })
  items: Array<{ text: string; done: boolean }>;
}
