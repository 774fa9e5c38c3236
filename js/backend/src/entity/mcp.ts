import { Column, Entity, Index } from 'typeorm';
import { BaseEntity } from './base';
import { MCP_ENV, secretValues } from '../config/secrets';

/**
 * An MCP server whose tools join the catalog (`mcp__<name>__<tool>`, toolset `mcp:<name>`): a command
 * the backend starts in the OS sandbox and talks to over its stdio (`stdio`), or a streamable HTTP
 * endpoint (`http`). Only enabled servers are listed at start and on refresh.
 */
@Entity('netaclaw_mcp_server')
export class NetaClawMcpServerEntity extends BaseEntity {
  @Index({ unique: true })
  @Column({ type: 'varchar', comment: '名称', length: 50 })
  name: string;

  @Column({ type: 'varchar', comment: '传输方式 stdio | http', length: 10 })
  transport: string;

  @Column({ type: 'varchar', comment: '命令（stdio）', length: 1000, nullable: true })
  command: string | null;

  @Column({ type: 'json', comment: '命令参数（stdio）', nullable: true })
  args: string[] | null;

  @Column({ type: 'varchar', comment: '地址（http）', length: 1000, nullable: true })
  url: string | null;

  /** The values stored encrypted (src/config/secrets.ts), the names readable; never sent back (McpService.view). */
  @Column({ type: 'json', comment: '环境变量（stdio）', nullable: true, transformer: secretValues(MCP_ENV) })
  env: Record<string, string> | null;

  @Index()
  @Column({ type: 'boolean', comment: '是否启用', default: true })
  enabled: boolean;

  @Column({ type: 'json', comment: '可读目录（stdio）', nullable: true })
  workspaceRoots: string[] | null;

  /** Tool → argument → `read` | `write`: the arguments an admin marked as paths (`x-netaclaw-path`). */
  @Column({ type: 'json', comment: '路径参数标记（工具 → 参数 → read | write）', nullable: true })
  pathMarks: Record<string, Record<string, 'read' | 'write'>> | null;
}
