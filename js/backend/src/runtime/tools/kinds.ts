/**
 * The kinds of tool a catalog file entry may implement (`implementation: { type, … }`): each kind is one
 * handler file (its implementation's shape, how it is checked, the handler it makes) and one line in
 * `TOOL_KINDS`. The catalog file's entries are checked with `parseImplementation` when the file is read,
 * and their handlers registered in the runtime's registry at start (env.ts).
 */
import { COMMAND_KIND } from './command';
import { MCP_KIND } from './mcp';
import type { KindEnv, ToolHandler, ToolKind } from './types';

/** The kinds, one line each. */
const TOOL_KINDS = [COMMAND_KIND, MCP_KIND] as const;

/** An implementation of any kind. */
export type Implementation = (typeof TOOL_KINDS)[number] extends infer K ? (K extends ToolKind<infer I> ? I : never) : never;

const kindOf = (type: unknown): ToolKind<Implementation> | undefined => TOOL_KINDS.find(k => k.type === type) as ToolKind<Implementation> | undefined;

/** Checks an entry's `implementation` (null when it has none); relative programs are resolved against `base`. */
export function parseImplementation(value: unknown, base: string): Implementation | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error('implementation must be an object');
  const v = value as Record<string, unknown>;
  const kind = kindOf(v.type);
  if (!kind) throw new Error(`implementation.type must be ${TOOL_KINDS.map(k => JSON.stringify(k.type)).join(' or ')}, got ${JSON.stringify(v.type)}`);
  return kind.parse(v, base);
}

/** The handlers of the tools with an implementation, by tool name. */
export function implementationHandlers(implementations: ReadonlyMap<string, Implementation>, env: KindEnv): ToolHandler[] {
  const out: ToolHandler[] = [];
  for (const [name, impl] of implementations) {
    const kind = kindOf(impl.type);
    if (kind) out.push(kind.handler(name, impl, env));
  }
  return out;
}
