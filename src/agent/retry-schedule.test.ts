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

const PASS_RETRY = { passRetry: true, resourceRetryAt: undefined };
const NOTHING = { passRetry: false, resourceRetryAt: undefined };

describe('RetrySchedule', () => {
  it('doubles the delay per pass that did not converge, up to the maximum', () => {
    const { timers, retries, retry } = schedule();
    const start = timers.now();
    for (let i = 0; i < 4; i++) {
      retry.afterPass(PASS_RETRY);
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
    retry.afterPass(PASS_RETRY);
    retry.afterPass(PASS_RETRY);
    assert.equal(retry.nextRetryAt, timers.now() + 200);
    assert.equal(timers.armed.length, 1, 'one retry armed at a time');
    retry.afterPass(NOTHING);
    assert.equal(retry.nextRetryAt, undefined);
    assert.equal(timers.armed.length, 0);
    retry.afterPass(PASS_RETRY);
    assert.equal(retry.nextRetryAt, timers.now() + 100);
    timers.advance(100);
    assert.equal(retries.length, 1);
  });

  it('cancel() disarms the retry', () => {
    const { timers, retries, retry } = schedule();
    retry.afterPass(PASS_RETRY);
    retry.cancel();
    timers.advance(10_000);
    assert.deepEqual(retries, []);
    assert.equal(retry.nextRetryAt, undefined);
  });

  it("a failing resource's retry alone arms the timer at its time, and leaves the pass series at its start", () => {
    const { timers, retries, retry } = schedule();
    retry.afterPass(PASS_RETRY);
    retry.afterPass(PASS_RETRY);
    const at = timers.now() + 5_000;
    retry.afterPass({ passRetry: false, resourceRetryAt: at });
    assert.equal(retry.nextRetryAt, at, 'not the pass backoff: the resource waits on its own');
    timers.advance(5_000);
    assert.deepEqual(retries, [at]);
    retry.afterPass(PASS_RETRY);
    assert.equal(retry.nextRetryAt, timers.now() + 100, 'a pass that needed no retry reset the series');
  });

  it('the sooner of the pass backoff and a resource retry wins', () => {
    const { timers, retry } = schedule();
    retry.afterPass({ passRetry: true, resourceRetryAt: timers.now() + 30 });
    assert.equal(retry.nextRetryAt, timers.now() + 30);
    retry.afterPass({ passRetry: true, resourceRetryAt: timers.now() + 10_000 });
    assert.equal(retry.nextRetryAt, timers.now() + 200, 'the second pass retry: 2 × 100');
  });

  it('a resource retry already due runs at once', () => {
    const { timers, retries, retry } = schedule();
    retry.afterPass({ passRetry: false, resourceRetryAt: timers.now() - 50 });
    timers.advance(0);
    assert.equal(retries.length, 1);
  });
});
