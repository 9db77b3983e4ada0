import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualTimers } from '../util/testing/manual-timers.js';
import { CoalescingRunner } from './coalescing-runner.js';

/** A task whose runs finish only when the test says so. */
function gatedTask(): {
  runs: string[][];
  finish: () => void;
  task: (t: ReadonlySet<string>) => Promise<number>;
} {
  const runs: string[][] = [];
  const gates: (() => void)[] = [];
  return {
    runs,
    finish: () => gates.shift()?.(),
    task: (triggers) => {
      runs.push([...triggers]);
      const n = runs.length;
      return new Promise((resolve) => gates.push(() => resolve(n)));
    },
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('CoalescingRunner', () => {
  it('folds requests made during a run into one follow-up run', async () => {
    const t = gatedTask();
    const runner = new CoalescingRunner(t.task);
    const first = runner.request('a');
    await tick();
    const later = [runner.request('b'), runner.request('c'), runner.request('b')];
    await tick();
    assert.deepEqual(t.runs, [['a']]);
    t.finish();
    assert.equal(await first, 1);
    await tick();
    assert.deepEqual(t.runs, [['a'], ['b', 'c']]);
    t.finish();
    assert.deepEqual(await Promise.all(later), [2, 2, 2]);
    await runner.whenIdle();
    assert.equal(runner.busy, false);
  });

  it('joins requests made before the run started into that run', async () => {
    const t = gatedTask();
    const runner = new CoalescingRunner(t.task);
    const a = runner.request('a');
    const b = runner.request('b');
    await tick();
    t.finish();
    assert.deepEqual(await Promise.all([a, b]), [1, 1]);
    assert.deepEqual(t.runs, [['a', 'b']]);
  });

  it('drops the queued run on close, answering its callers with undefined', async () => {
    const t = gatedTask();
    const runner = new CoalescingRunner(t.task);
    const first = runner.request('a');
    await tick();
    const queued = runner.request('b');
    const closed = runner.close();
    t.finish();
    await closed;
    assert.equal(await first, 1);
    assert.equal(await queued, undefined);
    assert.equal(await runner.request('c'), undefined);
    assert.deepEqual(t.runs, [['a']]);
  });

  it('gives way to runs: at once when idle, else until they end or the wait is up', async () => {
    const t = gatedTask();
    const timers = new ManualTimers();
    const runner = new CoalescingRunner(t.task);
    assert.equal(runner.giveWay(250, timers), undefined, 'idle: go on at once');

    // A run and its follow-up: the way is clear only after both.
    void runner.request('a');
    let cleared = 0;
    void runner.giveWay(250, timers)?.then(() => cleared++);
    await tick();
    void runner.request('b');
    t.finish();
    await tick();
    assert.deepEqual(t.runs, [['a'], ['b']]);
    assert.equal(cleared, 0, 'the follow-up is still a run');
    t.finish();
    await tick();
    assert.equal(cleared, 1);
    assert.deepEqual(timers.armed, [], 'its timer cancelled');

    // Runs without a gap: the wait ends at maxWaitMs all the same.
    void runner.request('c');
    let timedOut = 0;
    void runner.giveWay(250, timers)?.then(() => timedOut++);
    timers.advance(249);
    await tick();
    assert.equal(timedOut, 0);
    timers.advance(1);
    await tick();
    assert.equal(timedOut, 1, 'at 250 ms, the run still going');
    t.finish();
    await runner.whenIdle();
  });

  it('keeps going after a run that throws', async () => {
    let n = 0;
    const runner = new CoalescingRunner<string, number>(() =>
      ++n === 1 ? Promise.reject(new Error('boom')) : Promise.resolve(n),
    );
    await assert.rejects(runner.request('a'), /boom/);
    assert.equal(await runner.request('b'), 2);
  });
});
