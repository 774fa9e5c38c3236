import { IMiddleware, Middleware } from '@midwayjs/core';
import { Context, NextFunction } from '@midwayjs/koa';
import type { IncomingMessage } from 'http';
import helmet from 'koa-helmet';

/** The Host header when it is a plain host[:port] (anything else is left out of the policy). */
function sameOriginWebSockets(req: IncomingMessage): string {
  const host = req.headers.host ?? '';
  return /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(host) ? `ws://${host} wss://${host}` : '';
}

/**
 * The security headers of every answer (pages and API), from helmet. The Content-Security-Policy
 * allows what the built pages (www/dist) need and nothing else:
 * - scripts from this origin, and `'wasm-unsafe-eval'` to compile @netaclaw/tool-policy's .wasm
 *   (nothing needs `'unsafe-eval'` nor inline scripts);
 * - styles from this origin (Element Plus's stylesheet; the inline `style` values it and Vue set go
 *   through the CSSOM, which style-src does not govern); images and fonts from this origin and
 *   `data:` URLs (Element Plus's stylesheet embeds small images as data: URLs);
 * - fetch/XHR/WebSocket to this origin only; no plugins, no <base> elsewhere, forms post here only;
 * - never framed (`frame-ancestors 'none'`, X-Frame-Options DENY).
 * Plus `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer` and helmet's other
 * defaults; no Strict-Transport-Security (whoever terminates TLS in front decides that).
 */
@Middleware()
export class SecurityHeadersMiddleware implements IMiddleware<Context, NextFunction> {
  resolve() {
    return helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'", "'wasm-unsafe-eval'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'", 'data:'],
          fontSrc: ["'self'", 'data:'],
          connectSrc: ["'self'", sameOriginWebSockets],
          objectSrc: ["'none'"],
          baseUri: ["'self'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
        },
      },
      referrerPolicy: { policy: 'no-referrer' },
      xFrameOptions: { action: 'deny' },
      strictTransportSecurity: false,
    }) as unknown as ReturnType<IMiddleware<Context, NextFunction>['resolve']>;
  }

  static getName() {
    return 'netaclaw-security-headers';
  }
}
