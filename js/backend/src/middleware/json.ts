import { IMiddleware, Middleware } from '@midwayjs/core';
import { Context, NextFunction } from '@midwayjs/koa';
import { invalidInput } from '../wire/errors';

/**
 * Runs before the body parser: a request that carries a body must say it is JSON, so that a form or
 * text body is a clear 400 instead of being silently read as `{}`.
 */
@Middleware()
export class JsonBodyMiddleware implements IMiddleware<Context, NextFunction> {
  resolve() {
    return async (ctx: Context, next: NextFunction) => {
      const length = ctx.get('content-length');
      const hasBody = (length !== '' && length !== '0') || ctx.get('transfer-encoding') !== '';
      if (hasBody && !['GET', 'HEAD'].includes(ctx.method) && !ctx.is('application/json', '+json')) {
        throw invalidInput(`request body must be JSON (Content-Type: application/json), got ${JSON.stringify(ctx.get('content-type') || 'none')}`);
      }
      return next();
    };
  }

  static getName() {
    return 'netaclaw-json-body';
  }
}
