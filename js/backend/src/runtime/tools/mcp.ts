/**
 * The `mcp` tool kind: a catalog file entry's `implementation: { type: 'mcp', server, tool }` is a tool of
 * an MCP server configured in the database, forwarded to it (mcp/servers.ts) from the main process.
 */
import type { ToolKind } from './types';

/** `implementation: { type: 'mcp', server, tool }`: a tool of an MCP server configured in the database. */
export interface McpImplementation {
  type: 'mcp';
  server: string;
  tool: string;
}

export const MCP_KIND: ToolKind<McpImplementation> = {
  type: 'mcp',
  parse(v) {
    if (typeof v.server !== 'string' || v.server === '') throw new Error('implementation.server must name an MCP server');
    if (typeof v.tool !== 'string' || v.tool === '') throw new Error('implementation.tool must name a tool of that server');
    return { type: 'mcp', server: v.server, tool: v.tool };
  },
  handler: (name, impl, env) => ({ name, placement: 'main', run: env.mcp.tool(impl.server, impl.tool) }),
};
