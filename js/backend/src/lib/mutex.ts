/** A tiny in-process async mutex: callers run one after another, in call order. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn, fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/**
 * The one lock every table write goes through. On SQLite all queries share one connection, so a write
 * that ran while the sync transaction is open would be inside that transaction (and rolled back with
 * it); serialising writes in-process rules that out on every backend.
 */
export const dbWriteLock = new Mutex();
