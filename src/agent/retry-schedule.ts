/**
 * When the agent retries a pass that did not converge: after a backoff that doubles per failed
 * pass in a row (util/backoff.ts) up to a ceiling, and is reset by a pass that converged. One
 * retry is armed at a time; a later pass's outcome replaces it.
 */
import { backoffDelayMs, type Backoff } from '../util/backoff.js';
import type { Timer, Timers } from '../util/timers.js';
import type { AgentLogger } from './logger.js';
import type { ReconcileSummary } from './status.js';

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

  /** A pass finished: a converged one ends the series, any other arms the next retry. */
  afterPass(outcome: ReconcileSummary['outcome']): void {
    this.cancel();
    if (outcome === 'ok') {
      this.#attempt = 0;
      return;
    }
    const delayMs = backoffDelayMs(this.#opts.backoff, this.#attempt);
    this.#attempt++;
    this.#nextRetryAt = this.#opts.clock() + delayMs;
    this.#timer = this.#opts.timers.after(delayMs, () => {
      this.#timer = undefined;
      this.#nextRetryAt = undefined;
      this.#opts.retry();
    });
    this.#opts.logger.info({ delayMs, attempt: this.#attempt }, 'reconcile will be retried');
  }

  /** Disarms the retry (on stop); the count of failed passes stays. */
  cancel(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#nextRetryAt = undefined;
  }
}
