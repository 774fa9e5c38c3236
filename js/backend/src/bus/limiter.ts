/**
 * Failed bearer checks counted across the instances (authlimit.ts's `shareFailures`): a fixed window per
 * client key in Redis, rate-limiter-flexible's Redis store — the window starts at the first failure, and
 * past `limit` failures in it the answer is the seconds left, as the in-process count answers. While Redis
 * is away (or a count fails) the answer is null: the instance counts on its own meanwhile.
 */
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Bus } from './bus';

export function sharedFailureCounter(bus: Bus, limit: number, windowSeconds: number): (key: string) => Promise<number | null> {
  let limiter: RateLimiterRedis | null = null;
  return async key => {
    const client = bus.client;
    if (!client || !bus.up) return null;
    limiter ??= new RateLimiterRedis({ storeClient: client, keyPrefix: bus.key('authfail'), points: limit, duration: windowSeconds });
    try {
      await limiter.consume(key);
      return 0;
    } catch (res) {
      return res instanceof RateLimiterRes ? Math.max(1, Math.ceil(res.msBeforeNext / 1000)) : null;
    }
  };
}
