// The one place the pages talk to @netaclaw/tool-policy. Every rule — resolution, routes,
// guidance, update guard, labels — is the package's; this file only builds its inputs the way
// docs/backend-api.md says ("How an agent becomes a resolver input") and picks labels by locale.
import {
  builtinCatalog,
  label,
  labels,
  resolveTools,
  runtimeDiagnostic,
  toolBehaviorGuidance,
  toolManifest,
  validateToolUpdate,
} from '@netaclaw/tool-policy';
import type {
  ResolveResult,
  RuntimeDiagnostic,
  ToolManifest,
  ToolRuntimeRoute,
  ToolSchema,
} from '@netaclaw/tool-policy';
import { locale } from './i18n';
import type { AgentInput, ToolRow } from './types';

export type { ResolveResult, RuntimeDiagnostic, ToolManifest, ToolRuntimeRoute, ToolSchema };

export type LabelGroup = 'reasons' | 'statuses' | 'routes' | 'kinds' | 'strategies';

/** A label of the package in the current locale (reactive through `locale`). */
export function L(group: LabelGroup, code: string | null | undefined): string {
  if (code == null || code === '') return '';
  try {
    return label(group, code as never, locale.value);
  } catch {
    return code; // a code the package does not know: show it raw rather than invent a text
  }
}

export function allLabels() {
  return labels(locale.value);
}

let catalogCache: ToolSchema[] | null = null;
export function catalog(): ToolSchema[] {
  catalogCache ??= builtinCatalog();
  return catalogCache;
}

export function catalogNames(): string[] {
  return catalog().map((s) => s.name);
}

export function catalogToolsets(): string[] {
  return [...new Set(catalog().map((s) => s.toolset))];
}

/**
 * The static runtime profile of a row: the catalog schema when the tool is in the code catalog,
 * else (an orphan row) the row's mirror fields. Null when the package refuses the row.
 */
export function manifestFor(row: Pick<ToolRow, 'name' | 'toolset' | 'visibility' | 'capability' | 'isCore' | 'canDisable'>): ToolManifest | null {
  const schema = catalog().find((s) => s.name === row.name);
  try {
    if (schema) return toolManifest(schema);
    return toolManifest({
      name: row.name,
      toolset: row.toolset,
      visibility: (row.visibility ?? undefined) as ToolSchema['visibility'],
      capability: (row.capability ?? undefined) as ToolSchema['capability'],
      isCore: !!row.isCore,
      canDisable: !!row.canDisable,
    } as ToolSchema);
  } catch {
    return null;
  }
}

export function inCatalog(name: string): boolean {
  return catalog().some((s) => s.name === name);
}

/**
 * docs/backend-api.md, "How an agent becomes a resolver input" — exactly those fields, absent agent
 * fields taking the same defaults as the backend (toolsets/tools/modelCapability/crewRole null,
 * memoryEnabled false, skills []).
 */
export function agentResolverInput(agent: Partial<AgentInput>, governance: ToolRow[]) {
  return {
    governance: governance as never,
    agent: { toolsets: agent.toolsets ?? null, tools: agent.tools ?? null },
    modelCapability: agent.modelCapability ?? null,
    memoryEnabled: agent.memoryEnabled ?? false,
    hasSkills: (agent.skills ?? []).length > 0,
    crewRole: agent.crewRole ?? null,
  };
}

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
  diagnostic: RuntimeDiagnostic;
}

/** What the agent-edit page shows: resolution, the tool-guidance layer and the runtime picture. */
export function previewAgent(agent: AgentInput, governance: ToolRow[], batch: SubagentBatch = {}): AgentPreview {
  const input = agentResolverInput(agent, governance);
  const resolved = resolveTools(input);
  const guidance = toolBehaviorGuidance(resolved.toolNames, resolved.toolPromptHints);
  const diagnostic = runtimeDiagnostic({ ...input, ...batch });
  return { resolved, guidance, diagnostic };
}

export function diagnose(agent: AgentInput, governance: ToolRow[], batch: SubagentBatch): RuntimeDiagnostic {
  return runtimeDiagnostic({ ...agentResolverInput(agent, governance), ...batch });
}

export interface UpdateCheck {
  ok: boolean;
  errors: { field: string; code: string }[];
}

export function checkToolUpdate(row: ToolRow, patch: Record<string, unknown>): UpdateCheck {
  const r = validateToolUpdate({ row: row as never, patch: patch as never });
  return r.ok ? { ok: true, errors: [] } : { ok: false, errors: r.errors };
}

/** The message of a package error (`code` `invalid_input`, message names the path). */
export function policyError(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as Error & { code?: string }).code;
    return code ? `${code}: ${e.message}` : e.message;
  }
  return String(e);
}

/** The route a static profile alone predicts (seed 000: manifest vs toolRuntimeRoutes). */
export function staticRoute(m: ToolManifest): 'worker-local' | 'main-process-proxy' | 'disabled' {
  if (m.workerRoutingHint === 'local') return m.supportedInWorker ? 'worker-local' : 'disabled';
  if (m.workerRoutingHint === 'main-process-proxy') return 'main-process-proxy';
  return 'disabled';
}

/**
 * The toolsets a legacy agent (no `toolsets`) gets — the package's TOOLSET_DEFAULTS — read off the
 * package itself: the toolsets of every tool a legacy agent with every scene enabled is given.
 */
export function resolveDefaultsToolsets(): string[] {
  const r = resolveTools({ agent: null, modelCapability: 'multimodal', memoryEnabled: true, hasSkills: true, crewRole: 'master' });
  const byName = new Map(catalog().map((s) => [s.name, s.toolset]));
  const sets = new Set(r.toolNames.map((n) => byName.get(n)).filter((x): x is string => !!x));
  return catalogToolsets().filter((ts) => sets.has(ts));
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
