/**
 * The baseline: every table of the backend as it was when migrations replaced the schema sync on
 * MySQL/MariaDB. On a fresh database it creates them. On a database made by the schema sync of an earlier
 * release (tables already there, rows in them) it creates nothing that exists: it adds what that release
 * did not have (tables, columns such as `version`, `subagentTools` or the session's turn claim, indexes)
 * and brings a column whose nullability or comment changed since to today's; a column of another type or
 * length is left and reported (`ensureTable`); no row is dropped.
 *
 * Frozen: a later schema change is a new migration (`npm run migration:generate`), never an edit here.
 * The definitions are TypeORM's own reading of the entities at the time (`Table.create` of their metadata
 * on MariaDB); `migrations.test.js` checks that after all migrations the schema is exactly what the
 * entities declare (TypeORM's schema log is empty).
 */
import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { MigrationInterface, QueryRunner, TableColumnOptions, TableOptions } from 'typeorm';
import { ensureTable } from './schema';
import { log } from '../../config/log';

/** The columns of every table whose entity extends BaseEntity: id, createTime, updateTime. */
export const BASE_COLUMNS: TableColumnOptions[] = [
  { name: 'id', type: 'int', isPrimary: true, isGenerated: true, generationStrategy: 'increment', comment: 'ID' },
  { name: 'createTime', type: 'datetime', precision: 6, default: 'CURRENT_TIMESTAMP(6)', comment: '创建时间' },
  { name: 'updateTime', type: 'datetime', precision: 6, default: 'CURRENT_TIMESTAMP(6)', onUpdate: 'CURRENT_TIMESTAMP(6)', comment: '更新时间' },
];

const TABLES: TableOptions[] = [
  {
    name: 'netaclaw_tool',
    columns: [
      ...BASE_COLUMNS,
      { name: 'name', type: 'varchar', length: '100', comment: 'Tool 名称' },
      { name: 'label', type: 'varchar', length: '200', isNullable: true, comment: '展示名' },
      { name: 'toolset', type: 'varchar', length: '50', comment: '所属 toolset' },
      { name: 'description', type: 'text', isNullable: true, comment: '描述' },
      { name: 'visibility', type: 'varchar', length: '20', isNullable: true, comment: '可见性' },
      { name: 'capability', type: 'varchar', length: '20', isNullable: true, comment: '能力要求' },
      { name: 'status', type: 'int', default: "'1'", comment: '状态 0=禁用 1=启用' },
      { name: 'isCore', type: 'int', default: "'0'", comment: '是否核心工具' },
      { name: 'canDisable', type: 'int', default: "'1'", comment: '是否允许禁用' },
      { name: 'promptHint', type: 'text', isNullable: true, comment: 'Prompt Hint 覆写' },
      { name: 'sort', type: 'int', default: "'0'", comment: '排序' },
      { name: 'extra', type: 'json', isNullable: true, comment: '扩展字段' },
      { name: 'workerRoutingStrategy', type: 'varchar', length: '40', default: "'auto'", comment: 'Worker 路由策略' },
      { name: 'version', type: 'int', default: "'1'", comment: '版本号' },
    ],
    indices: [
      { name: 'IDX_97b28611fd50e68c71e3b35faf', columnNames: ['createTime'] },
      { name: 'IDX_5437aca1f7373893e68313b396', columnNames: ['updateTime'] },
      { name: 'IDX_ae6ed5ac8b0f308135750e717e', columnNames: ['name'], isUnique: true },
      { name: 'IDX_a8ff3f48d16097c138ba32e208', columnNames: ['toolset'] },
      { name: 'IDX_b93c3bb3c30ebfd93c019fdbb7', columnNames: ['status'] },
    ],
  },
  {
    name: 'netaclaw_agent',
    columns: [
      ...BASE_COLUMNS,
      { name: 'name', type: 'varchar', length: '100', comment: '名称' },
      { name: 'systemPrompt', type: 'text', isNullable: true, comment: '系统提示词' },
      { name: 'modelCapability', type: 'varchar', length: '20', isNullable: true, comment: '模型能力（无模型渠道时使用）' },
      { name: 'memoryEnabled', type: 'tinyint', default: '0', comment: '是否启用记忆' },
      { name: 'skills', type: 'json', isNullable: true, comment: '绑定的 skill 列表' },
      { name: 'crewRole', type: 'varchar', length: '20', isNullable: true, comment: 'Crew 角色' },
      { name: 'toolsets', type: 'json', isNullable: true, comment: '启用的 toolset 列表' },
      { name: 'tools', type: 'json', isNullable: true, comment: '工具精细配置' },
      { name: 'modelChannelId', type: 'int', isNullable: true, comment: '模型渠道 ID（空 = 默认渠道）' },
      { name: 'subagentTools', type: 'json', isNullable: true, comment: '子 Agent 允许工具（空 = 全部）' },
      { name: 'version', type: 'int', default: "'1'", comment: '版本号' },
    ],
    indices: [
      { name: 'IDX_8f7b88dc75dfa8214f04d52e32', columnNames: ['createTime'] },
      { name: 'IDX_e5676b3f61b300d5c5900a8c82', columnNames: ['updateTime'] },
      { name: 'IDX_f3869346d21d0ed90198174c92', columnNames: ['name'] },
    ],
  },
  {
    name: 'netaclaw_model_channel',
    columns: [
      ...BASE_COLUMNS,
      { name: 'name', type: 'varchar', length: '100', comment: '名称' },
      { name: 'baseUrl', type: 'varchar', length: '500', comment: 'OpenAI 兼容接口地址' },
      { name: 'apiKey', type: 'varchar', length: '1000', isNullable: true, comment: 'API Key' },
      { name: 'model', type: 'varchar', length: '200', comment: '模型名' },
      { name: 'capability', type: 'varchar', length: '20', default: "'text'", comment: '模型能力' },
      { name: 'isDefault', type: 'tinyint', default: '0', comment: '是否默认渠道' },
    ],
    indices: [
      { name: 'IDX_8356fcfb00ad9b62fb1e1fa1e6', columnNames: ['createTime'] },
      { name: 'IDX_6297a7c7ab933272924cca968a', columnNames: ['updateTime'] },
      { name: 'IDX_7571cd605c10435c0892f672b5', columnNames: ['name'], isUnique: true },
      { name: 'IDX_420b616610735698bb662f826c', columnNames: ['isDefault'] },
    ],
  },
  {
    name: 'netaclaw_session',
    columns: [
      ...BASE_COLUMNS,
      { name: 'agentId', type: 'int', comment: 'Agent ID' },
      { name: 'channelId', type: 'int', isNullable: true, comment: '模型渠道 ID' },
      { name: 'sessionCwd', type: 'varchar', length: '1000', isNullable: true, comment: '会话工作目录' },
      { name: 'workspaceRoots', type: 'json', isNullable: true, comment: '额外 workspace 根目录' },
      { name: 'shellPermitted', type: 'tinyint', default: '0', comment: '允许 Shell' },
      { name: 'writePermitted', type: 'tinyint', default: '0', comment: '允许写入' },
      { name: 'crewRole', type: 'varchar', length: '20', isNullable: true, comment: 'Crew 角色' },
      { name: 'title', type: 'varchar', length: '200', comment: '标题（首条消息）' },
      { name: 'turnToken', type: 'varchar', length: '64', isNullable: true, comment: '进行中回合的持有者' },
      { name: 'turnUntil', type: 'bigint', isNullable: true, comment: '回合持有截止 (epoch ms)' },
    ],
    indices: [
      { name: 'IDX_06f15a645e395f90e886d1b502', columnNames: ['createTime'] },
      { name: 'IDX_1574e327421f0127e27772f10d', columnNames: ['updateTime'] },
      { name: 'IDX_01accfcd391b565dd95833daed', columnNames: ['agentId'] },
    ],
  },
  {
    name: 'netaclaw_message',
    columns: [
      ...BASE_COLUMNS,
      { name: 'sessionId', type: 'int', comment: '会话 ID' },
      { name: 'seq', type: 'int', comment: '序号' },
      { name: 'role', type: 'varchar', length: '20', comment: 'user|assistant|tool|error' },
      { name: 'content', type: 'mediumtext', isNullable: true, comment: '内容' },
      { name: 'toolCalls', type: 'json', isNullable: true, comment: '工具调用' },
      { name: 'toolCallId', type: 'varchar', length: '200', isNullable: true, comment: '工具调用 ID' },
      { name: 'name', type: 'varchar', length: '100', isNullable: true, comment: '工具名 / 错误码' },
    ],
    indices: [
      { name: 'IDX_ef79aa8916865ed53410c79b66', columnNames: ['createTime'] },
      { name: 'IDX_63bc04090a563b5309d0f0d91b', columnNames: ['updateTime'] },
      { name: 'IDX_73464df295ac420fbc1b5aed5f', columnNames: ['sessionId', 'seq'], isUnique: true },
    ],
  },
  {
    name: 'netaclaw_subagent_batch',
    columns: [
      { name: 'id', type: 'int', isPrimary: true, isGenerated: true, generationStrategy: 'increment', comment: 'ID' },
      { name: 'agentId', type: 'int', comment: 'Agent ID' },
      { name: 'parentBatchId', type: 'int', isNullable: true, comment: '父批次 ID' },
      { name: 'sessionId', type: 'varchar', length: '64', isNullable: true, comment: '会话 ID' },
      { name: 'crewRole', type: 'varchar', length: '20', comment: 'Crew 角色' },
      { name: 'sessionCwd', type: 'text', isNullable: true, comment: '会话工作目录' },
      { name: 'workspaceRoots', type: 'json', comment: '额外 workspace roots' },
      { name: 'shellPermitted', type: 'tinyint', default: '0', comment: '是否允许 shell' },
      { name: 'writePermitted', type: 'tinyint', default: '0', comment: '是否允许写入' },
      { name: 'policy', type: 'json', comment: 'Worker 策略' },
      { name: 'routes', type: 'json', comment: '工具路由' },
      { name: 'driver', type: 'varchar', length: '20', comment: '驱动 model|calls' },
      { name: 'status', type: 'varchar', length: '20', comment: '状态 running|completed|failed|killed' },
      { name: 'error', type: 'mediumtext', isNullable: true, comment: '错误' },
      { name: 'createTime', type: 'datetime', precision: 6, default: 'CURRENT_TIMESTAMP(6)', comment: '创建时间' },
      { name: 'endTime', type: 'datetime', isNullable: true, comment: '结束时间' },
    ],
    indices: [
      { name: 'IDX_85650007c1a236fae87fd149a0', columnNames: ['agentId'] },
      { name: 'IDX_1f15e7a68393e3790ba15b96f5', columnNames: ['parentBatchId'] },
      { name: 'IDX_8d81085ff9ce61ddf11fae963b', columnNames: ['sessionId'] },
      { name: 'IDX_a08d43fdaf1b10d95b57306acb', columnNames: ['status'] },
      { name: 'IDX_af9a50796c166fe887ed889996', columnNames: ['createTime'] },
    ],
  },
  {
    name: 'netaclaw_tool_call',
    columns: [
      { name: 'id', type: 'int', isPrimary: true, isGenerated: true, generationStrategy: 'increment', comment: 'ID' },
      { name: 'batchId', type: 'int', isNullable: true, comment: '批次 ID' },
      { name: 'sessionId', type: 'varchar', length: '64', isNullable: true, comment: '会话 ID' },
      { name: 'seq', type: 'int', comment: '序号' },
      { name: 'name', type: 'varchar', length: '200', comment: '工具名' },
      { name: 'arguments', type: 'json', isNullable: true, comment: '参数 (至多 64 KiB)' },
      { name: 'decision', type: 'varchar', length: '40', comment: '决定（checkToolCall 的 decision）' },
      { name: 'reason', type: 'varchar', length: '60', isNullable: true, comment: '原因' },
      { name: 'ok', type: 'tinyint', default: '0', comment: '是否成功' },
      { name: 'output', type: 'mediumtext', isNullable: true, comment: '输出 (至多 64 KiB)' },
      { name: 'error', type: 'mediumtext', isNullable: true, comment: '错误' },
      { name: 'durationMs', type: 'int', default: "'0'", comment: '耗时 ms' },
      { name: 'createTime', type: 'datetime', precision: 6, default: 'CURRENT_TIMESTAMP(6)', comment: '创建时间' },
    ],
    indices: [
      { name: 'IDX_ffd8cc8ecf7b217f3cbba2e9bd', columnNames: ['batchId'] },
      { name: 'IDX_fcff72eec91356b552a947596d', columnNames: ['sessionId'] },
      { name: 'IDX_a72d0503582ee3dda174254ef4', columnNames: ['createTime'] },
    ],
  },
  {
    name: 'netaclaw_memory',
    columns: [...BASE_COLUMNS, { name: 'agentId', type: 'int', comment: 'Agent ID' }, { name: 'content', type: 'text', comment: '内容' }],
    indices: [
      { name: 'IDX_f36dc552f4abf3768f1e9b0382', columnNames: ['createTime'] },
      { name: 'IDX_bbc24f982f275b32bdee7cb6e4', columnNames: ['updateTime'] },
      { name: 'IDX_53ed1a9d7f8cc1b43262c3e525', columnNames: ['agentId'] },
    ],
  },
];

/** Provided to Midway's container, which TypeORM asks for its migrations (`useContainer`). */
@Provide()
@Scope(ScopeEnum.Singleton)
export class Baseline1796093269137 implements MigrationInterface {
  name = 'Baseline1796093269137';

  async up(qr: QueryRunner): Promise<void> {
    for (const table of TABLES) {
      for (const step of await ensureTable(qr, table)) log().info(`[netaclaw] schema baseline: ${step}`);
    }
  }

  async down(qr: QueryRunner): Promise<void> {
    for (const table of [...TABLES].reverse()) await qr.dropTable(table.name, true);
  }
}
