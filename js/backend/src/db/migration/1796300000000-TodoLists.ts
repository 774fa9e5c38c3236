/**
 * The agents' todo lists (`netaclaw_todo_list`), kept in the database instead of the process's memory, so
 * that they survive a restart and are shown beside the transcript. Frozen once it has run somewhere.
 */
import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { MigrationInterface, QueryRunner, TableOptions } from 'typeorm';
import { BASE_COLUMNS } from './1796093269137-Baseline';
import { ensureTable } from './schema';
import { log } from '../../config/log';

const TODO_LISTS: TableOptions = {
  name: 'netaclaw_todo_list',
  columns: [
    ...BASE_COLUMNS,
    { name: 'owner', type: 'varchar', length: '80', comment: '所属 (session:<id> / batch:<id>)' },
    { name: 'sessionId', type: 'varchar', length: '64', isNullable: true, comment: '会话 ID' },
    { name: 'batchId', type: 'int', isNullable: true, comment: '子 Agent 批次 ID' },
    { name: 'items', type: 'json', comment: '待办事项 [{ text, done }]' },
  ],
  indices: [
    { name: 'IDX_68a915d78eaeb232b7d8aff64d', columnNames: ['createTime'] },
    { name: 'IDX_0b8e93f047e71680ec50fcc9ed', columnNames: ['updateTime'] },
    { name: 'IDX_56525926edff399694cd6b24d2', columnNames: ['owner'], isUnique: true },
    { name: 'IDX_5f2b4b1beaed1f078aa2565df5', columnNames: ['sessionId'] },
    { name: 'IDX_921056b04627b244d2c374570a', columnNames: ['batchId'] },
  ],
};

@Provide()
@Scope(ScopeEnum.Singleton)
export class TodoLists1796300000000 implements MigrationInterface {
  name = 'TodoLists1796300000000';

  async up(qr: QueryRunner): Promise<void> {
    for (const step of await ensureTable(qr, TODO_LISTS)) log().info(`[netaclaw] schema todo lists: ${step}`);
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable(TODO_LISTS.name, true);
  }
}
