/**
 * Exponential backoff, the one formula behind every "wait longer after each failure" in vppnet:
 * the agent's retry of a failed pass, the CNI plugin's wait for a restarting agent, and the VPP
 * client's reconnect. The delay doubles per attempt from `initialMs` and stops at `maxMs`;
 * `jitter` spreads it by ±that fraction, so that clients that lost the same VPP do not all
 * come back in the same millisecond.
 */
export interface Backoff {
  /** The delay before the first retry (attempt 0). */
  readonly initialMs: number;
  /** No delay is longer. */
  readonly maxMs: number;
  /** A fraction in [0, 1): the delay is spread uniformly over ±jitter of itself. Default 0. */
  readonly jitter?: number;
}

/**
 * Doubling stops growing long before it would overflow: 2^1000 is still finite, so even an
 * initialMs of 0 stays 0 rather than becoming NaN (0 × Infinity).
 */
const MAX_DOUBLINGS = 1000;

/** The delay before retry number `attempt` (0 for the first), in milliseconds. */
export function backoffDelayMs(
  backoff: Backoff,
  attempt: number,
  random: () => number = Math.random,
): number {
  const base = Math.min(
    backoff.maxMs,
    backoff.initialMs * 2 ** Math.min(Math.max(attempt, 0), MAX_DOUBLINGS),
  );
  const jitter = backoff.jitter ?? 0;
  if (jitter === 0) return base;
  return Math.round(base * (1 - jitter + random() * 2 * jitter));
}
