/**
 * Approvals (docs/runtime.md "Approvals"): the calls a rule asks about, put to the session's user
 * (`netaclaw_approval`), and the rule that decided each stored call (`netaclaw_tool_call.rule`). Frozen
 * once it has run somewhere.
 */
import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { MigrationInterface, QueryRunner, TableColumn, TableOptions } from 'typeorm';
import { appLogger } from '../../config/log';
import { BASE_COLUMNS } from './1796093269137-Baseline';
import { ensureTable } from './schema';

const APPROVALS: TableOptions = {
  name: 'netaclaw_approval',
  columns: [
    ...BASE_COLUMNS,
    { name: 'sessionId', type: 'int', comment: '会话 ID' },
    { name: 'batchId', type: 'int', isNullable: true, comment: '子 Agent 批次 ID（主 Agent 为空）' },
    { name: 'callId', type: 'varchar', length: '200', comment: '模型的调用 ID' },
    { name: 'toolName', type: 'varchar', length: '200', comment: '工具名' },
    { name: 'arguments', type: 'mediumtext', comment: '参数（包读到的 JSON 文本）' },
    { name: 'subject', type: 'text', comment: '询问的对象（命令、路径或工具）' },
    { name: 'rule', type: 'json', comment: '询问的规则 (JSON)' },
    { name: 'detail', type: 'text', isNullable: true, comment: '包给出的说明' },
    { name: 'askedAt', type: 'int', isNullable: true, comment: '暂停的回合从此消息序号继续（主 Agent）' },
    { name: 'status', type: 'varchar', length: '20', default: "'pending'", comment: '状态 pending|allowed|denied|expired' },
    { name: 'answer', type: 'varchar', length: '20', isNullable: true, comment: '回答 once|session|deny|timeout' },
    { name: 'answeredBy', type: 'varchar', length: '100', isNullable: true, comment: '回答者（login:… 或 token）' },
    { name: 'answerTime', type: 'datetime', isNullable: true, comment: '回答时间' },
  ],
  indices: [
    { name: 'IDX_f6e24a475d6e725106ae64e9b9', columnNames: ['createTime'] },
    { name: 'IDX_625230dfc655788a4287851a27', columnNames: ['updateTime'] },
    { name: 'IDX_a89b1dbb541cb263ddfd72740e', columnNames: ['sessionId'] },
    { name: 'IDX_3f2070d2eeaf1e706ca00d91c3', columnNames: ['batchId'] },
    { name: 'IDX_8814de93985f013c1f67d453fd', columnNames: ['status'] },
  ],
};

const RULE = new TableColumn({ name: 'rule', type: 'json', isNullable: true, comment: '决定此调用的规则 (JSON)' });

@Provide()
@Scope(ScopeEnum.Singleton)
export class Approvals1797000000000 implements MigrationInterface {
  name = 'Approvals1797000000000';

  async up(qr: QueryRunner): Promise<void> {
    for (const step of await ensureTable(qr, APPROVALS)) appLogger()?.info(`[netaclaw] schema approvals: ${step}`);
    // a migration that stopped half-way is completed by the next start
    if (!(await qr.hasColumn('netaclaw_tool_call', RULE.name))) {
      await qr.addColumn('netaclaw_tool_call', RULE);
      appLogger()?.info('[netaclaw] schema approvals: added netaclaw_tool_call.rule');
    }
  }

  async down(qr: QueryRunner): Promise<void> {
    if (await qr.hasColumn('netaclaw_tool_call', RULE.name)) await qr.dropColumn('netaclaw_tool_call', RULE.name);
    await qr.dropTable(APPROVALS.name, true);
  }
}
