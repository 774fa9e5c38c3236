import { Inject, Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { InjectEntityModel } from '@midwayjs/typeorm';
import { LessThan, Repository } from 'typeorm';
import { NetaClawLoginSessionEntity } from '../entity/login';
import { dbWriteLock } from '../lib/mutex';
import { hashesEqual, newSecret, secretHash, SESSION_TTL_SECONDS, tokenMark } from '../http/login-session';
import { SESSION_IDLE_SECONDS } from '../config/settings';
import type { Clock } from '../lib/clock';

/** What a session check found. */
export type SessionCheck =
  /** No session: no cookie, an unknown, revoked, expired or idle one, or one of another admin token. */
  | { status: 'none' }
  /** A live session, but the request lacks its request key (or has another): refused. */
  | { status: 'key' }
  | { status: 'ok'; id: string };

/** How often a live session's last use is written (the idle timeout counts from it). */
function touchEveryMs(): number {
  return Math.min(60000, Math.max(250, (SESSION_IDLE_SECONDS * 1000) / 4));
}

/**
 * The pages' login sessions in the database (src/http/login-session.ts says what they are): every instance on one
 * database sees a login, a logout and an expiry at once.
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class LoginSessionService {
  @InjectEntityModel(NetaClawLoginSessionEntity)
  repo: Repository<NetaClawLoginSessionEntity>;

  /** The backend's clock (the runtime's, configuration.ts): when a session was seen, when it ends. */
  @Inject('clock')
  clock: Clock;

  private now(): number {
    return this.clock.now();
  }

  /**
   * A new session for the admin token; `previous` (the cookie the login request carried) is ended: a
   * login never keeps a session that existed before it. Returns the cookie's secret and the request key.
   */
  async create(adminToken: string, previous: string | null): Promise<{ cookie: string; requestKey: string; expires: number }> {
    const now = this.now();
    const cookie = newSecret();
    const requestKey = newSecret();
    const expires = now + SESSION_TTL_SECONDS * 1000;
    const prev = secretHash(previous);
    await dbWriteLock.run(async () => {
      if (prev !== null) await this.repo.delete({ id: prev });
      // sessions past their end, of any browser
      await this.repo.delete({ expireTime: LessThan(now) });
      await this.repo.delete({ seenTime: LessThan(now - SESSION_IDLE_SECONDS * 1000) });
      await this.repo.insert({
        id: secretHash(cookie)!,
        keyHash: secretHash(requestKey)!,
        tokenMark: tokenMark(adminToken),
        loginTime: now,
        seenTime: now,
        expireTime: expires,
      });
    });
    return { cookie, requestKey, expires };
  }

  /** Checks the cookie's session and the request key sent with it; a live session's last use is updated. */
  async check(cookie: string | null, requestKey: string | null, adminToken: string): Promise<SessionCheck> {
    const id = secretHash(cookie);
    if (id === null) return { status: 'none' };
    const row = await this.repo.findOneBy({ id });
    if (!row) return { status: 'none' };
    const now = this.now();
    const seen = Number(row.seenTime);
    if (now >= Number(row.expireTime) || now - seen >= SESSION_IDLE_SECONDS * 1000 || !hashesEqual(row.tokenMark, tokenMark(adminToken))) {
      await dbWriteLock.run(() => this.repo.delete({ id })).catch(() => undefined);
      return { status: 'none' };
    }
    const key = secretHash(requestKey);
    if (key === null || !hashesEqual(row.keyHash, key)) return { status: 'key' };
    if (now - seen >= touchEveryMs()) {
      // only forward: two instances touching together keep the later time
      await dbWriteLock.run(() => this.repo.update({ id, seenTime: LessThan(now) }, { seenTime: now }));
    }
    return { status: 'ok', id };
  }

  /** Ends the cookie's session (a logout): true when there was one. */
  async revoke(cookie: string | null): Promise<boolean> {
    const id = secretHash(cookie);
    if (id === null) return false;
    const r = await dbWriteLock.run(() => this.repo.delete({ id }));
    return (r.affected ?? 0) > 0;
  }
}
