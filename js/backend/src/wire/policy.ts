/**
 * The one place that loads `@netaclaw/tool-policy` (the CommonJS/Node build of the wasm package,
 * `file:../../pkg`). Every rule — sync plan, update guard, resolution, guidance, routes — comes from
 * it. Types come from the package itself; the module is loaded on first use so that a missing or
 * unbuilt package fails with a clear message.
 */
import type * as ToolPolicy from '@netaclaw/tool-policy';
import type { Capability } from '@netaclaw/tool-policy';
import { errorMessage } from '../lib/errortext';

export type {
  Capability,
  CrewRole,
  DiagnosticInput,
  ResolveInput,
  ResolveResult,
  RuntimeDiagnostic,
  SyncPlan,
  ToolGovernanceRowInput,
  ToolManifest,
  ToolSchema,
  UpdateOutcome,
  WorkerPolicy,
  ToolRuntimeRoute,
  ReasonCode,
  ToolCallDecision,
  ExecutionMode,
} from '@netaclaw/tool-policy';

export const POLICY_PACKAGE = '@netaclaw/tool-policy';

let cached: typeof ToolPolicy | undefined;

let active: ToolPolicy.ToolSchema[] | undefined;

/**
 * The catalog of this process: set by the backend's CatalogService when it loads (the builtin tools plus
 * NETACLAW_CATALOG_FILE), and in a worker process from its `init` (the main process's catalog, so that the
 * worker's gate decides with the catalog its routes were computed from); undefined otherwise, where the
 * package's builtin catalog applies.
 */
export function activeCatalog(): ToolPolicy.ToolSchema[] | undefined {
  return active;
}

export function setActiveCatalog(catalog: ToolPolicy.ToolSchema[]): void {
  active = catalog;
}

export function policy(): typeof ToolPolicy {
  if (!cached) {
    try {
      cached = require(POLICY_PACKAGE) as typeof ToolPolicy;
    } catch (err) {
      const first = String(errorMessage(err)).split('\n')[0];
      throw new Error(
        `cannot load ${POLICY_PACKAGE} (${first}). Build the package into pkg/ ` + '(see js/backend/README.md), then run `npm --prefix js/backend install`.'
      );
    }
  }
  return cached;
}

/**
 * Checks a model capability with the package (its vocabulary, its message): the package's
 * `invalid_input` error, re-labelled with the caller's field name.
 */
export function checkCapability(value: unknown, field: string): Capability {
  try {
    policy().resolveTools({ catalog: [], modelCapability: value as Capability });
  } catch (err) {
    if ((err as { code?: unknown } | null)?.code !== 'invalid_input') throw err;
    const out = new Error(errorMessage(err).replace(/^modelCapability\b/, field)) as Error & { code?: string };
    out.code = 'invalid_input';
    throw out;
  }
  if (typeof value !== 'string') {
    const out = new Error(`${field} must be a string`) as Error & { code?: string };
    out.code = 'invalid_input';
    throw out;
  }
  return value as Capability;
}
