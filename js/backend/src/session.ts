/**
 * The browser's login session: `POST /auth/login` exchanges the admin token for a cookie
 * (`netaclaw_session`, HttpOnly, SameSite=Strict, Path=/), so the pages never keep the token in
 * localStorage nor put it in a URL. The cookie is stateless — `v1.<expires>.<nonce>.<mac>`, the MAC an
 * HMAC-SHA-256 keyed by the admin token — so every instance of the backend accepts it, and changing
 * the admin token ends every session. API clients keep using `Authorization: Bearer`.
 */
import * as crypto from 'crypto';

export const SESSION_COOKIE = 'netaclaw_session';
/** How long a login lasts. */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;

function mac(adminToken: string, payload: string): string {
  const key = crypto.createHash('sha256').update(`netaclaw-session-key:${adminToken}`, 'utf8').digest();
  return crypto.createHmac('sha256', key).update(payload, 'utf8').digest('base64url');
}

/** A new session value, valid for SESSION_TTL_SECONDS from `now`. */
export function issueSession(adminToken: string, now = Date.now()): { value: string; expires: number } {
  const expires = Math.floor(now / 1000) + SESSION_TTL_SECONDS;
  const payload = `v1.${expires}.${crypto.randomBytes(16).toString('base64url')}`;
  return { value: `${payload}.${mac(adminToken, payload)}`, expires };
}

/** True when `value` is a session this admin token issued and it has not expired. */
export function sessionValid(value: string | null, adminToken: string, now = Date.now()): boolean {
  if (!value) return false;
  const m = /^(v1\.(\d{1,12})\.[A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (!m) return false;
  if (Number(m[2]) * 1000 <= now) return false;
  const expected = Buffer.from(mac(adminToken, m[1]));
  const given = Buffer.from(m[3]);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
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

/**
 * A request that a cookie authenticates must come from a page of this origin. A browser says where a
 * request comes from: `Sec-Fetch-Site` (`same-origin`; `none` for an address typed by the user) and
 * `Origin` (every WebSocket handshake and POST). Under the pages' `Referrer-Policy: no-referrer` a
 * same-origin POST carries `Origin: null`, accepted only with `Sec-Fetch-Site: same-origin`. Another
 * origin is refused (SameSite=Strict already keeps the cookie off cross-site requests; this check keeps
 * it closed when a browser gets that wrong). No header at all (a non-browser client) is accepted.
 */
export function sameOrigin(origin: string | undefined, host: string | undefined, fetchSite?: string): boolean {
  if (fetchSite && fetchSite !== 'same-origin' && fetchSite !== 'none') return false;
  if (origin === undefined || origin === '') return true;
  if (origin === 'null') return fetchSite === 'same-origin';
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}
