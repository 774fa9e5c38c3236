import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { InjectEntityModel } from '@midwayjs/typeorm';
import { Repository } from 'typeorm';
import { NetaClawMemoryEntity } from '../entity/memory';
import { dbWriteLock } from '../lib/mutex';

/** Per-agent memory behind `memory_save` / `memory_recall` (table `netaclaw_memory`). */
@Provide()
@Scope(ScopeEnum.Singleton)
export class MemoryService {
  @InjectEntityModel(NetaClawMemoryEntity)
  repo: Repository<NetaClawMemoryEntity>;

  async save(agentId: number, content: string): Promise<{ id: number }> {
    const saved = await dbWriteLock.run(() => this.repo.save(this.repo.create({ agentId, content })));
    return { id: saved.id };
  }

  /** Memories of the agent containing `query` (every memory when it is blank), newest first. */
  async recall(agentId: number, query: string, limit: number) {
    const qb = this.repo.createQueryBuilder('m').where('m.agentId = :agentId', { agentId });
    if (query.trim() !== '') {
      qb.andWhere("m.content LIKE :q ESCAPE '!'", { q: `%${query.trim().replace(/[!%_]/g, c => '!' + c)}%` });
    }
    return qb.orderBy('m.id', 'DESC').take(limit).getMany();
  }
}
