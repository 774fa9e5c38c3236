// Shapes of the backend's HTTP API (docs/backend-api.md). The policy's own types and vocabularies
// (Capability, CrewRole, RoutingStrategy, ToolManifest, …) are the package's, never restated here.
import type { Capability, CrewRole, RoutingStrategy } from '@netaclaw/tool-policy';

export type { Capability, CrewRole, RoutingStrategy };

/** A `netaclaw_tool` row as the backend returns it. */
export interface ToolRow {
  id: number;
  createTime?: string;
  updateTime?: string;
  name: string;
  label: string | null;
  toolset: string;
  description: string | null;
  visibility: string | null;
  capability: string | null;
  status: number;
  isCore: number;
  canDisable: number;
  promptHint: string | null;
  sort: number;
  extra: unknown;
  workerRoutingStrategy: RoutingStrategy | null;
  /** +1 at every write; sent back with an edit so that a stale one is refused (409 conflict). */
  version: number;
}

/** The body of agent/add and agent/update (without id). */
export interface AgentInput {
  name: string;
  systemPrompt: string;
  modelCapability: Capability | null;
  memoryEnabled: boolean;
  skills: string[];
  crewRole: CrewRole | null;
  toolsets: string[] | null;
  tools: { disabled?: string[] } | null;
  /** The model channel; null = the default channel. */
  modelChannelId: number | null;
  /** The tools its sub-agents may use; null = every tool the agent gets. */
  subagentTools: string[] | null;
}

export interface AgentRow extends AgentInput {
  id: number;
  version: number;
  createTime?: string;
  updateTime?: string;
}

export interface Page<T> {
  list: T[];
  pagination: { page: number; size: number; total: number };
}

export interface PromptLayer {
  key: string;
  title: string;
  content: string;
}

export interface PreviewPromptResult {
  layers: PromptLayer[];
  toolNames: string[];
  builtinToolNames: string[];
  toolPromptHints: Record<string, string>;
  disabledReasons: { name: string; reason: string }[];
  warnings: { code: string; subject: string }[];
  modelCapability: string;
}

/** A model channel as the backend shows it (the key is never sent back). */
export interface ChannelView {
  id: number;
  name: string;
  baseUrl: string;
  model: string;
  capability: Capability;
  isDefault: boolean;
  hasApiKey: boolean;
  apiKeyMasked: string | null;
}

export interface SyncResult {
  inserts: number;
  updates: number;
  orphans: string[];
}

// ---- the agent runtime: model channels, chat sessions, sub-agent batches (docs/backend-api.md, docs/runtime.md)

/** The body of channel/add; channel/update takes any part of it (no `apiKey` = keep the key). */
export interface ChannelInput {
  name?: string;
  baseUrl?: string;
  model?: string;
  apiKey?: string | null;
  capability?: Capability;
  isDefault?: boolean;
}

/** The session fields of a chat (fixed when its session is created). */
export interface SessionFields {
  sessionCwd: string | null;
  workspaceRoots: string[];
  shellPermitted: boolean;
  writePermitted: boolean;
}

/** A `netaclaw_session` row. */
export interface SessionRow {
  id: number;
  agentId: number;
  channelId: number | null;
  sessionCwd: string | null;
  workspaceRoots: string[] | null;
  shellPermitted: boolean | number;
  writePermitted: boolean | number;
  crewRole: string | null;
  title: string;
  createTime?: string;
  updateTime?: string;
}

/** A tool call as the model sent it (arguments: its JSON text). */
export interface ModelToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A `netaclaw_message` row: `error` messages are turns that failed (`name` = the error code). */
export interface SessionMessage {
  id: number;
  seq: number;
  role: 'user' | 'assistant' | 'tool' | 'error';
  content: string | null;
  toolCalls: ModelToolCall[] | null;
  toolCallId: string | null;
  name: string | null;
  createTime?: string;
}

/** A recorded tool call (`netaclaw_tool_call`): the decision, its reason and what came of it. */
export interface StoredCall {
  seq: number;
  name: string;
  arguments: unknown;
  decision: string;
  reason: string | null;
  ok: boolean;
  output?: string;
  error?: string;
  durationMs: number;
}

export interface SessionInfo extends SessionRow {
  messages: SessionMessage[];
  /** The main agent's calls, in order (a sub-agent's are its batch's). */
  calls: StoredCall[];
}

/** A tool call of a chat turn: the runtime's record with the model's call id. */
export interface ChatToolCall extends Omit<StoredCall, 'seq'> {
  id: string;
  detail?: string | null;
}

export interface ChatAnswer {
  sessionId: number;
  reply: string;
  toolCalls: ChatToolCall[];
  batchIds: number[];
  stopReason: 'stop' | 'length' | 'step_limit';
}

/** What the chat WebSocket streams (docs/runtime.md, "The chat gateway"). */
export type ChatEvent =
  | { type: 'delta'; sessionId: number; batchId: number | null; text: string }
  | { type: 'tool-call'; sessionId: number; batchId: number | null; id: string; name: string; arguments: unknown }
  | ({ type: 'tool-result'; sessionId: number; batchId: number | null } & ChatToolCall)
  | { type: 'batch'; sessionId: number; batchId: number; status: BatchStatus; task: string; reply?: string; error?: string }
  | ({ type: 'done' } & ChatAnswer)
  | { type: 'error'; sessionId: number | null; code: string; message: string };

export type BatchStatus = 'running' | 'completed' | 'failed' | 'killed';

/** The worker policy a batch runs under (the package's, as stored). */
export interface BatchPolicy {
  workspaceRoots: string[];
  allowShell: boolean;
  readonly: boolean;
}

/** A `netaclaw_subagent_batch` row (the page and info answers; info adds `calls`). */
export interface BatchRow {
  id: number;
  agentId: number;
  parentBatchId: number | null;
  sessionId: string | null;
  crewRole: string;
  sessionCwd: string | null;
  workspaceRoots: string[];
  shellPermitted: boolean;
  writePermitted: boolean;
  policy: BatchPolicy;
  /** The routes stored with the batch (the package's ToolRuntimeRoute[]). */
  routes: import('@netaclaw/tool-policy').ToolRuntimeRoute[];
  driver: 'model' | 'calls';
  status: BatchStatus;
  error: string | null;
  createTime?: string;
  endTime?: string | null;
}

export interface BatchRecord extends BatchRow {
  calls: StoredCall[];
}

/** The body of POST /admin/netaclaw/subagent/run. */
export interface BatchRunInput {
  agentId: number;
  sessionCwd?: string | null;
  workspaceRoots?: string[];
  shellPermitted?: boolean;
  writePermitted?: boolean;
  subagentTools?: string[] | null;
  calls: { name: string; arguments: unknown }[];
  timeoutMs?: number;
}
