import type { GatePath } from '../gate';
import type { Operations, Within } from '../operations/types';
import type { ResultMedia, WorkerPolicyWire } from '../protocol';
import type { Sandbox } from '../sandboxes';

export type { ResultMedia };

/** What a main-process tool needs beyond operations (the database, the skills folder). */
export interface MainServices {
  memory: {
    save(agentId: number, content: string): Promise<{ id: number }>;
    recall(agentId: number, query: string, limit: number): Promise<Array<{ id: number; content: string; createTime: Date }>>;
  };
  /** Folder holding one sub-folder per skill. */
  skillsDir: string;
  /**
   * The names of the skills bound to the agent (its `skills` column). Tools whose manifest has
   * `requiresSkillScope` act only on these.
   */
  boundSkills(): Promise<readonly string[]>;
  /** The todo list of the current batch or session. */
  todos: { set(items: Array<{ text: string; done: boolean }>): void | Promise<void> };
  /** The escalations of the current session or batch (the `escalate` tool): recorded for an operator. */
  escalations: { record(agentId: number, reason: string): Promise<{ id: number }> };
}

export interface ToolContext {
  ops: Operations;
  policy: WorkerPolicyWire;
  /** The paths the gate returned for this call (absolute, normalized, symlink-checked). */
  paths: GatePath[];
  /**
   * What the operations check opened paths against: the workspace roots (null only when a test switches
   * the host symlink check off).
   */
  within: Within;
  /** Where shell commands run here (sandboxes.ts). */
  sandbox: Sandbox;
  agentId: number | null;
  services: MainServices | null;
}

/** A tool's answer: its text, and an error when the tool ran but failed (a non-zero exit). */
export interface ToolOutput {
  output: string;
  error?: string;
  /** Images and audio the answer carries besides its text (main process only: never sent to a worker). */
  media?: ResultMedia[];
}

export type ToolImpl = (args: Record<string, unknown>, ctx: ToolContext) => Promise<string | ToolOutput>;

/** Where a handler's code may run: the main process, a worker, or both (registry.ts). */
export type Placement = 'main' | 'worker' | 'both';

/** One tool: its name, where it may run, and its implementation (registry.ts). */
export interface ToolHandler {
  name: string;
  placement: Placement;
  run: ToolImpl;
  /**
   * A tool that puts a question to the user: called by an agent a user answers (the chat's main agent),
   * the call pauses the turn with this question (the executor stops the turn there; the session's next
   * message is the answer) and `run` is not called. `run` answers every other caller (a sub-agent's call,
   * proxied from its worker).
   */
  asks?(args: Record<string, unknown>): { question: string };
}

/** A failure the caller should see as the call's error (bad argument value, file missing…). */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

/** What a tool kind's handler may use of the runtime (kinds.ts). */
export interface KindEnv {
  /** The MCP servers' connections: the implementation of one server's tool. */
  mcp: { tool(server: string, tool: string): ToolImpl };
}

/**
 * A kind of tool a catalog file entry may implement (`implementation: { type, … }`; kinds.ts): how its
 * implementation is checked and the handler it makes.
 */
export interface ToolKind<I extends { type: string }> {
  /** The `implementation.type` that names it. */
  type: I['type'];
  /** Checks an implementation of this kind (`v.type` is this kind's); relative paths are resolved against `base`. */
  parse(v: Record<string, unknown>, base: string): I;
  /** The handler of the tool `name` with this implementation. */
  handler(name: string, impl: I, env: KindEnv): ToolHandler;
}
