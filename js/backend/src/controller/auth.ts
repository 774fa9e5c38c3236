import { Body, Controller, Get, Inject, Post } from '@midwayjs/core';
import { Context } from '@midwayjs/koa';
import { checkBearer } from '../http/authlimit';
import { AppError, invalidInput } from '../wire/errors';
import { LoginSessionService } from '../service/login';
import { AdminTokenService } from '../service/token';
import { REQUEST_KEY_HEADER, sameOrigin, SESSION_TTL_SECONDS, sessionCookie, sessionSetCookie } from '../http/login-session';
import { SESSION_IDLE_SECONDS } from '../config/settings';

/**
 * The pages' login (src/http/login-session.ts): the admin token is sent once, in a POST body, and exchanged for an
 * HttpOnly, SameSite=Strict cookie and a request key the page keeps; wrong tokens count against the
 * address like a wrong bearer. A logout ends the session in the database, for every instance.
 */
@Controller('/auth')
export class AuthController {
  @Inject()
  ctx: Context;

  @Inject()
  adminToken: AdminTokenService;

  @Inject()
  logins: LoginSessionService;

  private secure(): boolean {
    return this.ctx.protocol === 'https';
  }

  /**
   * `{ token }` → 200 `{ loggedIn: true, expiresAt, idleSeconds, requestKey }` with the cookie, or 401 / 429
   * as a bearer check. The session the request's cookie named, if any, is ended (a new one every login).
   */
  @Post('/login')
  async login(@Body() body: unknown) {
    const token = (body as { token?: unknown } | null)?.token;
    if (typeof token !== 'string' || token.trim() === '') throw invalidInput('token must be a non-empty string');
    if (!sameOrigin(this.ctx.get('origin'), this.ctx.get('host'), this.ctx.get('sec-fetch-site'), false)) {
      throw new AppError(403, 'cors_origin_refused', 'a login must come from a page of this origin');
    }
    const check = await checkBearer(this.ctx.ip, token.trim(), this.adminToken.get().token);
    if (!check.ok) {
      this.ctx.set(check.headers);
      throw new AppError(check.status, check.code, check.message);
    }
    const session = await this.logins.create(this.adminToken.get().token, sessionCookie(this.ctx.get('cookie')));
    this.ctx.set('Set-Cookie', sessionSetCookie(session.cookie, SESSION_TTL_SECONDS, this.secure()));
    this.ctx.set('Cache-Control', 'no-store');
    return {
      loggedIn: true,
      expiresAt: new Date(session.expires).toISOString(),
      idleSeconds: SESSION_IDLE_SECONDS,
      requestKey: session.requestKey,
    };
  }

  /**
   * Ends the browser's session: its row is deleted (every instance refuses the cookie from now on) and the
   * cookie removed. From a page of this origin only (no cross-site logout); the cookie is enough (a page
   * that lost its request key can still end its session).
   */
  @Post('/logout')
  async logout() {
    if (!sameOrigin(this.ctx.get('origin'), this.ctx.get('host'), this.ctx.get('sec-fetch-site'), true)) {
      throw new AppError(403, 'cors_origin_refused', 'a logout must come from a page of this origin');
    }
    const ended = await this.logins.revoke(sessionCookie(this.ctx.get('cookie')));
    this.ctx.set('Set-Cookie', sessionSetCookie('', 0, this.secure()));
    return { loggedIn: false, ended };
  }

  /** Whether this page is logged in (a live session and its request key): what the pages' header shows. */
  @Get('/state')
  async state() {
    this.ctx.set('Cache-Control', 'no-store');
    const check = await this.logins.check(sessionCookie(this.ctx.get('cookie')), this.ctx.get(REQUEST_KEY_HEADER) || null, this.adminToken.get().token);
    return { loggedIn: check.status === 'ok' };
  }
}
