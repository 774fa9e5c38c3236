/**
 * The time the backend reads and waits on: `now()`, a timer, and a sleep. The backend runs on the system
 * clock (`systemClock`); a test hands a `ManualClock` to what it checks and moves it forward, so that a
 * lease running out or an auth window ending is decided by the test, not by the wall clock.
 */

/** A timer set on a clock: cleared with `clear()`. */
export interface ClockTimer {
  clear(): void;
}

export interface Clock {
  /** Milliseconds since the epoch (as `Date.now()`). */
  now(): number;
  /** Calls `fn` once `ms` have passed; the timer does not keep the process alive. */
  setTimer(fn: () => void, ms: number): ClockTimer;
  /** Resolves once `ms` have passed. */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref();
    return { clear: () => clearTimeout(t) };
  },
  sleep: ms => new Promise(resolve => setTimeout(resolve, ms)),
};

/** A clock that moves only when told (`advance`): its timers fire in order of their time. */
export class ManualClock implements Clock {
  private at: number;
  private readonly timers: Array<{ at: number; seq: number; fn: () => void }> = [];
  private seq = 0;

  constructor(start = Date.now()) {
    this.at = start;
  }

  now(): number {
    return this.at;
  }

  setTimer(fn: () => void, ms: number): ClockTimer {
    const timer = { at: this.at + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return {
      clear: () => {
        const i = this.timers.indexOf(timer);
        if (i >= 0) this.timers.splice(i, 1);
      },
    };
  }

  sleep(ms: number): Promise<void> {
    return new Promise(resolve => this.setTimer(resolve, ms));
  }

  /** Moves the clock `ms` forward, firing every timer that falls due on the way (in order). */
  advance(ms: number): void {
    const end = this.at + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.at = next.at;
      next.fn();
    }
    this.at = end;
  }
}
