import { Column, Entity, Index } from 'typeorm';
import { BaseEntity } from './base';

/** What an agent chose to remember (`memory_save` / `memory_recall`), per agent. */
@Entity('netaclaw_memory')
export class NetaClawMemoryEntity extends BaseEntity {
  @Index()
  @Column({ type: 'int', comment: 'Agent ID' })
  agentId: number;

  @Column({ type: 'text', comment: '内容' })
  content: string;
}
