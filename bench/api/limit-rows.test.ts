/** bench/api's limit rows: medians of the alternated rounds, the ratio, and `n/a` without a limit. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { printTable } from '../support/report.js';
import {
  comparisonRow,
  LIMIT_LABEL,
  limitRow,
  median,
  medianRun,
  RATIO_COLUMN,
  ratioText,
} from './limit-rows.js';

const like = {
  benchmark: 'control_ping pipelined (window 4096)',
  count: '200,000',
  seconds: '0.80',
  'ops/s': '250,000',
  'p50 ms': '16.000',
  'p99 ms': '30.000',
  'p99.9 ms': '31.000',
  'peak RSS MiB': '120',
  [RATIO_COLUMN]: '0.62x',
};

describe('bench/api limit rows', () => {
  it('takes the median of odd and even counts', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.throws(() => median([]), /no values/);
  });

  it('picks the run of median duration', () => {
    const runs = [
      { count: 10, seconds: 3, tag: 'slow' },
      { count: 10, seconds: 1, tag: 'fast' },
      { count: 10, seconds: 2, tag: 'mid' },
    ];
    assert.equal(medianRun(runs).tag, 'mid');
  });

  it('divides vppnet by the limit, and says n/a without one', () => {
    assert.equal(ratioText(240_000, 400_000), '0.60x');
    assert.equal(ratioText(500_000, 400_000), '1.25x');
    assert.equal(ratioText(240_000, undefined), 'n/a');
    assert.equal(ratioText(240_000, 0), 'n/a');
  });

  it("fills the vppnet row's columns with the limit's median round", () => {
    const r = limitRow(like, [
      { count: 200_000, seconds: 0.5 },
      { count: 200_000, seconds: 0.4 },
      { count: 200_000, seconds: 0.625 },
    ]);
    assert.deepEqual(Object.keys(r), Object.keys(like));
    assert.equal(r.benchmark, LIMIT_LABEL);
    assert.equal(r.count, '200,000');
    assert.equal(r.seconds, '0.50');
    assert.equal(r['ops/s'], '400,000');
    assert.equal(r['p99 ms'], '-');
    assert.equal(r[RATIO_COLUMN], '-');
  });

  it('prints every figure of an unmeasured limit as n/a', () => {
    const r = limitRow(like, undefined);
    assert.deepEqual(Object.keys(r), Object.keys(like));
    for (const [col, cell] of Object.entries(r))
      assert.equal(cell, col === 'benchmark' ? LIMIT_LABEL : 'n/a');
  });

  it('compares each round and the best window of each', () => {
    const r = comparisonRow(
      'control_ping sequential',
      [
        { count: 30_000, seconds: 1 },
        { count: 30_000, seconds: 0.75 },
        { count: 30_000, seconds: 1.5 },
      ],
      [
        { count: 20_000, seconds: 0.4 },
        { count: 20_000, seconds: 0.25 },
        { count: 20_000, seconds: 0.5 },
      ],
    );
    assert.equal(r['vppnet req/s by round'], '30,000 40,000 20,000');
    assert.equal(r['limit req/s by round'], '50,000 80,000 40,000');
    assert.equal(r['median ÷ median'], '0.60x');
    assert.equal(r['best ÷ best'], '0.50x');
    const none = comparisonRow('control_ping sequential', [{ count: 10, seconds: 1 }], undefined);
    assert.equal(none['limit req/s by round'], 'n/a');
    assert.equal(none['median ÷ median'], 'n/a');
  });

  it('keeps the table aligned with the limit rows in it', () => {
    let text = '';
    const out = { write: (s: string) => ((text += s), true) } as unknown as NodeJS.WritableStream;
    printTable('t', [like, limitRow(like, undefined)], out);
    const lines = text.trim().split('\n').slice(1);
    assert.equal(new Set(lines.map((l) => l.length)).size, 1);
  });
});
