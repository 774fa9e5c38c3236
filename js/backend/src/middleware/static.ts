import { IMiddleware, Middleware } from '@midwayjs/core';
import { Context, NextFunction } from '@midwayjs/koa';
import * as fs from 'fs';
import * as path from 'path';
import send from 'koa-send';
import { PageFiles } from '../http/pagefiles';
import { STATIC_DIR } from '../config/settings';
import { needsToken } from './auth';

/** koa-send's context: koa's own, which Midway's Context extends with fields koa-send does not read. */
type SendContext = Parameters<typeof send>[0];

function isApiPath(p: string): boolean {
  return p === '/health' || p === '/auth' || p.startsWith('/auth/') || needsToken(p) || p === '/ws' || p.startsWith('/ws/');
}

/**
 * The file under `root` that the request path names (`index.html` for a folder's path), or null when
 * the path cannot be decoded, leaves `root` or passes through a hidden (dot) name — as koa-send
 * resolves it.
 */
function fileUnder(root: string, urlPath: string): string | null {
  let p: string;
  try {
    p = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (p.includes('\0')) return null;
  if (p.endsWith('/')) p += 'index.html';
  const rel = path.normalize(p).replace(/^[/\\]+/, '');
  const base = path.resolve(root);
  const file = path.resolve(base, rel);
  if (
    !file.startsWith(base + path.sep) ||
    path
      .relative(base, file)
      .split(path.sep)
      .some(s => s.startsWith('.'))
  )
    return null;
  return file;
}

/**
 * Serves the built pages (www/dist, or STATIC_DIR) at `/` when the folder exists (checked per
 * request, so pages built after the server started are served too). A GET for a path without a file
 * extension that matches no file gets index.html (SPA fallback). API paths are never touched.
 * The compressible files (.wasm, .js, .css, .html, .svg, .json) come from PageFiles: gzipped once,
 * held in memory, sent gzip when the request accepts it, with ETag and 304 answers; the rest through
 * koa-send as they are.
 */
@Middleware()
export class StaticMiddleware implements IMiddleware<Context, NextFunction> {
  private readonly files = new PageFiles();

  resolve() {
    return async (ctx: Context, next: NextFunction) => {
      if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || isApiPath(ctx.path) || !fs.existsSync(STATIC_DIR)) {
        return next();
      }
      if (await this.sendPageFile(ctx, ctx.path)) return;
      try {
        if (await send(ctx as unknown as SendContext, ctx.path, { root: STATIC_DIR, index: 'index.html' })) return;
      } catch (err) {
        const status = (err as { status?: number }).status;
        if (status !== 404) throw err;
      }
      const index = path.join(STATIC_DIR, 'index.html');
      if (path.extname(ctx.path) === '' && fs.existsSync(index)) {
        if (await this.sendPageFile(ctx, '/index.html')) return;
        await send(ctx as unknown as SendContext, 'index.html', { root: STATIC_DIR });
        return;
      }
      return next();
    };
  }

  /** Sends a compressible page file from PageFiles; false when it is not one (koa-send then tries). */
  private async sendPageFile(ctx: Context, urlPath: string): Promise<boolean> {
    const file = fileUnder(STATIC_DIR, urlPath);
    const answer = file && (await this.files.answer(file, ctx.headers));
    if (!answer) return false;
    ctx.status = answer.status;
    const { Vary, ...headers } = answer.headers;
    ctx.set(headers);
    ctx.vary(Vary);
    if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'max-age=0');
    if (answer.body) {
      ctx.type = path.extname(file);
      ctx.body = answer.body;
    }
    return true;
  }

  static getName() {
    return 'netaclaw-static';
  }
}
