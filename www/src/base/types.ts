// Shapes of the backend's HTTP API (docs/backend-api.md). The policy's own types and vocabularies
// (Capability, CrewRole, RoutingStrategy, ToolManifest, …) are the package's, and the wire types the
// backend's services build are its api-types.ts: both are imported, never restated here.
import type { Capability, CrewRole, RoutingStrategy } from '@netaclaw/tool-policy';
import type {
  AgentFields,
  ApprovalView,
  ChatSessionFields,
  EscalationRecord,
  McpServerConfig,
  PendingQuestion,
  StoredCall,
  TodoItem,
} from '../../../js/backend/src/wire/api-types';

export type { Capability, CrewRole, RoutingStrategy };
export type {
  BatchPolicy,
  BatchRecord,
  BatchRow,
  BatchStatus,
  ApprovalAnswerKind,
  ApprovalAnswered,
  ApprovalView,
  ChannelView,
  ChatAnswer,
  ChatAttached,
  ChatEvent,
  ChatToolCall,
  EscalationRecord,
  EscalationStatus,
  GlobalRules,
  GlobalRulesView,
  PendingQuestion,
  McpServerState,
  McpServerView,
  NetDecisionView,
  NetRefusal,
  SkillView,
  StoredCall,
  TodoItem,
} from '../../../js/backend/src/wire/api-types';
export { MCP_ENV_NAME, MCP_NAME, MESSAGE_MAX_CHARS, RESOLUTION_MAX_CHARS, newAgentFields } from '../../../js/backend/src/wire/api-types';

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
export type AgentInput = AgentFields;

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

/**
 * The body of mcp/add; mcp/update takes any part of it. `env` sent replaces the stored one; a value `null`
 * keeps the value stored under that name (the API shows values only masked).
 */
export interface McpInput {
  name?: string;
  transport?: 'stdio' | 'http';
  command?: string | null;
  args?: string[] | null;
  url?: string | null;
  env?: Record<string, string | null> | null;
  workspaceRoots?: string[] | null;
  /** Tool → argument → `read` | `write`: which arguments are paths (the whole map replaces the stored one). */
  pathMarks?: McpServerConfig['pathMarks'] | null;
  enabled?: boolean;
}

/** The session fields of a chat (fixed when its session is created). */
export type SessionFields = ChatSessionFields;

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
  role: 'user' | 'assistant' | 'tool' | 'error' | 'question' | 'resolution';
  content: string | null;
  toolCalls: ModelToolCall[] | null;
  toolCallId: string | null;
  name: string | null;
  createTime?: string;
}

export interface SessionInfo extends SessionRow {
  messages: SessionMessage[];
  /** The main agent's calls, in order (a sub-agent's are its batch's). */
  calls: StoredCall[];
  /** The main agent's todo list (the `todo` tool). */
  todos: TodoItem[];
  /** The escalations of the session's agents (the `escalate` tool), open and resolved, oldest first. */
  escalations: EscalationRecord[];
  /** The question the session waits on (the `clarify` tool): the next message answers it. */
  pendingQuestion?: PendingQuestion | null;
  /** The calls a rule asks about that wait for the user's answer (the main agent's and its sub-agents'). */
  pendingApprovals?: ApprovalView[];
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
