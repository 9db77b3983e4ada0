/**
 * When the datastore's clients try again after the store failed them: a watch stream that broke
 * (etcd-store.ts, memory-store.ts) and a range whose list failed (view.ts). One backoff for all
 * of them, exponential with ±50 % jitter, so that the agents of a fleet that lost etcd together
 * do not all come back in the same millisecond; armed on the injected Timers, so that tests move
 * time by hand.
 */
import { backoffDelayMs, type Backoff } from '../util/backoff.js';
import type { Timer, Timers } from '../util/timers.js';

/** From `initialMs`, doubling per failure up to `maxMs`; the jitter is the store's own. */
export type StoreBackoff = Pick<Backoff, 'initialMs' | 'maxMs'>;

export const DEFAULT_STORE_BACKOFF: StoreBackoff = { initialMs: 200, maxMs: 10_000 };

const JITTER = 0.5;

/** One thing's retries: each failure waits longer, until a success resets it. */
export class RetrySchedule {
  #attempt = 0;
  #timer: Timer | undefined;

  readonly #timers: Timers;
  readonly #backoff: StoreBackoff;

  constructor(timers: Timers, backoff: StoreBackoff = DEFAULT_STORE_BACKOFF) {
    this.#timers = timers;
    this.#backoff = backoff;
  }

  /** Runs `retry` after this failure's delay (replacing a retry still pending). */
  afterFailure(retry: () => void): void {
    this.#timer?.cancel();
    const delay = backoffDelayMs({ ...this.#backoff, jitter: JITTER }, this.#attempt++);
    this.#timer = this.#timers.after(delay, () => {
      this.#timer = undefined;
      retry();
    });
  }

  /** It worked: the next failure waits the initial delay again. */
  succeeded(): void {
    this.#attempt = 0;
  }

  /** No retry: the thing is gone. */
  cancel(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
  }
}
