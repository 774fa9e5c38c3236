/**
 * Every builtin tool's handler, listed once: the worker's (local.ts, which a worker loads alone: its
 * permission model lets it read no other code) and the main process's (main.ts, `clarify` among them: its
 * question pauses the main agent's turn, registry.ts `askers`). Delegation is the executor's own (agent/).
 */
import { LOCAL_HANDLERS } from './local';
import { MAIN_HANDLERS } from './main';
import type { ToolHandler } from './types';

export const BUILTIN_HANDLERS: readonly ToolHandler[] = [...LOCAL_HANDLERS, ...MAIN_HANDLERS];
