/**
 * Timers whose time moves only when a test moves it: `advance(ms)` runs, in time order, every
 * callback due by then (including ones armed while advancing). A test asserts that something times
 * out after exactly its budget by moving time to it, "nothing else is due" by looking at `armed`
 * rather than by sleeping, and "it gave up after its budget" by reading `now()` rather than a wall
 * clock.
 */
import type { Timer, Timers } from '../timers.js';

class ManualTimer implements Timer {
  constructor(
    readonly owner: ManualTimers,
    public due: number,
    /** The delay it was armed with; for an interval, its period. */
    readonly ms: number,
    readonly seq: number,
    readonly callback: () => void,
    /** 0 for a one-shot timer; the period of an interval. */
    readonly period: number,
  ) {}
  cancel(): void {
    this.owner.forget(this);
  }
  unref(): void {
    // Nothing keeps a process alive here.
  }
}

export class ManualTimers implements Timers {
  #now: number;
  #seq = 0;
  readonly #active = new Set<ManualTimer>();
  #waiters: (() => void)[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  after(ms: number, callback: () => void): Timer {
    return this.#arm(ms, callback, 0);
  }

  every(ms: number, callback: () => void): Timer {
    return this.#arm(ms, callback, Math.max(1, ms));
  }

  /** The delays the timers still armed (not run, not cancelled) were armed with, soonest first. */
  get armed(): number[] {
    return this.#sorted().map((t) => t.ms);
  }

  /** How long from now until each armed timer is due, soonest first. */
  get dueIn(): number[] {
    return this.#sorted().map((t) => t.due - this.#now);
  }

  /** How many timers were armed so far, run or not. */
  get armedTotal(): number {
    return this.#seq;
  }

  /** Resolves once at least `count` timers were armed in total (`armedTotal`). */
  async whenArmed(count = this.#seq + 1): Promise<void> {
    while (this.#seq < count) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  /** Moves time to the soonest armed timer and runs it; returns its delay. Throws when none is armed. */
  runNext(): number {
    const [next] = this.#sorted();
    if (next === undefined) throw new Error('no timer is armed');
    this.#run(next);
    return next.ms;
  }

  /** Moves time forward by `ms`, running every timer that falls due on the way, in order. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`advance(ms): ms must be >= 0, got ${ms}`);
    const until = this.#now + ms;
    for (;;) {
      const [next] = this.#sorted();
      if (next === undefined || next.due > until) break;
      this.#run(next);
    }
    this.#now = until;
  }

  /** @internal called by a cancelled timer. */
  forget(timer: ManualTimer): void {
    this.#active.delete(timer);
  }

  #arm(ms: number, callback: () => void, period: number): Timer {
    const timer = new ManualTimer(this, this.#now + Math.max(0, ms), ms, this.#seq++, callback, period);
    this.#active.add(timer);
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
    return timer;
  }

  #run(timer: ManualTimer): void {
    this.#now = Math.max(this.#now, timer.due);
    if (timer.period > 0) timer.due += timer.period;
    else this.#active.delete(timer);
    timer.callback();
  }

  #sorted(): ManualTimer[] {
    return [...this.#active].sort((a, b) => a.due - b.due || a.seq - b.seq);
  }
}
