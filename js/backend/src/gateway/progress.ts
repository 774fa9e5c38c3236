/**
 * A running turn followed from another instance (several backends on one MySQL/MariaDB database; on SQLite
 * there is one instance per database file, and nothing is written): the instance running a turn writes
 * its replay — the events a page attaching there gets (`LiveTurn`, bounded by TURN_EVENTS_MAX /
 * TURN_TEXT_MAX_CHARS) — to `netaclaw_turn_progress`, at most every TURN_PROGRESS_MS while it changes
 * (never a write per delta) and once at its end. A page attaching on another instance gets that replay,
 * then what is new in the row, read every TURN_PROGRESS_MS, then the end event. A cancel there is written
 * to the row; the running instance reads it every CANCEL_CHECK_MS.
 *
 * A session's row is replaced by its next turn; rows not written for TURN_PROGRESS_KEEP_MS are deleted when
 * a turn starts.
 *
 * With the bus (`REDIS_URL`, src/bus/) the running instance also publishes each event as it comes, with the
 * position of the kept events before and after it (`LiveTurn.position`), on the turn's channel; a follower
 * sends what it gets there at once, reads the row only to fill a gap (what came before it subscribed, or was
 * published while Redis was away) and every LIVE_CHECK_MS for the turn's end, and a cancel is published to
 * the running instance too. The row is written all the same: when Redis goes away the follower goes back to
 * reading it every TURN_PROGRESS_MS, and nothing streamed is lost.
 */
import { Inject, Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { InjectEntityModel } from '@midwayjs/typeorm';
import * as crypto from 'crypto';
import { IsNull, LessThan, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { ChatAttached, ChatEvent } from '../wire/api-types';
import { NetaClawTurnProgressEntity } from '../entity/turnprogress';
import { dbWriteLock } from '../lib/mutex';
import { DB } from '../config/settings';
import { SessionService } from '../service/session';
import type { LiveTurn } from './turns';
import { errorMessage } from '../lib/errortext';
import { log } from '../config/log';
import { bus } from '../bus/bus';

/** Without the bus (Redis not configured, or away): the running turn's row is written this often, for its followers. */
export const TURN_PROGRESS_MS = 300;
/**
 * With the bus up, the followers have every event from Redis: the row is then a snapshot, written at the
 * turn's first event, at its end, when a follower asks for it (a gap in what the bus brought), and
 * otherwise this often — for a follower that attaches, and for the turn's record if Redis goes away.
 */
export const TURN_SNAPSHOT_MS = 3000;
/** A follower's request for the row is answered no sooner than this after the last write. */
const SNAPSHOT_REQUEST_MS = 50;
/** Rows of turns ended (or abandoned) more than TURN_PROGRESS_KEEP_MS ago are swept at most this often. */
const SWEEP_MS = 60 * 1000;
export const TURN_PROGRESS_KEEP_MS = 60 * 60 * 1000;
export const CANCEL_CHECK_MS = 1000;
/** A follower with the bus: how often it reads the row all the same (its end, the claim of its instance). */
export const LIVE_CHECK_MS = 1000;
/** A follower waiting for the row to fill a gap in what the bus brought reads it this often. */
const GAP_CHECK_MS = 100;

/** An event as published on a turn's channel: with the kept events' position before (`b`) and after (`a`) it. */
interface LiveEvent {
  e: ChatEvent;
  b: [number, number];
  a: [number, number];
}

const turnChannel = (sessionId: number, token: string) => `turn:${sessionId}:${token}`;
const cancelChannel = (sessionId: number, token: string) => `cancel:${sessionId}:${token}`;
/** A follower asks the running instance to write the row now (it lacks what the bus brought before it listened). */
const snapshotChannel = (sessionId: number, token: string) => `snapshot:${sessionId}:${token}`;
/**
 * The most JSON a progress row's events take (a turn's kept events are bounded in count and text, not in the
 * size of tool results): past it the row keeps the events that fit, frozen, and says `truncated`.
 */
export const TURN_PROGRESS_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The events of a progress row: all of them while their JSON fits in `maxBytes`, else null — the caller
 * then keeps `prefixWithin`'s events, once, for the rest of the turn (a row only grows, for its followers).
 */
export function prefixWithin(events: readonly ChatEvent[], maxBytes: number): ChatEvent[] | null {
  if (Buffer.byteLength(JSON.stringify(events), 'utf8') <= maxBytes) return null;
  let bytes = 2;
  let n = 0;
  for (const e of events) {
    const b = Buffer.byteLength(JSON.stringify(e), 'utf8') + 1;
    if (bytes + b > maxBytes) break;
    bytes += b;
    n++;
  }
  return JSON.parse(JSON.stringify(events.slice(0, n))) as ChatEvent[];
}
/** A followed turn whose claim is gone without an end written: given up after this long. */
const LOST_AFTER_MS = 3000;

interface Writer {
  token: string;
  timer: NodeJS.Timeout | null;
  /** When `timer` fires (Infinity: none planned). */
  due: number;
  watch: NodeJS.Timeout | null;
  last: number;
  chain: Promise<void>;
  written: boolean;
  /** The events kept once the row reached TURN_PROGRESS_MAX_BYTES (then only the end is written). */
  frozen?: ChatEvent[];
  /** The turn's cancel channel on the bus, while it runs. */
  cancelSub?: { stop: () => void };
  /** The turn's snapshot requests on the bus, and the watch of the bus, while it runs. */
  snapshotSub?: { stop: () => void };
  stopBusWatch?: () => void;
}

/**
 * Sends `send` what the kept events have more than what was sent (`sent` events, the last delta `textSent`
 * long). The end event, kept with them when there is room, is sent apart (the row's `endEvent`).
 */
export function sendNew(kept: ChatEvent[], at: { sent: number; textSent: number }, send: (e: ChatEvent) => void): void {
  const events = kept.filter(e => e.type !== 'done' && e.type !== 'error');
  if (at.sent > 0 && at.sent <= events.length) {
    const last = events[at.sent - 1];
    if (last.type === 'delta' && last.text.length > at.textSent) send({ ...last, text: last.text.slice(at.textSent) });
  }
  for (let i = at.sent; i < events.length; i++) send(events[i]);
  // never back: what was sent may be ahead of the row (the bus brought it first)
  const last = events[events.length - 1];
  const textLength = last && last.type === 'delta' ? last.text.length : 0;
  if (events.length > at.sent) {
    at.sent = events.length;
    at.textSent = textLength;
  } else if (events.length === at.sent) at.textSent = Math.max(at.textSent, textLength);
}

@Provide()
@Scope(ScopeEnum.Singleton)
export class TurnProgressService {
  @InjectEntityModel(NetaClawTurnProgressEntity)
  repo: Repository<NetaClawTurnProgressEntity>;

  @Inject()
  sessionService: SessionService;

  private readonly writers = new WeakMap<LiveTurn, Writer>();
  private lastSweep = 0;

  // ---- the instance running the turn ----

  /**
   * After each event of `turn` (`event`, the kept events at `before` ahead of it): publishes it on the bus,
   * and writes the turn's replay now (its first event with a session, its end) or later: TURN_PROGRESS_MS
   * after the last write without the bus, TURN_SNAPSHOT_MS with it.
   */
  changed(turn: LiveTurn, event?: ChatEvent, before?: [number, number]): void {
    // SQLite: one instance per database file, nobody else to read it
    if (turn.sessionId === null || DB.kind === 'sqlite') return;
    let w = this.writers.get(turn);
    const fresh = !w;
    if (!w) {
      w = { token: crypto.randomBytes(16).toString('hex'), timer: null, due: Infinity, watch: null, last: 0, chain: Promise.resolve(), written: false };
      this.writers.set(turn, w);
      if (!turn.ended) {
        this.watchCancel(turn, w);
        this.watchBus(turn, w);
      }
    }
    // published: the followers have it now, and the row can wait; not (Redis away): they read the row
    const published = event && before ? bus.publish(turnChannel(turn.sessionId, w.token), { e: event, b: before, a: turn.position() }) : bus.up;
    if (fresh) {
      this.enqueue(turn, w);
      return;
    }
    if (turn.ended) {
      if (w.timer) clearTimeout(w.timer);
      if (w.watch) clearInterval(w.watch);
      w.timer = w.watch = null;
      w.due = Infinity;
      w.cancelSub?.stop();
      w.snapshotSub?.stop();
      w.stopBusWatch?.();
      w.cancelSub = w.snapshotSub = w.stopBusWatch = undefined;
      this.enqueue(turn, w);
      return;
    }
    this.plan(turn, w, published ? TURN_SNAPSHOT_MS : TURN_PROGRESS_MS);
  }

  /** Writes the row `every` ms after its last write, unless a write is planned sooner already. */
  private plan(turn: LiveTurn, w: Writer, every: number): void {
    if (turn.ended) return;
    const at = Math.max(Date.now(), w.last + every);
    if (w.timer && w.due <= at) return;
    if (w.timer) clearTimeout(w.timer);
    w.due = at;
    w.timer = setTimeout(() => {
      w.timer = null;
      w.due = Infinity;
      this.enqueue(turn, w);
    }, at - Date.now());
    w.timer.unref();
  }

  /**
   * A follower's request for the row (it attached, or the bus brought an event it cannot place): written
   * soon. Redis going away: what the row lacks is written at the database path's pace.
   */
  private watchBus(turn: LiveTurn, w: Writer): void {
    w.snapshotSub = bus.subscribe(snapshotChannel(turn.sessionId!, w.token), () => this.plan(turn, w, SNAPSHOT_REQUEST_MS));
    w.stopBusWatch = bus.watch(up => {
      if (!up && w.timer) this.plan(turn, w, TURN_PROGRESS_MS);
    });
  }

  private enqueue(turn: LiveTurn, w: Writer): void {
    w.chain = w.chain
      .then(() => this.write(turn, w))
      .catch(err => log().error(`[netaclaw] session ${turn.sessionId}: cannot write the turn's progress:`, errorMessage(err)));
  }

  private async write(turn: LiveTurn, w: Writer): Promise<void> {
    const sessionId = turn.sessionId!;
    const now = Date.now();
    w.last = now;
    // the JSON columns take the events as they are (TypeORM's partial type reads into their union)
    w.frozen ??= prefixWithin(turn.events, TURN_PROGRESS_MAX_BYTES) ?? undefined;
    const values: QueryDeepPartialEntity<NetaClawTurnProgressEntity> = {
      events: (w.frozen ?? [...turn.events]) as QueryDeepPartialEntity<ChatEvent>[],
      truncated: turn.truncated || w.frozen !== undefined,
      endEvent: (turn.ended ? turn.final : null) as QueryDeepPartialEntity<ChatEvent> | null,
      writeTime: now,
      endTime: turn.ended ? now : null,
    };
    if (!w.written) {
      w.written = true;
      // the session's row of its turn before is replaced; rows left for an hour go
      const sweep = now - this.lastSweep >= SWEEP_MS;
      if (sweep) this.lastSweep = now;
      await dbWriteLock.run(async () => {
        if (sweep) await this.repo.delete({ writeTime: LessThan(now - TURN_PROGRESS_KEEP_MS) });
        await this.repo.upsert({ sessionId, token: w.token, message: turn.message, cancelTime: null, ...values }, ['sessionId']);
      });
      return;
    }
    // only this turn's row (a later turn of the session has its own token)
    await dbWriteLock.run(() => this.repo.update({ sessionId, token: w.token }, values));
  }

  /** Stops `turn` when a page on another instance asked for its cancel. */
  private watchCancel(turn: LiveTurn, w: Writer): void {
    // at once through the bus; the row, read every CANCEL_CHECK_MS, when Redis is away
    w.cancelSub = bus.subscribe(cancelChannel(turn.sessionId!, w.token), () => {
      if (!turn.ended) turn.cancel();
    });
    w.watch = setInterval(() => {
      if (!w.written || turn.ended) return;
      this.repo
        .findOne({ select: ['cancelTime'], where: { sessionId: turn.sessionId!, token: w.token } })
        .then(row => {
          if (row?.cancelTime != null && !turn.ended) turn.cancel();
        })
        .catch(() => undefined);
    }, CANCEL_CHECK_MS);
    w.watch.unref();
  }

  // ---- another instance ----

  /** The row of the session's turn while it runs (no end written yet); null otherwise. */
  async running(sessionId: number): Promise<NetaClawTurnProgressEntity | null> {
    const row = await this.repo.findOneBy({ sessionId });
    return row && row.endTime == null ? row : null;
  }

  /** Asks the instance running the turn of `row` to cancel it. */
  async cancel(sessionId: number, token: string): Promise<void> {
    bus.publish(cancelChannel(sessionId, token), {});
    await dbWriteLock.run(() => this.repo.update({ sessionId, token, endTime: IsNull() }, { cancelTime: Date.now() }));
  }

  /**
   * Follows the running turn of `row`: sends `attached` (running, elsewhere), its events so far, then what
   * is new, then its end event; `onEnd` after that. Returns the function that stops following.
   */
  follow(row: NetaClawTurnProgressEntity, send: (e: ChatEvent | ChatAttached) => void, onEnd: () => void): () => void {
    const { sessionId, token } = row;
    let stopped = false;
    let timer: NodeJS.Timeout | null = null;
    const at = { sent: 0, textSent: 0 };
    let lastWrite = Number(row.writeTime);
    let unchangedSince = Date.now();
    let claimGoneSince: number | null = null;
    const finish = (event: ChatEvent) => {
      stopped = true;
      release();
      send(event);
      onEnd();
    };
    send({ type: 'attached', sessionId, running: true, elsewhere: true, message: row.message, ...(row.truncated ? { truncated: true } : {}) });
    sendNew(row.events ?? [], at, send);
    // the bus: each event as the running instance published it, sent when it follows what was sent
    const ahead = (p: [number, number]) => at.sent < p[0] || (at.sent === p[0] && at.textSent < p[1]);
    const apply = (m: LiveEvent): boolean => {
      const e = m.e;
      if (ahead(m.b)) return false; // a gap: the row has what came before
      if (e.type === 'done' || e.type === 'error') {
        if (!stopped) finish(e);
        return true;
      }
      if (!ahead(m.a)) {
        // had already (from the row); or not kept (past the turn's bounds), then sent as it comes
        if (m.a[0] === m.b[0] && m.a[1] === m.b[1] && at.sent === m.a[0] && at.textSent === m.a[1]) send(e);
        return true;
      }
      send(e.type === 'delta' && at.sent === m.a[0] ? { ...e, text: e.text.slice(e.text.length - (m.a[1] - at.textSent)) } : e);
      at.sent = m.a[0];
      at.textSent = m.a[1];
      return true;
    };
    const pending: LiveEvent[] = [];
    const drain = () => {
      while (!stopped && pending.length > 0 && apply(pending[0])) pending.shift();
    };
    let live = false;
    // the running instance writes the row when asked (with the bus up it writes it only every few seconds)
    let askedAt = 0;
    const ask = () => {
      if (Date.now() - askedAt < GAP_CHECK_MS) return;
      askedAt = Date.now();
      bus.publish(snapshotChannel(sessionId, token), {});
    };
    const sub = bus.subscribe(turnChannel(sessionId, token), msg => {
      if (stopped) return;
      pending.push(msg as unknown as LiveEvent);
      drain();
      if (pending.length > 0) {
        ask();
        soon(GAP_CHECK_MS);
      }
    });
    // Redis away: the row every TURN_PROGRESS_MS; back (subscribed again): the row once for what was missed
    const stopWatch = bus.watch(up => {
      live = up;
      soon(0);
    });
    sub.ready.then(ok => {
      live = ok;
      // what was published before the subscription: the row has it, once written again
      if (ok && !stopped) {
        ask();
        soon(SNAPSHOT_REQUEST_MS * 2);
      }
    });
    const poll = async () => {
      const r = await this.repo.findOneBy({ sessionId });
      if (stopped) return;
      if (!r || r.token !== token) {
        return finish({
          type: 'error',
          sessionId,
          code: 'turn_failed',
          message: 'the turn followed is no longer recorded (it ended long ago or its instance stopped)',
        });
      }
      sendNew(r.events ?? [], at, send);
      drain();
      if (stopped) return;
      if (r.endTime != null) {
        return finish(r.endEvent ?? { type: 'error', sessionId, code: 'turn_failed', message: 'the turn ended without its answer recorded' });
      }
      if (Number(r.writeTime) !== lastWrite) {
        lastWrite = Number(r.writeTime);
        unchangedSince = Date.now();
        claimGoneSince = null;
      } else if (Date.now() - unchangedSince >= LOST_AFTER_MS) {
        // nothing new for a while: the instance running it may have stopped (its claim ran out)
        unchangedSince = Date.now();
        if (await this.sessionService.turnElsewhere(sessionId)) claimGoneSince = null;
        else if (claimGoneSince === null) claimGoneSince = Date.now();
        else if (!stopped) return finish({ type: 'error', sessionId, code: 'turn_failed', message: 'the instance running the turn stopped before its end' });
      }
    };
    let polling = false;
    /** The next read of the row in `ms` (an earlier one planned stays). */
    let due = Infinity;
    const soon = (ms: number) => {
      if (stopped || polling || Date.now() + ms >= due) return;
      if (timer) clearTimeout(timer);
      due = Date.now() + ms;
      timer = setTimeout(() => {
        timer = null;
        due = Infinity;
        polling = true;
        poll()
          .catch(err => log().error(`[netaclaw] session ${sessionId}: cannot read the turn's progress:`, errorMessage(err)))
          .finally(() => {
            polling = false;
            next();
          });
      }, ms);
    };
    const next = () => soon(pending.length > 0 ? GAP_CHECK_MS : live && bus.up ? LIVE_CHECK_MS : TURN_PROGRESS_MS);
    next();
    function release() {
      if (timer) clearTimeout(timer);
      sub.stop();
      stopWatch();
    }
    return () => {
      stopped = true;
      release();
    };
  }
}
