/**
 * How many ops the executor keeps in flight, sized from what it measures of VPP: the window that
 * keeps the connection full is VPP's reply rate times the round trip (the bandwidth-delay
 * product), with headroom so that VPP still has requests queued while the client reads replies
 * and sends the next ones. More than that only queues requests in the socket, where they delay
 * whatever else shares the connection (a CNI ADD behind 2,048 steering adds) and hold memory.
 *
 * The round trip is the shortest latency seen (queueing in a full pipeline only lengthens the
 * others), the rate the replies per millisecond of the last epoch. Each epoch the window becomes
 * HEADROOM × rate × round trip: while the pipeline is not full the rate follows the window, so
 * it doubles per epoch (a slow start from MIN_WINDOW); once VPP is the limit it settles, and it
 * shrinks again when VPP slows down.
 */

/** Never fewer in flight: the client's per-turn costs (a read, a write) spread over at least this many ops. */
export const MIN_WINDOW = 64;
/**
 * Never more in flight. A real VPP 26.06 reaches its own limit with 64 (bench/reconcile's replay);
 * the estimate above asks for ~800–1,000 there, and the simulator, which answers in bursts of
 * hundreds that read as a huge rate, for all it may. What a deeper pipeline buys is memory spent:
 * a request in flight outlives scavenges of the DaemonSet's 1 MiB young generation, so its promise
 * and input die in the old one, where the heap grows until the next full collection. 4,096 → 1,024
 * took ~5 MiB off a fleet cold start's peak (bench/results/2026-12-07-fleet-memory-3.md); 1,024 →
 * 256 took ~10 MiB off the simulator's (123.5, 125.3 against 134.4, 138.2 MiB) and off most of
 * bench/reconcile's from-empty peaks (137–147 against 148–149 MiB), at the same seconds against
 * a real VPP in both (bench/results/2026-12-07-cold-start-bundle-paged.md).
 */
export const MAX_WINDOW = 256;
const HEADROOM = 2;
/** Replies per epoch at least; an epoch is also at least half a window, so it spans a round trip. */
const MIN_EPOCH = 64;

export interface WindowOptions {
  readonly min?: number;
  readonly max?: number;
  /** Milliseconds, monotonic (tests pass their own). */
  readonly now?: () => number;
}

export class LatencyWindow {
  readonly now: () => number;
  readonly #min: number;
  readonly #max: number;
  #size: number;
  #roundTrip = Infinity;
  #epochStart = -1;
  #epochReplies = 0;

  constructor(opts: WindowOptions = {}) {
    this.now = opts.now ?? (() => performance.now());
    this.#min = opts.min ?? MIN_WINDOW;
    this.#max = Math.max(this.#min, opts.max ?? MAX_WINDOW);
    this.#size = this.#min;
  }

  /** Ops that may be in flight now. */
  get size(): number {
    return this.#size;
  }

  /** The shortest round trip measured, in milliseconds (Infinity before the first reply). */
  get roundTripMs(): number {
    return this.#roundTrip;
  }

  /** An op has been sent: the time to pass to replied(). */
  sent(): number {
    const t = this.now();
    if (this.#epochStart < 0) this.#epochStart = t;
    return t;
  }

  /** The reply to an op sent at `sentAt` has arrived. */
  replied(sentAt: number): void {
    const t = this.now();
    const latency = t - sentAt;
    if (latency < this.#roundTrip) this.#roundTrip = latency;
    if (++this.#epochReplies < Math.max(MIN_EPOCH, this.#size >> 1)) return;
    const elapsed = t - this.#epochStart;
    if (elapsed > 0 && this.#roundTrip > 0) {
      const rate = this.#epochReplies / elapsed;
      const wanted = Math.ceil(HEADROOM * rate * this.#roundTrip);
      this.#size = Math.min(this.#max, Math.max(this.#min, wanted));
    } else {
      // Replies faster than the clock resolves: nothing measured says VPP is the limit.
      this.#size = Math.min(this.#max, this.#size * 2);
    }
    this.#epochStart = t;
    this.#epochReplies = 0;
  }
}
