import { IMiddleware, Inject, Middleware } from '@midwayjs/core';
import { Context, NextFunction } from '@midwayjs/koa';
import { unauthorized } from '../errors';
import { AdminTokenService } from '../service/token';
import { tokenMatches } from '../token';

/** Every /admin/... and /api/... route needs `Authorization: Bearer <token>` (the WebSocket: see ChatGateway). */
@Middleware()
export class AuthMiddleware implements IMiddleware<Context, NextFunction> {
  @Inject()
  adminToken: AdminTokenService;

  resolve() {
    return async (ctx: Context, next: NextFunction) => {
      if (ctx.path === '/admin' || ctx.path.startsWith('/admin/') || ctx.path === '/api' || ctx.path.startsWith('/api/')) {
        const header = ctx.get('authorization');
        const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
        if (!m) {
          ctx.set('WWW-Authenticate', 'Bearer');
          throw unauthorized('missing admin token: send Authorization: Bearer <token>');
        }
        if (!tokenMatches(m[1], this.adminToken.get().token)) {
          ctx.set('WWW-Authenticate', 'Bearer error="invalid_token"');
          throw unauthorized('invalid admin token');
        }
      }
      return next();
    };
  }

  static getName() {
    return 'netaclaw-auth';
  }
}
