import { IMiddleware, Inject, Middleware } from '@midwayjs/core';
import { Context, NextFunction } from '@midwayjs/koa';
import { checkBearer } from '../http/authlimit';
import { AppError } from '../wire/errors';
import { LoginSessionService } from '../service/login';
import { AdminTokenService } from '../service/token';
import { REQUEST_KEY_HEADER, safeMethod, sameOrigin, sessionCookie } from '../http/login-session';

/**
 * Path prefixes that need `Authorization: Bearer <token>` or the login session (src/http/login-session.ts; the chat
 * WebSocket checks them at the upgrade: ChatGateway).
 */
export const AUTHENTICATED_PREFIXES = ['/admin', '/api'];

export function needsToken(p: string): boolean {
  return AUTHENTICATED_PREFIXES.some(prefix => p === prefix || p.startsWith(prefix + '/'));
}

export const ORIGIN_REFUSED = 'cors_origin_refused';
export const REQUEST_KEY_REQUIRED = 'request_key_required';

/** The refusal of a live session's cookie from elsewhere than a page of this origin. */
export function originRefused(): AppError {
  return new AppError(
    403,
    ORIGIN_REFUSED,
    'a request authenticated by the login cookie must come from a page of this origin (Origin or Sec-Fetch-Site: same-origin); API clients send Authorization: Bearer'
  );
}

/** The refusal of a live session's cookie without the page's request key. */
export function requestKeyRequired(): AppError {
  return new AppError(
    401,
    REQUEST_KEY_REQUIRED,
    'the login cookie alone is not enough: the page that logged in sends its request key (X-Netaclaw-Request-Key); log in again'
  );
}

/** Who answered an approval with the admin token (an API client). */
export const TOKEN_ANSWERER = 'token';

/**
 * Who answered an approval from the pages: their login session, by the first characters of its id (the
 * hash of its cookie: enough to tell sessions apart in the record, nothing to log in with).
 */
export function loginAnswerer(loginId: string): string {
  return `login:${loginId.slice(0, 16)}`;
}

/** Who made this request, as an approval records it (null when the route needs no authentication). */
export function answererOf(ctx: Context): string | null {
  const who = ctx.state?.netaclawAnswerer;
  return typeof who === 'string' ? who : null;
}

/**
 * Every route under an authenticated prefix needs the admin token (a bearer header, which decides alone
 * when sent) or a live login session: its cookie, its request key, and — for a request that changes
 * something — a same-origin `Origin` / `Sec-Fetch-Site`. Wrong tokens are limited per client address
 * (src/http/authlimit.ts: 429 too_many_requests with Retry-After).
 */
@Middleware()
export class AuthMiddleware implements IMiddleware<Context, NextFunction> {
  @Inject()
  adminToken: AdminTokenService;

  @Inject()
  logins: LoginSessionService;

  resolve() {
    return async (ctx: Context, next: NextFunction) => {
      if (needsToken(ctx.path)) {
        const bearer = ctx.get('authorization') !== '';
        const cookie = bearer ? null : sessionCookie(ctx.get('cookie'));
        if (cookie !== null) {
          const check = await this.logins.check(cookie, ctx.get(REQUEST_KEY_HEADER) || null, this.adminToken.get().token);
          if (check.status !== 'none') {
            if (!sameOrigin(ctx.get('origin'), ctx.get('host'), ctx.get('sec-fetch-site'), !safeMethod(ctx.method))) throw originRefused();
            if (check.status === 'key') throw requestKeyRequired();
            ctx.state.netaclawAnswerer = loginAnswerer(check.id);
            return next();
          }
        }
        const m = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
        const check = await checkBearer(ctx.ip, m ? m[1] : null, this.adminToken.get().token);
        if (!check.ok) {
          ctx.set(check.headers);
          throw new AppError(check.status, check.code, check.message);
        }
        ctx.state.netaclawAnswerer = TOKEN_ANSWERER;
      }
      return next();
    };
  }

  static getName() {
    return 'netaclaw-auth';
  }
}
