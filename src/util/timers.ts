/**
 * Time as seen by code that waits: the VPP client's request deadlines, health check, handshake
 * and reconnect backoff; the agent's drift check and retry; the config watcher's debounce; the
 * CNI plugin's wait for its agent. Injected, so that tests move time by hand
 * (testing/manual-timers.ts) and assert timeouts and "nothing else is due" by looking at the armed
 * timers instead of sleeping or reading a wall clock; production uses the system's.
 */

/** A scheduled callback. */
export interface Timer {
  /** Stops it; its callback does not run again. Harmless after a one-shot timer ran. */
  cancel(): void;
  /** Lets the process exit while only this timer is left. */
  unref(): void;
}

export interface Timers {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `callback` once, `ms` milliseconds from now. */
  after(ms: number, callback: () => void): Timer;
  /** Runs `callback` every `ms` milliseconds until cancelled. */
  every(ms: number, callback: () => void): Timer;
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

/** Node's own timers and Date.now. */
export const systemTimers: Timers = {
  now: Date.now,
  after: (ms, callback) => new NodeTimer(setTimeout(callback, ms)),
  every: (ms, callback) => new NodeTimer(setInterval(callback, ms)),
};

/** Resolves after `ms` milliseconds of the given timers' time. */
export function sleep(timers: Timers, ms: number): Promise<void> {
  return new Promise((resolve) => timers.after(ms, resolve));
}
