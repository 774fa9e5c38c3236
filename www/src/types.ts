// Shapes of the backend's HTTP API (docs/backend-api.md). The policy types themselves
// (ToolManifest, RuntimeDiagnostic, …) come from @netaclaw/tool-policy via ./policy.

export type Capability = 'text' | 'vision' | 'multimodal';
export type CrewRole = 'master' | 'sub';
export type RoutingStrategy = 'auto' | 'force-local' | 'force-main-process-proxy' | 'force-disabled';

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

export interface SyncResult {
  inserts: number;
  updates: number;
  orphans: string[];
}
