/** Waiting for a condition in tests, instead of sleeping for a guessed time. */
import { setTimeout as delay } from 'node:timers/promises';

/** Resolves when `cond` holds; checked every few milliseconds, failing after 15 s. */
export async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(5);
  }
}
