/**
 * Implementations of tools that are not builtins, registered while the backend runs: a catalog file
 * entry's `implementation` (a command run in the shell sandbox) and the tools of MCP servers (forwarded
 * to their server). They run in the main process — their manifests are `main-process-proxy` — after the
 * main process has decided the call again (L4), with exactly the arguments decided.
 */
import * as fs from 'fs';
import * as path from 'path';
import { realOrAncestor } from '../realpath';
import { execOutput } from './local';
import { MAIN_TOOLS } from './main';
import { ToolError, ToolImpl } from './types';

/** `implementation: { type: 'command', command: [...], timeoutMs? }` of a catalog file entry. */
export interface CommandImplementation {
  type: 'command';
  /** The program (an absolute path, or one relative to the catalog file's folder) and its fixed arguments. */
  command: string[];
  timeoutMs: number;
}

/** `implementation: { type: 'mcp', server, tool }`: a tool of an MCP server configured in the database. */
export interface McpImplementation {
  type: 'mcp';
  server: string;
  tool: string;
}

export type Implementation = CommandImplementation | McpImplementation;

let extra: Record<string, ToolImpl> = {};

/** Replaces the registered implementations of one origin (`file` or `mcp`). */
const origins = new Map<string, Record<string, ToolImpl>>();
export function setCustomTools(origin: 'file' | 'mcp', tools: Record<string, ToolImpl>): void {
  origins.set(origin, tools);
  extra = Object.assign({}, ...origins.values());
}

/** The main process's registry: the builtins it runs, then the custom tools registered now. */
export function mainTools(): Readonly<Record<string, ToolImpl>> {
  return { ...extra, ...MAIN_TOOLS };
}

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * A command tool: the program runs in the shell sandbox (the workspace roots bound, read-only under
 * `readonly`; the program's folder bound read-only; no network), in the first root, with the call's
 * arguments as one JSON document on its stdin. Its output is the tool's answer; a non-zero exit is a
 * failed call.
 */
export function commandTool(impl: CommandImplementation): ToolImpl {
  return async (args, ctx) => {
    const roots = ctx.policy.workspaceRoots;
    const program = impl.command[0];
    if (!fs.existsSync(program)) throw new ToolError(`the program of this tool, ${program}, does not exist`);
    const realProgram = await realOrAncestor(program);
    const command = [realProgram, ...impl.command.slice(1)].map(quote).join(' ');
    const r = await ctx.ops.process.exec({
      command,
      cwd: roots[0] ?? '/',
      roots,
      readonly: ctx.policy.readonly,
      readOnlyBinds: [path.dirname(realProgram)],
      timeoutMs: impl.timeoutMs,
      stdin: JSON.stringify(args),
    });
    return execOutput(r, impl.timeoutMs);
  };
}

/** The command tools of a catalog file (its entries whose `implementation` is a command), by name. */
export function commandTools(implementations: ReadonlyMap<string, Implementation>): Record<string, ToolImpl> {
  const tools: Record<string, ToolImpl> = {};
  for (const [name, impl] of implementations) if (impl.type === 'command') tools[name] = commandTool(impl);
  return tools;
}
