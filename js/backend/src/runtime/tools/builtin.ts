/**
 * Every builtin tool's handler, listed once: the worker's (local.ts, which a worker loads alone: its
 * permission model lets it read no other code) and the main process's (main.ts). Delegation and the main
 * agent's question that pauses its turn are the executor's own (agent/).
 */
import { LOCAL_HANDLERS } from './local';
import { MAIN_HANDLERS } from './main';
import type { ToolHandler } from './types';

export const BUILTIN_HANDLERS: readonly ToolHandler[] = [...LOCAL_HANDLERS, ...MAIN_HANDLERS];
