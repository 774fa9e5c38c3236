import { Inject, Provide, Scope, ScopeEnum } from '@midwayjs/core';
import type { IncomingMessage } from 'http';
import type { Duplex } from 'stream';
import type { WebSocket } from 'ws';
import type { ChatEvent } from '../api-types';
import { AppError } from '../errors';
import { ChatExecutor } from '../service/executor';
import { AdminTokenService } from '../service/token';
import { checkBearer } from '../authlimit';

export const CHAT_WS_PATH = '/ws/netaclaw/chat';

/** The bearer token of a request: the Authorization header, or (WebSocket only) `?token=`. */
function requestToken(req: IncomingMessage, url: URL): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (m) return m[1];
  return url.searchParams.get('token');
}

function refuse(socket: Duplex, status: number, reason: string, headers: Record<string, string>, body: object) {
  const text = JSON.stringify(body);
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.write(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
      `${extra}Connection: close\r\n\r\n${text}`
  );
}

/**
 * The WebSocket path of the chat gateway (RUNTIME §6) on the @midwayjs/ws server: the upgrade is
 * refused (HTTP 404 / 401) unless it is for CHAT_WS_PATH with the admin token. A connection takes
 * `{ type: 'chat', ...request }` and `{ type: 'cancel' }`, and streams the executor's events, then
 * `done` (the REST answer's data) or `error` ({ code, message, sessionId? }: the REST error body).
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class ChatGateway {
  @Inject()
  executor: ChatExecutor;

  @Inject()
  adminToken: AdminTokenService;

  /** The upgrade check: true lets the WebSocket handshake go on. */
  async authorizeUpgrade(req: IncomingMessage, socket: Duplex): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== CHAT_WS_PATH) {
      refuse(socket, 404, 'Not Found', {}, { error: { code: 'not_found', message: `no WebSocket at ${url.pathname}` } });
      return false;
    }
    const check = checkBearer(req.socket.remoteAddress ?? '', requestToken(req, url), this.adminToken.get().token);
    if (!check.ok) {
      refuse(socket, check.status, check.status === 429 ? 'Too Many Requests' : 'Unauthorized', check.headers, {
        error: { code: check.code, message: check.message },
      });
      return false;
    }
    return true;
  }

  attach(ws: WebSocket) {
    let running: AbortController | null = null;
    const send = (event: ChatEvent) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(event));
    };
    const error = (code: string, message: string, sessionId: number | null = null) =>
      send({ type: 'error', sessionId, code, message });
    ws.on('message', (data, isBinary) => {
      let msg: unknown;
      try {
        msg = JSON.parse(isBinary ? '' : data.toString());
      } catch {
        return error('invalid_input', 'a message must be a JSON object: { "type": "chat", ... } or { "type": "cancel" }');
      }
      const type = msg !== null && typeof msg === 'object' && !Array.isArray(msg) ? (msg as { type?: unknown }).type : undefined;
      if (type === 'cancel') {
        running?.abort();
        return;
      }
      if (type !== 'chat') {
        return error('invalid_input', `unknown message type ${JSON.stringify(type ?? null)}: send "chat" or "cancel"`);
      }
      if (running) return error('busy', 'a chat message is being answered on this connection; wait for done/error or send cancel');
      const abort = (running = new AbortController());
      const { type: _t, ...request } = msg as Record<string, unknown>;
      this.executor
        .chat(request, event => send(event), abort.signal)
        .then(
          answer => send({ type: 'done', ...answer }),
          err => {
            const e = err as AppError & { code?: string };
            if (err instanceof AppError) {
              error(e.code, e.message, (e.extra?.sessionId as number | undefined) ?? null);
            } else if (e?.code === 'invalid_input') {
              error('invalid_input', e.message);
            } else {
              console.error('[netaclaw] chat over WebSocket failed:', err);
              error('internal_error', 'internal error');
            }
          }
        )
        .finally(() => {
          if (running === abort) running = null;
        });
    });
    ws.on('close', () => running?.abort());
  }
}
