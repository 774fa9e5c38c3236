import { Body, Controller, Get, Inject, Post } from '@midwayjs/core';
import { Context } from '@midwayjs/koa';
import { checkBearer } from '../authlimit';
import { AppError, invalidInput } from '../errors';
import { AdminTokenService } from '../service/token';
import { issueSession, sameOrigin, SESSION_TTL_SECONDS, sessionCookie, sessionSetCookie, sessionValid } from '../session';

/**
 * The pages' login (src/session.ts): the admin token is sent once, in a POST body, and exchanged for
 * an HttpOnly, SameSite=Strict cookie; wrong tokens count against the address like a wrong bearer.
 */
@Controller('/auth')
export class AuthController {
  @Inject()
  ctx: Context;

  @Inject()
  adminToken: AdminTokenService;

  private secure(): boolean {
    return this.ctx.protocol === 'https';
  }

  /** `{ token }` → 200 `{ loggedIn: true, expiresAt }` with the cookie, or 401 / 429 as a bearer check. */
  @Post('/login')
  async login(@Body() body: unknown) {
    const token = (body as { token?: unknown } | null)?.token;
    if (typeof token !== 'string' || token.trim() === '') throw invalidInput('token must be a non-empty string');
    if (!sameOrigin(this.ctx.get('origin'), this.ctx.get('host'), this.ctx.get('sec-fetch-site'))) {
      throw new AppError(403, 'cors_origin_refused', 'a login must come from a page of this origin');
    }
    const check = checkBearer(this.ctx.ip, token.trim(), this.adminToken.get().token);
    if (!check.ok) {
      this.ctx.set(check.headers);
      throw new AppError(check.status, check.code, check.message);
    }
    const session = issueSession(this.adminToken.get().token);
    this.ctx.set('Set-Cookie', sessionSetCookie(session.value, SESSION_TTL_SECONDS, this.secure()));
    this.ctx.set('Cache-Control', 'no-store');
    return { loggedIn: true, expiresAt: new Date(session.expires * 1000).toISOString() };
  }

  /** Ends the browser's session (the cookie is removed). */
  @Post('/logout')
  async logout() {
    this.ctx.set('Set-Cookie', sessionSetCookie('', 0, this.secure()));
    return { loggedIn: false };
  }

  /** Whether this browser is logged in (a valid session cookie): what the pages' header shows. */
  @Get('/state')
  async state() {
    this.ctx.set('Cache-Control', 'no-store');
    return { loggedIn: sessionValid(sessionCookie(this.ctx.get('cookie')), this.adminToken.get().token) };
  }
}
