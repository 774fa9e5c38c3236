/**
 * Implementations of tools that are not builtins, registered while the backend runs: a catalog file
 * entry's `implementation` (a command run in the shell sandbox) and the tools of MCP servers (forwarded
 * to their server). They run in the main process — their manifests are `main-process-proxy` — after the
 * main process has decided the call again (L4), with exactly the arguments decided.
 */
import * as fs from 'fs';
import * as path from 'path';
import { SHELL_TIMEOUT_DEFAULT_MS } from '../limits';
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

/** Checks an entry's `implementation` (null when it has none); relative programs are resolved against `base`. */
export function parseImplementation(value: unknown, base: string): Implementation | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error('implementation must be an object');
  const v = value as Record<string, unknown>;
  if (v.type === 'command') {
    const c = v.command;
    if (!Array.isArray(c) || c.length === 0 || c.some(x => typeof x !== 'string' || x === '')) {
      throw new Error('implementation.command must be a non-empty list of non-empty strings (the program, then its arguments)');
    }
    const program = path.resolve(base, c[0] as string);
    if (!fs.existsSync(program)) throw new Error(`implementation.command[0]: ${program} does not exist`);
    const t = v.timeoutMs;
    if (t !== undefined && (typeof t !== 'number' || !Number.isInteger(t) || t < 1 || t > 600_000)) {
      throw new Error('implementation.timeoutMs must be an integer from 1 to 600000');
    }
    return { type: 'command', command: [program, ...(c.slice(1) as string[])], timeoutMs: (t as number | undefined) ?? SHELL_TIMEOUT_DEFAULT_MS };
  }
  if (v.type === 'mcp') {
    if (typeof v.server !== 'string' || v.server === '') throw new Error('implementation.server must name an MCP server');
    if (typeof v.tool !== 'string' || v.tool === '') throw new Error('implementation.tool must name a tool of that server');
    return { type: 'mcp', server: v.server, tool: v.tool };
  }
  throw new Error(`implementation.type must be "command" or "mcp", got ${JSON.stringify(v.type)}`);
}
