// The answers' types, derived from the Rust types by tsify; written by `UPDATE_TYPES=1 cargo test --test types`.

/**
 * What a tool is, which decides its scene gating and default runtime profile.
 */
export type ToolKind = "builtin" | "memory" | "skill" | "delegation" | "admin" | "custom";

/**
 * Whether calls of a tool may run side by side.
 */
export type ExecutionMode = "parallel" | "sequential";

/**
 * Where a tool would run in a sub-agent worker, by its manifest.
 */
export type WorkerRoutingHint = "local" | "main-process-proxy" | "disabled";

/**
 * The admin's override of the routing hint (a `netaclaw_tool` column).
 */
export type RoutingStrategy = "auto" | "force-local" | "force-main-process-proxy" | "force-disabled";

/**
 * Who sees a tool.
 */
export type Visibility = "internal" | "tool" | "skill";

/**
 * What a tool needs from the model, or what a model offers.
 */
export type Capability = "text" | "vision" | "multimodal";

/**
 * The agent's role in a crew.
 */
export type CrewRole = "master" | "sub";

/**
 * The runtime status of one tool in a sub-agent worker.
 */
export type RuntimeStatus = "worker-local" | "main-process-proxied" | "disabled-in-worker" | "not-selected";

/**
 * The route the pages show for a runtime status.
 */
export type FrontendRoute = "worker-local" | "main-process-proxy" | "disabled";

/**
 * Every reason, warning and update-error code. Each has a zh-CN and an en label.
 */
export type ReasonCode = "workspace_root_required" | "shell_disabled_by_policy" | "write_blocked_by_readonly_policy" | "requires_main_process_proxy" | "unsupported_in_worker" | "not_selected_for_subagent" | "disabled_by_routing_strategy" | "toolset_not_selected" | "disabled_by_agent" | "disabled_globally" | "capability_mismatch" | "memory_disabled" | "no_skills_bound" | "crew_master_only" | "core_tool_cannot_be_disabled" | "unknown_tool" | "unknown_toolset" | "capability_fallback_text" | "field_is_readonly" | "prompt_hint_not_supported" | "invalid_value" | "path_outside_workspace" | "invalid_tool_arguments" | "tool_not_offered" | "shell_sandbox_unavailable";

/**
 * What happens to one tool call (`checkToolCall`): it runs in the worker, in the main process, or not at all.
 */
export type ToolCallDecision = "worker-local" | "main-process-proxy" | "denied" | "ask";

/**
 * A layer of a decision trace (`trace: true`), in the order the engine consults them.
 */
export type TraceLayer = "catalog" | "agent-toolsets" | "agent-disabled" | "governance" | "model-capability" | "scene" | "subagent-selection" | "routing-strategy" | "worker-policy" | "manifest";

/**
 * What a traced layer said: `pass` let the tool through, `block` stopped it (its `reason` says why),
 * `overridden` would have stopped it but did not apply (a protected core tool, or a strategy the
 * manifest refuses), `local` / `proxy` is the route the routing layer chose.
 */
export type TraceOutcome = "pass" | "block" | "overridden" | "local" | "proxy";

/**
 * Why a sub-agent's policy was narrowed to fit its parent's.
 */
export type PolicyWarningCode = "root_outside_parent" | "shell_not_allowed_by_parent" | "write_not_allowed_by_parent";

/**
 * A catalog entry. `name` (1–100 characters) and `toolset` (1–50) are required; every other field
 * falls back to the builtin table (for a builtin name) or to the defaults of its kind.
 */
export interface ToolSchema {
    name: string;
    toolset: string;
    description?: string | null;
    visibility?: Visibility | null;
    capability?: Capability | null;
    isCore?: boolean | null;
    canDisable?: boolean | null;
    supportsPromptHint?: boolean | null;
    kind?: ToolKind | null;
    executionMode?: ExecutionMode | null;
    supportedInWorker?: boolean | null;
    workerRoutingHint?: WorkerRoutingHint | null;
    requiresShell?: boolean | null;
    requiresWrite?: boolean | null;
    requiresSkillScope?: boolean | null;
    requiresWorkspaceRoot?: boolean | null;
    /**
     * The tool's arguments as a JSON Schema object: what a model is offered and what `checkToolCall`
     * validates (shared, so that copying a schema or a manifest does not copy it).
     */
    parameters?: JsonSchema | null;
    /**
     * Set by `fromMcpTool` when the tool cannot be called: its argument schema uses a keyword the
     * call check does not understand (or a malformed one), and this says which and where; every
     * call of the tool is denied with the same text. Absent: usable. A catalog reads no such field.
     */
    unusableReason?: string;
}

/**
 * A tool's stable profile: every field of `ToolSchema` resolved, none optional.
 */
export interface ToolManifest {
    name: string;
    toolset: string;
    description: string;
    visibility: Visibility;
    capability: Capability;
    isCore: boolean;
    canDisable: boolean;
    supportsPromptHint: boolean;
    kind: ToolKind;
    executionMode: ExecutionMode;
    supportedInWorker: boolean;
    workerRoutingHint: WorkerRoutingHint;
    requiresShell: boolean;
    requiresWrite: boolean;
    requiresSkillScope: boolean;
    requiresWorkspaceRoot: boolean;
    /**
     * The JSON Schema of the tool's arguments: the schema's own, the builtin's, or any object
     * (`{"type":"object","properties":{}}`) when none is declared.
     */
    parameters: JsonSchema;
}

/**
 * A tool the resolver dropped, and the first check that dropped it.
 */
export interface DisabledReason {
    name: string;
    reason: ReasonCode;
    /**
     * Every layer consulted, in order (only when the input asks for `trace`).
     */
    trace?: TraceEntry[];
}

/**
 * Something worth telling that does not change the outcome.
 */
export interface Warning {
    code: ReasonCode;
    subject: string;
}

/**
 * The resolver's answer.
 */
export interface ResolveResult {
    /**
     * Every injected tool, in catalog order.
     */
    toolNames: string[];
    /**
     * The injected tools of kind `builtin` (what the skill context gets).
     */
    builtinToolNames: string[];
    /**
     * Admin prompt hints of injected tools that support them.
     */
    toolPromptHints: Record<string, string>;
    disabledReasons: DisabledReason[];
    warnings: Warning[];
    /**
     * The capability used (`text` when none was given).
     */
    modelCapability: Capability;
}

/**
 * What a sub-agent worker may do.
 */
export interface WorkerPolicy {
    /**
     * Absolute, lexically normalized, without duplicates; the session's cwd first.
     */
    workspaceRoots: string[];
    allowShell: boolean;
    readonly: boolean;
}

/**
 * One narrowing of a child policy: `subject` is the dropped root, or `allowShell` / `readonly`.
 */
export interface PolicyWarning {
    code: PolicyWarningCode;
    subject: string;
}

/**
 * A worker policy bounded by its parent's, with every narrowing reported (the answer of
 * `buildSubprocessWorkerPolicy` when a `parent` is given).
 */
export interface BoundedWorkerPolicy {
    workspaceRoots: string[];
    allowShell: boolean;
    readonly: boolean;
    warnings: PolicyWarning[];
}

/**
 * One tool's route in a worker.
 */
export interface ToolRuntimeRoute {
    name: string;
    status: RuntimeStatus;
    route: FrontendRoute;
    /**
     * `reasons[0]`, or `null` for a tool that runs locally with nothing to say.
     */
    blockedReason: ReasonCode | null;
    reasons: ReasonCode[];
    strategy: RoutingStrategy;
    executionMode: ExecutionMode;
    /**
     * Every layer consulted, in order (only when the input asks for `trace`).
     */
    trace?: TraceEntry[];
}

/**
 * One consulted layer.
 */
export interface TraceEntry {
    layer: TraceLayer;
    outcome: TraceOutcome;
    /**
     * The input path (or `builtin:…` table entry) that decided this outcome.
     */
    source: string;
    /**
     * The code this layer contributed (or, for `overridden`, the one it would have).
     */
    reason?: ReasonCode;
}

/**
 * What the pages show.
 */
export interface RuntimeDiagnostic {
    resolved: ResolveResult;
    policy: WorkerPolicy;
    /**
     * How the policy was narrowed to fit its `parent` (present only when a parent was given).
     */
    policyWarnings?: PolicyWarning[];
    /**
     * The manifest of every catalog tool (the static picture).
     */
    profiles: ToolManifest[];
    /**
     * The route of every catalog tool in this worker (the dynamic picture).
     */
    routes: ToolRuntimeRoute[];
    /**
     * The tools the agent's model is offered: the selected tools whose route is not `disabled`, in
     * catalog order. Every other tool's route says why it is not.
     */
    offered: string[];
}

/**
 * A full `netaclaw_tool` row, as a sync inserts it.
 */
export interface ToolGovernanceRow {
    name: string;
    label: string;
    toolset: string;
    description: string;
    visibility: Visibility;
    capability: Capability;
    status: 0 | 1;
    isCore: 0 | 1;
    canDisable: 0 | 1;
    promptHint: string | null;
    sort: number;
    extra: unknown;
    workerRoutingStrategy: RoutingStrategy;
}

/**
 * The changes one existing row needs.
 */
export interface RowUpdate {
    name: string;
    /**
     * Changed fields, in row-field order.
     */
    set: Partial<ToolGovernanceRow>;
}

/**
 * What a sync must do to make the table follow the catalog.
 */
export interface SyncPlan {
    inserts: ToolGovernanceRow[];
    updates: RowUpdate[];
    /**
     * Rows whose tool left the catalog: listed, never deleted.
     */
    orphans: string[];
}

/**
 * One refused field of an update.
 */
export interface FieldError {
    field: string;
    code: ReasonCode;
}

/**
 * Every label of one locale.
 */
export interface Labels {
    reasons: Record<ReasonCode, string>;
    statuses: Record<RuntimeStatus, string>;
    routes: Record<FrontendRoute, string>;
    kinds: Record<ToolKind, string>;
    strategies: Record<RoutingStrategy, string>;
}

/**
 * A tool whose static profile says it can run in a worker while this run's route blocks it.
 */
export interface ProfileRouteDiff {
    name: string;
    /**
     * The profile's `supportedInWorker`.
     */
    supportedInWorker: boolean;
    /**
     * The profile's `workerRoutingHint`.
     */
    workerRoutingHint: WorkerRoutingHint;
    /**
     * The route's status: `disabled-in-worker` or `not-selected`.
     */
    status: RuntimeStatus;
    /**
     * The route's reasons, first the one that blocks.
     */
    reasons: ReasonCode[];
}

/**
 * MCP `ToolAnnotations`.
 */
export interface ToolAnnotations {
    /**
     * The name in words: `_` and `-` become spaces, the first letter upper case (`read_file` → `Read file`).
     */
    title: string;
    /**
     * Does not modify its environment: a `builtin` or `skill` tool that requires neither write nor shell.
     */
    readOnlyHint: boolean;
    /**
     * May destroy or overwrite: not read-only, and it writes, runs a shell, or is `admin` / `custom`.
     */
    destructiveHint: boolean;
    /**
     * Repeating a call has no further effect: read-only tools only.
     */
    idempotentHint: boolean;
    /**
     * May reach beyond the workspace and the agent's own state: it runs a shell, or is `delegation` / `custom`.
     */
    openWorldHint: boolean;
}

/**
 * What a rule does to what it matches; ordered from the weakest.
 */
export type Effect = "allow" | "ask" | "deny";

/**
 * Where a rule comes from: the admin's global rules, the agent's, the session's (or a sub-agent's).
 */
export type Level = "global" | "agent" | "session";

/**
 * The kinds of pattern: `read_file` or `mcp:github/*` (a tool), `bash(git status)` (a command),
 * `read(.env*)` or `write(.git/hooks/**)` (a path), `net(*.npmjs.org:443)` (a host and port).
 */
export type PatternKind = "tool" | "bash" | "read" | "write" | "net";

/**
 * The rule that decided a subject.
 */
export interface RuleMatch {
    effect: Effect;
    /**
     * The level of the rule; `null` for a command the reader does not understand and for a host no
     * `net(…)` rule allows (the default: no host).
     */
    level: Level | null;
    /**
     * Where the rule sits in the input: `rules.agent.ask[0]`, `rules.global.protectedPaths[1]`
     * (the default list when none is given), `rules.session.default`, `rules.approvals[2]`; `null`
     * for a command the reader does not understand and for a host no rule allows.
     */
    source: string | null;
    /**
     * The pattern as written (`bash(git push:*)`; a protected path as `write(.git/hooks/**)`);
     * `null` for a level's default and for a command the reader does not understand.
     */
    pattern: string | null;
    /**
     * What it matched: the kind of subject and its text (a simple command's words joined by one
     * space, a normalized path, a tool name, or the whole command text).
     */
    kind: PatternKind;
    subject: string;
    /**
     * Why the command was not understood (`command substitution`, …); `null` when it was.
     */
    unreadable: string | null;
}

/**
 * What the rules editor offers (`ruleDefaults()`): the default protected paths, the effects, the
 * levels and the pattern kinds, in order.
 */
export interface RuleDefaults {
    protectedPaths: string[];
    effects: Effect[];
    levels: Level[];
    kinds: PatternKind[];
    /**
     * The commands the shell reader never lets an `allow` match (they run other commands).
     */
    runsOtherCommands: string[];
    /**
     * Interpreters read as not understood when given inline code (`-c`, `-e`, `-p`, `-r`, `--eval` …).
     */
    interpreters: string[];
}

/**
 * The answer of `checkRules`.
 */
export interface RuleCheck {
    /**
     * `allow` when no rule objects (a call is then decided as without rules), `ask` or `deny`.
     */
    decision: Effect;
    /**
     * The rule that decided; `null` when none spoke (or the path is outside every root).
     */
    rule: RuleMatch | null;
    /**
     * `path_outside_workspace` (a path outside every root, denied whatever the rules say),
     * `denied_by_rule` for a rule's `deny`, `host_not_allowed` for a host no `net(…)` rule allows;
     * otherwise `null`.
     */
    reason: ReasonCode | RuleReasonCode | null;
    /**
     * A command's simple commands as the reader read them, each its words (`[]` otherwise).
     */
    commands: string[][];
    /**
     * A path tried, absolute and normalized (`null` otherwise, or when it is outside every root).
     */
    path: string | null;
}

/**
 * The answer of `checkNetwork`: whether a sandbox may connect to a host and port.
 */
export interface NetworkCheck {
    /**
     * `allow` (connect), `ask` (wait for the user's approval) or `deny` (refuse).
     */
    decision: Effect;
    /**
     * The rule that decided (`kind` `net`, `subject` `host:port`); for a host no pattern matches,
     * `deny` with `level`, `source` and `pattern` `null` (the default: no host).
     */
    rule: RuleMatch;
    /**
     * `denied_by_rule` for a `deny` pattern, `host_not_allowed` for a host no pattern matches;
     * otherwise `null`.
     */
    reason: RuleReasonCode | null;
    /**
     * The host, normalized: lower case, no trailing dot, an IPv6 address in brackets (`[::1]`).
     */
    host: string;
    port: number;
    /**
     * A sentence for the client, the model and the logs:
     * `"example.org:443" is denied by net(*.example.org) (rules.global.deny[0])`.
     */
    detail: string;
}

/**
 * One path a call touches.
 */
export interface ToolCallPath {
    /**
     * The argument that names it (`path`, `items[0].path`); for a diff, the diff's argument.
     */
    argument: string;
    /**
     * Absolute and lexically normalized, inside a workspace root.
     */
    path: string;
    /**
     * Whether the call writes it.
     */
    write: boolean;
}

/**
 * The decision on one call.
 */
export interface ToolCallCheck {
    decision: ToolCallDecision;
    /**
     * Why the call is denied; `null` when it may run.
     */
    reason: ReasonCode | RuleReasonCode | null;
    /**
     * Every path the call touches (empty for a denied call).
     */
    paths: ToolCallPath[];
    /**
     * A short English text naming what is wrong (`arguments.path: expected a string, got a number`),
     * for the model; `null` when the call may run.
     */
    detail: string | null;
    /**
     * The rule that decided the call, when `rules` were given and one spoke (`crate::rules`); absent
     * otherwise, so that a call no rule matches is answered exactly as without rules.
     */
    rule?: RuleMatch;
    /**
     * For an `ask`: where the call runs once approved (`worker-local` or `main-process-proxy`).
     */
    onApproval?: "worker-local" | "main-process-proxy";
    /**
     * The arguments as read from the JSON text the model sent (an empty or blank text reads as `{}`):
     * present for `checkText` whenever the text was read, so that the caller runs exactly what was
     * decided on; absent for `check` / `checkToolCall` and for text that is not JSON.
     */
    arguments?: unknown;
}

/**
 * One toolset of a catalog.
 */
export interface ToolsetInfo {
    name: string;
    /**
     * The toolset's tools, in catalog order.
     */
    tools: string[];
    /**
     * A legacy agent (no `toolsets`) gets it.
     */
    isDefault: boolean;
    /**
     * `vision` or `document`: known even with no tool.
     */
    reserved: boolean;
}

/**
 * Every vocabulary of SPEC §2, each in declaration order.
 */
export interface CatalogVocabulary {
    kind: ToolKind[];
    executionMode: ExecutionMode[];
    workerRoutingHint: WorkerRoutingHint[];
    routingStrategy: RoutingStrategy[];
    visibility: Visibility[];
    capability: Capability[];
    crewRole: CrewRole[];
    status: RuntimeStatus[];
    route: FrontendRoute[];
    reason: ReasonCode[];
}

/**
 * `catalogInfo(catalog?)`.
 */
export interface CatalogInfo {
    toolsets: ToolsetInfo[];
    toolsetDefaults: string[];
    /**
     * Row fields an admin edits.
     */
    humanFields: string[];
    /**
     * Row fields that follow the code.
     */
    mirrorFields: string[];
    vocabulary: CatalogVocabulary;
}

/**
 * `toolRowView({ row, catalog? })`.
 */
export interface ToolRowView {
    name: string;
    inCatalog: boolean;
    /**
     * A core tool that cannot be disabled (`isCore` and not `canDisable`).
     */
    protected: boolean;
    /**
     * Whether the admin may switch `status` (not for a protected tool).
     */
    statusEditable: boolean;
    promptHint: "overridden" | "default" | "unsupported";
    strategy: RoutingStrategy;
}

/**
 * The agent part of `agentResolveInput`'s answer.
 */
export interface AgentTools {
    /**
     * `null`: a legacy agent (the package's default toolsets).
     */
    toolsets: string[] | null;
    tools: { disabled: string[] } | null;
}

/**
 * `{ disabled }`.
 */
export interface DisabledTools {
    disabled: string[];
}

/**
 * `agentResolveInput(...)`: the resolver's per-call input for an agent.
 */
export interface AgentResolveInput {
    agent: AgentTools;
    modelCapability: Capability | null;
    memoryEnabled: boolean;
    hasSkills: boolean;
    crewRole: CrewRole | null;
}
