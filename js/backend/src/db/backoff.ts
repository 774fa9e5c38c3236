/**
 * Exponential backoff with jitter for reconnection attempts, and a sleep that ends early when the
 * process is asked to stop. (Written here rather than taken from a retry package: the waits must be
 * unref'd timers that a SIGTERM cuts short.)
 */
import { onStop } from '../config/process';

const FIRST_DELAY_MS = 250;

/** The pause before attempt `attempt + 1`: 250 ms doubling up to `maxMs`, each drawn in [d/2, d]. */
export function backoffDelay(attempt: number, maxMs: number): number {
  const d = Math.min(maxMs, FIRST_DELAY_MS * 2 ** Math.min(attempt, 30));
  return Math.round(d / 2 + Math.random() * (d / 2));
}

export class StoppedError extends Error {
  constructor(what: string) {
    super(`${what}: stopped by a signal`);
    this.name = 'StoppedError';
  }
}

/** Resolves after `ms`, or rejects with StoppedError as soon as SIGTERM/SIGINT arrives. */
export function sleepUnlessStopped(ms: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      resolve();
    }, ms);
    timer.unref();
    const off = onStop(() => {
      clearTimeout(timer);
      reject(new StoppedError(what));
    });
  });
}
