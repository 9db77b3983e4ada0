/**
 * The clock and timers the client core runs on: request deadlines, the health check, reconnect
 * backoff, the handshake and close timeouts. Injected so that tests move time by hand
 * (testing/manual-timers.ts) and assert timeouts without waiting for them or measuring them.
 */

/** A scheduled callback. */
export interface Timer {
  /** Stops it; a no-op once it has run (a timeout) or was cancelled. */
  cancel(): void;
  /** Lets the process exit while only this timer is left. */
  unref(): void;
}

export interface ClientTimers {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(callback: () => void, ms: number): Timer;
  setInterval(callback: () => void, ms: number): Timer;
}

/** One Node timer; a class, not closures, so arming a timer allocates one small object. */
class NodeTimer implements Timer {
  readonly #handle: NodeJS.Timeout;
  constructor(handle: NodeJS.Timeout) {
    this.#handle = handle;
  }
  cancel(): void {
    clearTimeout(this.#handle); // clears intervals too
  }
  unref(): void {
    this.#handle.unref();
  }
}

/** Node's own timers and Date.now: what the client uses unless told otherwise. */
export const systemTimers: ClientTimers = {
  now: Date.now,
  setTimeout: (callback, ms) => new NodeTimer(setTimeout(callback, ms)),
  setInterval: (callback, ms) => new NodeTimer(setInterval(callback, ms)),
};
