/** The live part of the running batches: their events so far and their listeners, by batch id. */
import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { Mutex } from '../../lib/mutex';
import { BATCH_EVENTS_MAX_BYTES } from '../../runtime/limits';
import type { BatchEvent } from '../../service/subagent';

/**
 * The live part of a running batch: its events so far (for a late subscriber: at most 5,000 and
 * BATCH_EVENTS_MAX_BYTES of JSON; later ones still reach the listeners, and are stored calls anyway) and
 * who listens.
 */
export class LiveBatch {
  readonly events: BatchEvent[] = [];
  readonly listeners = new Set<(e: BatchEvent) => void>();
  /** Database writes of this batch, in order. */
  readonly writes = new Mutex();
  private bytes = 0;

  push(e: BatchEvent): void {
    let size: number;
    try {
      size = Buffer.byteLength(JSON.stringify(e) ?? '', 'utf8');
    } catch {
      size = Infinity;
    }
    if (this.events.length < 5000 && this.bytes + size <= BATCH_EVENTS_MAX_BYTES) {
      this.events.push(e);
      this.bytes += size;
    }
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        /* a listener's failure is its own */
      }
    }
  }

  subscribe(listener: (e: BatchEvent) => void): () => void {
    for (const e of this.events) listener(e);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** The batches running in this process, each with its live part (a batch that ended is the database's). */
@Provide()
@Scope(ScopeEnum.Singleton)
export class LiveBatches {
  private readonly running = new Map<number, LiveBatch>();

  add(id: number, live: LiveBatch): void {
    this.running.set(id, live);
  }

  get(id: number): LiveBatch | undefined {
    return this.running.get(id);
  }

  delete(id: number): void {
    this.running.delete(id);
  }
}
