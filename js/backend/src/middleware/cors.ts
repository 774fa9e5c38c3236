import { IMiddleware, Middleware } from '@midwayjs/core';
import { Context, NextFunction } from '@midwayjs/koa';
import cors from '@koa/cors';
import { AppError } from '../wire/errors';
import { CORS_ORIGINS } from '../config/settings';

/**
 * CORS, closed by default: a page of another origin gets `Access-Control-Allow-*` headers only when
 * its origin is listed in CORS_ORIGINS; a preflight from any other origin is refused with 403
 * `cors_origin_refused` (and no Access-Control header). Same-origin requests are not affected.
 */
@Middleware()
export class CorsMiddleware implements IMiddleware<Context, NextFunction> {
  resolve() {
    const allowed = new Set(CORS_ORIGINS);
    const open = cors({
      origin: ctx => (allowed.has(ctx.get('origin')) ? ctx.get('origin') : ''),
      allowMethods: ['GET', 'HEAD', 'POST'],
      allowHeaders: ['Authorization', 'Content-Type'],
      exposeHeaders: ['Retry-After', 'WWW-Authenticate'],
      maxAge: 600,
    });
    return async (ctx: Context, next: NextFunction) => {
      const origin = ctx.get('origin');
      const preflight = ctx.method === 'OPTIONS' && origin !== '' && ctx.get('access-control-request-method') !== '';
      if (preflight && !allowed.has(origin)) {
        throw new AppError(403, 'cors_origin_refused', `cross-origin requests from ${origin} are not allowed (see CORS_ORIGINS)`);
      }
      return allowed.size > 0 ? open(ctx as never, next) : next();
    };
  }

  static getName() {
    return 'netaclaw-cors';
  }
}
