// A strict TypeScript consumer of @netaclaw/tool-policy: compiled with `tsc -p tsconfig.json`
// (strict, no emit). It pins the published types: the vocabulary unions are exact, outputs have the
// declared shapes, optional arguments may be left out, and misuse does not compile.
import {
  ToolCallChecker,
  ToolPolicyEngine,
  agentResolveInput,
  buildSubprocessWorkerPolicy,
  builtinCatalog,
  catalogInfo,
  checkNetwork,
  checkRules,
  checkToolCall,
  fromMcpTool,
  ruleDefaults,
  getToolNamesByToolset,
  getToolSchema,
  toolRowView,
  label,
  labels,
  projectRuntimePolicy,
  resolveTools,
  runtimeDiagnostic,
  syncCatalog,
  toolBehaviorGuidance,
  toolManifest,
  validateToolUpdate,
  version,
  type AgentResolveInput,
  type Capability,
  type CatalogInfo,
  type CheckToolCallInput,
  type Effect,
  type Level,
  type NetworkCheck,
  type RuleCheck,
  type RuleDefaults,
  type RuleMatch,
  type RuleReasonCode,
  type RulesInput,
  type ToolCallCheckerOptions,
  type CrewRole,
  type ExecutionMode,
  type FrontendRoute,
  type InvalidInputError,
  type Labels,
  type ReasonCode,
  type ResolveResult,
  type RoutingStrategy,
  type RuntimeDiagnostic,
  type RuntimeStatus,
  type SyncPlan,
  type JsonSchema,
  type ToolCallCheck,
  type ToolRowView,
  type ToolCallDecision,
  type ToolGovernanceRow,
  type ToolKind,
  type ToolManifest,
  type ToolRuntimeRoute,
  type ToolSchema,
  type UpdateOutcome,
  type Visibility,
  type WorkerPolicy,
  type WorkerRoutingHint,
} from '@netaclaw/tool-policy';

// ---- type-level helpers -------------------------------------------------------------------------
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): T | undefined {
  return undefined;
}

// ---- the vocabulary unions are exactly SPEC §2 ------------------------------------------------
assertType<Equal<ToolKind, 'builtin' | 'memory' | 'skill' | 'delegation' | 'admin' | 'custom'>>();
assertType<Equal<ExecutionMode, 'parallel' | 'sequential'>>();
assertType<Equal<WorkerRoutingHint, 'local' | 'main-process-proxy' | 'disabled'>>();
assertType<Equal<RoutingStrategy, 'auto' | 'force-local' | 'force-main-process-proxy' | 'force-disabled'>>();
assertType<Equal<Visibility, 'internal' | 'tool' | 'skill'>>();
assertType<Equal<Capability, 'text' | 'vision' | 'multimodal'>>();
assertType<Equal<CrewRole, 'master' | 'sub'>>();
assertType<Equal<RuntimeStatus, 'worker-local' | 'main-process-proxied' | 'disabled-in-worker' | 'not-selected'>>();
assertType<Equal<FrontendRoute, 'worker-local' | 'main-process-proxy' | 'disabled'>>();
assertType<
  Equal<
    ReasonCode,
    | 'workspace_root_required'
    | 'shell_disabled_by_policy'
    | 'write_blocked_by_readonly_policy'
    | 'requires_main_process_proxy'
    | 'unsupported_in_worker'
    | 'not_selected_for_subagent'
    | 'disabled_by_routing_strategy'
    | 'toolset_not_selected'
    | 'disabled_by_agent'
    | 'disabled_globally'
    | 'capability_mismatch'
    | 'memory_disabled'
    | 'no_skills_bound'
    | 'crew_master_only'
    | 'core_tool_cannot_be_disabled'
    | 'unknown_tool'
    | 'unknown_toolset'
    | 'capability_fallback_text'
    | 'field_is_readonly'
    | 'prompt_hint_not_supported'
    | 'invalid_value'
    | 'path_outside_workspace'
    | 'invalid_tool_arguments'
    | 'tool_not_offered'
    | 'shell_sandbox_unavailable'
  >
>();
assertType<Equal<ToolCallDecision, 'worker-local' | 'main-process-proxy' | 'denied' | 'ask'>>();
assertType<Equal<RuleReasonCode, 'denied_by_rule' | 'approval_required' | 'host_not_allowed'>>();

export const status: RuntimeStatus = 'worker-local';
// @ts-expect-error a misspelt status is not a RuntimeStatus
export const badStatus: RuntimeStatus = 'workerlocal';
// @ts-expect-error the route names differ from the status names
export const badRoute: FrontendRoute = 'main-process-proxied';
// @ts-expect-error reason codes are snake_case
export const badReason: ReasonCode = 'workspace-root-required';
// @ts-expect-error strategies are the four of SPEC §2
export const badStrategy: RoutingStrategy = 'force-remote';

// ---- an exhaustive switch over ReasonCode -------------------------------------------------------
export function severity(code: ReasonCode): 'block' | 'info' | 'warn' | 'update' {
  switch (code) {
    case 'workspace_root_required':
    case 'shell_disabled_by_policy':
    case 'write_blocked_by_readonly_policy':
    case 'unsupported_in_worker':
    case 'not_selected_for_subagent':
    case 'disabled_by_routing_strategy':
    case 'toolset_not_selected':
    case 'disabled_by_agent':
    case 'disabled_globally':
    case 'capability_mismatch':
    case 'memory_disabled':
    case 'no_skills_bound':
    case 'crew_master_only':
    case 'path_outside_workspace':
    case 'invalid_tool_arguments':
    case 'tool_not_offered':
    case 'shell_sandbox_unavailable':
      return 'block';
    case 'requires_main_process_proxy':
      return 'info';
    case 'core_tool_cannot_be_disabled':
    case 'unknown_tool':
    case 'unknown_toolset':
    case 'capability_fallback_text':
      return 'warn';
    case 'field_is_readonly':
    case 'prompt_hint_not_supported':
    case 'invalid_value':
      return 'update';
    default: {
      const unreachable: never = code;
      return unreachable;
    }
  }
}

export function routeOf(s: RuntimeStatus): FrontendRoute {
  switch (s) {
    case 'worker-local':
      return 'worker-local';
    case 'main-process-proxied':
      return 'main-process-proxy';
    case 'disabled-in-worker':
    case 'not-selected':
      return 'disabled';
    default: {
      const unreachable: never = s;
      return unreachable;
    }
  }
}

// ---- output shapes ------------------------------------------------------------------------------
assertType<Equal<ToolRuntimeRoute['blockedReason'], ReasonCode | null>>();
assertType<Equal<ToolRuntimeRoute['reasons'], ReasonCode[]>>();
assertType<Equal<ToolRuntimeRoute['status'], RuntimeStatus>>();
assertType<Equal<ToolRuntimeRoute['route'], FrontendRoute>>();
assertType<Equal<ToolRuntimeRoute['strategy'], RoutingStrategy>>();
assertType<Equal<ResolveResult['toolPromptHints'], Record<string, string>>>();
assertType<Equal<ResolveResult['modelCapability'], Capability>>();
assertType<Equal<ResolveResult['disabledReasons'][number]['reason'], ReasonCode>>();
assertType<Equal<ResolveResult['warnings'][number]['code'], ReasonCode>>();
assertType<Equal<WorkerPolicy, { workspaceRoots: string[]; allowShell: boolean; readonly: boolean }>>();
assertType<Equal<ToolManifest['isCore'], boolean>>();
assertType<Equal<ToolManifest['workerRoutingHint'], WorkerRoutingHint>>();
assertType<Equal<ToolGovernanceRow['status'], 0 | 1>>();
assertType<Equal<ToolGovernanceRow['workerRoutingStrategy'], RoutingStrategy>>();
assertType<Equal<keyof Labels, 'reasons' | 'statuses' | 'routes' | 'kinds' | 'strategies'>>();
assertType<Equal<Labels['reasons'], Record<ReasonCode, string>>>();
assertType<Equal<Labels['statuses'], Record<RuntimeStatus, string>>>();
assertType<Equal<ReturnType<typeof resolveTools>, ResolveResult>>();
assertType<Equal<ReturnType<typeof runtimeDiagnostic>, RuntimeDiagnostic>>();
assertType<Equal<ReturnType<typeof projectRuntimePolicy>, ToolRuntimeRoute[]>>();
assertType<Equal<ReturnType<typeof syncCatalog>, SyncPlan>>();
assertType<Equal<ReturnType<typeof validateToolUpdate>, UpdateOutcome>>();
assertType<Equal<ReturnType<typeof builtinCatalog>, ToolSchema[]>>();
assertType<Equal<ReturnType<typeof toolBehaviorGuidance>, string>>();
assertType<Equal<ReturnType<typeof label>, string>>();
assertType<Equal<ReturnType<typeof version>, string>>();
assertType<Equal<InvalidInputError['code'], 'invalid_input'>>();
assertType<Equal<ReturnType<typeof checkToolCall>, ToolCallCheck>>();
assertType<Equal<ToolCallCheck['reason'], ReasonCode | RuleReasonCode | null>>();
assertType<Equal<ToolCallCheck['onApproval'], 'worker-local' | 'main-process-proxy' | undefined>>();
assertType<Equal<ReturnType<typeof checkRules>, RuleCheck>>();
assertType<Equal<ReturnType<typeof ruleDefaults>, RuleDefaults>>();
assertType<Equal<ReturnType<typeof checkNetwork>, NetworkCheck>>();
assertType<Equal<NetworkCheck['reason'], RuleReasonCode | null>>();
assertType<Equal<ToolCallCheck['detail'], string | null>>();
assertType<Equal<ToolCallCheck['paths'][number], { argument: string; path: string; write: boolean }>>();
assertType<Equal<ToolManifest['parameters'], JsonSchema>>();
assertType<Equal<ToolSchema['parameters'], JsonSchema | null | undefined>>();

// ---- calls as the pages and the backend make them --------------------------------------------
export function blockedTools(): { name: string; reason: ReasonCode; text: string }[] {
  const diagnostic = runtimeDiagnostic({
    agent: { toolsets: ['base', 'planning'], tools: { disabled: ['grep'] } },
    modelCapability: 'vision',
    crewRole: 'master',
    sessionCwd: '/srv/work',
    workspaceRoots: ['C:\\data'],
    shellPermitted: true,
    governance: [{ name: 'bash', status: 1, workerRoutingStrategy: 'force-local', id: 7, createTime: '2024-01-01' }],
  });
  const out: { name: string; reason: ReasonCode; text: string }[] = [];
  for (const route of diagnostic.routes) {
    const reason = route.blockedReason;
    if (reason === null) continue;
    // blockedReason narrows to ReasonCode here.
    const code: ReasonCode = reason;
    out.push({ name: route.name, reason: code, text: label('reasons', code, 'en') });
  }
  // @ts-expect-error blockedReason may be null
  const unchecked: ReasonCode = diagnostic.routes[0]!.blockedReason;
  void unchecked;
  return out;
}

export function optionalArguments(): string[] {
  // Optional trailing arguments may be left out (SPEC §5: labels(locale?), label(…, locale?),
  // toolBehaviorGuidance(toolNames, toolPromptHints?), new ToolPolicyEngine(options?)).
  const zh: Labels = labels();
  const en: Labels = labels('en-US');
  const engine = new ToolPolicyEngine();
  const resolved: ResolveResult = engine.resolve({ memoryEnabled: true });
  engine.free();
  return [
    zh.statuses['not-selected'],
    en.routes['main-process-proxy'],
    label('statuses', 'worker-local'),
    label('kinds', 'skill', null),
    toolBehaviorGuidance(resolved.toolNames),
    toolBehaviorGuidance(['bash'], resolved.toolPromptHints),
    toolBehaviorGuidance(['bash'], null),
  ];
}

export function engineWithGovernance(): RuntimeDiagnostic {
  const catalog: ToolSchema[] = [...builtinCatalog(), { name: 'crm_lookup', toolset: 'crm', capability: 'vision' }];
  const engine = new ToolPolicyEngine({ catalog, governance: [{ name: 'crm_lookup', status: 0 }] });
  try {
    return engine.diagnose({ subagentTools: ['crm_lookup'], writePermitted: false });
  } finally {
    engine.free();
  }
}

// The static part once, the dynamic part per call: the same diagnostic put back together.
export function engineRoutes(): RuntimeDiagnostic {
  const engine = new ToolPolicyEngine();
  try {
    const profiles: ToolManifest[] = engine.profiles();
    const routes: Omit<RuntimeDiagnostic, 'profiles'> = engine.diagnoseRoutes({ sessionCwd: '/srv/app' });
    // @ts-expect-error the per-call answer has no profiles
    void routes.profiles;
    return { ...routes, profiles };
  } finally {
    engine.free();
  }
}

export function adminUpdate(row: ToolGovernanceRow): string {
  const outcome = validateToolUpdate({ row, patch: { label: 'Shell', status: 0 } });
  if (outcome.ok) {
    // The success branch has the row, not errors.
    // @ts-expect-error no errors on success
    void outcome.errors;
    return String(outcome.row.label);
  }
  const codes: ReasonCode[] = outcome.errors.map((e) => e.code);
  return codes.join(',') + outcome.ignored.join(',');
}

export function sync(): number {
  const plan = syncCatalog(null, [{ name: 'bash', status: 1, id: 1 }]);
  const inserted: ToolGovernanceRow[] = plan.inserts;
  const statuses: (0 | 1)[] = inserted.map((r) => r.status);
  const changed: Partial<ToolGovernanceRow>[] = plan.updates.map((u) => u.set);
  return statuses.length + changed.length + plan.orphans.length;
}

export function workerPolicy(): ToolRuntimeRoute[] {
  const policy: WorkerPolicy = buildSubprocessWorkerPolicy({ selectedTools: ['bash', 'edit'], sessionCwd: '/w', shellPermitted: true });
  const manifest: ToolManifest = toolManifest({ name: 'bash', toolset: 'base' });
  const strategy: RoutingStrategy = manifest.supportedInWorker ? 'force-local' : 'auto';
  return projectRuntimePolicy({
    selectedTools: ['bash'],
    policy,
    strategies: { bash: strategy },
    notSelectedReasons: { edit: 'disabled_by_agent' },
  });
}

// ---- a checker prepared once per policy and routes, then one call at a time ----------------------
export function gatePrepared(name: string, argumentsJson: string): ToolCallCheck[] {
  const diagnostic = runtimeDiagnostic({ sessionCwd: '/srv/work' });
  const options: ToolCallCheckerOptions = { policy: diagnostic.policy, routes: diagnostic.routes };
  const checker = new ToolCallChecker(options);
  const answers: ToolCallCheck[] = [checker.check({ name, arguments: JSON.parse(argumentsJson) }), checker.checkText(name, argumentsJson)];
  // @ts-expect-error checkText takes the arguments as JSON text
  checker.checkText(name, { path: 'a' });
  // @ts-expect-error a checker needs the routes
  new ToolCallChecker({ policy: diagnostic.policy });
  checker.free();
  return answers;
}

// ---- one tool call, as the worker and the main process check it --------------------------------
export function gateOneCall(name: string, args: unknown): { runs: 'worker' | 'main' | null; why: string | null; touches: string[] } {
  const diagnostic = runtimeDiagnostic({ agent: { toolsets: ['base'] }, modelCapability: 'text', sessionCwd: '/srv/work', writePermitted: true });
  const input: CheckToolCallInput = { policy: diagnostic.policy, routes: diagnostic.routes, call: { name, arguments: args } };
  const check: ToolCallCheck = checkToolCall(input);
  const decision: ToolCallDecision = check.decision;
  const offered: JsonSchema = diagnostic.profiles[0]!.parameters;
  void offered;
  return {
    runs: decision === 'worker-local' ? 'worker' : decision === 'main-process-proxy' ? 'main' : null,
    why: check.reason === null ? null : `${label('reasons', check.reason, 'en')}: ${check.detail ?? ''}`,
    touches: check.paths.filter((p) => p.write).map((p) => p.path),
  };
}

// ---- the pages and the backend read the package instead of restating it (SPEC §8) -------------
export function vocabularyOptions(): { statuses: RuntimeStatus[]; reasons: ReasonCode[]; defaults: string[]; reserved: string[] } {
  const info: CatalogInfo = catalogInfo();
  const statuses: RuntimeStatus[] = info.vocabulary.status;
  const strategies: RoutingStrategy[] = info.vocabulary.routingStrategy;
  void strategies;
  return { statuses, reasons: info.vocabulary.reason, defaults: info.toolsetDefaults, reserved: info.toolsets.filter((t) => t.reserved).map((t) => t.name) };
}

export function toolPageRow(row: ToolGovernanceRow): string {
  const view: ToolRowView = toolRowView({ row });
  const hint: 'overridden' | 'default' | 'unsupported' = view.promptHint;
  return `${view.name} ${view.statusEditable ? 'editable' : 'locked'} ${hint} ${view.strategy}`;
}

export function resolveForAgent(agentRow: { id: number; name: string; toolsets: string[] | null; tools: { disabled?: string[] } | null; skills: string[] | null; memoryEnabled: boolean }): ResolveResult {
  const input: AgentResolveInput = agentResolveInput({ agent: agentRow, channel: { capability: 'vision', baseUrl: 'http://127.0.0.1' }, crewRole: 'master' });
  const capability: Capability | null = input.modelCapability;
  void capability;
  const manifest: ToolManifest | null = getToolSchema('bash');
  const base: string[] = getToolNamesByToolset('base');
  void manifest;
  void base;
  return resolveTools({ governance: [], ...input });
}

export function mcpCatalog(): ToolSchema[] {
  const tool: ToolSchema = fromMcpTool({ server: 'fs', tool: { name: 'read_text', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true, title: 'Read' } } });
  return [...builtinCatalog(), tool];
}

// ---- rules: the "try it" box and the editor's defaults ------------------------------------------
export function tryRules(command: string): [Effect, Level | null, string | null] {
  const rules: RulesInput = { global: { deny: ['read(**/.env*)'], protectedPaths: [...ruleDefaults().protectedPaths, 'secrets/**'] }, agent: { allow: ['bash(git status)'], default: 'ask' }, approvals: ['bash(make)'] };
  const answer: RuleCheck = checkRules({ rules, policy: { workspaceRoots: ['/w'], allowShell: true, readonly: false }, command });
  const rule: RuleMatch | null = answer.rule;
  const defaults: RuleDefaults = ruleDefaults();
  void defaults.kinds;
  const reason: ReasonCode | RuleReasonCode | null = answer.reason;
  void reason;
  return [answer.decision, rule?.level ?? null, rule?.source ?? null];
}

// ---- the network proxy's decision on one connection ----------------------------------------------
export function connect(host: string, port: number): [Effect, string, string | null] {
  const answer: NetworkCheck = checkNetwork({ rules: { global: { allow: ['net(*.npmjs.org:443)', 'net([::1]:8080)'] } }, host, port });
  const rule: RuleMatch = answer.rule;
  return [answer.decision, answer.detail, rule.source];
}

export function isInvalidInput(e: unknown): e is InvalidInputError {
  return e instanceof Error && (e as Partial<InvalidInputError>).code === 'invalid_input';
}

// ---- misuse does not compile ---------------------------------------------------------------------
export function misuse(): void {
  // @ts-expect-error an unknown capability
  resolveTools({ modelCapability: 'audio' });
  // @ts-expect-error an unknown crew role
  resolveTools({ crewRole: 'leader' });
  // @ts-expect-error selectedTools is required
  buildSubprocessWorkerPolicy({ sessionCwd: '/w' });
  // @ts-expect-error policy is required
  projectRuntimePolicy({ selectedTools: [] });
  // @ts-expect-error an unknown strategy
  projectRuntimePolicy({ selectedTools: [], policy: { workspaceRoots: [], allowShell: false, readonly: true }, strategies: { bash: 'remote' } });
  // @ts-expect-error an unknown label group
  label('colors', 'red');
  // @ts-expect-error toolNames is required
  toolBehaviorGuidance();
  // @ts-expect-error a schema needs a toolset
  toolManifest({ name: 'x' });
  // @ts-expect-error fromMcpTool needs the server
  fromMcpTool({ tool: { name: 'x' } });
  // @ts-expect-error a prompt-hint state is one of three
  const state: ToolRowView['promptHint'] = 'custom';
  void state;
  // @ts-expect-error checkToolCall needs the routes
  checkToolCall({ policy: { workspaceRoots: [], allowShell: false, readonly: true }, call: { name: 'bash', arguments: {} } });
  // @ts-expect-error a decision is one of four
  const wrong: ToolCallDecision = 'proxied';
  // @ts-expect-error checkRules tries one thing: a command, a tool, a read or a write
  checkRules({ rules: {} });
  // @ts-expect-error checkNetwork needs the port
  checkNetwork({ host: 'example.org' });
  // @ts-expect-error a level's default is an effect
  checkRules({ rules: { agent: { default: 'maybe' } }, command: 'ls' });
  void wrong;
  // @ts-expect-error the engine takes no per-call catalog type other than ToolSchema[]
  new ToolPolicyEngine({ catalog: [{ name: 1, toolset: 'base' }] });
}
