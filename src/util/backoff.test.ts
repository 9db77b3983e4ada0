import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffDelayMs } from './backoff.js';

describe('backoffDelayMs', () => {
  it('doubles per attempt from the initial delay and stops at the maximum', () => {
    const delays = Array.from({ length: 8 }, (_, attempt) =>
      backoffDelayMs({ initialMs: 20, maxMs: 1_000 }, attempt),
    );
    assert.deepEqual(delays, [20, 40, 80, 160, 320, 640, 1_000, 1_000]);
  });

  it('stays at the maximum for any number of attempts, and at 0 for an initial delay of 0', () => {
    assert.equal(backoffDelayMs({ initialMs: 1_000, maxMs: 60_000 }, 5_000), 60_000);
    assert.equal(backoffDelayMs({ initialMs: 0, maxMs: 60_000 }, 5_000), 0);
  });

  it('spreads the delay over ±jitter, rounded to whole milliseconds', () => {
    const backoff = { initialMs: 100, maxMs: 5_000, jitter: 0.2 };
    assert.equal(
      backoffDelayMs(backoff, 0, () => 0),
      80,
    );
    assert.equal(
      backoffDelayMs(backoff, 0, () => 0.5),
      100,
    );
    assert.equal(
      backoffDelayMs(backoff, 0, () => 0.999_999),
      120,
    );
    assert.equal(
      backoffDelayMs(backoff, 10, () => 0),
      4_000,
      'the jitter applies to the capped delay',
    );
  });
});
