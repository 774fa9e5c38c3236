/**
 * The bearer check shared by every authenticated entry point (the HTTP auth middleware; any other
 * path that takes the admin token calls `checkBearer` too), with a limit on failed checks per client
 * address: after AUTH_FAIL_LIMIT wrong tokens within AUTH_FAIL_WINDOW_SECONDS, further wrong tokens
 * from that address are answered 429 `too_many_requests` with Retry-After until the window ends. The
 * right token is never limited. A request without a token is not a guess and is not counted.
 * Memory is bounded: at most MAX_TRACKED_CLIENTS addresses are tracked (least recently failed
 * dropped first); IPv6 addresses count per /64, the block one client usually holds.
 *
 * Several instances (MySQL/MariaDB with `REDIS_URL`): the failures are counted in Redis, across them all
 * (`shareFailures`, set at start with the bus's counter, src/bus/limiter.ts); while Redis is away each
 * instance counts its own again.
 */
import * as net from 'net';
import { LRUCache } from 'lru-cache';
import { AUTH_FAIL_LIMIT, AUTH_FAIL_WINDOW_SECONDS } from '../config/settings';
import { tokenMatches } from './admin-token';
import { Clock, systemClock } from '../lib/clock';

export const MAX_TRACKED_CLIENTS = 10000;

/** The key failures are counted under: IPv4 as is (also when IPv4-mapped), IPv6 by its /64. */
export function clientKey(address: string): string {
  const a = address.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(a);
  if (mapped) return mapped[1];
  if (!net.isIPv6(a)) return a;
  const [head, tail] = a.split('::');
  const h = head ? head.split(':') : [];
  const t = tail === undefined ? [] : tail ? tail.split(':') : [];
  const width = (parts: string[]) => parts.reduce((n, p) => n + (p.includes('.') ? 2 : 1), 0);
  const groups = tail === undefined ? h : [...h, ...Array(8 - width(h) - width(t)).fill('0'), ...t];
  return `${groups
    .slice(0, 4)
    .map(g => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

export class FailedAuthLimiter {
  private readonly failures: LRUCache<string, { count: number; until: number }>;

  /** `clock`: when a window starts and ends (a test moves a ManualClock instead of waiting). */
  constructor(
    readonly limit: number,
    readonly windowMs: number,
    maxClients: number = MAX_TRACKED_CLIENTS,
    private readonly clock: Clock = systemClock
  ) {
    this.failures = new LRUCache({ max: maxClients });
  }

  /** Addresses currently tracked (never more than the cache's max). */
  get size(): number {
    return this.failures.size;
  }

  /** Counts one failure of the address; returns the seconds it must now wait (0: not limited yet). */
  recordFailure(address: string, now = this.clock.now()): number {
    const key = clientKey(address);
    let e = this.failures.get(key);
    if (!e || e.until <= now) e = { count: 0, until: now + this.windowMs };
    e.count += 1;
    this.failures.set(key, e);
    return e.count > this.limit ? Math.ceil((e.until - now) / 1000) : 0;
  }
}

export const failedAuth = new FailedAuthLimiter(AUTH_FAIL_LIMIT, AUTH_FAIL_WINDOW_SECONDS * 1000);

/** A count shared by the instances: one more failure of a client key → seconds to wait (0: not yet), or null when it cannot count now. */
export type SharedFailures = (key: string) => Promise<number | null>;
let shared: SharedFailures | null = null;

/** Counts the failures with `counter` from now on (this instance's own count when it answers null). */
export function shareFailures(counter: SharedFailures | null): void {
  shared = counter;
}

export type BearerCheck =
  | { ok: true }
  | { ok: false; status: 401 | 429; code: 'unauthorized' | 'too_many_requests'; message: string; headers: Record<string, string> };

const unauthorized = (message: string, challenge: string): BearerCheck => ({
  ok: false,
  status: 401,
  code: 'unauthorized',
  message,
  headers: { 'WWW-Authenticate': challenge },
});

/**
 * Checks a presented token (null: none was sent) from a client address against the admin token,
 * in constant time. A wrong token counts against the address.
 */
export async function checkBearer(address: string, token: string | null, expected: string): Promise<BearerCheck> {
  if (token === null) return unauthorized('missing admin token: send Authorization: Bearer <token>', 'Bearer');
  if (tokenMatches(token, expected)) return { ok: true };
  const wait = (shared ? await shared(clientKey(address)) : null) ?? failedAuth.recordFailure(address);
  if (wait === 0) return unauthorized('invalid admin token', 'Bearer error="invalid_token"');
  return {
    ok: false,
    status: 429,
    code: 'too_many_requests',
    message: `too many failed token checks from this address; try again in ${wait} s`,
    headers: { 'Retry-After': String(wait) },
  };
}
