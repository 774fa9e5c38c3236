/**
 * The network proxy of a sandbox (docs/runtime.md "Network"): an HTTP proxy on Node's `http`/`net`,
 * listening on a Unix socket that only that sandbox has bound in. It understands `CONNECT host:port`
 * (HTTPS and any TLS: the tunnel carries bytes it never reads — no certificate interception) and plain
 * HTTP requests with an absolute URI. Each connection is decided by `decideNetwork` for the sandbox's
 * rules before anything is resolved or connected:
 * - allow → the proxy resolves the name itself (resolve.ts) and connects;
 * - ask   → the connection waits for `hooks.ask` (bounded by NETACLAW_APPROVAL_WAIT_SECONDS); approved →
 *           connected, anything else → refused; with no one to ask, refused (fail closed);
 * - deny  → a 403 whose text names the host and the rule.
 * An IP literal is connected only when the deciding rule names that literal (a `*.suffix` rule never
 * lets an address through). Every decision is handed to `hooks.record` (the log when absent).
 */
import * as http from 'http';
import * as net from 'net';
import type { RuleMatch, RulesInput } from '@netaclaw/tool-policy';
import { decideNetwork, NetDecision, normalHost, parseNetPattern } from './decide';
import { resolveHost } from './resolve';
import { APPROVAL_WAIT_SECONDS } from '../../config/settings';
import { log } from '../../config/log';
import { errorMessage } from '../../lib/errortext';

/** One decided connection, as the record keeps it. */
export interface NetRecord {
  at: number;
  host: string;
  port: number;
  /** `CONNECT` (a tunnel) or the HTTP method of a plain request. */
  method: string;
  /** What happened: connected, or refused (by a rule, the default, a refused approval, or a failure). */
  outcome: 'connected' | 'refused' | 'failed';
  decision: NetDecision;
  /** The sentence the client got (a refusal's 403 text) or the connection's address. */
  detail: string;
  /**
   * For an `ask`: the user's answer (`once`, `session`, `deny`), `timeout` (no answer in time) or `none`
   * (no one can approve it where the sandbox runs); absent for a connection no rule asked about.
   */
  answer?: NetAnswerKind;
  /** The approval the user answered (the chat's `netaclaw_approval` row), when one was asked. */
  approvalId?: number;
  /** The call in progress in the sandbox when the connection was decided (set by the worker's host). */
  call?: { seq: number; name: string };
}

/**
 * Why a refused connection was refused, for the page's sentence: a `deny` rule (`rule`), no rule (the
 * default), an IP address no rule names (`address`), the user's refusal (`denied`), no answer in time
 * (`timeout`), no one to ask (`none`).
 */
export type NetRefusalKind = 'rule' | 'default' | 'address' | 'denied' | 'timeout' | 'none';

/** A connection refused during a call: what the model reads in the call's result and the page shows on its card. */
export interface NetNote {
  host: string;
  port: number;
  rule: string | null;
  level: string | null;
  why: NetRefusalKind;
  /** The note's sentence (English, for the model): `network: connection to evil.test:443 refused by rule net(evil.test) (agent)`. */
  text: string;
}

/** The note of a refused connection (`NetNote`), read from its record. */
export function refusalNote(r: NetRecord): NetNote {
  const rule = r.decision.rule ?? null;
  const level = r.decision.level ?? null;
  const target = `network: connection to ${net.isIP(r.host) === 6 ? `[${r.host}]` : r.host}:${r.port} refused`;
  const by = rule ? `${rule}${level ? ` (${level})` : ''}` : '';
  const named = rule ? parseNetPattern(rule) : null;
  let why: NetRefusalKind;
  let text: string;
  if (r.answer === 'deny' || r.answer === 'session' || r.answer === 'once') {
    why = 'denied';
    text = `${target}: the user refused the approval asked by rule ${by}`;
  } else if (r.answer === 'timeout') {
    why = 'timeout';
    text = `${target}: no one answered the approval asked by rule ${by} in time`;
  } else if (r.answer === 'none') {
    why = 'none';
    text = `${target}: rule ${by} asks for an approval and no one can give it here`;
  } else if (net.isIP(r.host) && (!named || named.host !== r.host)) {
    why = 'address';
    text = `${target}: an IP address is reached only through a net() rule that names it`;
  } else if (rule) {
    why = 'rule';
    text = `${target} by rule ${by}`;
  } else {
    why = 'default';
    text = `${target}: no net() rule allows it`;
  }
  return { host: r.host, port: r.port, rule, level, why, text };
}

export type NetAnswerKind = 'once' | 'session' | 'deny' | 'timeout' | 'none';

/** The answer of `NetHooks.ask`: approved or not, with the answer's kind and the approval it was given to. */
export interface NetAnswer {
  approved: boolean;
  answer: NetAnswerKind;
  approvalId?: number;
}

/** One question to the user about a connection (an `ask` rule). */
export interface NetQuestion {
  host: string;
  port: number;
  method: string;
  rule: string | undefined;
  level: string | undefined;
  message: string;
  /** Aborted when the wait ends (timed out, the proxy closed). */
  signal: AbortSignal;
  /** The call in progress in the sandbox (set by the worker's host). */
  call?: { seq: number; name: string };
  /** The package's match of the asking rule (`kind` `net`, `subject` `host:port`). */
  match?: RuleMatch;
}

export interface NetHooks {
  /** Asks the user about one connection (an `ask` rule): resolves true (or `approved`) when approved. */
  ask?: (q: NetQuestion) => Promise<boolean | NetAnswer>;
  /** Why no one can approve a connection here (the sentence of a refused `ask` when `ask` is absent). */
  askless?: string;
  /** Keeps one decision (the model's and the page's view of the sandbox's connections). */
  record?: (r: NetRecord) => void;
  /** How long an `ask` waits (ms; default NETACLAW_APPROVAL_WAIT_SECONDS). */
  waitMs?: number;
  /**
   * The rules as they are now, read for each connection (absent: those the proxy was opened with): a rule
   * taken away counts at the next connection. One that cannot be read refuses the connection (fail closed).
   */
  rules?: () => Promise<RulesInput | null>;
}

/** The verdict's words for a decision (the placeholder's vocabulary, read in one place). */
function verdictOf(d: NetDecision): 'allow' | 'ask' | 'deny' {
  return d.verdict;
}

/** `host:port` of a CONNECT target (`[v6]:port` too), or null. */
export function parseAuthority(authority: string): { host: string; port: number } | null {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(authority.trim());
  if (!m) return null;
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return null;
  return { host: normalHost(m[1] ?? m[2]), port };
}

export class NetProxy {
  private readonly server: http.Server;
  private readonly sockets = new Set<net.Socket>();
  private readonly aborts = new Set<AbortController>();
  private closed = false;

  constructor(
    private readonly rules: RulesInput | null,
    private readonly hooks: NetHooks = {}
  ) {
    this.server = http.createServer((req, res) => void this.onRequest(req, res));
    this.server.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => void this.onConnect(req, socket, head));
    this.server.on('connection', s => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    // a client that vanishes mid-request is no error of the backend's
    this.server.on('clientError', (_err, socket) => socket.destroy());
  }

  /** Listens on `path` (a Unix socket). */
  listen(path: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(path, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  /** Listens on a loopback port (the benchmark and tests of the proxy alone). */
  listenTcp(port = 0): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve((this.server.address() as net.AddressInfo).port));
    });
  }

  /** Stops listening and ends every connection (and every wait for an approval). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const a of this.aborts) a.abort();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>(resolve => this.server.close(() => resolve()));
  }

  private record(r: NetRecord): void {
    try {
      if (this.hooks.record) this.hooks.record(r);
      else log().info(`[net] ${r.method} ${r.host}:${r.port} ${r.outcome}: ${r.detail}`);
    } catch {
      /* a record's failure is not the connection's */
    }
  }

  /**
   * The decision for one connection, the approval included: `{ ok: true }` to connect, or the refusal's
   * sentence. An IP literal needs a rule that names it.
   */
  private async decide(
    host: string,
    port: number,
    method: string
  ): Promise<{ ok: boolean; decision: NetDecision; why: string; answer?: NetAnswerKind; approvalId?: number }> {
    let rules = this.rules;
    if (this.hooks.rules) {
      try {
        rules = await this.hooks.rules();
      } catch (err) {
        const why = `${host}:${port} is refused: the net() rules could not be read (${errorMessage(err)})`;
        return { ok: false, decision: { verdict: 'deny', message: why }, why };
      }
    }
    const decision = decideNetwork(rules, host, port);
    const verdict = verdictOf(decision);
    if (verdict === 'deny') return { ok: false, decision, why: decision.message };
    if (net.isIP(host)) {
      const named = decision.rule ? parseNetPattern(decision.rule) : null;
      if (!named || named.host !== host) {
        const literal = { ...decision, verdict: 'deny' as const };
        return {
          ok: false,
          decision: literal,
          why: `${host} is an IP address: it is reached only when a net() rule names that address (${decision.rule ?? 'none'} does not)`,
        };
      }
    }
    if (verdict === 'allow') return { ok: true, decision, why: decision.message };
    if (!this.hooks.ask)
      return { ok: false, decision, answer: 'none', why: `${decision.message}; ${this.hooks.askless ?? 'no one can approve it here'}, so it is refused` };
    const abort = new AbortController();
    this.aborts.add(abort);
    const waitMs = this.hooks.waitMs ?? APPROVAL_WAIT_SECONDS * 1000;
    let timer: NodeJS.Timeout | undefined;
    try {
      const got = await Promise.race([
        this.hooks.ask({
          host,
          port,
          method,
          rule: decision.rule,
          level: decision.level,
          message: decision.message,
          signal: abort.signal,
          match: decision.match,
        }),
        new Promise<'timeout'>(resolve => {
          timer = setTimeout(() => resolve('timeout'), waitMs);
        }),
      ]);
      const a: NetAnswer =
        got === 'timeout' ? { approved: false, answer: 'timeout' } : typeof got === 'boolean' ? { approved: got, answer: got ? 'once' : 'deny' } : got;
      const about = { answer: a.answer, ...(a.approvalId !== undefined ? { approvalId: a.approvalId } : {}) };
      if (a.approved) return { ok: true, decision, why: `${decision.message}; approved`, ...about };
      return {
        ok: false,
        decision,
        ...about,
        why:
          a.answer === 'timeout'
            ? `${decision.message}; no approval came within ${waitMs / 1000} s, so it is refused`
            : a.answer === 'none'
              ? `${decision.message}; no one can approve it here, so it is refused`
              : `${decision.message}; the approval was refused`,
      };
    } catch (err) {
      return { ok: false, decision, answer: 'none', why: `${decision.message}; the approval failed (${errorMessage(err)})` };
    } finally {
      clearTimeout(timer);
      abort.abort();
      this.aborts.delete(abort);
    }
  }

  private async onConnect(req: http.IncomingMessage, client: net.Socket, head: Buffer): Promise<void> {
    client.on('error', () => undefined);
    const target = parseAuthority(req.url ?? '');
    if (!target) {
      refuseRaw(client, 400, `netaclaw proxy: CONNECT needs host:port, got ${JSON.stringify(req.url ?? '')}`);
      return;
    }
    const { host, port } = target;
    const d = await this.decide(host, port, 'CONNECT');
    const asked = answered(d);
    if (!d.ok) {
      const text = `netaclaw proxy: ${d.why}`;
      this.record({ at: Date.now(), host, port, method: 'CONNECT', outcome: 'refused', decision: d.decision, detail: d.why, ...asked });
      refuseRaw(client, 403, text);
      return;
    }
    let upstream: net.Socket;
    try {
      const to = await resolveHost(host);
      upstream = net.connect({ host: to.address, port, family: to.family });
      await new Promise<void>((resolve, reject) => {
        upstream.once('connect', resolve);
        upstream.once('error', reject);
      });
      this.record({
        at: Date.now(),
        host,
        port,
        method: 'CONNECT',
        outcome: 'connected',
        decision: d.decision,
        detail: `${to.address}:${port} (${to.via})`,
        ...asked,
      });
    } catch (err) {
      this.record({ at: Date.now(), host, port, method: 'CONNECT', outcome: 'failed', decision: d.decision, detail: errorMessage(err), ...asked });
      refuseRaw(client, 502, `netaclaw proxy: cannot reach ${host}:${port}: ${errorMessage(err)}`);
      return;
    }
    if (client.destroyed) {
      upstream.destroy();
      return;
    }
    upstream.setNoDelay(true);
    client.setNoDelay(true);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    client.pipe(upstream);
    upstream.pipe(client);
  }

  private async onRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return refuse(res, 400, `netaclaw proxy: a request through the proxy needs an absolute http:// URL, got ${JSON.stringify(req.url ?? '')}`);
    }
    if (url.protocol !== 'http:') return refuse(res, 400, `netaclaw proxy: only http:// is forwarded as a request; ${url.protocol} goes through CONNECT`);
    const host = normalHost(url.hostname);
    const port = url.port ? Number(url.port) : 80;
    const method = req.method ?? 'GET';
    const d = await this.decide(host, port, method);
    const asked = answered(d);
    if (!d.ok) {
      this.record({ at: Date.now(), host, port, method, outcome: 'refused', decision: d.decision, detail: d.why, ...asked });
      return refuse(res, 403, `netaclaw proxy: ${d.why}`);
    }
    let to;
    try {
      to = await resolveHost(host);
    } catch (err) {
      this.record({ at: Date.now(), host, port, method, outcome: 'failed', decision: d.decision, detail: errorMessage(err), ...asked });
      return refuse(res, 502, `netaclaw proxy: cannot reach ${host}:${port}: ${errorMessage(err)}`);
    }
    const headers = { ...req.headers };
    for (const h of ['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive']) delete headers[h];
    // the server hears the name that was decided, never another one the client puts in Host
    headers.host = url.host;
    const upstream = http.request({ host: to.address, family: to.family, port, method, path: `${url.pathname}${url.search}`, headers, setHost: false });
    upstream.on('response', up => {
      this.record({ at: Date.now(), host, port, method, outcome: 'connected', decision: d.decision, detail: `${to.address}:${port} (${to.via})`, ...asked });
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', err => {
      this.record({ at: Date.now(), host, port, method, outcome: 'failed', decision: d.decision, detail: errorMessage(err), ...asked });
      if (!res.headersSent) refuse(res, 502, `netaclaw proxy: cannot reach ${host}:${port}: ${errorMessage(err)}`);
      else res.destroy();
    });
    req.pipe(upstream);
  }
}

/** The approval part of a decision, for its record. */
function answered(d: { answer?: NetAnswerKind; approvalId?: number }): Pick<NetRecord, 'answer' | 'approvalId'> {
  return { ...(d.answer ? { answer: d.answer } : {}), ...(d.approvalId !== undefined ? { approvalId: d.approvalId } : {}) };
}

function refuse(res: http.ServerResponse, status: number, text: string): void {
  const body = `${text}\n`;
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
  res.end(body);
}

/** A refusal on a CONNECT's raw socket (no HTTP response object there). */
function refuseRaw(socket: net.Socket, status: number, text: string): void {
  const body = `${text}\n`;
  const reason = status === 403 ? 'Forbidden' : status === 400 ? 'Bad Request' : 'Bad Gateway';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  );
}
