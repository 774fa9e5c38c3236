/**
 * The table of MCP servers (`netaclaw_mcp_server`). Like the baseline it checks what exists first, so a
 * run interrupted half-way is completed by the next start.
 */
import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { MigrationInterface, QueryRunner, TableOptions } from 'typeorm';
import { ensureTable } from './schema';
import { log } from '../../config/log';

const TABLE: TableOptions = {
  name: 'netaclaw_mcp_server',
  columns: [
    { name: 'id', type: 'int', isPrimary: true, isGenerated: true, generationStrategy: 'increment', comment: 'ID' },
    { name: 'createTime', type: 'datetime', precision: 6, default: 'CURRENT_TIMESTAMP(6)', comment: '创建时间' },
    { name: 'updateTime', type: 'datetime', precision: 6, default: 'CURRENT_TIMESTAMP(6)', onUpdate: 'CURRENT_TIMESTAMP(6)', comment: '更新时间' },
    { name: 'name', type: 'varchar', length: '50', comment: '名称' },
    { name: 'transport', type: 'varchar', length: '10', comment: '传输方式 stdio | http' },
    { name: 'command', type: 'varchar', length: '1000', isNullable: true, comment: '命令（stdio）' },
    { name: 'args', type: 'json', isNullable: true, comment: '命令参数（stdio）' },
    { name: 'url', type: 'varchar', length: '1000', isNullable: true, comment: '地址（http）' },
    { name: 'env', type: 'json', isNullable: true, comment: '环境变量（stdio）' },
    { name: 'enabled', type: 'tinyint', default: '1', comment: '是否启用' },
    { name: 'workspaceRoots', type: 'json', isNullable: true, comment: '可读目录（stdio）' },
  ],
  indices: [
    { name: 'IDX_c668be8952f8ba24d4f67b9346', columnNames: ['createTime'] },
    { name: 'IDX_79058512ffcb204a91d72974b4', columnNames: ['updateTime'] },
    { name: 'IDX_df4851b16f401d7744ec4333f3', columnNames: ['name'], isUnique: true },
    { name: 'IDX_7001aae4aa4b476d4e05f70a7f', columnNames: ['enabled'] },
  ],
};

@Provide()
@Scope(ScopeEnum.Singleton)
export class McpServer1796200000000 implements MigrationInterface {
  name = 'McpServer1796200000000';

  async up(qr: QueryRunner): Promise<void> {
    for (const step of await ensureTable(qr, TABLE)) log().info(`[netaclaw] schema migration McpServer: ${step}`);
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable(TABLE.name, true);
  }
}
