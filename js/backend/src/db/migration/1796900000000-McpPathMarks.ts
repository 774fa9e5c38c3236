/**
 * Path marks an admin gives an MCP server's tool arguments (`netaclaw_mcp_server.pathMarks`).
 * Frozen once it has run somewhere.
 */
import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { log } from '../../config/log';
import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

const PATH_MARKS = new TableColumn({ name: 'pathMarks', type: 'json', isNullable: true, comment: '路径参数标记（工具 → 参数 → read | write）' });

@Provide()
@Scope(ScopeEnum.Singleton)
export class McpPathMarks1796900000000 implements MigrationInterface {
  name = 'McpPathMarks1796900000000';

  async up(qr: QueryRunner): Promise<void> {
    // a migration that stopped half-way is completed by the next start
    if (!(await qr.hasColumn('netaclaw_mcp_server', PATH_MARKS.name))) {
      await qr.addColumn('netaclaw_mcp_server', PATH_MARKS);
      log().info('[netaclaw] schema MCP servers: added netaclaw_mcp_server.pathMarks');
    }
  }

  async down(qr: QueryRunner): Promise<void> {
    if (await qr.hasColumn('netaclaw_mcp_server', PATH_MARKS.name)) await qr.dropColumn('netaclaw_mcp_server', PATH_MARKS.name);
  }
}
