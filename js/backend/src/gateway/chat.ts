import { Inject, Provide, Scope, ScopeEnum } from '@midwayjs/core';
import type { IncomingMessage } from 'http';
import type { Duplex } from 'stream';
import type { WebSocket } from 'ws';
import { ValidateService } from '@midwayjs/validate';
import type { ChatAnswer, ChatAttached, ChatEvent } from '../wire/api-types';
import { ChatDTO } from '../dto/chat';
import { fromValidationError } from '../dto/rules';
import { AppError } from '../wire/errors';
import { ChatExecutor } from '../agent/executor';
import { SessionService } from '../service/session';
import { AdminTokenService } from '../service/token';
import { checkBearer } from '../http/authlimit';
import { databaseErrorAnswer } from '../db/health';
import { requestKeyFromProtocols, sameOrigin, sessionCookie } from '../http/login-session';
import { LoginSessionService } from '../service/login';
import { loginAnswerer, originRefused, requestKeyRequired, TOKEN_ANSWERER } from '../middleware/auth';
import { ApprovalAnswerDTO } from '../dto/approval';
import { isNetApproval } from '../service/approval';
import { LiveTurn, TurnHub } from './turns';
import { TurnProgressService } from './progress';
import { errorMessage } from '../lib/errortext';
import { log } from '../config/log';

export const CHAT_WS_PATH = '/ws/netaclaw/chat';

/**
 * The bearer token of a request: the Authorization header, or (WebSocket only, for clients that cannot
 * set a header and have no login cookie) `?token=`. The pages authenticate by their login cookie.
 */
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

/** The `error` event of a failed turn or answer: the REST error body's code and message. */
function errorEvent(err: unknown, sessionId: number | null): ChatEvent {
  const e = err as AppError & { code?: string };
  if (err instanceof AppError) return { type: 'error', sessionId: (e.extra?.sessionId as number | undefined) ?? sessionId, code: e.code, message: e.message };
  if (e?.code === 'invalid_input') return { type: 'error', sessionId, code: 'invalid_input', message: String(e.message) };
  log().error('[netaclaw] chat over WebSocket failed:', err);
  return { type: 'error', sessionId, code: 'internal_error', message: 'internal error' };
}

/**
 * The WebSocket path of the chat gateway (RUNTIME §6) on the @midwayjs/ws server: the upgrade is
 * refused (HTTP 404 / 401) unless it is for CHAT_WS_PATH with the admin token or the login cookie. A
 * connection takes `{ type: 'chat', ...request }`, `{ type: 'approval', id, answer }` (an approval's answer: the
 * main agent's resumes its turn, followed here), `{ type: 'attach', sessionId }` (follow the session's
 * running turn: `attached`, its events so far, then the rest; gateway/turns.ts) and `{ type: 'cancel' }`,
 * and streams the executor's events, then `done` (the REST answer's data) or `error` ({ code, message,
 * sessionId? }: the REST error body). A closed connection does not stop its turn; a cancel does.
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class ChatGateway {
  @Inject()
  executor: ChatExecutor;

  @Inject()
  validateService: ValidateService;

  @Inject()
  adminToken: AdminTokenService;

  @Inject()
  sessionService: SessionService;

  @Inject()
  progress: TurnProgressService;

  @Inject()
  logins: LoginSessionService;

  /** The upgrade check: true lets the WebSocket handshake go on. */
  async authorizeUpgrade(req: IncomingMessage, socket: Duplex): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== CHAT_WS_PATH) {
      refuse(socket, 404, 'Not Found', {}, { error: { code: 'not_found', message: `no WebSocket at ${url.pathname}` } });
      return false;
    }
    const expected = this.adminToken.get().token;
    const token = requestToken(req, url);
    // the pages' login session: its cookie, its request key (a subprotocol, as a browser cannot set a
    // header on a WebSocket) and a page of this origin (a browser always sends Origin with a handshake)
    const cookie = token === null ? sessionCookie(req.headers.cookie) : null;
    if (cookie !== null) {
      let session;
      try {
        session = await this.logins.check(cookie, requestKeyFromProtocols(req.headers['sec-websocket-protocol']), expected);
      } catch (err) {
        const db = databaseErrorAnswer(err) ?? {
          status: 503,
          code: 'session_check_failed',
          message: `the login session could not be checked: ${errorMessage(err)}`,
          retryAfter: 1,
        };
        refuse(socket, db.status, 'Service Unavailable', { 'Retry-After': String(db.retryAfter) }, { error: { code: db.code, message: db.message } });
        return false;
      }
      if (session.status !== 'none') {
        const site = req.headers['sec-fetch-site'];
        const refusal = !sameOrigin(req.headers.origin ?? '', req.headers.host, typeof site === 'string' ? site : undefined, true)
          ? { status: 403, reason: 'Forbidden', error: originRefused() }
          : session.status === 'key'
            ? { status: 401, reason: 'Unauthorized', error: requestKeyRequired() }
            : null;
        if (refusal === null) {
          if (session.status === 'ok') this.answerers.set(req, loginAnswerer(session.id));
          return true;
        }
        refuse(socket, refusal.status, refusal.reason, {}, { error: { code: refusal.error.code, message: refusal.error.message } });
        return false;
      }
    }
    const check = await checkBearer(req.socket.remoteAddress ?? '', token, expected);
    if (!check.ok) {
      refuse(socket, check.status, check.status === 429 ? 'Too Many Requests' : 'Unauthorized', check.headers, {
        error: { code: check.code, message: check.message },
      });
      return false;
    }
    this.answerers.set(req, TOKEN_ANSWERER);
    return true;
  }

  /** Who opened a connection (its upgrade request), as an approval it answers records it. */
  private readonly answerers = new WeakMap<IncomingMessage, string>();

  /** The turns running on this instance (they outlive the connection that started them). */
  readonly turns = new TurnHub();

  attach(ws: WebSocket, req?: IncomingMessage) {
    const answerer = req ? (this.answerers.get(req) ?? null) : null;
    /** The turn this connection follows (started here or attached to): its events come here. */
    let current: { turn: LiveTurn; stop: () => void } | null = null;
    /** The turn of another instance this connection follows (gateway/progress.ts). */
    let remote: { sessionId: number; token: string; stop: () => void } | null = null;
    const send = (event: ChatEvent | ChatAttached) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(event));
    };
    const error = (code: string, message: string, sessionId: number | null = null) => send({ type: 'error', sessionId, code, message });
    const follow = (turn: LiveTurn) => {
      const stop = turn.listen(event => {
        send(event);
        if ((event.type === 'done' || event.type === 'error') && current?.turn === turn) {
          current.stop();
          current = null;
        }
      });
      current = { turn, stop };
    };
    ws.on('message', (data, isBinary) => {
      let msg: unknown;
      try {
        msg = JSON.parse(isBinary ? '' : data.toString());
      } catch {
        return error(
          'invalid_input',
          'a message must be a JSON object: { "type": "chat", ... }, { "type": "attach", "sessionId": ... } or { "type": "cancel" }'
        );
      }
      const type = msg !== null && typeof msg === 'object' && !Array.isArray(msg) ? (msg as { type?: unknown }).type : undefined;
      if (type === 'cancel') {
        current?.turn.cancel();
        if (remote) {
          const { sessionId, token } = remote;
          this.progress
            .cancel(sessionId, token)
            .catch(err => log().error(`[netaclaw] session ${sessionId}: cannot ask for the cancel of its turn:`, errorMessage(err)));
        }
        return;
      }
      if (type === 'attach') {
        const sessionId = (msg as { sessionId?: unknown }).sessionId;
        if (typeof sessionId !== 'number' || !Number.isSafeInteger(sessionId) || sessionId < 1) {
          return error('invalid_input', 'sessionId must be a positive integer');
        }
        if (current || remote) return error('busy', 'this connection follows a turn already; wait for done/error or send cancel');
        const turn = this.turns.find(sessionId);
        if (turn) {
          for (const e of turn.replay(sessionId)) send(e);
          follow(turn);
          return;
        }
        // not here: another instance may hold the session's turn (its claim on the session row); its
        // progress row, once written, is followed (until then the page reads what the turn stores)
        const following = { sessionId, token: '', stop: () => {} };
        remote = following;
        const drop = () => {
          if (remote === following) remote = null;
        };
        this.sessionService
          .turnElsewhere(sessionId)
          .then(async elsewhere => {
            const row = elsewhere ? await this.progress.running(sessionId).catch(() => null) : null;
            if (remote !== following) return;
            if (!row || ws.readyState !== ws.OPEN) {
              drop();
              return send({ type: 'attached', sessionId, running: false, ...(elsewhere ? { elsewhere: true } : {}) });
            }
            following.token = row.token;
            following.stop = this.progress.follow(row, send, drop);
          })
          .catch(() => {
            drop();
            send({ type: 'attached', sessionId, running: false });
          });
        return;
      }
      if (type !== 'chat' && type !== 'approval') {
        return error('invalid_input', `unknown message type ${JSON.stringify(type ?? null)}: send "chat", "approval", "attach" or "cancel"`);
      }
      if (current || remote) return error('busy', 'a chat message is being answered on this connection; wait for done/error or send cancel');
      const { type: _t, ...body } = msg as Record<string, unknown>;
      // the same DTOs as POST /api/netaclaw/chat and POST /api/netaclaw/approval/answer
      let request: ChatDTO | ApprovalAnswerDTO;
      try {
        request = this.validateService.validate(type === 'chat' ? ChatDTO : ApprovalAnswerDTO, body)?.value as ChatDTO | ApprovalAnswerDTO;
      } catch (err) {
        const refused = fromValidationError(err);
        if (refused) return error(refused.code, refused.message);
        log().error('[netaclaw] chat over WebSocket failed:', err);
        return error('internal_error', 'internal error');
      }
      const abort = new AbortController();
      /** Starts a turn followed on this connection: its events, then `done` (the REST answer's data) or `error`. */
      const startTurn = (message: string, run: (push: (event: ChatEvent) => void) => Promise<ChatAnswer>) => {
        const turn = this.turns.begin(message, () => abort.abort());
        if (!turn) return error('busy', 'too many chat turns are running on this server; try again when one has ended');
        follow(turn);
        // the turn goes on when this connection closes: only a cancel (of any page following it) stops it
        const push = (event: ChatEvent) => {
          const before = turn.position();
          this.turns.push(turn, event);
          this.progress.changed(turn, event, before);
        };
        run(push).then(
          answer => push({ type: 'done', ...answer }),
          err => push(errorEvent(err, turn.sessionId))
        );
      };
      if ('message' in request) {
        const chat = request;
        return startTurn(chat.message, push => this.executor.chat(chat, push, abort.signal));
      }
      // an approval's answer: the main agent's resumes its stopped turn, followed here like a chat message;
      // a sub-agent's, or a sandbox connection's, is answered at once (its waiting call or connection goes
      // on in the turn that waits on it, whose stream says so) and `approval-answered` comes back
      const answer = { id: Number(request.id), answer: request.answer };
      this.executor.approvals.find(answer.id).then(
        found => {
          if (found && found.batchId === null && !isNetApproval(found) && found.status === 'pending') {
            return startTurn('', push => this.executor.answerApproval(answer, answerer, push, abort.signal) as Promise<ChatAnswer>);
          }
          this.executor
            .answerApproval(answer, answerer, () => undefined, abort.signal)
            .then(
              r => send({ type: 'approval-answered', sessionId: r.answered.sessionId, batchId: r.answered.batchId, approval: r.answered }),
              err => send(errorEvent(err, found?.sessionId ?? null))
            );
        },
        err => send(errorEvent(err, null))
      );
    });
    ws.on('close', () => {
      current?.stop();
      current = null;
      remote?.stop();
      remote = null;
    });
  }
}
