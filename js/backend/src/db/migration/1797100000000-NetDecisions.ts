/**
 * The decisions of the sandbox network (docs/runtime.md "Network"): each decided connection of a
 * session's or a batch's sandboxes (`netaclaw_net_decision`). Frozen once it has run somewhere.
 */
import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { MigrationInterface, QueryRunner, TableOptions } from 'typeorm';
import { appLogger } from '../../config/log';
import { BASE_COLUMNS } from './1796093269137-Baseline';
import { ensureTable } from './schema';

const NET_DECISIONS: TableOptions = {
  name: 'netaclaw_net_decision',
  columns: [
    ...BASE_COLUMNS,
    { name: 'sessionId', type: 'int', isNullable: true, comment: '会话 ID' },
    { name: 'batchId', type: 'int', isNullable: true, comment: '子 Agent 批次 ID（主 Agent 为空）' },
    { name: 'toolName', type: 'varchar', length: '200', isNullable: true, comment: '连接发生时进行中的工具调用' },
    { name: 'host', type: 'varchar', length: '255', comment: '主机' },
    { name: 'port', type: 'int', comment: '端口' },
    { name: 'method', type: 'varchar', length: '20', comment: 'CONNECT 或 HTTP 方法' },
    { name: 'decision', type: 'varchar', length: '10', comment: '规则的决定 allow|ask|deny' },
    { name: 'outcome', type: 'varchar', length: '20', comment: '结果 connected|refused|failed' },
    { name: 'answer', type: 'varchar', length: '20', isNullable: true, comment: '询问的回答 once|session|deny|timeout|none' },
    { name: 'approvalId', type: 'int', isNullable: true, comment: '审批 ID' },
    { name: 'rule', type: 'varchar', length: '300', isNullable: true, comment: '决定的规则 net(…)' },
    { name: 'level', type: 'varchar', length: '20', isNullable: true, comment: '规则的层级 global|agent|session' },
    { name: 'detail', type: 'text', comment: '说明' },
  ],
  indices: [
    { name: 'IDX_6a6495548e4ca6b43ef21118d2', columnNames: ['createTime'] },
    { name: 'IDX_ef732db22808fd83fa98ab8581', columnNames: ['updateTime'] },
    { name: 'IDX_2931adaf1754cd65cdf496b00a', columnNames: ['sessionId'] },
    { name: 'IDX_93d72eb9ba6d1a8a9c65617dd3', columnNames: ['batchId'] },
  ],
};

@Provide()
@Scope(ScopeEnum.Singleton)
export class NetDecisions1797100000000 implements MigrationInterface {
  name = 'NetDecisions1797100000000';

  async up(qr: QueryRunner): Promise<void> {
    for (const step of await ensureTable(qr, NET_DECISIONS)) appLogger()?.info(`[netaclaw] schema net decisions: ${step}`);
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable(NET_DECISIONS.name, true);
  }
}
