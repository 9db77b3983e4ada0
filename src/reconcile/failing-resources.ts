/**
 * Resources whose op failed, each with its own retry time, the way vpp-agent's scheduler retries a
 * failing value rather than everything: a resource that keeps failing (a route VPP refuses) backs
 * off on its own up to the ceiling, a new failure elsewhere is retried after the initial delay,
 * and nothing that works waits for either.
 *
 * A pass runs a failing resource's op only when its retry is due, or when the op is not the one
 * that failed (another action, or a new desired value: that deserves an attempt now, and starts a
 * new series). Until then the op is held: skipped, with the retry time as the reason, and what
 * depends on it is skipped with it, as after a failure.
 */
import { backoffDelayMs, type Backoff } from '../util/backoff.js';
import { canonicalEqual } from './descriptor.js';
import type { ExecutionResult } from './executor.js';
import type { Op, OpAction, Plan } from './resource.js';

/** A resource whose last op failed, as status reports it. */
export interface FailingResource {
  readonly key: string;
  readonly kind: string;
  readonly action: OpAction;
  /** Failed attempts in a row (1 after the first failure). */
  readonly attempts: number;
  /** The last attempt's error. */
  readonly error: string;
  /** When the first failure of the row happened, milliseconds since the epoch. */
  readonly since: number;
  /** When the op runs again, milliseconds since the epoch. */
  readonly retryAt: number;
}

interface Entry extends FailingResource {
  /** The value the failed op wanted: another value is another op, run at once. */
  readonly value: unknown;
}

/**
 * How many resources get their own retry. Past it (VPP refusing every route of a large node), the
 * failures are counted but not held, and the pass itself is retried on the agent's pass backoff:
 * the book must not grow with the node.
 */
export const MAX_TRACKED_FAILURES = 1_000;

export interface FailingResourcesOptions {
  /** Each resource's delays: `initialMs` after its first failure, doubling up to `maxMs`. */
  readonly backoff: Backoff;
  /** Milliseconds since the epoch. */
  readonly clock: () => number;
  readonly maxTracked?: number;
}

export class FailingResources {
  readonly #opts: FailingResourcesOptions;
  readonly #entries = new Map<string, Entry>();
  #untracked = 0;

  constructor(opts: FailingResourcesOptions) {
    this.#opts = opts;
  }

  /** Resources with their own retry. */
  get size(): number {
    return this.#entries.size;
  }

  /** Failures of the last pass that got no entry (the book was full): the pass must be retried. */
  get untracked(): number {
    return this.#untracked;
  }

  /** The failing resources, soonest retry first. */
  list(): FailingResource[] {
    return [...this.#entries.values()]
      .sort((a, b) => a.retryAt - b.retryAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map(({ key, kind, action, attempts, error, since, retryAt }) => ({
        key,
        kind,
        action,
        attempts,
        error,
        since,
        retryAt,
      }));
  }

  /** Failing resources per kind. */
  countByKind(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const e of this.#entries.values()) counts.set(e.kind, (counts.get(e.kind) ?? 0) + 1);
    return counts;
  }

  /** The soonest retry, if any resource is failing. */
  nextRetryAt(): number | undefined {
    let soonest: number | undefined;
    for (const e of this.#entries.values())
      if (soonest === undefined || e.retryAt < soonest) soonest = e.retryAt;
    return soonest;
  }

  /**
   * The executor's `hold` for a pass starting now, or undefined when nothing is held (no call per
   * op then: a plan may have 100k).
   */
  holdForPass(): ((op: Op) => string | undefined) | undefined {
    if (this.#entries.size === 0) return undefined;
    const now = this.#opts.clock();
    // As the book is when the pass starts: what the pass itself records changes the next one's.
    const entries = new Map(this.#entries);
    return (op) => {
      const e = entries.get(op.key);
      if (e === undefined || e.retryAt <= now || !sameOp(e, op)) return undefined;
      return (
        `held until ${new Date(e.retryAt).toISOString()}: ${e.action} failed ` +
        `${e.attempts === 1 ? 'once' : `${e.attempts} times in a row`} (${e.error})`
      );
    };
  }

  /**
   * What a pass did. `complete`: the plan covered every desired resource (a full pass), so a
   * failing resource whose op neither failed nor was held or skipped now is in place or no longer
   * wanted. Otherwise (a route delta) only resources with an op in the plan are settled.
   */
  record(plan: Plan, result: ExecutionResult, complete: boolean): void {
    const now = this.#opts.clock();
    const failedNow = new Map(result.failed.map((f) => [f.op.key, f] as const));
    if (this.#entries.size) {
      const skippedNow = new Set(result.skipped.map((s) => s.op.key));
      const settled = (key: string): boolean => !failedNow.has(key) && !skippedNow.has(key);
      if (complete) {
        for (const key of this.#entries.keys()) if (settled(key)) this.#entries.delete(key);
      } else {
        for (const op of plan.ops)
          if (this.#entries.has(op.key) && settled(op.key)) this.#entries.delete(op.key);
      }
    }
    const maxTracked = this.#opts.maxTracked ?? MAX_TRACKED_FAILURES;
    this.#untracked = 0;
    for (const { op, error } of failedNow.values()) {
      const previous = this.#entries.get(op.key);
      if (previous === undefined && this.#entries.size >= maxTracked) {
        this.#untracked++;
        continue;
      }
      const series = previous !== undefined && sameOp(previous, op) ? previous : undefined;
      const attempts = (series?.attempts ?? 0) + 1;
      this.#entries.set(op.key, {
        key: op.key,
        kind: op.kind,
        action: op.action,
        attempts,
        error: error.message,
        since: series?.since ?? now,
        retryAt: now + backoffDelayMs(this.#opts.backoff, attempts - 1),
        value: op.resource.value,
      });
    }
  }

  /** Forgets every failure: VPP is another process now, and everything is tried afresh. */
  clear(): void {
    this.#entries.clear();
    this.#untracked = 0;
  }
}

function sameOp(entry: Entry, op: Op): boolean {
  return entry.action === op.action && canonicalEqual(entry.value, op.resource.value);
}
