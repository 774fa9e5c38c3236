// The one place the pages talk to @netaclaw/tool-policy. Every rule, list, default and vocabulary —
// resolution, routes, the static-vs-dynamic comparison, the row view, the update guard, the agent
// mapping, labels — is the package's; this file only passes it the catalog the backend serves and
// picks labels by locale.
import {
  agentResolveInput,
  checkRules,
  getToolNamesByToolset,
  getToolSchema,
  label,
  profileRouteDiff,
  projectRuntimePolicy,
  resolveTools,
  ruleDefaults,
  runtimeDiagnostic,
  toolBehaviorGuidance,
  toolRowView,
  validateToolUpdate,
} from '@netaclaw/tool-policy';
import type {
  CatalogInfo,
  CheckRulesInput,
  LevelRulesInput,
  ModelChannelInput,
  ProfileRouteDiff,
  ResolveResult,
  RuleCheck,
  RuleDefaults,
  RulesInput,
  RuntimeDiagnostic,
  ToolManifest,
  ToolRowView,
  ToolRuntimeRoute,
  ToolSchema,
} from '@netaclaw/tool-policy';
import { locale, t } from '../base/i18n';
import type { AgentInput, GlobalRules, ToolRow } from '../base/types';

export type {
  CatalogInfo,
  CheckRulesInput,
  LevelRulesInput,
  ProfileRouteDiff,
  ResolveResult,
  RuleCheck,
  RuleDefaults,
  RulesInput,
  RuntimeDiagnostic,
  ToolManifest,
  ToolRowView,
  ToolRuntimeRoute,
  ToolSchema,
};

export type LabelGroup = 'reasons' | 'statuses' | 'routes' | 'kinds' | 'strategies';

/** A label of the package in the current locale (reactive through `locale`). */
export function L(group: LabelGroup, code: string | null | undefined): string {
  if (code == null || code === '') return '';
  try {
    return label(group, code, locale.value);
  } catch {
    return code; // a code the package does not know: show it raw rather than invent a text
  }
}

/** A vocabulary of the package (`catalogInfo().vocabulary`). */
export type VocabKind = keyof CatalogInfo['vocabulary'];

/**
 * The word of a value of a vocabulary the package has no label for (capability, visibility, execution
 * mode, worker routing hint, crew role: the page's words, i18n.ts `vocab`), in the current locale; the
 * value itself when the page has none.
 */
export function V(kind: VocabKind, code: string | null | undefined): string {
  if (code == null || code === '') return '';
  return t.value.vocab[kind]?.[code] ?? code;
}

export function manifestOf(name: string, catalog: ToolSchema[]): ToolManifest | null {
  return getToolSchema(name, catalog);
}

/** The tools the given toolsets bring, in toolset order then catalog order (each once). */
export function toolsOfToolsets(toolsets: string[], catalog: ToolSchema[]): string[] {
  return [...new Set(toolsets.flatMap((ts) => getToolNamesByToolset(ts, catalog)))];
}

/** What the tool page shows for a row, or the package's refusal of a malformed row (errors.ts `policyError` words it). */
export function rowView(row: ToolRow, catalog: ToolSchema[]): { ok: true; view: ToolRowView } | { ok: false; error: unknown } {
  try {
    return { ok: true, view: toolRowView({ row: row as never, catalog }) };
  } catch (e) {
    return { ok: false, error: e };
  }
}

/** A model channel as the package reads it (its capability wins over the agent's). */
export type Channel = ModelChannelInput;

/**
 * The resolver's input for an agent row or draft (docs/backend-api.md, "How an agent becomes a
 * resolver input"): the package's `agentResolveInput`, plus the catalog and the governance rows.
 */
function agentInput(agent: Partial<AgentInput>, governance: ToolRow[], catalog: ToolSchema[], channel: Channel | null = null) {
  return { catalog, governance: governance as never, ...agentResolveInput({ agent: agent as never, channel }) };
}

/** A session an admin names: cwd, extra roots, permissions (and the sub-agent's tools). */
export interface SubagentBatch {
  subagentTools?: string[] | null;
  sessionCwd?: string | null;
  workspaceRoots?: string[];
  shellPermitted?: boolean;
  writePermitted?: boolean;
}

export interface AgentPreview {
  resolved: ResolveResult;
  guidance: string;
  /** The diagnostic without a session: its `profiles` are the static picture of the edit page. */
  diagnostic: RuntimeDiagnostic;
}

/** What the agent-edit page shows: resolution, the tool-guidance layer and the static profiles. */
export function previewAgent(
  agent: Partial<AgentInput>,
  governance: ToolRow[],
  catalog: ToolSchema[],
  channel: Channel | null = null,
  batch: SubagentBatch = {},
): AgentPreview {
  const input = agentInput(agent, governance, catalog, channel);
  const resolved = resolveTools(input);
  const diagnostic = runtimeDiagnostic({ ...input, ...batch });
  // the tool-guidance layer names the tools the model is offered (the diagnostic's `offered`), as the backend's prompt does
  const guidance = toolBehaviorGuidance(diagnostic.offered, resolved.toolPromptHints);
  return { resolved, guidance, diagnostic };
}

/**
 * The routes of one named session, and the tools the edit page shows as given to the agent whose
 * static profile runs but this session blocks (profileRouteDiff, seed 000: "edit page says allowed,
 * the run blocks it").
 */
export interface SessionRoutes {
  diagnostic: RuntimeDiagnostic;
  /** The tool-guidance layer of a run in this session: the tools it offers. */
  guidance: string;
  blocked: Map<string, ProfileRouteDiff>;
}

export function sessionRoutes(
  agent: Partial<AgentInput>,
  governance: ToolRow[],
  catalog: ToolSchema[],
  channel: Channel | null,
  batch: SubagentBatch,
): SessionRoutes {
  const diagnostic = runtimeDiagnostic({ ...agentInput(agent, governance, catalog, channel), ...batch });
  const given = new Set(diagnostic.resolved.toolNames);
  const guidance = toolBehaviorGuidance(diagnostic.offered, diagnostic.resolved.toolPromptHints);
  return {
    diagnostic,
    guidance,
    blocked: new Map(
      profileRouteDiff(diagnostic)
        .filter((d) => given.has(d.name))
        .map((d) => [d.name, d]),
    ),
  };
}

export interface UpdateCheck {
  ok: boolean;
  errors: { field: string; code: string }[];
}

export function checkToolUpdate(row: ToolRow, patch: Record<string, unknown>, catalog: ToolSchema[]): UpdateCheck {
  const r = validateToolUpdate({ row: row as never, patch: patch as never, catalog });
  return r.ok ? { ok: true, errors: [] } : { ok: false, errors: r.errors };
}

/** JSON with object keys sorted: equality of two values regardless of key order. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) => {
    if (val && typeof val === 'object' && !Array.isArray(val)) {
      return Object.fromEntries(Object.entries(val as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return val;
  });
}

// ---- rules (docs/package.md "Rules"): what the editor offers, each pattern checked, the "try it" answer

let defaultsCache: RuleDefaults | null = null;

/** What the rules editor offers (`ruleDefaults()`): effects, levels, kinds, the default protected paths. */
export function rulesVocabulary(): RuleDefaults {
  defaultsCache ??= ruleDefaults();
  return defaultsCache;
}

/**
 * Every pattern of one level the package refuses, by its input path (`rules.agent.deny[2]`), with the
 * package's message (English; the page says it with `ruleErrorSentence`). Each pattern is checked on its
 * own — the package names the first bad one of an input — so that every bad one is found.
 */
export function patternErrors(level: string, rules: GlobalRules | null): Map<string, string> {
  const out = new Map<string, string>();
  if (!rules) return out;
  const lists: [string, string[] | null | undefined][] = [
    ...rulesVocabulary().effects.map((e): [string, string[] | null | undefined] => [e, rules[e]]),
    ['protectedPaths', rules.protectedPaths],
  ];
  for (const [key, list] of lists) {
    (list ?? []).forEach((pattern, i) => {
      try {
        checkRules({ rules: { [level]: { [key]: [pattern] } }, tool: 'x' } as CheckRulesInput);
      } catch (e) {
        const { message } = policyErrorParts(e);
        out.set(`rules.${level}.${key}[${i}]`, message.replace(/^rules\.[\w]+\.[\w]+\[\d+\]:\s*/, ''));
      }
    });
  }
  return out;
}

/** `checkRules` on the rules being edited: its answer, or the package's refusal (code and message). */
export function tryRules(input: CheckRulesInput): { ok: true; value: RuleCheck } | { ok: false; code: string; message: string } {
  try {
    return { ok: true, value: checkRules(input) };
  } catch (e) {
    return { ok: false, ...policyErrorParts(e) };
  }
}

/** A package error's code and message (an error the package threw, or anything else a call threw). */
export function policyErrorParts(e: unknown): { code: string; message: string } {
  const code = e instanceof Error ? (e as Error & { code?: string }).code : undefined;
  return { code: code ?? 'client_error', message: e instanceof Error ? e.message : String(e) };
}
/**
 * The route a manifest alone gives: the package's projection of that one tool with nothing of a
 * session in the way (a root, shell and write permitted), i.e. its check 6 — what `profileRouteDiff`
 * calls statically runnable.
 */
export function staticRoute(m: ToolManifest): ToolRuntimeRoute['route'] {
  const open = { workspaceRoots: ['/'], allowShell: true, readonly: false };
  return projectRuntimePolicy({ catalog: [m], selectedTools: [m.name], policy: open })[0].route;
}
