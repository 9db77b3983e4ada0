/** Waiting for a condition in tests, instead of sleeping for a guessed time. */
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Resolves when `cond` holds (it may be async, e.g. a dump of VPP); checked every few
 * milliseconds, failing after `timeoutMs`.
 */
export async function until(
  cond: () => boolean | Promise<boolean>,
  what: string,
  { timeoutMs = 15_000, everyMs = 5 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(everyMs);
  }
}
