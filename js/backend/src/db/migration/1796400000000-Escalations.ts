/**
 * The escalations of the `escalate` tool (`netaclaw_escalation`): recorded in the database, shown to an
 * operator on the chat page and resolved there. Frozen once it has run somewhere.
 */
import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { MigrationInterface, QueryRunner, TableOptions } from 'typeorm';
import { BASE_COLUMNS } from './1796093269137-Baseline';
import { ensureTable } from './schema';
import { log } from '../../config/log';

const ESCALATIONS: TableOptions = {
  name: 'netaclaw_escalation',
  columns: [
    ...BASE_COLUMNS,
    { name: 'sessionId', type: 'varchar', length: '64', isNullable: true, comment: '会话 ID' },
    { name: 'batchId', type: 'int', isNullable: true, comment: '子 Agent 批次 ID' },
    { name: 'agentId', type: 'int', comment: 'Agent ID' },
    { name: 'reason', type: 'text', comment: '升级原因' },
    { name: 'status', type: 'varchar', length: '20', default: "'open'", comment: '状态 open|resolved' },
    { name: 'resolution', type: 'text', isNullable: true, comment: '处理结果' },
    { name: 'resolveTime', type: 'datetime', isNullable: true, comment: '处理时间' },
  ],
  indices: [
    { name: 'IDX_6c5686c3ebb65a281012980651', columnNames: ['createTime'] },
    { name: 'IDX_2e4db341189585a02046cf34c5', columnNames: ['updateTime'] },
    { name: 'IDX_f2a31f4750bb0c92154551a2ce', columnNames: ['sessionId'] },
    { name: 'IDX_631ba5379019580c1e2dea3e9d', columnNames: ['batchId'] },
    { name: 'IDX_5f11fa3cbb451e97dc51d7f9ba', columnNames: ['agentId'] },
    { name: 'IDX_3887d7d8b253963f9b1a205e85', columnNames: ['status'] },
  ],
};

@Provide()
@Scope(ScopeEnum.Singleton)
export class Escalations1796400000000 implements MigrationInterface {
  name = 'Escalations1796400000000';

  async up(qr: QueryRunner): Promise<void> {
    for (const step of await ensureTable(qr, ESCALATIONS)) log().info(`[netaclaw] schema escalations: ${step}`);
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable(ESCALATIONS.name, true);
  }
}
