/**
 * Timers whose time moves only when a test moves it. A test asserts "nothing else is due" by
 * looking at `armed` rather than by sleeping, and "it gave up after its budget" by reading `now()`
 * rather than a wall clock.
 */
import type { Timer, Timers } from '../../src/util/timers.js';

interface Entry {
  readonly due: number;
  readonly ms: number;
  readonly seq: number;
  readonly callback: () => void;
}

export class ManualTimers implements Timers {
  #now: number;
  #seq = 0;
  readonly #entries = new Set<Entry>();
  #waiters: (() => void)[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  after(ms: number, callback: () => void): Timer {
    const entry: Entry = { due: this.#now + ms, ms, seq: this.#seq++, callback };
    this.#entries.add(entry);
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
    return { cancel: () => void this.#entries.delete(entry) };
  }

  /** The delays of the timers armed and not yet run or cancelled, soonest first. */
  get armed(): number[] {
    return this.#sorted().map((e) => e.ms);
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
    this.#entries.delete(next);
    this.#now = Math.max(this.#now, next.due);
    next.callback();
    return next.ms;
  }

  /** Moves time forward by `ms`, running every timer that falls due on the way, in order. */
  advance(ms: number): void {
    const until = this.#now + ms;
    for (;;) {
      const [next] = this.#sorted();
      if (next === undefined || next.due > until) break;
      this.runNext();
    }
    this.#now = until;
  }

  #sorted(): Entry[] {
    return [...this.#entries].sort((a, b) => a.due - b.due || a.seq - b.seq);
  }
}
