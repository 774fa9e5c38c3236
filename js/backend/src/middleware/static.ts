import { IMiddleware, Middleware } from '@midwayjs/core';
import { Context, NextFunction } from '@midwayjs/koa';
import * as fs from 'fs';
import * as path from 'path';
import send from 'koa-send';
import { STATIC_DIR } from '../settings';
import { needsToken } from './auth';

function isApiPath(p: string): boolean {
  return p === '/health' || p === '/auth' || p.startsWith('/auth/') || needsToken(p) || p === '/ws' || p.startsWith('/ws/');
}

/**
 * Serves the built pages (www/dist, or STATIC_DIR) at `/` when the folder exists (checked per
 * request, so pages built after the server started are served too). A GET for a path without a file
 * extension that matches no file gets index.html (SPA fallback). API paths are never touched.
 */
@Middleware()
export class StaticMiddleware implements IMiddleware<Context, NextFunction> {
  resolve() {
    return async (ctx: Context, next: NextFunction) => {
      if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || isApiPath(ctx.path) || !fs.existsSync(STATIC_DIR)) {
        return next();
      }
      try {
        if (await send(ctx as any, ctx.path, { root: STATIC_DIR, index: 'index.html' })) return;
      } catch (err) {
        const status = (err as { status?: number }).status;
        if (status !== 404) throw err;
      }
      const index = path.join(STATIC_DIR, 'index.html');
      if (path.extname(ctx.path) === '' && fs.existsSync(index)) {
        await send(ctx as any, 'index.html', { root: STATIC_DIR });
        return;
      }
      return next();
    };
  }

  static getName() {
    return 'netaclaw-static';
  }
}
