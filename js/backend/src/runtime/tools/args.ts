/** Reading a tool's arguments: the gate has validated their shape; these helpers keep the types honest. */
import type { ToolContext } from './types';
import { ToolError } from './types';

export function str(args: Record<string, unknown>, key: string): string {
  const v = args[key];
  if (typeof v !== 'string') throw new ToolError(`${key} must be a string`);
  return v;
}

export function optStr(args: Record<string, unknown>, key: string): string | null {
  const v = args[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new ToolError(`${key} must be a string`);
  return v;
}

export function optInt(args: Record<string, unknown>, key: string, min: number, max: number): number | null {
  const v = args[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new ToolError(`${key} must be an integer between ${min} and ${max}`);
  }
  return v;
}

/**
 * The gate's absolute path for an argument. Without one, `fallback` 'root' gives the first workspace root
 * (the default of list_dir, find_files and grep); 'none' is an error (never guess a path the gate did not check).
 */
export function gatePath(ctx: ToolContext, argument: string, fallback: 'root' | 'none'): string {
  const p = ctx.paths.find(x => x.argument === argument);
  if (p) return p.path;
  if (fallback === 'root' && ctx.policy.workspaceRoots.length > 0) return ctx.policy.workspaceRoots[0];
  throw new ToolError(`no checked path for ${argument}`);
}
