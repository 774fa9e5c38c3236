/**
 * The MCP servers' connections, where their tools run: a server is started (stdio, in the OS sandbox) or
 * reached (http) when its tools are listed, and started again for a call when it has ended since. A call of
 * an MCP tool — decided by the call port, and again by the main process for what a worker proxies — is
 * forwarded with exactly the decided arguments; a server that dies or does not answer in time fails the
 * call with the reason.
 */
import type { McpServerConfig } from '../../api-types';
import { ToolError, ToolImpl, ToolOutput } from '../tools/types';
import { connect, ended, listTools, MCP_CALL_TIMEOUT_MS, McpConnection, McpListedTool } from './client';
import { errorMessage } from '../../errortext';

/** An MCP `tools/call` result as a tool's answer: its text parts, other parts named; `isError` a failed call. */
export function resultOutput(server: string, r: Record<string, unknown>): ToolOutput {
  const parts: string[] = [];
  const content = Array.isArray(r.content) ? (r.content as Array<Record<string, unknown>>) : [];
  for (const c of content) {
    if (c.type === 'text' && typeof c.text === 'string') parts.push(c.text);
    else if (c.type === 'image' || c.type === 'audio') parts.push(`[${c.type} ${String(c.mimeType ?? '')}, ${String(c.data ?? '').length} base64 characters]`);
    else if (c.type === 'resource') {
      const res = (c.resource ?? {}) as Record<string, unknown>;
      parts.push(typeof res.text === 'string' ? res.text : `[resource ${String(res.uri ?? '')}]`);
    } else if (c.type === 'resource_link') parts.push(`[resource ${String(c.uri ?? '')}]`);
  }
  if (parts.length === 0 && r.structuredContent !== undefined) parts.push(JSON.stringify(r.structuredContent));
  const output = parts.join('\n');
  if (r.isError === true) return { output, error: `the MCP server ${server} reported an error: ${output.split('\n')[0].slice(0, 500) || 'no detail'}` };
  return { output };
}

export class McpServers {
  private readonly connections = new Map<string, McpConnection>();
  private readonly configs = new Map<string, McpServerConfig>();

  /** Connects to a server (kept for its calls) and lists its tools; a server that fails is still known, for a later call to start it. */
  async open(cfg: McpServerConfig): Promise<McpListedTool[]> {
    this.configs.set(cfg.name, cfg);
    const conn = await connect(cfg);
    this.connections.set(cfg.name, conn);
    return listTools(conn);
  }

  /** The implementation of one MCP tool: forwarded to its server, which is started again if it has ended. */
  tool(server: string, tool: string): ToolImpl {
    return async args => this.call(server, tool, args);
  }

  async call(server: string, tool: string, args: Record<string, unknown>): Promise<ToolOutput> {
    let conn = this.connections.get(server);
    if (!conn || conn.closed) {
      const cfg = this.configs.get(server);
      if (!cfg) throw new ToolError(`MCP server ${server} is not configured or not enabled here`);
      const before = conn?.stdio ? ended(conn.stdio) : '';
      try {
        conn = await connect(cfg);
      } catch (err) {
        throw new ToolError(`MCP server ${server} is not running${before} and could not be started again: ${errorMessage(err)}`);
      }
      this.connections.set(server, conn);
    }
    try {
      const r = await conn.client.callTool({ name: tool, arguments: args }, undefined, { timeout: MCP_CALL_TIMEOUT_MS });
      return resultOutput(server, r as Record<string, unknown>);
    } catch (err) {
      // let the process's end be seen before reporting
      await new Promise(resolve => setTimeout(resolve, 50));
      const why = conn.stdio ? ended(conn.stdio) : '';
      if (conn.closed || why) {
        await conn.client.close().catch(() => undefined);
        this.connections.delete(server);
      }
      throw new ToolError(`the call of ${tool} on MCP server ${server} failed: ${errorMessage(err)}${why}`);
    }
  }

  /** Ends every connection and forgets the servers. */
  async closeAll(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    this.configs.clear();
    await Promise.all(all.map(c => c.client.close().catch(() => undefined)));
  }
}
