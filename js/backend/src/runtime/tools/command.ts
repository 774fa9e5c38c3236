/**
 * The `command` tool kind: a catalog file entry's `implementation: { type: 'command', command: [...],
 * timeoutMs? }` runs its program in the shell sandbox. It runs in the main process — its manifest is
 * `main-process-proxy` — after the main process has decided the call again (L4), with exactly the
 * arguments decided. (kinds.ts registers it; docs/architecture.md shows it as the example of a kind.)
 */
import * as fs from 'fs';
import * as path from 'path';
import { SHELL_TIMEOUT_DEFAULT_MS } from '../limits';
import { realOrAncestor } from '../realpath';
import { execOutput } from './local';
import { ToolError, ToolImpl, ToolKind } from './types';

/** `implementation: { type: 'command', command: [...], timeoutMs? }` of a catalog file entry. */
export interface CommandImplementation {
  type: 'command';
  /** The program (an absolute path, or one relative to the catalog file's folder) and its fixed arguments. */
  command: string[];
  timeoutMs: number;
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

export const COMMAND_KIND: ToolKind<CommandImplementation> = {
  type: 'command',
  parse(v, base) {
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
  },
  handler: (name, impl) => ({ name, placement: 'main', run: commandTool(impl) }),
};
