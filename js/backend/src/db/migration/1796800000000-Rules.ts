/**
 * Rules finer than a tool (docs/package.md "Rules"): the global rules in `netaclaw_setting`, the agent's
 * in `netaclaw_agent.rules`, a session's and its approvals in `netaclaw_session.rules` / `.approvals`.
 * Frozen once it has run somewhere.
 */
import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { MigrationInterface, QueryRunner, TableColumn, TableOptions } from 'typeorm';
import { appLogger } from '../../config/log';
import { ensureTable } from './schema';

const SETTINGS: TableOptions = {
  name: 'netaclaw_setting',
  columns: [
    { name: 'name', type: 'varchar', length: '64', isPrimary: true, comment: '名称' },
    { name: 'value', type: 'json', isNullable: true, comment: '值 (JSON)' },
    { name: 'version', type: 'int', default: 1, comment: '版本号' },
    { name: 'updateTime', type: 'datetime', precision: 6, default: 'CURRENT_TIMESTAMP(6)', onUpdate: 'CURRENT_TIMESTAMP(6)', comment: '更新时间' },
  ],
};

const COLUMNS: Array<[string, TableColumn]> = [
  ['netaclaw_agent', new TableColumn({ name: 'rules', type: 'json', isNullable: true, comment: 'Agent 规则（allow / ask / deny）' })],
  ['netaclaw_session', new TableColumn({ name: 'rules', type: 'json', isNullable: true, comment: '会话规则（allow / ask / deny）' })],
  ['netaclaw_session', new TableColumn({ name: 'approvals', type: 'json', isNullable: true, comment: '本会话已批准的规则' })],
];

@Provide()
@Scope(ScopeEnum.Singleton)
export class Rules1796800000000 implements MigrationInterface {
  name = 'Rules1796800000000';

  async up(qr: QueryRunner): Promise<void> {
    for (const step of await ensureTable(qr, SETTINGS)) appLogger()?.info(`[netaclaw] schema rules: ${step}`);
    // a migration that stopped half-way is completed by the next start
    for (const [table, column] of COLUMNS) {
      if (!(await qr.hasColumn(table, column.name))) {
        await qr.addColumn(table, column);
        appLogger()?.info(`[netaclaw] schema rules: added ${table}.${column.name}`);
      }
    }
  }

  async down(qr: QueryRunner): Promise<void> {
    for (const [table, column] of [...COLUMNS].reverse()) if (await qr.hasColumn(table, column.name)) await qr.dropColumn(table, column.name);
    await qr.dropTable(SETTINGS.name, true);
  }
}
