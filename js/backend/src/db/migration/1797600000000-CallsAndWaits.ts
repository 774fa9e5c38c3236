/**
 * What a reopened session needs of a call and of an approval:
 * - `netaclaw_tool_call.network`: the connections of the sandbox network refused during the call, kept
 *   with it, so a reopened chat names them on the call's card as the live one did;
 * - `netaclaw_approval.waitUntil` (ms since the epoch): until when a running process waits for the answer
 *   (a sub-agent's call, a sandbox's connection); when that process stopped (a restart, a crash), the
 *   approval expires instead of staying pending with nobody to act on it.
 * Frozen once it has run somewhere.
 */
import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { log } from '../../config/log';
import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

const COLUMNS: [string, TableColumn][] = [
  ['netaclaw_tool_call', new TableColumn({ name: 'network', type: 'json', isNullable: true, comment: '调用期间被拒绝的网络连接 (JSON)' })],
  ['netaclaw_approval', new TableColumn({ name: 'waitUntil', type: 'bigint', isNullable: true, comment: '等待者的期限（ms；子 Agent 的调用与网络连接）' })],
];

@Provide()
@Scope(ScopeEnum.Singleton)
export class CallsAndWaits1797600000000 implements MigrationInterface {
  name = 'CallsAndWaits1797600000000';

  async up(qr: QueryRunner): Promise<void> {
    for (const [table, column] of COLUMNS) {
      // a migration that stopped half-way is completed by the next start
      if (await qr.hasColumn(table, column.name)) continue;
      await qr.addColumn(table, column);
      log().info(`[netaclaw] schema calls and waits: added ${table}.${column.name}`);
    }
  }

  async down(qr: QueryRunner): Promise<void> {
    for (const [table, column] of COLUMNS) if (await qr.hasColumn(table, column.name)) await qr.dropColumn(table, column.name);
  }
}
