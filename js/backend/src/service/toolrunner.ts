import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import type { CrewRole, ToolRuntimeRoute, WorkerPolicy } from '../policy';

/** One tool call as the runtime decided and ran it (RUNTIME.md §5). */
export interface CallRecord {
  seq: number;
  name: string;
  arguments: unknown;
  decision: string;
  reason: string | null;
  detail?: string | null;
  ok: boolean;
  output?: string;
  error?: string;
  durationMs: number;
}

/** A running sub-agent batch (one worker process). */
export interface BatchHandle {
  id: number;
  policy: WorkerPolicy;
  routes: ToolRuntimeRoute[];
  call(name: string, args: unknown): Promise<CallRecord>;
  finish(): Promise<unknown>;
  kill(reason: string): Promise<unknown>;
}

export interface BatchSpec {
  agentId: number;
  sessionId: number;
  crewRole: CrewRole;
  driver: 'model';
  sessionCwd: string | null;
  workspaceRoots: string[];
  shellPermitted: boolean;
  writePermitted: boolean;
  parent: WorkerPolicy;
  subagentTools: string[] | null;
}

export interface MainToolCall {
  agentId: number;
  sessionId: number;
  policy: WorkerPolicy;
  routes: ToolRuntimeRoute[];
  name: string;
  args: unknown;
}

/**
 * What the executor needs from the tool runtime: main-process calls under the session's policy and
 * routes (L1 gate, recorded), and sub-agent batches.
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class ToolRunner {
  async runMainTool(call: MainToolCall): Promise<CallRecord> {
    return {
      seq: 0,
      name: call.name,
      arguments: call.args,
      decision: 'denied',
      reason: null,
      ok: false,
      error: 'the tool runtime is not part of this build',
      durationMs: 0,
    };
  }

  async start(_spec: BatchSpec): Promise<BatchHandle> {
    throw new Error('the sub-agent runtime is not part of this build');
  }
}
