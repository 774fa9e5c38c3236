/**
 * The browser's login session. `POST /auth/login` exchanges the admin token for
 * - a cookie (`netaclaw_session`, HttpOnly, SameSite=Strict, Path=/) holding a random secret, and
 * - a request key, in the answer's body, that the page keeps in its origin's storage and sends with every
 *   API call (header `X-Netaclaw-Request-Key`) and with the chat WebSocket (subprotocol `netaclaw-key.<key>`).
 * A request authenticated by the cookie needs both: browsers do not keep cookies apart by port, so another
 * service on the same host name (any port) receives the cookie — but not the page's storage, which is per
 * origin. The cookie alone, replayed by a plain client, opens nothing.
 *
 * Sessions live in the database (`netaclaw_login_session`, only SHA-256 hashes of the secret and the key):
 * a logout deletes the row, which every instance checks at each request; a login always makes a new session
 * and ends the one its request carried (rotation); a session ends after `NETACLAW_SESSION_IDLE_SECONDS`
 * without use (default 1 hour) and in any case 12 hours after its login; a new admin token ends them all.
 * API clients keep using `Authorization: Bearer`.
 */
import * as crypto from 'crypto';

export const SESSION_COOKIE = 'netaclaw_session';
/** The header of the request key. */
export const REQUEST_KEY_HEADER = 'x-netaclaw-request-key';
/** The WebSocket subprotocol that carries the request key (`netaclaw-key.<key>`), offered beside `netaclaw`. */
export const REQUEST_KEY_PROTOCOL_PREFIX = 'netaclaw-key.';
/** The longest a login lasts, however active. */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;

/** The shape of a cookie secret and of a request key: 32 random bytes, base64url. */
const SECRET = /^[A-Za-z0-9_-]{43}$/;

export function newSecret(): string {
  return crypto.randomBytes(32).toString('base64url');
}

/** SHA-256 (hex) of a secret: what the session table keeps. Null when `value` is not a secret's shape. */
export function secretHash(value: string | null | undefined): string | null {
  if (typeof value !== 'string' || !SECRET.test(value)) return null;
  return crypto.createHash('sha256').update(value, 'utf8').digest('hex');
}

/** A mark of the admin token a session was made with (HMAC, so the table does not hold a hash of the token itself). */
export function tokenMark(adminToken: string): string {
  return crypto.createHmac('sha256', adminToken).update('netaclaw-login-session', 'utf8').digest('hex');
}

export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** The session cookie's value in a `Cookie` header (null: none). */
export function sessionCookie(header: string | undefined): string | null {
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === SESSION_COOKIE) return part.slice(i + 1).trim();
  }
  return null;
}

/** The `Set-Cookie` header of a session (`value` '' with `maxAge` 0 removes it). */
export function sessionSetCookie(value: string, maxAge: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** The request key offered as a WebSocket subprotocol (null: none). */
export function requestKeyFromProtocols(header: string | string[] | undefined): string | null {
  const list = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map(s => s.trim());
  const p = list.find(s => s.startsWith(REQUEST_KEY_PROTOCOL_PREFIX));
  return p === undefined ? null : p.slice(REQUEST_KEY_PROTOCOL_PREFIX.length);
}

/** Methods that change nothing: a cookie may authenticate them without a same-origin header. */
export function safeMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}

/**
 * A request that a cookie authenticates must come from a page of this origin. A browser says where a
 * request comes from: `Sec-Fetch-Site` (`same-origin`; `none` for an address typed by the user) and
 * `Origin` (every WebSocket handshake and every POST). Under the pages' `Referrer-Policy: no-referrer` a
 * same-origin POST carries `Origin: null`, accepted only with `Sec-Fetch-Site: same-origin`. Another
 * origin is refused (SameSite=Strict already keeps the cookie off cross-site requests; this check keeps
 * it closed when a browser gets that wrong).
 *
 * `strict` (a state-changing request, the WebSocket handshake, a login): the request must *show* it comes
 * from this origin — no `Origin` and no `Sec-Fetch-Site: same-origin` is refused. Otherwise (GET) the
 * absence of both headers is accepted (a browser sends neither with a same-origin GET of old).
 */
export function sameOrigin(origin: string | undefined, host: string | undefined, fetchSite: string | undefined, strict: boolean): boolean {
  if (fetchSite && fetchSite !== 'same-origin' && fetchSite !== 'none') return false;
  if (origin === undefined || origin === '') return strict ? fetchSite === 'same-origin' : true;
  if (origin === 'null') return fetchSite === 'same-origin';
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}
