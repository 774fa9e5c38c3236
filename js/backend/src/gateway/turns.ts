/**
 * The chat turns running on this instance, kept apart from the WebSocket that started them: a turn goes
 * on when its page goes away (a reload, a navigation), and a page that opens the session again attaches
 * to it — it gets the turn's events so far (replayed), then the rest as they come. Only the user's
 * cancel (or the turn's own end) stops a turn.
 *
 * Bounded: consecutive `delta` events of one stream are kept as one; at most TURN_TEXT_MAX_CHARS of
 * streamed text and TURN_EVENTS_MAX events are kept per turn (past that the replay says `truncated`, the
 * live events still go to every page attached); at most LIVE_TURNS_MAX (NETACLAW_LIVE_TURNS_MAX, 64) turns run at once per
 * instance.
 */
import type { ChatAttached, ChatEvent } from '../wire/api-types';
import { LIVE_TURNS_MAX } from '../config/settings';

export const TURN_EVENTS_MAX = 2000;
export const TURN_TEXT_MAX_CHARS = 1_000_000;
export { LIVE_TURNS_MAX };

type Listener = (event: ChatEvent) => void;

export class LiveTurn {
  sessionId: number | null = null;
  readonly events: ChatEvent[] = [];
  chars = 0;
  truncated = false;
  ended = false;
  /** The event that ended the turn (`done` or `error`), kept apart from the bounded events. */
  final: ChatEvent | null = null;
  private readonly listeners = new Set<Listener>();

  constructor(
    readonly message: string,
    readonly cancel: () => void
  ) {}

  /** Sends `listener` the turn's events from now on; returns the function that stops it. */
  listen(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Keeps the event for a replay (bounded) and sends it to every listener. */
  push(event: ChatEvent): void {
    if (event.type === 'done' || event.type === 'error') this.final = event;
    this.keep(event);
    for (const l of [...this.listeners]) l(event);
  }

  private keep(event: ChatEvent): void {
    const last = this.events[this.events.length - 1];
    if (event.type === 'delta') {
      if (this.chars + event.text.length > TURN_TEXT_MAX_CHARS) {
        this.truncated = true;
        return;
      }
      this.chars += event.text.length;
      if (last && last.type === 'delta' && last.batchId === event.batchId) {
        this.events[this.events.length - 1] = { ...last, text: last.text + event.text };
        return;
      }
    }
    if (this.events.length >= TURN_EVENTS_MAX) {
      this.truncated = true;
      return;
    }
    this.events.push(event.type === 'delta' ? { ...event } : event);
  }

  /**
   * Where the kept events stand: their count and the length of the last one's text when it is a delta —
   * the position a follower on another instance compares with its own (gateway/progress.ts).
   */
  position(): [number, number] {
    const last = this.events[this.events.length - 1];
    return [this.events.length, last && last.type === 'delta' ? last.text.length : 0];
  }

  /** What a page attaching now gets first: the `attached` answer, then the events so far. */
  replay(sessionId: number): [ChatAttached, ...ChatEvent[]] {
    return [{ type: 'attached', sessionId, running: true, message: this.message, ...(this.truncated ? { truncated: true } : {}) }, ...this.events];
  }
}

export class TurnHub {
  private readonly running = new Set<LiveTurn>();
  private readonly bySession = new Map<number, LiveTurn>();

  get size(): number {
    return this.running.size;
  }

  /** A new turn, or null when LIVE_TURNS_MAX turns run already. */
  begin(message: string, cancel: () => void): LiveTurn | null {
    if (this.running.size >= LIVE_TURNS_MAX) return null;
    const turn = new LiveTurn(message, cancel);
    this.running.add(turn);
    return turn;
  }

  /** An event of `turn`: kept, sent, and (its first with a session) makes the turn findable by session. */
  push(turn: LiveTurn, event: ChatEvent): void {
    if (turn.sessionId === null && typeof event.sessionId === 'number') {
      turn.sessionId = event.sessionId;
      this.bySession.set(event.sessionId, turn);
    }
    turn.push(event);
    if (event.type === 'done' || event.type === 'error') this.end(turn);
  }

  end(turn: LiveTurn): void {
    turn.ended = true;
    this.running.delete(turn);
    if (turn.sessionId !== null && this.bySession.get(turn.sessionId) === turn) this.bySession.delete(turn.sessionId);
  }

  /** The running turn of a session on this instance. */
  find(sessionId: number): LiveTurn | null {
    const t = this.bySession.get(sessionId);
    return t && !t.ended ? t : null;
  }
}
