/**
 * The MCP servers' connections, where their tools run: a server is started (stdio, in the OS sandbox) or
 * reached (http) when its tools are listed. A stdio server whose process ends (or that cannot start) is
 * started again with backoff — `NETACLAW_MCP_RESTART_FIRST_MS` (1 s) doubling up to
 * `NETACLAW_MCP_RESTART_MAX_MS` (60 s); the doubling starts over once a process has run for
 * `NETACLAW_MCP_RESTART_STABLE_MS` (60 s) — and a call made while it is down starts it at once. A call of
 * an MCP tool — decided by the call port, and again by the main process for what a worker proxies — is
 * forwarded with exactly the decided arguments; a server that dies or does not answer in time fails the
 * call with the reason.
 */
import type { McpServerConfig } from '../../wire/api-types';
import { ResultMedia, ToolError, ToolImpl, ToolOutput } from '../tools/types';
import {
  connect,
  ended,
  httpServerDecision,
  lastLines,
  listTools,
  MCP_CALL_TIMEOUT_MS,
  McpConnectError,
  McpConnection,
  McpListedTool,
  McpNetwork,
} from './client';
import type { Sandbox } from '../sandboxes';
import { Clock, ClockTimer, systemClock } from '../../lib/clock';
import { errorMessage } from '../../lib/errortext';

/** Bytes a base64 text stands for (without decoding it); 0 for anything that is not a string. */
function base64Bytes(data: unknown): number {
  return typeof data === 'string' ? Buffer.byteLength(data, 'base64') : 0;
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * One part of a `tools/call` result as text for the model. Text is itself; what a text channel cannot
 * carry is a note saying what it was (`[image: image/png, 12,345 bytes]`), so that nothing is dropped
 * without a word; a resource's text is kept under a line naming it.
 */
export function contentText(c: Record<string, unknown>): string {
  const mime = (v: unknown) => (typeof v === 'string' && v !== '' ? v : 'unknown type');
  switch (c.type) {
    case 'text':
      return typeof c.text === 'string' ? c.text : '[text part without text]';
    case 'image':
    case 'audio':
      return `[${c.type}: ${mime(c.mimeType)}, ${count(base64Bytes(c.data))} bytes]`;
    case 'resource': {
      const res = (c.resource && typeof c.resource === 'object' ? c.resource : {}) as Record<string, unknown>;
      const uri = String(res.uri ?? '');
      if (typeof res.text === 'string') return `[resource: ${uri}${typeof res.mimeType === 'string' ? ` (${res.mimeType})` : ''}]\n${res.text}`;
      return `[resource: ${uri}, ${mime(res.mimeType)}, ${count(base64Bytes(res.blob))} bytes]`;
    }
    case 'resource_link': {
      const about = [c.name, c.mimeType].filter(v => typeof v === 'string' && v !== '');
      return `[resource link: ${String(c.uri ?? '')}${about.length ? ` (${about.join(', ')})` : ''}]`;
    }
    default:
      return `[content of type ${JSON.stringify(String(c.type))}]`;
  }
}

/** Decoded bytes of images and audio one result may carry to the model besides its notes (5 MB). */
export const MEDIA_MAX_BYTES = 5 * 1024 * 1024;

/**
 * The image and audio parts of a result, as media for a channel that can see them (agent/media.ts), in
 * order, while their decoded sizes add up to at most MEDIA_MAX_BYTES; a part past that, or one without
 * base64 data or a type, stays a note only.
 */
export function resultMedia(content: unknown[]): ResultMedia[] {
  const out: ResultMedia[] = [];
  let bytes = 0;
  for (const c of content) {
    if (!c || typeof c !== 'object') continue;
    const p = c as Record<string, unknown>;
    if ((p.type !== 'image' && p.type !== 'audio') || typeof p.data !== 'string' || typeof p.mimeType !== 'string' || p.mimeType === '') continue;
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(p.data)) continue;
    const size = base64Bytes(p.data);
    if (bytes + size > MEDIA_MAX_BYTES) continue;
    bytes += size;
    out.push({ type: p.type, mimeType: p.mimeType, data: p.data });
  }
  return out;
}

/**
 * An MCP `tools/call` result as a tool's answer: its parts as text (`contentText`), one after another;
 * `structuredContent` when there is no part (a server should also send it as text); `isError` a failed call.
 * Its images and audio are also kept as they are (`media`), for a channel that can see them.
 */
export function resultOutput(server: string, r: Record<string, unknown>): ToolOutput {
  const content = Array.isArray(r.content) ? (r.content as unknown[]) : [];
  const parts = content.map(c => (c && typeof c === 'object' ? contentText(c as Record<string, unknown>) : `[content that is not an object]`));
  if (parts.length === 0 && r.structuredContent !== undefined) parts.push(JSON.stringify(r.structuredContent));
  const output = parts.join('\n');
  if (r.isError === true) return { output, error: `the MCP server ${server} reported an error: ${output.split('\n')[0].slice(0, 500) || 'no detail'}` };
  const media = resultMedia(content);
  return media.length > 0 ? { output, media } : { output };
}

function msFromEnv(name: string, fallback: number): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

export const MCP_RESTART_FIRST_MS = msFromEnv('NETACLAW_MCP_RESTART_FIRST_MS', 1000);
export const MCP_RESTART_MAX_MS = msFromEnv('NETACLAW_MCP_RESTART_MAX_MS', 60_000);
export const MCP_RESTART_STABLE_MS = msFromEnv('NETACLAW_MCP_RESTART_STABLE_MS', 60_000);

/** The pause before restart number `attempt` (0 = the first): FIRST doubling, at most MAX. */
export function restartDelay(attempt: number): number {
  return Math.min(MCP_RESTART_MAX_MS, MCP_RESTART_FIRST_MS * 2 ** Math.min(attempt, 30));
}

/** What the owner of the servers (McpService) is told of their lives. */
export interface McpSupervisor {
  /** A stdio server's process ended, or could not be started: it is started again at `retryAt`. */
  down(server: string, info: { reason: string; stderr: string[]; retryAt: Date; restarts: number }): void;
  /** A server started again (by the backoff, or for a call): its tools as listed now. */
  up(server: string, tools: McpListedTool[]): Promise<void>;
}

interface Watch {
  /** Restarts since the server last ran for the stable period. */
  attempts: number;
  upSince: number | null;
  timer: ClockTimer | null;
}

export class McpServers {
  private readonly connections = new Map<string, McpConnection>();
  private readonly configs = new Map<string, McpServerConfig>();
  private readonly watches = new Map<string, Watch>();
  private readonly starting = new Map<string, Promise<McpConnection>>();
  /** Bumped by closeAll: what an older start or exit reports is ignored. */
  private epoch = 0;

  /** Who is told of the servers' lives (McpService, once it has started; `supervise`). */
  private supervisor: McpSupervisor | null = null;

  /**
   * `sandbox`: where a stdio server runs (sandboxes.ts); `clock`: when a restart is due, how long a server
   * has run; `network`: the servers' network (the global net() rules), read at each start and before each
   * call of an HTTP server (absent: not limited here; the backend's McpService gives it: `limitNetwork`).
   */
  constructor(
    private readonly sandbox: Sandbox,
    private readonly clock: Clock = systemClock,
    private network: (() => Promise<McpNetwork>) | null = null
  ) {}

  /** The servers' network from now on: the global net() rules, and who records each decision. */
  limitNetwork(network: () => Promise<McpNetwork>): void {
    this.network = network;
  }

  /** The servers' network read now, with the way to read its rules again (a stdio server's proxy, per connection). */
  private async networkNow(): Promise<McpNetwork | undefined> {
    const read = this.network;
    if (!read) return undefined;
    return { ...(await read()), current: async () => (await read()).global };
  }

  /** Who is told from now on when a server goes down or comes up again. */
  supervise(supervisor: McpSupervisor): void {
    this.supervisor = supervisor;
  }

  /**
   * Connects to a server (kept for its calls) and lists its tools. A server that fails is still known, for
   * a later call to start it; a stdio one is also started again with backoff.
   */
  async open(cfg: McpServerConfig): Promise<McpListedTool[]> {
    this.configs.set(cfg.name, cfg);
    this.watches.set(cfg.name, { attempts: 0, upSince: null, timer: null });
    let conn: McpConnection;
    try {
      conn = await connect(cfg, this.sandbox, await this.networkNow());
    } catch (err) {
      if (cfg.transport === 'stdio') this.scheduleRestart(cfg.name, (err as Error).message, err instanceof McpConnectError ? err.stderr : '');
      throw err;
    }
    this.adopt(cfg.name, conn);
    return listTools(conn);
  }

  /** The implementation of one MCP tool: forwarded to its server, which is started again if it has ended. */
  tool(server: string, tool: string): ToolImpl {
    return async args => this.call(server, tool, args);
  }

  async call(server: string, tool: string, args: Record<string, unknown>): Promise<ToolOutput> {
    // an HTTP server is decided again before each call: a global rule changed since it was connected counts now
    const cfg = this.configs.get(server);
    if (cfg?.transport === 'http' && cfg.url && this.network) {
      const net = await this.network();
      const d = httpServerDecision(cfg.url, net.global);
      if (d.refusal !== null) {
        net.record?.(server, d.record);
        throw new ToolError(`the call of ${tool} on MCP server ${server} is refused: ${d.refusal}`);
      }
    }
    let conn = this.connections.get(server);
    if (!conn || conn.closed) {
      if (!this.configs.has(server)) throw new ToolError(`MCP server ${server} is not configured or not enabled here`);
      const before = conn?.stdio ? ended(conn.stdio) : '';
      try {
        conn = await this.restart(server);
      } catch (err) {
        throw new ToolError(`MCP server ${server} is not running${before} and could not be started again: ${errorMessage(err)}`);
      }
    }
    try {
      const r = await conn.client.callTool({ name: tool, arguments: args }, undefined, { timeout: MCP_CALL_TIMEOUT_MS });
      return resultOutput(server, r as Record<string, unknown>);
    } catch (err) {
      // let the process's end be seen before reporting
      await new Promise(resolve => setTimeout(resolve, 50));
      const why = conn.stdio ? ended(conn.stdio) : '';
      if (conn.closed || why) {
        await conn.client.close().catch(() => undefined);
        if (this.connections.get(server) === conn) this.connections.delete(server);
      }
      throw new ToolError(`the call of ${tool} on MCP server ${server} failed: ${errorMessage(err)}${why}`);
    }
  }

  /** Ends every connection, stops every pending restart and forgets the servers. */
  async closeAll(): Promise<void> {
    this.epoch += 1;
    for (const w of this.watches.values()) if (w.timer) w.timer.clear();
    this.watches.clear();
    this.starting.clear();
    const all = [...this.connections.values()];
    this.connections.clear();
    this.configs.clear();
    for (const c of all) c.closing = true;
    await Promise.all(all.map(c => c.client.close().catch(() => undefined)));
  }

  /** A connection becomes the server's: its end, unless the backend closed it, is a crash. */
  private adopt(server: string, conn: McpConnection): void {
    this.connections.set(server, conn);
    const w = this.watches.get(server);
    if (w) w.upSince = this.clock.now();
    const epoch = this.epoch;
    conn.onclosed = () => {
      if (conn.closing || epoch !== this.epoch || !conn.stdio) return;
      if (this.connections.get(server) === conn) this.connections.delete(server);
      const watch = this.watches.get(server);
      if (watch && watch.upSince !== null && this.clock.now() - watch.upSince >= MCP_RESTART_STABLE_MS) watch.attempts = 0;
      if (watch) watch.upSince = null;
      this.scheduleRestart(server, `the server process ended with ${conn.stdio.ended ?? 'an unknown status'}`, conn.stdio.stderrTail);
    };
  }

  private scheduleRestart(server: string, reason: string, stderr: string): void {
    const w = this.watches.get(server);
    if (!w || w.timer) return;
    const delay = restartDelay(w.attempts);
    w.attempts += 1;
    const epoch = this.epoch;
    w.timer = this.clock.setTimer(() => {
      w.timer = null;
      if (epoch !== this.epoch) return;
      // a failed start schedules the next one itself (open's and restart's catch)
      this.restart(server).catch(() => undefined);
    }, delay);
    this.supervisor?.down(server, { reason, stderr: lastLines(stderr), retryAt: new Date(this.clock.now() + delay), restarts: w.attempts });
  }

  /** Starts a server again now (one start at a time per server): connected, its tools listed and reported. */
  private restart(server: string): Promise<McpConnection> {
    const running = this.starting.get(server);
    if (running) return running;
    const w = this.watches.get(server);
    if (w?.timer) {
      w.timer.clear();
      w.timer = null;
    }
    const epoch = this.epoch;
    const started = (async () => {
      const cfg = this.configs.get(server);
      if (!cfg) throw new Error(`MCP server ${server} is not configured or not enabled here`);
      let conn: McpConnection;
      try {
        conn = await connect(cfg, this.sandbox, await this.networkNow());
      } catch (err) {
        if (epoch === this.epoch && cfg.transport === 'stdio') {
          this.scheduleRestart(server, (err as Error).message, err instanceof McpConnectError ? err.stderr : '');
        }
        throw err;
      }
      if (epoch !== this.epoch) {
        conn.closing = true;
        await conn.client.close().catch(() => undefined);
        throw new Error(`MCP server ${server} was refreshed meanwhile`);
      }
      this.adopt(server, conn);
      let tools: McpListedTool[];
      try {
        tools = await listTools(conn);
      } catch (err) {
        // closed as a crash: the backoff goes on
        await conn.client.close().catch(() => undefined);
        throw err;
      }
      if (epoch === this.epoch) await this.supervisor?.up(server, tools);
      return conn;
    })();
    this.starting.set(server, started);
    const forget = () => {
      if (this.starting.get(server) === started) this.starting.delete(server);
    };
    started.then(forget, forget);
    return started;
  }
}
