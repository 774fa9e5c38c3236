/**
 * The runtime's front door: what the rest of the backend (agent/, service/, the doors, the entry) takes of
 * the runtime, and nothing else. `startRuntime` builds the process's RuntimeEnv once at start
 * (configuration.ts); everything that runs a call is handed that value (or, in a test, one of its own).
 * The tables others read (limits.ts, codes.ts) may also be imported directly.
 */
import { createRuntimeEnv, RuntimeEnv } from './env';
import { chooseSandbox } from './sandboxes';
import type { Clock } from '../lib/clock';

export type { McpToolRef, RuntimeEnv } from './env';
export { createRuntimeEnv } from './env';
export type { Clock, ClockTimer } from '../lib/clock';
export { ManualClock, systemClock } from '../lib/clock';
export type { Launch, Sandbox } from './sandboxes';
export { bwrapSandbox, chooseSandbox, offSandbox, unavailableSandbox } from './sandboxes';
export type { ShellMode } from './sandbox';
export type { Confinement } from './confine';
export type { ToolHandler, Placement, MainServices, ResultMedia, ToolImpl } from './tools/types';
export { ToolRegistry } from './tools/registry';
export { BUILTIN_HANDLERS } from './tools/builtin';
export type { ToolOrigin } from './tools/registry';
export type { Implementation } from './tools/kinds';
export type { McpListedTool } from './mcp/client';
export type { McpSupervisor } from './mcp/servers';
export type { CallRecord, HostEvent, HostOptions, HostTestOptions } from './host';
export { WorkerError, WorkerHost } from './host';
export type { CallOutcome, Driver, WorkerPolicyWire } from './protocol';
export type { AskMode, GateResult, GatePath } from './gate';
export { checkCall, checkCallText } from './gate';
export type { Operations } from './operations/types';
export { NodeFileSystemOperations } from './operations/fs';
export { NodeSearchOperations } from './operations/search';
export { ShellProcessOperations } from './operations/process';
export { PinnedRoots, pinRoots, RootPinError } from './pinned';
export { isInside, realOrAncestor } from './realpath';
export { assertWorkdirUsable } from './workdir';

/** The process's runtime, built once at start: the sandbox chosen (and probed), the registry, the MCP servers. */
export async function startRuntime(opts: { clock?: Clock } = {}): Promise<RuntimeEnv> {
  return createRuntimeEnv({ sandbox: await chooseSandbox(), ...opts });
}
export type { NetAnswer, NetAnswerKind, NetHooks, NetNote, NetQuestion, NetRecord } from './net/proxy';
