/**
 * Timers that move only when a test says so: `advance(ms)` runs, in time order, every callback
 * due by then (including ones scheduled while advancing). Lets the client's tests assert that a
 * request times out after exactly its deadline, without sleeping and without reading the clock.
 */
import type { ClientTimers, Timer } from '../timers.js';

class ManualTimer implements Timer {
  cancelled = false;
  constructor(
    readonly owner: ManualTimers,
    public due: number,
    readonly seq: number,
    readonly callback: () => void,
    /** 0 for a timeout; the period of an interval. */
    readonly period: number,
  ) {}
  cancel(): void {
    this.cancelled = true;
    this.owner.forget(this);
  }
  unref(): void {
    // Nothing keeps a process alive here.
  }
}

export class ManualTimers implements ClientTimers {
  #now: number;
  #seq = 0;
  readonly #active = new Set<ManualTimer>();

  constructor(start = 1_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): Timer {
    return this.#add(callback, ms, 0);
  }

  setInterval(callback: () => void, ms: number): Timer {
    return this.#add(callback, ms, Math.max(1, ms));
  }

  /** Timers scheduled and neither run (timeouts) nor cancelled: a leak check after settling. */
  get activeCount(): number {
    return this.#active.size;
  }

  /** Delays of the active timers from now, soonest first. */
  get activeDelays(): number[] {
    return [...this.#active].map((t) => t.due - this.#now).sort((a, b) => a - b);
  }

  /** Moves the clock `ms` forward, running what falls due on the way, in order. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`advance(ms): ms must be >= 0, got ${ms}`);
    const end = this.#now + ms;
    for (;;) {
      const next = this.#nextDue(end);
      if (!next) break;
      this.#now = next.due;
      if (next.period > 0) next.due += next.period;
      else this.#active.delete(next);
      next.callback();
    }
    this.#now = end;
  }

  /** Runs timers up to and including the next one due, wherever it is. False if there is none. */
  runNext(): boolean {
    const next = this.#nextDue(Number.POSITIVE_INFINITY);
    if (!next) return false;
    this.advance(next.due - this.#now);
    return true;
  }

  /** @internal called by a cancelled timer. */
  forget(timer: ManualTimer): void {
    this.#active.delete(timer);
  }

  #add(callback: () => void, ms: number, period: number): Timer {
    const timer = new ManualTimer(this, this.#now + Math.max(0, ms), this.#seq++, callback, period);
    this.#active.add(timer);
    return timer;
  }

  #nextDue(limit: number): ManualTimer | undefined {
    let best: ManualTimer | undefined;
    for (const t of this.#active) {
      if (t.due > limit) continue;
      if (!best || t.due < best.due || (t.due === best.due && t.seq < best.seq)) best = t;
    }
    return best;
  }
}
