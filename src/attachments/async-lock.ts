/**
 * Mutual exclusion for async work. An AsyncLock is the DataplaneLock of one VPP client (one per
 * VPP client, src/services/runtime.ts); KeyedLocks serialise the CNI calls for one attachment.
 */
import type { DataplaneLock } from '../services/runtime.js';

export class AsyncLock implements DataplaneLock {
  #tail: Promise<void> = Promise.resolve();

  /** Runs `fn` once every earlier caller is done; a failure does not block later callers. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(fn);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

export class KeyedLocks {
  readonly #locks = new Map<string, { lock: AsyncLock; users: number }>();

  /** Runs `fn` holding every key (taken in sorted order, so two callers never deadlock). */
  async run<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    const take = (i: number): Promise<T> => {
      if (i === sorted.length) return fn();
      return this.#runOne(sorted[i] as string, () => take(i + 1));
    };
    return take(0);
  }

  /** Whether someone holds or waits for `key`. */
  isBusy(key: string): boolean {
    return this.#locks.has(key);
  }

  async #runOne<T>(key: string, fn: () => Promise<T>): Promise<T> {
    let entry = this.#locks.get(key);
    if (!entry) {
      entry = { lock: new AsyncLock(), users: 0 };
      this.#locks.set(key, entry);
    }
    entry.users++;
    try {
      return await entry.lock.run(fn);
    } finally {
      if (--entry.users === 0) this.#locks.delete(key);
    }
  }
}
