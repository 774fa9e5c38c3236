/**
 * Process-level guards, installed by bootstrap.js before the application loads.
 *
 * 1. Standard output and error may be pipes whose reader goes away (the process that started this one
 *    exits). A write to such a pipe fails with EPIPE, reported as an 'error' event on the stream;
 *    without a listener that event becomes an uncaught exception, which the framework logs — to the
 *    same broken stream, which fails again, on the next tick, for ever: the process spins at full CPU
 *    and, its event loop never reaching I/O, answers neither HTTP nor SIGTERM. A write error now
 *    marks the stream dead and later output to it is dropped.
 * 2. A stop that does not finish within SHUTDOWN_TIMEOUT_MS (a request stuck on a database that
 *    stopped answering, a pool waiting for a dead server) ends with process.exit; a second signal
 *    exits at once.
 */
import { SHUTDOWN_TIMEOUT_MS } from './settings';
import { log } from './log';

export function guardStdio(): void {
  for (const stream of [process.stdout, process.stderr]) {
    let dead = false;
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.on('error', () => {
      dead = true;
    });
    (stream as unknown as { write: (...args: unknown[]) => boolean }).write = (...args: unknown[]) => {
      if (dead) {
        const cb = args.find(a => typeof a === 'function') as (() => void) | undefined;
        if (cb) process.nextTick(cb);
        return true;
      }
      return write(...args);
    };
  }
}

let stopping = false;
const stopListeners: Array<() => void> = [];

/** True once SIGTERM or SIGINT arrived. */
export function isStopping(): boolean {
  return stopping;
}

/** Runs `fn` when SIGTERM/SIGINT arrives (at once if it already did): lets long waits give up. */
export function onStop(fn: () => void): () => void {
  if (stopping) {
    fn();
    return () => undefined;
  }
  stopListeners.push(fn);
  return () => {
    const i = stopListeners.indexOf(fn);
    if (i >= 0) stopListeners.splice(i, 1);
  };
}

export function installStopDeadline(timeoutMs: number = SHUTDOWN_TIMEOUT_MS): void {
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      log().error(`[netaclaw] second ${signal}: exiting now`);
      process.exit(1);
    }
    stopping = true;
    for (const fn of stopListeners.splice(0)) {
      try {
        fn();
      } catch {
        /* a waiter that cannot be woken is covered by the deadline */
      }
    }
    const timer = setTimeout(() => {
      log().error(`[netaclaw] still stopping ${timeoutMs} ms after ${signal}: exiting now`);
      process.exit(1);
    }, timeoutMs);
    timer.unref();
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}
