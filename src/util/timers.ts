/**
 * Time as seen by code that waits: the agent's drift check and retry, the config watcher's
 * debounce, the CNI plugin's wait for its agent. Injected, so that tests drive time themselves
 * (test/support/manual-timers.ts) and assert "nothing else is due" by looking at the armed timers
 * instead of sleeping; production uses the system's.
 */
export interface Timer {
  /** Stops the timer; its callback never runs. Harmless after it ran. */
  cancel(): void;
}

export interface Timers {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `callback` once, `ms` milliseconds from now. */
  after(ms: number, callback: () => void): Timer;
}

export const systemTimers: Timers = {
  now: () => Date.now(),
  after(ms, callback) {
    const timeout = setTimeout(callback, ms);
    return { cancel: () => clearTimeout(timeout) };
  },
};

/** Resolves after `ms` milliseconds of the given timers' time. */
export function sleep(timers: Timers, ms: number): Promise<void> {
  return new Promise((resolve) => timers.after(ms, resolve));
}
