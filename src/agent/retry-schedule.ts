/**
 * When the agent runs its next pass after one that did not converge. Failed ops are retried per
 * resource, each on its own backoff (reconcile/failing-resources.ts); a pass that failed as a
 * whole, or whose resources wait for something outside vppnet, is retried after a backoff that
 * doubles per such pass in a row (util/backoff.ts) up to a ceiling, reset by a pass that needs no
 * retry. One retry is armed at a time, at the sooner of the two; a later pass replaces it.
 */
import { backoffDelayMs, type Backoff } from '../util/backoff.js';
import type { Timer, Timers } from '../util/timers.js';
import type { AgentLogger } from './logger.js';

export const DEFAULT_RETRY_INITIAL_MS = 1_000;
export const DEFAULT_RETRY_MAX_MS = 60_000;

export interface RetryScheduleOptions {
  readonly backoff: Backoff;
  readonly timers: Timers;
  /** Milliseconds since the epoch, for `nextRetryAt`. */
  readonly clock: () => number;
  readonly logger: AgentLogger;
  /** Runs when a retry is due. */
  readonly retry: () => void;
}

/** What a finished pass leaves to retry. */
export interface NextPass {
  /**
   * The pass itself must run again, on the pass backoff: it failed as a whole, resources wait for
   * something vppnet does not create, or ops failed or were skipped without a retry of their own.
   */
  readonly passRetry: boolean;
  /** The soonest retry of a failing resource, milliseconds since the epoch, if any fails. */
  readonly resourceRetryAt: number | undefined;
}

export class RetrySchedule {
  readonly #opts: RetryScheduleOptions;
  #timer: Timer | undefined;
  /** Passes in a row that did not converge: the exponent of the next delay. */
  #attempt = 0;
  #nextRetryAt: number | undefined;

  constructor(opts: RetryScheduleOptions) {
    this.#opts = opts;
  }

  /** When the armed retry is due (milliseconds since the epoch), if one is armed. */
  get nextRetryAt(): number | undefined {
    return this.#nextRetryAt;
  }

  /**
   * A pass finished. The next pass is due at the sooner of a failing resource's own retry
   * (failing-resources.ts) and, when the pass needs one, the pass backoff's next step; a pass that
   * needs none ends the series of failed passes.
   */
  afterPass(next: NextPass): void {
    this.cancel();
    let at = next.resourceRetryAt;
    if (next.passRetry) {
      const delayMs = backoffDelayMs(this.#opts.backoff, this.#attempt);
      this.#attempt++;
      const passAt = this.#opts.clock() + delayMs;
      at = at === undefined ? passAt : Math.min(at, passAt);
    } else {
      this.#attempt = 0;
    }
    if (at === undefined) return;
    const delayMs = Math.max(0, at - this.#opts.clock());
    this.#nextRetryAt = at;
    this.#timer = this.#opts.timers.after(delayMs, () => {
      this.#timer = undefined;
      this.#nextRetryAt = undefined;
      this.#opts.retry();
    });
    this.#opts.logger.info(
      { delayMs, ...(next.passRetry ? { attempt: this.#attempt } : { resourceRetry: true }) },
      'reconcile will be retried',
    );
  }

  /** Disarms the retry (on stop); the count of failed passes stays. */
  cancel(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#nextRetryAt = undefined;
  }
}
