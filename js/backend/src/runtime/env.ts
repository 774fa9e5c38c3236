/**
 * The world a tool call runs in, as one value built at start (`createRuntimeEnv`, through index.ts's
 * `startRuntime`) and handed down: the sandbox chosen once (sandboxes.ts), the tool registry (the builtin
 * handlers and the tools registered while the backend runs), the MCP servers' connections and the clock.
 * Nothing in the runtime holds this state in a module: a test builds an environment of its own. In the
 * backend it is the container's object `runtimeEnv` (configuration.ts), injected with `@Inject('runtimeEnv')`.
 */
import { Clock, systemClock } from '../lib/clock';
import { McpServers } from './mcp/servers';
import type { Sandbox } from './sandboxes';
import { Implementation, implementationHandlers, parseImplementation } from './tools/kinds';
import { BUILTIN_HANDLERS } from './tools/builtin';
import { ToolRegistry } from './tools/registry';

/** One MCP tool of a listed server: its catalog name, its server and the server's own name of it. */
export interface McpToolRef {
  name: string;
  server: string;
  tool: string;
}

export interface RuntimeEnv {
  /** Where workers, shell commands and stdio MCP servers run. */
  readonly sandbox: Sandbox;
  /** The tools' handlers, by where they may run. */
  readonly tools: ToolRegistry;
  /** The MCP servers' connections, where their tools run. */
  readonly mcp: McpServers;
  readonly clock: Clock;
  /** Checks a catalog file entry's `implementation` (null when it has none) with its kind (tools/kinds.ts). */
  parseImplementation(value: unknown, base: string): Implementation | null;
  /** The catalog file's tools with an implementation, registered at start (they replace the file's earlier ones). */
  registerImplementations(implementations: ReadonlyMap<string, Implementation>): void;
  /** The listed MCP servers' tools, registered at each refresh (they replace the earlier ones). */
  registerMcpTools(tools: readonly McpToolRef[]): void;
}

export function createRuntimeEnv(opts: { sandbox: Sandbox; clock?: Clock; tools?: ToolRegistry }): RuntimeEnv {
  const tools = opts.tools ?? new ToolRegistry(BUILTIN_HANDLERS);
  const clock = opts.clock ?? systemClock;
  const mcp = new McpServers(opts.sandbox, clock);
  return {
    sandbox: opts.sandbox,
    tools,
    mcp,
    clock,
    parseImplementation,
    registerImplementations: implementations => tools.register('file', implementationHandlers(implementations, { mcp })),
    registerMcpTools: refs =>
      tools.register(
        'mcp',
        refs.map(r => ({ name: r.name, placement: 'main', run: mcp.tool(r.server, r.tool) }))
      ),
  };
}
