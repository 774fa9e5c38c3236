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
