import * as path from 'path';
import { readJsonArray } from '../config/jsonfile';
import { Init, Inject, Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { InjectDataSource, InjectEntityModel } from '@midwayjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { NetaClawSettingEntity } from '../entity/setting';
import { DB } from '../config/settings';
import { IdDTO } from '../dto/channel';
import { McpAddDTO, McpUpdateDTO } from '../dto/mcp';
import { PageDTO } from '../dto/page';
import { IdQueryDTO } from '../dto/query';
import { NetaClawMcpServerEntity } from '../entity/mcp';
import { invalidInput, notFound } from '../wire/errors';
import { dbWriteLock, Mutex } from '../lib/mutex';
import { forUpdate } from '../db/versioned';
import { policy, ToolSchema } from '../wire/policy';
import { MCP_ENV_NAME, MCP_NAME, McpServerConfig, McpServerState as ApiMcpServerState, McpServerView as ApiMcpServerView } from '../wire/api-types';
import type { McpListedTool, McpToolRef, NetRecord, RuntimeEnv } from '../runtime';
import { CatalogService } from './catalog';
import { RulesService } from './rules';
import { maskKey } from './channel';
import { ToolService } from './tool';
import { errorMessage } from '../lib/errortext';
import { log } from '../config/log';
import { bus } from '../bus/bus';

/** What a model API accepts as a function name (OpenAI: letters, digits, `_`, `-`, at most 64). */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export type McpServerState = ApiMcpServerState<Date>;
export type McpServerView = ApiMcpServerView<Date>;

type Values = Partial<Pick<NetaClawMcpServerEntity, 'name' | 'transport' | 'command' | 'args' | 'url' | 'env' | 'enabled' | 'workspaceRoots' | 'pathMarks'>>;

/** `pathMarks`: an object of tool names, each an object of argument names, each `read` or `write`. */
function pathMarks(value: unknown): Record<string, Record<string, 'read' | 'write'>> | null {
  if (value === null) return null;
  const isObject = (x: unknown) => typeof x === 'object' && x !== null && !Array.isArray(x);
  if (!isObject(value)) throw invalidInput('pathMarks must be an object: tool name → { argument name → "read" or "write" }');
  const tools = Object.entries(value as Record<string, unknown>);
  if (tools.length > 200) throw invalidInput('pathMarks must name at most 200 tools');
  for (const [tool, args] of tools) {
    if (tool.length < 1 || tool.length > 100) throw invalidInput(`pathMarks: a tool name must be 1 to 100 characters, got ${JSON.stringify(tool)}`);
    if (!isObject(args)) throw invalidInput(`pathMarks.${tool} must be an object: argument name → "read" or "write"`);
    const entries = Object.entries(args as Record<string, unknown>);
    if (entries.length > 50) throw invalidInput(`pathMarks.${tool} must name at most 50 arguments`);
    for (const [arg, mark] of entries) {
      if (arg.length < 1 || arg.length > 100) throw invalidInput(`pathMarks.${tool}: an argument name must be 1 to 100 characters, got ${JSON.stringify(arg)}`);
      if (mark !== 'read' && mark !== 'write') throw invalidInput(`pathMarks.${tool}.${arg} must be "read" or "write", got ${JSON.stringify(mark)}`);
    }
  }
  return value as Record<string, Record<string, 'read' | 'write'>>;
}

function stringList(value: unknown, field: string, max: number): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.some(v => typeof v !== 'string')) throw invalidInput(`${field} must be a list of strings`);
  if (value.length > max) throw invalidInput(`${field} must have at most ${max} entries`);
  if (value.some(v => v.length > 4096)) throw invalidInput(`${field}: an entry is longer than 4096 characters`);
  return value as string[];
}

/**
 * The fields of an add or update, checked (the DTO checked their types where it could). With `keep` (an
 * update), an `env` value of `null` stands for the value stored under that name (the API sends values only
 * masked, so an edit that keeps a variable sends no value for it); `resolveEnv` puts the stored value in.
 */
function values(o: McpAddDTO | McpUpdateDTO, keep = false): Values {
  const v: Values = {};
  if (o.name !== undefined) {
    const name = o.name.trim();
    if (!MCP_NAME.test(name)) {
      throw invalidInput('name must be 1 to 30 characters: lowercase letters, digits, "_" and "-", starting with a letter or digit');
    }
    v.name = name;
  }
  if (o.transport !== undefined) {
    const t = o.transport.trim();
    if (t !== 'stdio' && t !== 'http') throw invalidInput(`transport must be "stdio" or "http", got ${JSON.stringify(o.transport)}`);
    v.transport = t;
  }
  if (o.command !== undefined) v.command = o.command === null || o.command.trim() === '' ? null : o.command.trim();
  if (o.url !== undefined) {
    if (o.url === null || o.url.trim() === '') v.url = null;
    else {
      let url: URL;
      try {
        url = new URL(o.url.trim());
      } catch {
        throw invalidInput(`url must be an absolute http(s) URL, got ${JSON.stringify(o.url)}`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidInput(`url must be an http(s) URL, got ${JSON.stringify(o.url)}`);
      v.url = o.url.trim();
    }
  }
  if (o.args !== undefined) v.args = stringList(o.args, 'args', 100);
  if (o.workspaceRoots !== undefined) {
    const roots = stringList(o.workspaceRoots, 'workspaceRoots', 20);
    if (roots) {
      roots.forEach((r, i) => {
        if (!path.isAbsolute(r)) throw invalidInput(`workspaceRoots[${i}] must be an absolute path, got ${JSON.stringify(r)}`);
      });
      v.workspaceRoots = roots.map(r => path.resolve(r));
    } else v.workspaceRoots = null;
  }
  if (o.env !== undefined) {
    const env = o.env;
    if (env === null) v.env = null;
    else {
      if (typeof env !== 'object' || Array.isArray(env)) throw invalidInput('env must be an object of strings');
      for (const [k, val] of Object.entries(env as Record<string, unknown>)) {
        if (!MCP_ENV_NAME.test(k)) throw invalidInput(`env: ${JSON.stringify(k)} is not a variable name`);
        if (typeof val !== 'string' && !(keep && val === null)) throw invalidInput(`env.${k} must be a string`);
      }
      v.env = env as Record<string, string>;
    }
  }
  if (o.enabled !== undefined) v.enabled = o.enabled;
  if (o.pathMarks !== undefined) v.pathMarks = pathMarks(o.pathMarks);
  return v;
}

/** An update's `env` with each `null` (keep) replaced by the value stored under that name. */
function resolveEnv(env: Record<string, string | null>, stored: Record<string, string> | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(env)) {
    if (val !== null) out[k] = val;
    else if (stored && typeof stored[k] === 'string') out[k] = stored[k];
    else throw invalidInput(`env.${k}: no stored value to keep (give a value)`);
  }
  return out;
}

/** The row as a whole must be usable by its transport. */
function checkWhole(row: Values): void {
  if (row.transport === 'stdio' && !row.command) throw invalidInput('command is required for a stdio server');
  if (row.transport === 'http' && !row.url) throw invalidInput('url is required for an http server');
}

/** The row of `netaclaw_setting` whose version counts the refreshes of the MCP servers on this database. */
const MCP_REFRESH = 'mcp_refresh';

/** How often an instance on MySQL/MariaDB looks whether another one refreshed the MCP servers. */
export const MCP_POLL_MS = Number(process.env.NETACLAW_MCP_POLL_MS) > 0 ? Number(process.env.NETACLAW_MCP_POLL_MS) : 2000;

type PathMarks = Record<string, Record<string, 'read' | 'write'>>;

/**
 * The path arguments of the reference filesystem server (`@modelcontextprotocol/server-filesystem`), marked
 * `x-netaclaw-path` by default: a call of them is then checked like a builtin's — every path inside the
 * session's roots, a written one only where the session may write — before the server sees it.
 */
const FILESYSTEM_PATH_MARKS: PathMarks = {
  read_file: { path: 'read' },
  read_text_file: { path: 'read' },
  read_media_file: { path: 'read' },
  read_multiple_files: { paths: 'read' },
  list_directory: { path: 'read' },
  list_directory_with_sizes: { path: 'read' },
  directory_tree: { path: 'read' },
  search_files: { path: 'read' },
  get_file_info: { path: 'read' },
  write_file: { path: 'write' },
  edit_file: { path: 'write' },
  create_directory: { path: 'write' },
  move_file: { source: 'write', destination: 'write' },
};

/** The path marks a server's tools get by default: the filesystem server's, named by its package or command. */
function defaultPathMarks(cfg: McpServerConfig): PathMarks | null {
  if (cfg.transport !== 'stdio') return null;
  const words = [cfg.command ?? '', ...cfg.args];
  const filesystem = words.some(w => /@modelcontextprotocol[/\\]server-filesystem(?:$|[/\\@])/.test(w) || path.basename(w) === 'mcp-server-filesystem');
  return filesystem ? FILESYSTEM_PATH_MARKS : null;
}

/** The marks of a server's tools: the defaults, and over them, argument by argument, the admin's (`pathMarks`). */
function serverPathMarks(cfg: McpServerConfig): { marks: PathMarks; admin: PathMarks } {
  const marks: PathMarks = { ...(defaultPathMarks(cfg) ?? {}) };
  for (const [tool, args] of Object.entries(cfg.pathMarks)) marks[tool] = { ...(marks[tool] ?? {}), ...args };
  return { marks, admin: cfg.pathMarks };
}

/**
 * The tool with its path arguments marked: a string property gets `x-netaclaw-path`, a list of strings its
 * items. An argument the tool has in another shape cannot be marked: an error (the tool is skipped rather
 * than offered with a path unchecked). An argument it does not have is left alone (another version).
 */
function markPaths(tool: McpListedTool, marks: Record<string, 'read' | 'write'>): McpListedTool {
  const schema = tool.inputSchema;
  const props = schema && typeof schema.properties === 'object' && schema.properties !== null ? (schema.properties as Record<string, unknown>) : null;
  if (!props) return tool;
  const marked: Record<string, unknown> = { ...props };
  for (const [arg, mark] of Object.entries(marks)) {
    const p = props[arg] as Record<string, unknown> | undefined;
    if (p === undefined) continue;
    const items = p && typeof p.items === 'object' && p.items !== null ? (p.items as Record<string, unknown>) : null;
    if (p && p.type === 'string') marked[arg] = { ...p, 'x-netaclaw-path': mark };
    else if (p && p.type === 'array' && items?.type === 'string') marked[arg] = { ...p, items: { ...items, 'x-netaclaw-path': mark } };
    else throw new Error(`its argument "${arg}" is a path, and its schema is not a string or a list of strings, so the path cannot be checked`);
  }
  return { ...tool, inputSchema: { ...schema, properties: marked } };
}

interface Registered {
  schema: ToolSchema;
  tool: string;
}

function freshState(status: McpServerState['status']): McpServerState {
  return { status, tools: [], skipped: [], error: null, refreshedAt: null, stderr: [], nextRetryAt: null, restarts: 0, refused: null };
}

/** What a running server was started from: a stored row that differs is pending until the next refresh. */
function runKey(row: NetaClawMcpServerEntity): string {
  return JSON.stringify(config(row));
}

function config(row: NetaClawMcpServerEntity): McpServerConfig {
  return {
    name: row.name,
    transport: row.transport as 'stdio' | 'http',
    command: row.command,
    args: row.args ?? [],
    url: row.url,
    env: row.env ?? {},
    workspaceRoots: row.workspaceRoots ?? [],
    pathMarks: row.pathMarks ?? {},
  };
}

/**
 * MCP servers (`netaclaw_mcp_server`) and their tools. At start and on refresh each enabled server is
 * started (stdio, in the OS sandbox) or reached (http), its tools listed, converted with the package's
 * `fromMcpTool` and registered through the catalog sync the builtins use (rows are never deleted: a tool
 * that went away is an orphan row, not offered). The connections, and the calls forwarded to them, are
 * `runtime/mcp/servers.ts`'s.
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class McpService {
  @InjectEntityModel(NetaClawMcpServerEntity)
  repo: Repository<NetaClawMcpServerEntity>;

  @InjectDataSource()
  dataSource: DataSource;

  @Inject()
  catalog: CatalogService;

  @Inject()
  tools: ToolService;

  @InjectEntityModel(NetaClawSettingEntity)
  settings: Repository<NetaClawSettingEntity>;

  @Inject()
  rules: RulesService;

  private readonly states = new Map<string, McpServerState>();
  /** Per running server, the row it was started from (`runKey`). */
  private readonly ran = new Map<string, string>();
  /** Per server, the path marks its tools get (`serverPathMarks`). */
  private readonly marks = new Map<string, { marks: PathMarks; admin: PathMarks }>();
  /** Per server, its usable tools: the catalog schema and the server's own name of each. */
  private readonly schemas = new Map<string, Registered[]>();
  /** The runtime: its MCP servers' connections (where their tools run) and its tool registry. */
  @Inject('runtimeEnv')
  runtime: RuntimeEnv;

  /** The servers' connections, where their tools run; a stdio server that dies is restarted with backoff. */
  private get servers() {
    return this.runtime.mcp;
  }

  /** This service is told of the servers' lives (a stdio server down, or up again). */
  @Init()
  supervise(): void {
    this.servers.supervise({
      down: (server, info) => {
        const state = this.states.get(server);
        if (!state) return;
        state.status = 'failed';
        state.error = `MCP server ${server}: ${info.reason}; started again at ${info.retryAt.toISOString()}`;
        state.stderr = info.stderr;
        state.nextRetryAt = info.retryAt;
        state.restarts = info.restarts;
        log().warn(`[netaclaw] WARNING ${state.error}${info.stderr.length ? ` (stderr: ${info.stderr[info.stderr.length - 1]})` : ''}`);
      },
      up: (server, tools) => this.restarted(server, tools),
    });
    // every server's network is the global net() rules' (docs/runtime.md "Network: MCP servers"), read at
    // each connection: an HTTP server's URL, and the proxy of a stdio server's sandbox
    this.servers.limitNetwork(async () => ({ global: (await this.rules.global()) ?? null, record: (server, r) => this.netDecision(server, r) }));
  }

  /**
   * Keeps one network decision made for a server: logged, and a refused one as the server's `refused`
   * (shown on the MCP page). The one place every MCP connection decision passes through.
   */
  netDecision(server: string, r: NetRecord): void {
    const d = r.decision;
    const line = `[netaclaw] MCP server ${server}: ${r.method} ${r.host}:${r.port} ${r.outcome} (${d.rule ? `${d.rule}, ${d.level} rules` : 'no rule'}): ${r.detail}`;
    if (r.outcome === 'connected') log().info(line);
    else log().warn(line);
    if (r.outcome !== 'refused') return;
    const state = this.states.get(server);
    if (state) state.refused = { at: new Date(r.at), host: r.host, port: r.port, rule: d.rule ?? null, level: d.level ?? null, message: r.detail };
  }

  private readonly refreshing = new Mutex();
  /** The refresh count (`netaclaw_setting` `mcp_refresh`) this instance has applied. */
  private applied = 0;
  /** Own refreshes being counted: the watch does not decide meanwhile (it could read the new count first). */
  private counting = 0;
  private poller: NodeJS.Timeout | null = null;
  private busSub: { stop: () => void } | null = null;

  private state(row: NetaClawMcpServerEntity): McpServerState {
    if (!row.enabled) return freshState('disabled');
    const state = this.states.get(row.name);
    // saved is not what runs (an edit here or on another instance): pending until the next refresh
    if (!state || this.ran.get(row.name) !== runKey(row)) return freshState('pending');
    return state;
  }

  view(row: NetaClawMcpServerEntity): McpServerView {
    return {
      id: row.id,
      ...config(row),
      // values may be secrets (API keys): never sent back whole, as a channel's key
      env: Object.fromEntries(Object.entries(row.env ?? {}).map(([k, v]) => [k, maskKey(v) ?? ''])),
      enabled: !!row.enabled,
      state: this.state(row),
      createTime: row.createTime,
      updateTime: row.updateTime,
    };
  }

  async page(input: PageDTO) {
    const page = input.page ?? 1;
    const size = input.size ?? 20;
    const [list, total] = await this.repo.findAndCount({ order: { id: 'ASC' }, skip: (page - 1) * size, take: size });
    return { list: list.map(r => this.view(r)), pagination: { page, size, total } };
  }

  async info(query: IdQueryDTO): Promise<McpServerView> {
    return this.view(await this.mustGet(Number(query.id)));
  }

  /** Stores a server; its tools join the catalog at the next refresh (`/refresh`, or a start). */
  async add(input: McpAddDTO): Promise<McpServerView> {
    const v = values(input);
    const row: Values = { args: null, env: null, workspaceRoots: null, pathMarks: null, command: null, url: null, enabled: true, ...v };
    checkWhole(row);
    const id = await dbWriteLock.run(() =>
      this.dataSource.transaction(async em => {
        await this.checkNameFree(em, row.name!, null);
        return (await em.save(em.create(NetaClawMcpServerEntity, row))).id;
      })
    );
    return this.view(await this.mustGet(id));
  }

  async update(input: McpUpdateDTO): Promise<McpServerView> {
    const id = Number(input.id);
    const v = values(input, true);
    await dbWriteLock.run(() =>
      this.dataSource.transaction(async em => {
        // the row held to the end: its env is merged with what was sent
        const row = await em.findOne(NetaClawMcpServerEntity, { where: { id }, ...forUpdate(em) });
        if (!row) throw notFound(`no MCP server with id ${id}`);
        const set: Values = v.env ? { ...v, env: resolveEnv(v.env, row.env) } : v;
        checkWhole({ ...row, ...set });
        if (set.name !== undefined) await this.checkNameFree(em, set.name, id);
        if (Object.keys(set).length > 0) await em.update(NetaClawMcpServerEntity, { id }, set);
      })
    );
    // what is saved is not what runs: `pending` until the next refresh (`state`)
    return this.view(await this.mustGet(id));
  }

  /** Deletes the row; its tools leave the catalog at the next refresh (their governance rows are kept). */
  async delete(input: IdDTO): Promise<{ id: number }> {
    const id = Number(input.id);
    await dbWriteLock.run(async () => {
      const row = await this.repo.findOneBy({ id });
      if (!row) throw notFound(`no MCP server with id ${id}`);
      await this.repo.delete({ id });
    });
    return { id };
  }

  /**
   * Example servers (the demo's `NETACLAW_MCP_SEED_FILE`, a JSON array of add requests), added only to an
   * empty table. An argument or command starting with `./` or `../` is taken relative to the file's folder.
   * Returns how many were added; a bad entry stops with a message naming the file and the entry.
   */
  async seed(file: string): Promise<number> {
    if ((await this.repo.count()) > 0) return 0;
    const dir = path.dirname(path.resolve(file));
    const local = (v: unknown) => (typeof v === 'string' && /^\.\.?\//.test(v) ? path.resolve(dir, v) : v);
    const entries = readJsonArray(file, 'MCP servers', detail => new Error(`NETACLAW_MCP_SEED_FILE ${file}: ${detail}`));
    let added = 0;
    for (const [i, e] of entries.entries()) {
      const entry = { ...(e as Record<string, unknown>) };
      entry.command = local(entry.command);
      if (Array.isArray(entry.args)) entry.args = entry.args.map(local);
      try {
        await this.add(entry as unknown as McpAddDTO);
      } catch (err) {
        throw new Error(`NETACLAW_MCP_SEED_FILE ${file}: entry [${i}]: ${errorMessage(err)}`);
      }
      added += 1;
    }
    return added;
  }

  /**
   * Lists every enabled server's tools again (servers restarted), replaces the MCP tools of the catalog
   * and runs the catalog sync. A server that fails is reported in its state; the others go on. Counts the
   * refresh in `netaclaw_setting` (`mcp_refresh`), so that the other instances on the database refresh
   * too (`watch`).
   */
  async refresh(): Promise<{ servers: McpServerView[]; sync: { inserts: number; updates: number; orphans: string[] } }> {
    const version = await this.countRefresh();
    return this.refreshHere(version);
  }

  /**
   * The refresh of this instance alone: at start, and when another instance has refreshed (`version`, the
   * refresh count it applies).
   */
  async refreshHere(version?: number): Promise<{ servers: McpServerView[]; sync: { inserts: number; updates: number; orphans: string[] } }> {
    return this.refreshing.run(async () => {
      if (version !== undefined) this.applied = Math.max(this.applied, version);
      const rows = await this.repo.find({ order: { id: 'ASC' } });
      await this.servers.closeAll();
      this.states.clear();
      this.ran.clear();
      this.schemas.clear();
      this.marks.clear();
      for (const row of rows) {
        if (!row.enabled) continue;
        const state = freshState('failed');
        state.refreshedAt = new Date();
        this.states.set(row.name, state);
        this.ran.set(row.name, runKey(row));
        this.marks.set(row.name, serverPathMarks(config(row)));
        let listed;
        try {
          listed = await this.servers.open(config(row));
        } catch (err) {
          // refused by the global net() rules: not connected, and the sentence says which host and rule
          state.error =
            (err as Error)?.name === 'McpNetRefused'
              ? `MCP server ${row.name} is not connected and its tools are not offered: ${errorMessage(err)}; once a rule allows it, refresh the MCP servers`
              : `cannot list the tools of MCP server ${row.name}: ${errorMessage(err)}`;
          log().warn(`[netaclaw] ${state.error}`);
          continue;
        }
        this.schemas.set(row.name, this.register(row.name, listed, state));
        state.status = 'connected';
      }
      const sync = await this.publish();
      return { servers: rows.map(r => this.view(r)), sync };
    });
  }

  /**
   * The usable tools of a listed server as catalog schemas; the others go to `state.skipped` with why: a
   * tool the package refuses, one whose input schema the call check cannot read (`unusableReason`: every
   * call would be denied, so it is never offered), a name no model API takes.
   */
  private register(server: string, listed: McpListedTool[], state: McpServerState): Registered[] {
    const out: Registered[] = [];
    state.tools = [];
    state.skipped = [];
    const { marks, admin } = this.marks.get(server) ?? { marks: {}, admin: {} };
    const own = (o: object, k: unknown) => typeof k === 'string' && Object.prototype.hasOwnProperty.call(o, k);
    for (const tool of listed) {
      let schema: ToolSchema;
      try {
        if (own(admin, tool?.name)) {
          // an admin's mark of an argument the tool does not have is a mistake to show, not to ignore
          const props = (tool.inputSchema?.properties ?? {}) as Record<string, unknown>;
          const missing = Object.keys(admin[tool.name]).filter(a => !own(props, a));
          if (missing.length) throw new Error(`the path marks name ${missing.map(a => JSON.stringify(a)).join(', ')}, which this tool has no argument for`);
        }
        schema = policy().fromMcpTool({ server, tool: (own(marks, tool?.name) ? markPaths(tool, marks[tool.name]) : tool) as never });
      } catch (err) {
        state.skipped.push({ tool: String(tool?.name), reason: (err as Error).message });
        continue;
      }
      if (typeof schema.unusableReason === 'string') {
        state.skipped.push({ tool: tool.name, reason: `its input schema cannot be checked, so no call of it could be allowed: ${schema.unusableReason}` });
        continue;
      }
      if (!TOOL_NAME.test(schema.name)) {
        state.skipped.push({ tool: tool.name, reason: `${schema.name} is not a usable function name (letters, digits, "_" and "-", at most 64)` });
        continue;
      }
      out.push({ schema, tool: tool.name });
      state.tools.push(schema.name);
    }
    for (const name of Object.keys(admin)) {
      if (!listed.some(t => t?.name === name)) state.skipped.push({ tool: name, reason: 'path marks are given for this tool, which the server does not list' });
    }
    return out;
  }

  /** The listed servers' tools into the catalog and the tool runtime, then the catalog sync. */
  private async publish(): Promise<{ inserts: number; updates: number; orphans: string[] }> {
    const all: ToolSchema[] = [];
    let refs: McpToolRef[] = [];
    for (const [server, tools] of this.schemas) {
      for (const { schema, tool } of tools) {
        all.push(schema);
        refs.push({ name: schema.name, server, tool });
      }
    }
    try {
      this.catalog.setMcpTools(all);
    } catch (err) {
      for (const s of this.states.values()) {
        if (s.status === 'connected') {
          s.status = 'failed';
          s.error = (err as Error).message;
          s.tools = [];
        }
      }
      this.catalog.setMcpTools([]);
      refs = [];
    }
    // (the catalog file's entries that name a tool of an MCP server were registered at start: tools/kinds.ts)
    this.runtime.registerMcpTools(refs);
    return this.tools.sync();
  }

  /** A stdio server started again after its process ended: connected, and its tools again if they changed. */
  private async restarted(server: string, listed: McpListedTool[]): Promise<void> {
    await this.refreshing.run(async () => {
      const state = this.states.get(server);
      if (!state) return;
      const schemas = this.register(server, listed, state);
      state.status = 'connected';
      state.error = null;
      state.nextRetryAt = null;
      log().info(`[netaclaw] MCP server ${server} started again (restart ${state.restarts}): ${state.tools.length} tools`);
      if (JSON.stringify(schemas) !== JSON.stringify(this.schemas.get(server) ?? [])) {
        this.schemas.set(server, schemas);
        await this.publish();
      }
    });
  }

  /**
   * Counts a refresh in `netaclaw_setting` and answers the new count (undefined where nothing is shared:
   * SQLite). The count is this instance's own: it is applied before the watch may look again.
   */
  private async countRefresh(): Promise<number | undefined> {
    if (DB.kind !== 'mysql') return undefined;
    this.counting += 1;
    try {
      const version = await this.bumpRefresh();
      this.applied = Math.max(this.applied, version);
      bus.publish(MCP_REFRESH, { version });
      return version;
    } finally {
      this.counting -= 1;
    }
  }

  private bumpRefresh(): Promise<number> {
    return dbWriteLock.run(async () => {
      const bump = () =>
        this.settings
          .createQueryBuilder()
          .update()
          .set({ value: { at: new Date().toISOString() } } as never)
          .where('name = :name', { name: MCP_REFRESH })
          .execute();
      if (((await bump()).affected ?? 0) === 0) {
        try {
          await this.settings.insert({ name: MCP_REFRESH, value: { at: new Date().toISOString() } as never, version: 1 });
        } catch {
          await bump(); // another instance inserted it meanwhile
        }
      }
      return (await this.settings.findOneBy({ name: MCP_REFRESH }))?.version ?? 0;
    });
  }

  /**
   * On MySQL/MariaDB, where several instances share the database: remembers the refresh count now, and
   * every `NETACLAW_MCP_POLL_MS` (2 s) looks whether another instance has refreshed since; then refreshes
   * here too. (SQLite: one instance per file, nothing to watch.)
   */
  async watch(): Promise<void> {
    if (DB.kind !== 'mysql' || this.poller) return;
    this.applied = Math.max(this.applied, (await this.settings.findOneBy({ name: MCP_REFRESH }))?.version ?? 0);
    let busy = false;
    // the bus: another instance's refresh heard at once (the poll below stays, for when Redis is away)
    this.busSub = bus.subscribe(MCP_REFRESH, msg => {
      if (msg.from === bus.instance || typeof msg.version !== 'number' || this.counting > 0 || msg.version <= this.applied) return;
      const version = msg.version;
      log().info(`[netaclaw] MCP servers refreshed on another instance (refresh ${version}, through the bus): refreshing here`);
      this.refreshHere(version).catch(err => log().warn(`[netaclaw] WARNING MCP refresh watch: ${errorMessage(err)}`));
    });
    this.poller = setInterval(() => {
      if (busy) return;
      busy = true;
      this.settings
        .findOneBy({ name: MCP_REFRESH })
        .then(async row => {
          const version = row?.version ?? 0;
          if (this.counting > 0 || version <= this.applied) return;
          log().info(`[netaclaw] MCP servers refreshed on another instance (refresh ${version}): refreshing here`);
          await this.refreshHere(version);
        })
        .catch(err => log().warn(`[netaclaw] WARNING MCP refresh watch: ${errorMessage(err)}`))
        .finally(() => {
          busy = false;
        });
    }, MCP_POLL_MS);
    this.poller.unref();
  }

  /** Ends every server's connection (the backend stops). */
  async closeAll(): Promise<void> {
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
    this.busSub?.stop();
    this.busSub = null;
    await this.servers.closeAll();
  }

  async mustGet(id: number): Promise<NetaClawMcpServerEntity> {
    const row = await this.repo.findOneBy({ id });
    if (!row) throw notFound(`no MCP server with id ${id}`);
    return row;
  }

  private async checkNameFree(em: EntityManager, name: string, exceptId: number | null) {
    const other = await em.findOneBy(NetaClawMcpServerEntity, { name });
    if (other && other.id !== exceptId) throw invalidInput(`name: an MCP server named ${JSON.stringify(name)} exists`);
  }
}
