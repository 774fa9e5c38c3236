import { Inject, Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { DECISIONS } from '../runtime/codes';
import { policy, setActiveCatalog, ToolManifest, ToolSchema } from '../wire/policy';
import { CATALOG_FILE } from '../config/settings';
import { readJsonArray } from '../config/jsonfile';
import * as path from 'path';
import type { Implementation, RuntimeEnv } from '../runtime';
import { errorMessage } from '../lib/errortext';

export interface LoadedCatalog {
  /** Builtin tools, then the file's tools, as the package takes them. */
  schemas: ToolSchema[];
  /** The same, every field resolved by the package. */
  manifests: ToolManifest[];
  /** Names of the tools that came from the file. */
  custom: string[];
  /** The file they came from. */
  file: string | null;
  /** The `implementation` of the file's entries that name one, by tool name. */
  implementations: Map<string, Implementation>;
  /** The tools of MCP servers (`McpService`), after the file's. */
  mcp: string[];
}

/** Why a catalog file cannot be used: the message names the path. */
export class CatalogFileError extends Error {
  constructor(file: string, detail: string) {
    super(`NETACLAW_CATALOG_FILE ${file}: ${detail}`);
    this.name = 'CatalogFileError';
  }
}

/**
 * Reads a catalog file (a JSON array of ToolSchema) and appends it to the builtin catalog. The package
 * validates every entry and the merged whole (names unique, lengths, enum values); the first problem
 * stops with a message naming the file and the entry. An entry's `implementation` is checked by the
 * runtime's tool kinds (`parseImplementation`: runtime/tools/kinds.ts).
 */
export function loadCatalog(file: string | undefined, parseImplementation: RuntimeEnv['parseImplementation']): LoadedCatalog {
  const p = policy();
  const builtin = p.builtinCatalog();
  if (file === undefined) {
    return { schemas: builtin, manifests: builtin.map(s => p.toolManifest(s)), custom: [], file: null, implementations: new Map(), mcp: [] };
  }
  const entries = readJsonArray(file, 'tool schemas', detail => new CatalogFileError(file, detail)) as Array<ToolSchema & { implementation?: unknown }>;
  const implementations = new Map<string, Implementation>();
  const custom = entries.map((entry, i) => {
    const { implementation, ...schema } = entry as ToolSchema & { implementation?: unknown };
    let manifest: ToolManifest;
    try {
      manifest = p.toolManifest(schema as ToolSchema);
    } catch (err) {
      throw new CatalogFileError(file, `entry [${i}]: ${errorMessage(err)}`);
    }
    let impl: Implementation | null;
    try {
      impl = parseImplementation(implementation, path.dirname(path.resolve(file)));
    } catch (err) {
      throw new CatalogFileError(file, `entry [${i}] (${JSON.stringify(manifest.name)}): ${errorMessage(err)}`);
    }
    if (impl) {
      if (manifest.workerRoutingHint !== DECISIONS.proxy) {
        throw new CatalogFileError(
          file,
          `entry [${i}] (${JSON.stringify(manifest.name)}): a tool with an implementation runs in the main process: ` +
            `set "workerRoutingHint": "${DECISIONS.proxy}"`
        );
      }
      implementations.set(manifest.name, impl);
    }
    return schema as ToolSchema;
  });
  const schemas = [...builtin, ...custom];
  try {
    // Validates the merged catalog as a whole (e.g. a name used twice, or a builtin name reused).
    p.syncCatalog(schemas, []);
  } catch (err) {
    const message = String(errorMessage(err)).replace(/catalog\[(\d+)\]/g, (_m, n: string) => {
      const i = Number(n);
      return i < builtin.length ? `builtin tool ${JSON.stringify(builtin[i].name)}` : `entry [${i - builtin.length}]`;
    });
    throw new CatalogFileError(file, message);
  }
  return { schemas, manifests: schemas.map(s => p.toolManifest(s)), custom: custom.map(s => s.name), file, implementations, mcp: [] };
}

/**
 * The catalog with the tools of MCP servers after the rest: the merged whole is validated by the package
 * (a name used twice is refused), the error naming the MCP tool.
 */
export function withMcpTools(base: LoadedCatalog, mcp: ToolSchema[]): LoadedCatalog {
  const p = policy();
  const head = base.schemas.slice(0, base.schemas.length - base.mcp.length);
  const schemas = [...head, ...mcp];
  try {
    p.syncCatalog(schemas, []);
  } catch (err) {
    const message = String(errorMessage(err)).replace(/catalog\[(\d+)\]/g, (_m, n: string) => {
      const i = Number(n);
      return JSON.stringify(schemas[i]?.name ?? `#${i}`);
    });
    throw new Error(`the MCP tools cannot join the catalog: ${message}`);
  }
  return { ...base, schemas, manifests: schemas.map(s => p.toolManifest(s)), mcp: mcp.map(s => s.name) };
}

/**
 * The ONE tool catalog of the backend: the package's builtin catalog plus the tools of
 * `NETACLAW_CATALOG_FILE`, read once at start. Every package call of the backend (sync, update guard,
 * resolution, diagnostic, prompt, executor) passes `catalog()`.
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class CatalogService {
  private loaded?: LoadedCatalog;

  /** The runtime: its tool kinds check the file's implementations. */
  @Inject('runtimeEnv')
  runtime: RuntimeEnv;

  /** Loads the catalog (at start; throws a CatalogFileError naming the file when it is unusable). */
  load(): LoadedCatalog {
    if (!this.loaded) {
      this.loaded = loadCatalog(CATALOG_FILE, this.runtime.parseImplementation);
      setActiveCatalog(this.loaded.schemas);
    }
    return this.loaded;
  }

  /** Replaces the tools of MCP servers in the catalog (validated as a whole; on error nothing changes). */
  setMcpTools(schemas: ToolSchema[]): LoadedCatalog {
    this.loaded = withMcpTools(this.load(), schemas);
    setActiveCatalog(this.loaded.schemas);
    return this.loaded;
  }

  catalog(): ToolSchema[] {
    return this.load().schemas;
  }

  manifests(): ToolManifest[] {
    return this.load().manifests;
  }

  /** The manifest of a catalog tool, or undefined. */
  manifest(name: string): ToolManifest | undefined {
    return this.load().manifests.find(m => m.name === name);
  }

  /** The JSON Schema of a tool's arguments, as the package resolves it (the manifest's `parameters`). */
  parameters(name: string): Record<string, unknown> | undefined {
    return this.manifest(name)?.parameters as Record<string, unknown> | undefined;
  }

  /** The schema of a catalog tool as registered (builtin or file), or undefined. */
  schema(name: string): ToolSchema | undefined {
    return this.load().schemas.find(s => s.name === name);
  }
}
