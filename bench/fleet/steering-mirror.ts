/**
 * One simulator's steering table as its event stream (sim-process.ts --steering-events) tells
 * it: every sr_steering_add_del it answered with retval 0, with the time of the reply. It tells
 * the benchmark when an agent has converged (every expected entry present, nothing else) and
 * when an agent's VPP answered for one change. A simulator starts empty, so the mirror is exact.
 */
import { steeringKey } from './changes.js';

export interface SteeringEvent {
  /** Wall-clock milliseconds (performance.timeOrigin + performance.now()) of the reply. */
  readonly t: number;
  readonly prefix: string;
  readonly table: number;
  readonly bsid: string;
  readonly is_del: boolean;
  readonly retval: number;
}

interface Expectation {
  readonly isDel: boolean;
  readonly resolve: (event: SteeringEvent) => void;
}

export class SteeringMirror {
  readonly present = new Set<string>();
  /** Requests VPP answered with a non-zero retval, and the first of them. */
  failed = 0;
  firstFailure: SteeringEvent | undefined;
  handled = 0;
  readonly #expectations = new Map<string, Expectation>();
  #converge:
    | { readonly expected: ReadonlySet<string>; matched: number; readonly resolve: (t: number) => void }
    | undefined;

  /** Feeds one line of the event stream. */
  line(text: string): void {
    if (text === '') return;
    this.event(JSON.parse(text) as SteeringEvent);
  }

  event(e: SteeringEvent): void {
    this.handled++;
    const key = steeringKey(e.table, e.prefix);
    if (e.retval !== 0) {
      this.failed++;
      this.firstFailure ??= e;
      return;
    }
    const c = this.#converge;
    if (e.is_del) {
      if (this.present.delete(key) && c?.expected.has(key)) c.matched--;
    } else if (!this.present.has(key)) {
      this.present.add(key);
      if (c?.expected.has(key)) c.matched++;
    }
    const x = this.#expectations.get(key);
    if (x && x.isDel === e.is_del) {
      this.#expectations.delete(key);
      x.resolve(e);
    }
    if (c && c.matched === c.expected.size && this.present.size === c.expected.size) {
      this.#converge = undefined;
      c.resolve(e.t);
    }
  }

  /**
   * Resolves with the time of the reply that made the table hold exactly `expected` (its keys),
   * at once if it does already.
   */
  converged(expected: ReadonlySet<string>): Promise<number> {
    let matched = 0;
    for (const k of expected) if (this.present.has(k)) matched++;
    if (matched === expected.size && this.present.size === expected.size)
      return Promise.resolve(performance.timeOrigin + performance.now());
    return new Promise((resolve) => (this.#converge = { expected, matched, resolve }));
  }

  /** Resolves with the next successful reply for `key` that adds (or, isDel, deletes) it. */
  reply(key: string, isDel: boolean): Promise<SteeringEvent> {
    if (this.#expectations.has(key)) throw new Error(`already waiting for a steering reply for ${key}`);
    return new Promise((resolve) => this.#expectations.set(key, { isDel, resolve }));
  }

  /** Stops waiting for `key` (a change given up on). */
  forget(key: string): void {
    this.#expectations.delete(key);
  }

  get waiting(): number {
    return this.#expectations.size;
  }
}
