/**
 * The one tool registry. Each tool is a handler: its name, where it may run and its implementation
 * (`ToolHandler`, the placement declared beside the code, as codex-rs pairs a handler with its spec). The
 * builtin handlers are listed once (builtin.ts `BUILTIN_HANDLERS`); the tools registered while the backend runs (a
 * catalog file's command tools, the MCP servers' tools) join under their origin (`register`). A worker
 * takes the handlers that may run in a worker, the main process those that may run there.
 *
 * A handler that puts a question to the user (`asks`, the `clarify` tool) is declared here too: the
 * executor pauses the main agent's turn with it (`askers`), a sub-agent's call runs it as any other.
 *
 * Where a tool runs for a call is the package's decision (its routes); the placement only says which
 * process has its code. A route to a process without the handler is answered `no implementation of … here`.
 */
import type { ToolHandler, ToolImpl } from './types';

export type { Placement, ToolHandler } from './types';

/** Where the tools run that were registered while the backend runs: the catalog file's, the MCP servers'. */
export type ToolOrigin = 'file' | 'mcp';

/** The handlers that may run in a process (`main` or `worker`), by name; an earlier handler wins. */
function tableOf(handlers: readonly ToolHandler[], where: 'main' | 'worker'): Readonly<Record<string, ToolImpl>> {
  const table: Record<string, ToolImpl> = {};
  for (const h of handlers) {
    if ((h.placement === 'both' || h.placement === where) && !Object.prototype.hasOwnProperty.call(table, h.name)) table[h.name] = h.run;
  }
  return Object.freeze(table);
}

/**
 * The registry of one process: the builtin handlers, then the handlers each origin registered (replaced as a
 * whole when the origin registers again: the MCP servers refresh). A builtin keeps its name: a registered
 * handler of the same name never replaces it.
 */
export class ToolRegistry {
  private readonly origins = new Map<ToolOrigin, readonly ToolHandler[]>();
  private tables: { main: Readonly<Record<string, ToolImpl>>; worker: Readonly<Record<string, ToolImpl>> } | null = null;

  /** `builtin`: the builtin handlers (builtin.ts: every one; a worker passes the worker's, whose code it may read). */
  constructor(private readonly builtin: readonly ToolHandler[]) {}

  /** Replaces the handlers registered by one origin. */
  register(origin: ToolOrigin, handlers: readonly ToolHandler[]): void {
    this.origins.set(origin, [...handlers]);
    this.tables = null;
  }

  /** The implementations that may run in `where`, by name, as registered now. */
  table(where: 'main' | 'worker'): Readonly<Record<string, ToolImpl>> {
    if (!this.tables) {
      const all = [...this.builtin, ...[...this.origins.values()].flat()];
      this.tables = { main: tableOf(all, 'main'), worker: tableOf(all, 'worker') };
    }
    return this.tables[where];
  }

  /**
   * The tools that put a question to the user, by name (`ToolHandler.asks`, builtin first): the executor
   * pauses its main agent's turn with their question instead of running them; a sub-agent's call runs
   * `run` where the package routes it.
   */
  askers(): Readonly<Record<string, NonNullable<ToolHandler['asks']>>> {
    const out: Record<string, NonNullable<ToolHandler['asks']>> = {};
    for (const h of [...this.builtin, ...[...this.origins.values()].flat()]) {
      if (h.asks && !Object.prototype.hasOwnProperty.call(out, h.name)) out[h.name] = h.asks;
    }
    return out;
  }

  /** The names registered by an origin (for the start log and tests). */
  names(origin: ToolOrigin): string[] {
    return (this.origins.get(origin) ?? []).map(h => h.name);
  }
}
