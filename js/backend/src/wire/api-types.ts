/**
 * The wire types of the backend's HTTP and WebSocket API (docs/backend-api.md, docs/runtime.md): what the
 * services answer, and what the pages (www) read, with `import type`. The one place these shapes are
 * written. No imports but the package's types: the pages load this file as it is, without Midway or
 * TypeORM. A `Time` parameter is the type of a timestamp: a `Date` in the backend, its JSON string on
 * the wire (the default).
 */
import type { Capability, CrewRole, LevelRulesInput, RuleDefaults, RuleMatch, ToolRuntimeRoute } from '@netaclaw/tool-policy';

export type { LevelRulesInput };

/** The fields of an agent an AgentInput sets (agent/add, agent/update, a draft of agent/previewPrompt). */
export interface AgentFields {
  name: string;
  systemPrompt: string | null;
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
  /** The agents of its crew (ids): `delegate_task` may hand a task to one of them by name; null = none. */
  crewMembers: number[] | null;
  /**
   * The agent's rules (allow / ask / deny patterns and a default; docs/package.md "Rules"): they narrow
   * the global rules, never widen them; null = none.
   */
  rules: LevelRulesInput | null;
}

/** The admin's global rules (stored in the database): a level's rules and the protected paths (absent: the package's default list). */
export type GlobalRules = LevelRulesInput & { protectedPaths?: string[] | null };

/** GET rules/info and POST rules/update: the stored global rules, what the editor offers, the version they were read at. */
export interface GlobalRulesView {
  rules: GlobalRules | null;
  defaults: RuleDefaults;
  version: number;
}

/** The longest chat message, in characters (the chat DTO's limit; the pages' message box counts to it). */
export const MESSAGE_MAX_CHARS = 65536;

/**
 * The fields of a new agent that its input leaves out (a new agent in the page's form starts from them
 * too): no prompt, capability or role of its own, memory off, no skills, the default toolsets, nothing
 * disabled, the default channel, every tool for its sub-agents.
 */
export function newAgentFields(): Omit<AgentFields, 'name'> {
  return {
    systemPrompt: null,
    modelCapability: null,
    memoryEnabled: false,
    skills: [],
    crewRole: null,
    toolsets: null,
    tools: null,
    modelChannelId: null,
    subagentTools: null,
    crewMembers: null,
    rules: null,
  };
}

/** The session fields of a chat (fixed when its session is created). */
/** An installed skill (GET /admin/netaclaw/skill/list): its folder name and what its SKILL.md says of it. */
export interface SkillView {
  name: string;
  description: string | null;
}

export interface ChatSessionFields {
  sessionCwd: string | null;
  workspaceRoots: string[];
  shellPermitted: boolean;
  writePermitted: boolean;
}

/** A model channel as the API shows it: the key is never sent back whole. */
export interface ChannelView<Time = string> {
  id: number;
  name: string;
  baseUrl: string;
  model: string;
  capability: Capability;
  isDefault: boolean;
  hasApiKey: boolean;
  apiKeyMasked: string | null;
  createTime: Time;
  updateTime: Time;
}

/** An MCP server's name: it becomes part of tool names (`mcp__<name>__<tool>`) and of a toolset (`mcp:<name>`). */
export const MCP_NAME = /^[a-z0-9][a-z0-9_-]{0,29}$/;
/** A key of an MCP server's `env`: a variable name. */
export const MCP_ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What a connection needs of an MCP server (`netaclaw_mcp_server`): how it is started or reached. */
export interface McpServerConfig {
  name: string;
  transport: 'stdio' | 'http';
  command: string | null;
  args: string[];
  url: string | null;
  env: Record<string, string>;
  workspaceRoots: string[];
  /** Tool → argument → `read` | `write`: arguments the admin marked as paths (checked like a builtin's). */
  pathMarks: Record<string, Record<string, 'read' | 'write'>>;
}

/** The state of an MCP server in the backend since its last start or refresh. */
export interface McpServerState<Time = string> {
  /** `connected`: its tools are in the catalog; `failed`: it could not be started or listed; `disabled`; `pending`: not listed yet. */
  status: 'connected' | 'failed' | 'disabled' | 'pending';
  /** Catalog names of its tools (`mcp__<server>__<tool>`). */
  tools: string[];
  /** Tools it lists that cannot join the catalog, with why. */
  skipped: Array<{ tool: string; reason: string }>;
  error: string | null;
  refreshedAt: Time | null;
  /** A stdio server whose process ended or could not start: the last lines (at most 10) of its stderr. */
  stderr: string[];
  /** When a stdio server that is down is started again (backoff), else null. */
  nextRetryAt: Time | null;
  /** Restarts since it last ran for a stable period (0 while it runs well). */
  restarts: number;
  /**
   * The last connection the global `net()` rules refused for this server since its last start or refresh
   * (its HTTP URL's host, or a host its stdio process asked its proxy for), else null.
   */
  refused: McpNetRefusal<Time> | null;
}

/** A connection refused for an MCP server: the host and port, the deciding rule (null: none allowed it), the sentence. */
export interface McpNetRefusal<Time = string> {
  at: Time;
  host: string;
  port: number;
  rule: string | null;
  level: 'global' | 'agent' | 'session' | null;
  message: string;
}

/** An MCP server as the API shows it: `env` values masked like a channel key. */
export interface McpServerView<Time = string> extends McpServerConfig {
  id: number;
  enabled: boolean;
  state: McpServerState<Time>;
  createTime: Time;
  updateTime: Time;
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
  /** The rule that decided the call (the package's `RuleMatch`: effect, level, source, pattern, kind, subject), when one spoke. */
  rule?: RuleMatch | null;
  /** The connections of the sandbox network refused during the call (absent: none). */
  network?: NetRefusal[];
}

export type BatchStatus = 'running' | 'completed' | 'failed' | 'killed';

/** The worker policy a batch runs under (the package's, as stored). */
export interface BatchPolicy {
  workspaceRoots: string[];
  allowShell: boolean;
  readonly: boolean;
}

/** A `netaclaw_subagent_batch` row (the page answer; info adds `calls`, see BatchRecord). */
export interface BatchRow<Time = string> {
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
  routes: ToolRuntimeRoute[];
  driver: 'model' | 'calls';
  status: BatchStatus;
  error: string | null;
  createTime: Time;
  endTime: Time | null;
}

/** A batch with its calls, in order. */
export interface BatchRecord<Time = string> extends BatchRow<Time> {
  calls: StoredCall[];
}

/** A tool call of a chat turn: the runtime's record with the model's call id. */
export interface ChatToolCall extends Omit<StoredCall, 'seq'> {
  id: string;
  /** What the runtime adds to a denial (absent from a stored call). */
  detail?: string | null;
}

/** The answer of a chat turn (POST /api/chat, and the `done` event of the WebSocket). */
export interface ChatAnswer {
  sessionId: number;
  reply: string;
  toolCalls: ChatToolCall[];
  batchIds: number[];
  /**
   * `stop` (answered without calls), `length` (reply cut at the limit), `step_limit`, `clarify` (the agent
   * asked the user a question: the session waits, the next message is the answer), `approval` (a rule
   * asks about one of its calls: the turn waits for the user's answer to `approval`).
   */
  stopReason: 'stop' | 'length' | 'step_limit' | 'clarify' | 'approval';
  /** With `stopReason: 'clarify'`: the question the session waits on. */
  clarify?: PendingQuestion;
  /** With `stopReason: 'approval'`: the approval the turn waits on. */
  approval?: ApprovalView;
}

/** `pending` until answered; `allowed` (once or for the session), `denied` (by the user), `expired` (nobody answered in time). */
export type ApprovalStatus = 'pending' | 'allowed' | 'denied' | 'expired';

/** The user's answer to an approval (`timeout`: the wait of a sub-agent's call ran out). */
export type ApprovalAnswerKind = 'once' | 'session' | 'deny' | 'timeout';

/**
 * A call a rule asks about (`netaclaw_approval`, docs/runtime.md "Approvals"): the call as the package
 * read it, the rule that asked (the package's `RuleMatch`), and its answer once given.
 */
export interface ApprovalView {
  id: number;
  sessionId: number;
  /** The sub-agent batch whose call waits; null for the main agent's (its turn stopped). */
  batchId: number | null;
  /** The model's call id. */
  callId: string;
  toolName: string;
  /** The arguments as the package read them. */
  arguments: unknown;
  /** What the rule asked about: the command, the path or the tool. */
  subject: string;
  rule: RuleMatch;
  /** The package's sentence about it. */
  detail: string | null;
  status: ApprovalStatus;
  answer: ApprovalAnswerKind | null;
  /** Who answered: `login:<id>` (a login session of the pages, by its first characters) or `token` (the admin token). */
  answeredBy: string | null;
  answerTime: string | null;
  createTime: string;
}

/**
 * One decided connection of a sandbox network (`netaclaw_net_decision`, docs/runtime.md "Network"):
 * `decision` is the rule's (`allow`, `ask`, `deny`; no rule: `deny`), `outcome` what happened, `answer`
 * the user's answer to an `ask` (`none`: no one could approve it there).
 */
export interface NetDecisionView {
  id: number;
  sessionId: number | null;
  batchId: number | null;
  /** The tool call in progress in the sandbox when it connected. */
  toolName: string | null;
  host: string;
  port: number;
  /** `CONNECT` (a tunnel: HTTPS) or the method of a plain HTTP request. */
  method: string;
  decision: 'allow' | 'ask' | 'deny';
  outcome: 'connected' | 'refused' | 'failed';
  answer: 'once' | 'session' | 'deny' | 'timeout' | 'none' | null;
  approvalId: number | null;
  /** The rule that decided (`net(*.example.org:443)`); null when none matched (no host by default). */
  rule: string | null;
  level: string | null;
  /** The proxy's sentence: the refusal the client got, or the address it was connected to. */
  detail: string;
  createTime: string;
}

/**
 * A connection refused during a call (its card on the chat page names the host and the rule): `why` says
 * what refused it — a deny rule (`rule`), no rule (`default`), an IP address no rule names (`address`),
 * the user (`denied`), no answer in time (`timeout`), no one to ask (`none`); `text` is the model's note.
 */
export interface NetRefusal {
  host: string;
  port: number;
  rule: string | null;
  level: string | null;
  why: 'rule' | 'default' | 'address' | 'denied' | 'timeout' | 'none';
  text: string;
}

/** What answering an approval returns: the approval as answered and, for the main agent's, the resumed turn's answer. */
export type ApprovalAnswered = { answered: ApprovalView } & Partial<ChatAnswer>;

/** A question a session waits on (the `clarify` tool): its call id and the question. */
export interface PendingQuestion {
  callId: string;
  question: string;
}

/** An item of an agent's todo list (the `todo` tool). */
export interface TodoItem {
  text: string;
  done: boolean;
}

export type EscalationStatus = 'open' | 'resolved';

/**
 * An escalation (`netaclaw_escalation`): a task an agent handed to a human with the `escalate` tool,
 * open until an operator resolves it with a resolution text.
 */
export interface EscalationRecord<Time = string> {
  id: number;
  sessionId: string | null;
  batchId: number | null;
  agentId: number;
  reason: string;
  status: EscalationStatus;
  resolution: string | null;
  createTime: Time;
  resolveTime: Time | null;
}

/** How long a resolution may be (characters; a MySQL TEXT column holds 16,000 of 4 bytes). */
export const RESOLUTION_MAX_CHARS = 16_000;

/** What a chat turn streams while it runs (RUNTIME §6). */
export type ChatTurnEvent =
  | { type: 'delta'; sessionId: number; batchId: number | null; text: string }
  | { type: 'tool-call'; sessionId: number; batchId: number | null; id: string; name: string; arguments: unknown }
  | ({ type: 'tool-result'; sessionId: number; batchId: number | null } & ChatToolCall)
  | { type: 'batch'; sessionId: number; batchId: number; status: BatchStatus; task: string; reply?: string; error?: string }
  /** A sub-agent's call waits for the user's answer to this approval (`approval.batchId`); `approval-answered` once it has one. */
  | { type: 'approval'; sessionId: number; batchId: number | null; approval: ApprovalView }
  | { type: 'approval-answered'; sessionId: number; batchId: number | null; approval: ApprovalView };

/** What the chat WebSocket sends (docs/runtime.md, "The chat gateway"): the turn's events, then `done` or `error`. */
export type ChatEvent = ChatTurnEvent | ({ type: 'done' } & ChatAnswer) | { type: 'error'; sessionId: number | null; code: string; message: string };

/**
 * The answer to `{ type: 'attach', sessionId }`: whether a turn of that session is running on this
 * instance; when it is, its user message, then every event it streamed so far (replayed), then the rest.
 */
export interface ChatAttached {
  type: 'attached';
  sessionId: number;
  running: boolean;
  message?: string;
  /** Some of the streamed text was not kept (the turn's replay is bounded). */
  truncated?: boolean;
  /**
   * Another instance (on the same database) holds the session's turn. With `running`, its stream follows,
   * read from the progress that instance writes (gateway/progress.ts); without, it has written none yet:
   * the page follows what that turn stores.
   */
  elsewhere?: boolean;
}
