import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualTimers } from '../util/testing/manual-timers.js';
import { silentLogger } from './logger.js';
import { RetrySchedule } from './retry-schedule.js';

function schedule(): { timers: ManualTimers; retries: number[]; retry: RetrySchedule } {
  const timers = new ManualTimers();
  const retries: number[] = [];
  const retry = new RetrySchedule({
    backoff: { initialMs: 100, maxMs: 350 },
    timers,
    clock: () => timers.now(),
    logger: silentLogger,
    retry: () => retries.push(timers.now()),
  });
  return { timers, retries, retry };
}

describe('RetrySchedule', () => {
  it('doubles the delay per pass that did not converge, up to the maximum', () => {
    const { timers, retries, retry } = schedule();
    const start = timers.now();
    for (const outcome of ['error', 'partial', 'error', 'error'] as const) {
      retry.afterPass(outcome);
      timers.advance(1_000);
    }
    assert.deepEqual(
      retries.map((at) => at - start),
      [100, 1_200, 2_350, 3_350],
    );
    assert.equal(retry.nextRetryAt, undefined);
  });

  it('a converged pass disarms the retry and starts the series over', () => {
    const { timers, retries, retry } = schedule();
    retry.afterPass('error');
    retry.afterPass('error');
    assert.equal(retry.nextRetryAt, timers.now() + 200);
    assert.equal(timers.armed.length, 1, 'one retry armed at a time');
    retry.afterPass('ok');
    assert.equal(retry.nextRetryAt, undefined);
    assert.equal(timers.armed.length, 0);
    retry.afterPass('partial');
    assert.equal(retry.nextRetryAt, timers.now() + 100);
    timers.advance(100);
    assert.equal(retries.length, 1);
  });

  it('cancel() disarms the retry', () => {
    const { timers, retries, retry } = schedule();
    retry.afterPass('error');
    retry.cancel();
    timers.advance(10_000);
    assert.deepEqual(retries, []);
    assert.equal(retry.nextRetryAt, undefined);
  });
});
