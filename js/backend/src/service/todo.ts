import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { InjectEntityModel } from '@midwayjs/typeorm';
import { Repository } from 'typeorm';
import { NetaClawTodoListEntity } from '../entity/todo';

export type TodoItem = { text: string; done: boolean };

/**
 * The agents' todo lists (the `todo` tool), stored per owner: `session:<id>` for a chat session's main
 * agent, `batch:<id>` for a sub-agent batch. Each call replaces the list whole; an empty list is kept as
 * empty (the agent cleared it).
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class TodoService {
  @InjectEntityModel(NetaClawTodoListEntity)
  repo: Repository<NetaClawTodoListEntity>;

  async set(owner: { sessionId?: string | null; batchId?: number | null }, items: TodoItem[]): Promise<void> {
    const key = ownerKey(owner);
    const row = { owner: key, sessionId: owner.sessionId ?? null, batchId: owner.batchId ?? null, items: items.map(i => ({ text: i.text, done: i.done })) };
    // one row per owner (unique index): updated in place, or made at the first call
    await this.repo.upsert(row, ['owner']);
  }

  /** The list of a session's main agent, or of a batch; `[]` when it never kept one. */
  async get(owner: { sessionId?: string | null; batchId?: number | null }): Promise<TodoItem[]> {
    const row = await this.repo.findOneBy({ owner: ownerKey(owner) });
    return row ? row.items : [];
  }
}

function ownerKey(owner: { sessionId?: string | null; batchId?: number | null }): string {
  if (owner.batchId !== undefined && owner.batchId !== null) return `batch:${owner.batchId}`;
  if (owner.sessionId !== undefined && owner.sessionId !== null) return `session:${owner.sessionId}`;
  throw new Error('a todo list belongs to a session or a batch');
}
