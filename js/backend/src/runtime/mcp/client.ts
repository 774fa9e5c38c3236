/**
 * Connections to MCP servers, made with the official SDK (`@modelcontextprotocol/sdk`). A `stdio` server
 * is started by the main process inside the same OS sandbox as a worker (setpriv as the sandbox user,
 * bwrap with every namespace unshared — no network —, seccomp on descriptor 4): its command and code
 * read-only, its declared roots read-only, nothing else of the host. It is spoken to over its stdio with
 * the SDK's client (`SandboxedStdioTransport` frames the messages as the SDK's own stdio transport does).
 * An `http` server is reached with the SDK's streamable HTTP client.
 */
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../../wire/api-types';
import { closeQuietly, SANDBOX_PATH } from '../sandbox';
import type { Sandbox } from '../sandboxes';
import type { Launch } from '../sandboxes';
import type { RulesInput } from '@netaclaw/tool-policy';
import { decideNetwork } from '../net/decide';
import type { NetHooks, NetRecord } from '../net/proxy';
import { openSandboxNet } from '../net/sandbox';
import { errorMessage } from '../../lib/errortext';
import { pythonEnvPaths } from './venv';

/** An MCP `tools/list` entry, as the package's `fromMcpTool` reads it. */
export interface McpListedTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** Time allowed to start a server and list its tools, and for one call. */
export const MCP_CONNECT_TIMEOUT_MS = 20_000;
export const MCP_CALL_TIMEOUT_MS = Number(process.env.NETACLAW_MCP_CALL_TIMEOUT_MS) > 0 ? Number(process.env.NETACLAW_MCP_CALL_TIMEOUT_MS) : 60_000;

/** An executable named on PATH (the sandbox's first, then the backend's), as an absolute real path. */
export function resolveCommand(command: string): string {
  if (command.includes('/')) {
    if (!path.isAbsolute(command)) throw new Error(`command ${JSON.stringify(command)} must be an absolute path or a name on PATH`);
    if (!fs.existsSync(command)) throw new Error(`command ${command} does not exist`);
    return fs.realpathSync(command);
  }
  const dirs = [...SANDBOX_PATH.split(':'), ...(process.env.PATH ?? '').split(':')].filter(d => d !== '');
  for (const d of dirs) {
    const p = path.join(d, command);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return fs.realpathSync(p);
    } catch {
      /* next */
    }
  }
  throw new Error(`command ${JSON.stringify(command)} was not found on PATH`);
}

/**
 * The code a file needs: for a file of an installed package, the folder holding that `node_modules` (its
 * dependencies may be hoisted beside it); else the folder of the nearest package.json above it (its
 * package, node_modules included); else the file's folder.
 */
function codeFolder(file: string): string {
  const at = file.indexOf(`${path.sep}node_modules${path.sep}`);
  if (at > 0) return file.slice(0, at);
  const start = path.dirname(file);
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return start;
  }
}

/**
 * What a stdio server's sandbox binds read-only: the command (and its Python venv, for a command of one:
 * venv.ts), and for every argument that is an absolute path of an existing file, its package (the folder
 * of the nearest package.json, node_modules included) or its folder. System folders (/usr, /bin, /lib…) are in every sandbox already.
 */
export function stdioCodePaths(command: string, args: string[]): string[] {
  const out = new Set<string>();
  if (!command.startsWith('/usr/') && !command.startsWith('/bin/')) out.add(command);
  for (const p of pythonEnvPaths(command)) out.add(p);
  for (const a of args) {
    if (!path.isAbsolute(a)) continue;
    let st: fs.Stats;
    try {
      st = fs.statSync(a);
    } catch {
      continue;
    }
    if (st.isFile()) out.add(codeFolder(fs.realpathSync(a)));
  }
  return [...out];
}

/**
 * The SDK's stdio framing (newline-delimited JSON-RPC) over a process the caller has spawned — here the
 * sandbox launcher, which needs the seccomp program on descriptor 4, which the SDK's own stdio transport
 * cannot pass.
 */
export class SandboxedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | null = null;
  private readonly buffer = new ReadBuffer();
  /** The end of the server's stderr, to say why it died. */
  stderrTail = '';
  /** How the process ended (`code 3`, `signal SIGKILL`), once it has. */
  ended: string | null = null;

  constructor(
    private readonly file: string,
    private readonly args: string[],
    private readonly env: Record<string, string>,
    private readonly seccompFd: number | null,
    /** Ends the sandbox's kernel limits (cgroups.ts) once the process has ended. */
    private readonly release: () => void = () => undefined
  ) {}

  async start(): Promise<void> {
    try {
      this.child = spawn(this.file, this.args, {
        env: this.env,
        cwd: '/',
        stdio: this.seccompFd !== null ? ['pipe', 'pipe', 'pipe', 'ignore', this.seccompFd] : ['pipe', 'pipe', 'pipe'],
      });
    } catch (err) {
      this.release();
      throw err;
    } finally {
      if (this.seccompFd !== null) closeQuietly(this.seccompFd);
    }
    const child = this.child;
    child.on('error', err => {
      this.release();
      this.onerror?.(err);
    });
    child.on('close', (code, signal) => {
      this.ended = signal ? `signal ${signal}` : `code ${code}`;
      // whatever the server left in its sandbox is killed, and the sandbox's cgroups removed
      this.release();
      this.onclose?.();
    });
    child.stdin!.on('error', err => this.onerror?.(err));
    child.stderr!.on('data', (d: Buffer) => (this.stderrTail = (this.stderrTail + d.toString('utf8')).slice(-2048)));
    child.stdout!.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (;;) {
        let m: JSONRPCMessage | null;
        try {
          m = this.buffer.readMessage();
        } catch (err) {
          this.onerror?.(err instanceof Error ? err : new Error(errorMessage(err)));
          continue;
        }
        if (m === null) break;
        this.onmessage?.(m);
      }
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || !stdin.writable) throw new Error('the MCP server is not running');
    await new Promise<void>((resolve, reject) => stdin.write(serializeMessage(message), err => (err ? reject(err) : resolve())));
  }

  async close(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (!child) this.release();
    this.buffer.clear();
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }
}

/** One live connection: the SDK client and, for stdio, the sandboxed process. */
export interface McpConnection {
  client: Client;
  stdio: SandboxedStdioTransport | null;
  closed: boolean;
  /** Set before the backend closes the connection itself: its end is then no crash. */
  closing?: boolean;
  /** Called once when the connection ends (the process exited, or it was closed). */
  onclosed?: () => void;
}

/** A server that could not be started or reached, with the end of its stderr (stdio) to show why. */
export class McpConnectError extends Error {
  constructor(
    message: string,
    readonly stderr: string
  ) {
    super(message);
    this.name = 'McpConnectError';
  }
}

/** The last `n` non-empty lines of a stderr tail, each cut at 300 characters. */
export function lastLines(tail: string, n = 10): string[] {
  return tail
    .split('\n')
    .map(l => l.trimEnd())
    .filter(l => l.trim() !== '')
    .slice(-n)
    .map(l => l.slice(0, 300));
}

/**
 * Starts (stdio) or reaches (http) a server and does the MCP handshake. A stdio server runs as the sandbox
 * wraps it (sandboxes.ts): with the sandbox unavailable it is refused (fail closed); with it switched off
 * by the operator (`NETACLAW_SHELL_SANDBOX=off`) it runs as a plain child with the given environment only.
 */
export async function connect(cfg: McpServerConfig, sandbox: Sandbox, net?: McpNetwork): Promise<McpConnection> {
  const client = new Client({ name: 'netaclaw', version: '0.1.0' }, { capabilities: {} });
  let transport: Transport;
  let stdio: SandboxedStdioTransport | null = null;
  /** An allowed HTTP server's decision, recorded once the handshake has told whether it was reached. */
  let httpDecision: NetRecord | null = null;
  if (cfg.transport === 'http') {
    if (!cfg.url) throw new Error('no url');
    if (net) {
      const d = httpServerDecision(cfg.url, net.global);
      if (d.refusal !== null) {
        net.record?.(cfg.name, d.record);
        throw new McpNetRefused(d.refusal, d.record);
      }
      httpDecision = d.record;
    }
    transport = new StreamableHTTPClientTransport(new URL(cfg.url));
  } else {
    if (!cfg.command) throw new Error('no command');
    const command = resolveCommand(cfg.command);
    const env = { PATH: SANDBOX_PATH, HOME: '/tmp', TMPDIR: '/tmp', LANG: 'C.UTF-8', ...cfg.env };
    // the global net() hosts, through the server's own proxy (net/sandbox.ts): a confining sandbox's
    // folder holds its socket; an unconfined server (the sandbox switched off) is not limited here
    const c = sandbox.confinement;
    // (no `ask` hook: no one can answer for a server, so an `ask` rule refuses)
    const record = net?.record;
    const current = net?.current;
    const hooks: NetHooks = {
      ...(record ? { record: r => record(cfg.name, r) } : {}),
      // each connection is decided with the global rules as they are then: a rule taken away counts at once
      ...(current ? { rules: async () => ({ global: await current() }) } : {}),
    };
    const sandboxNet = net && c ? await openSandboxNet({ global: net.global }, hooks, c.dir) : null;
    let cmd: Launch;
    try {
      cmd = sandbox.wrapServer({
        net: sandboxNet,
        roots: cfg.workspaceRoots,
        reads: stdioCodePaths(command, cfg.args),
        command: [command, ...cfg.args],
      });
    } catch (err) {
      await sandboxNet?.close();
      throw err;
    }
    Object.assign(env, sandboxNet?.env ?? {});
    stdio = new SandboxedStdioTransport(cmd.file, cmd.args, env, cmd.seccompFd, () => {
      cmd.limits.release();
      void sandboxNet?.close();
    });
    transport = stdio;
  }
  const conn: McpConnection = { client, stdio, closed: false };
  client.onclose = () => {
    if (conn.closed) return;
    conn.closed = true;
    conn.onclosed?.();
  };
  try {
    await client.connect(transport, { timeout: MCP_CONNECT_TIMEOUT_MS });
  } catch (err) {
    conn.closing = true;
    await client.close().catch(() => undefined);
    // let the process's end (and its last stderr) be seen before reporting
    if (stdio && stdio.ended === null) await new Promise(resolve => setTimeout(resolve, 50));
    if (httpDecision) net?.record?.(cfg.name, { ...httpDecision, outcome: 'failed', detail: `allowed, and not reached: ${errorMessage(err)}` });
    throw new McpConnectError(`${errorMessage(err)}${stdio ? ended(stdio) : ''}`, stdio?.stderrTail ?? '');
  }
  if (httpDecision) net?.record?.(cfg.name, httpDecision);
  return conn;
}

/**
 * The network an MCP server gets: the GLOBAL rules' `net()` hosts only (a server serves every session,
 * so no agent's or session's rule widens or narrows it), and who keeps each decision made for a server
 * (its HTTP connection's, or its stdio process's proxy's).
 */
export interface McpNetwork {
  global: RulesInput['global'];
  record?: (server: string, r: NetRecord) => void;
  /** The global rules as they are now (a stdio server's proxy reads them for each connection; absent: `global`). */
  current?: () => Promise<RulesInput['global']>;
}

/** An HTTP server the global rules do not let the backend reach: the sentence, and the decision's record. */
export class McpNetRefused extends Error {
  constructor(
    message: string,
    readonly record: NetRecord
  ) {
    super(message);
    this.name = 'McpNetRefused';
  }
}

/**
 * The decision for reaching an HTTP MCP server from the backend: its URL's host and port decided by the
 * package (`decideNetwork`) with the global rules alone. Only `allow` reaches it; `ask` is refused (no one
 * is there to answer for a connection the backend makes), as is `deny` and the default (no rule).
 * `refusal` is the sentence the server's state shows (null: allowed).
 */
export function httpServerDecision(url: string, global: RulesInput['global']): { refusal: string | null; record: NetRecord } {
  let u: URL | null = null;
  try {
    u = new URL(url);
  } catch {
    /* below */
  }
  const port = u ? (u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80) : 0;
  const host = u ? u.hostname : url;
  const d = u ? decideNetwork({ global }, host, port) : { verdict: 'deny' as const, message: `the MCP server's url ${JSON.stringify(url)} is not a URL` };
  const record = (outcome: NetRecord['outcome'], detail: string): NetRecord => ({
    at: Date.now(),
    host: host.replace(/^\[|\]$/g, ''),
    port,
    method: 'MCP',
    outcome,
    decision: d,
    detail,
  });
  if (d.verdict === 'allow') return { refusal: null, record: record('connected', `${d.message}; reached`) };
  const target = `${host}:${port}`;
  const why =
    d.verdict === 'ask'
      ? `${target} is refused: ${d.rule} (${d.level} rules) asks for an approval, and no one can approve a connection the backend makes itself; a global allow rule is needed`
      : d.rule
        ? `${d.message}; a global net() allow rule is needed, and no deny rule may match it`
        : u
          ? `${d.message}; a global allow rule naming its host is needed (such as net(${target}))`
          : d.message;
  const refusal = `the backend does not reach this MCP server: ${why}`;
  return { refusal, record: record('refused', refusal) };
}

/** Why the backend does not reach an HTTP MCP server, or null (`httpServerDecision`'s sentence). */
export function httpServerRefusal(url: string, global: RulesInput['global']): string | null {
  return httpServerDecision(url, global).refusal;
}

/** `: the server ended (code 1): <its last stderr line>`, or nothing while it runs. */
export function ended(t: SandboxedStdioTransport): string {
  if (t.ended === null) return '';
  const last = t.stderrTail.trim().split('\n').slice(-1)[0] ?? '';
  return ` (the server process ended with ${t.ended}${last ? `: ${last.slice(0, 300)}` : ''})`;
}

/** Every tool of a connected server (all pages of `tools/list`). */
export async function listTools(conn: McpConnection): Promise<McpListedTool[]> {
  const out: McpListedTool[] = [];
  let cursor: string | undefined;
  do {
    const r = await conn.client.listTools(cursor ? { cursor } : {}, { timeout: MCP_CONNECT_TIMEOUT_MS });
    out.push(...(r.tools as McpListedTool[]));
    cursor = r.nextCursor;
  } while (cursor);
  return out;
}
