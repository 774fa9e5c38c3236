import { IMiddleware, Inject, Middleware } from '@midwayjs/core';
import { Context, NextFunction } from '@midwayjs/koa';
import { checkBearer } from '../authlimit';
import { AppError } from '../errors';
import { AdminTokenService } from '../service/token';
import { sameOrigin, sessionCookie, sessionValid } from '../session';

/**
 * Path prefixes that need `Authorization: Bearer <token>` or the login cookie (src/session.ts; the chat
 * WebSocket checks them at the upgrade: ChatGateway).
 */
export const AUTHENTICATED_PREFIXES = ['/admin', '/api'];

export function needsToken(p: string): boolean {
  return AUTHENTICATED_PREFIXES.some(prefix => p === prefix || p.startsWith(prefix + '/'));
}

/**
 * Every route under an authenticated prefix needs the admin token; wrong tokens are limited per
 * client address (src/authlimit.ts: 429 too_many_requests with Retry-After).
 */
@Middleware()
export class AuthMiddleware implements IMiddleware<Context, NextFunction> {
  @Inject()
  adminToken: AdminTokenService;

  resolve() {
    return async (ctx: Context, next: NextFunction) => {
      if (needsToken(ctx.path)) {
        const bearer = ctx.get('authorization') !== '';
        // the pages' login cookie, from a page of this origin (a bearer header, when sent, decides alone)
        if (!bearer && sessionValid(sessionCookie(ctx.get('cookie')), this.adminToken.get().token) && sameOrigin(ctx.get('origin'), ctx.get('host'), ctx.get('sec-fetch-site'))) {
          return next();
        }
        const m = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
        const check = checkBearer(ctx.ip, m ? m[1] : null, this.adminToken.get().token);
        if (!check.ok) {
          ctx.set(check.headers);
          throw new AppError(check.status, check.code, check.message);
        }
      }
      return next();
    };
  }

  static getName() {
    return 'netaclaw-auth';
  }
}
