/** A tiny in-process async mutex: callers run one after another, in call order. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn, fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** How many times a write the database chose as a deadlock's victim is tried in all. */
export const WRITE_ATTEMPTS = 4;

/**
 * The gate every table write goes through.
 * - SQLite (the default): one writer. All queries share one connection, so a write that ran while a
 *   transaction is open (a catalog sync, a rules edit) would be inside that transaction and rolled back
 *   with it; the writes of the process run one after another.
 * - MySQL/MariaDB (`parallel`): every write has a pooled connection of its own and writes run side by side,
 *   as they already do between instances. Where two writers meet on one row, the database decides: a
 *   conditional UPDATE (a claim, a row version: db/versioned.ts), a unique index, or a transaction that
 *   locks the row it reads (`SELECT … FOR UPDATE`). A write the database aborted to break a deadlock was
 *   rolled back whole and is run again (WRITE_ATTEMPTS in all).
 */
export class WriteGate {
  private readonly mutex = new Mutex();
  private retryable: ((err: unknown) => boolean) | null = null;

  /** Writes in parallel, running again the ones that fail with `retryable` (the data source does this on MySQL/MariaDB). */
  parallel(retryable: (err: unknown) => boolean): void {
    this.retryable = retryable;
  }

  /** Writes one at a time (SQLite). */
  single(): void {
    this.retryable = null;
  }

  /** True when writes run one at a time. */
  get serialised(): boolean {
    return this.retryable === null;
  }

  run<T>(fn: () => Promise<T>): Promise<T> {
    const retryable = this.retryable;
    if (retryable === null) return this.mutex.run(fn);
    const attempt = async (n: number): Promise<T> => {
      try {
        return await fn();
      } catch (err) {
        if (n >= WRITE_ATTEMPTS || !retryable(err)) throw err;
        // a short, growing, jittered pause: the writers that met do not meet again at once
        await new Promise(resolve => setTimeout(resolve, n * 10 + Math.floor(Math.random() * 20)));
        return attempt(n + 1);
      }
    };
    return attempt(1);
  }
}

/** The one gate every table write goes through (the data source sets it parallel on MySQL/MariaDB). */
export const dbWriteLock = new WriteGate();
