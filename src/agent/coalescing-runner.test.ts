import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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

  it('keeps going after a run that throws', async () => {
    let n = 0;
    const runner = new CoalescingRunner<string, number>(() =>
      ++n === 1 ? Promise.reject(new Error('boom')) : Promise.resolve(n),
    );
    await assert.rejects(runner.request('a'), /boom/);
    assert.equal(await runner.request('b'), 2);
  });
});
