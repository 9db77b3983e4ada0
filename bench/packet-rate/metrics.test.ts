import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compare,
  datapathThreads,
  pathFigures,
  pathOnlyMppsPerCore,
  pickRun,
  type PathFigures,
} from './metrics.js';
import { parseShowRuntime } from './runtime.js';
import { RUNTIME_MAIN_ONLY, RUNTIME_TWO_WORKERS } from './runtime-samples.js';
import { figuresAt } from './testing/measurements.js';

const near = (actual: number, expected: number, eps = 1e-9): void =>
  assert.ok(Math.abs(actual - expected) <= eps * Math.max(1, Math.abs(expected)), `${actual} ≉ ${expected}`);

describe('pathFigures', () => {
  it('main thread only: Mpps from the egress tx node, path and whole-graph clocks per packet', () => {
    const f = pathFigures(parseShowRuntime(RUNTIME_MAIN_ONLY), {
      egress: ['pg12-tx'],
      expect: ['sr-pl-rewrite-encaps-v4'],
    });
    assert.deepEqual(f.threads, [0]);
    assert.equal(f.seconds, 10);
    assert.equal(f.packets, 98_304_000);
    assert.equal(f.received, 98_304_000);
    assert.equal(f.dropped, 0);
    near(f.mpps, 9.8304);
    // Internal nodes: ethernet-input, ip4-input-no-checksum, ip4-lookup, sr-pl-rewrite-encaps-v4,
    // ip6-lookup, ip6-rewrite, pg12-output, pg12-tx (all with the same vectors).
    near(f.pathClocksPerPacket, 11.2 + 9.4 + 13.8 + 24.9 + 14.1 + 12.6 + 3.9 + 16.2);
    // Plus the input nodes: pg-input per packet, and unix-epoll-input's 212 clocks per call.
    near(f.graphClocksPerPacket, 106.1 + 19.6 + (212 * 384_000) / 98_304_000);
    assert.deepEqual(f.missing, []);
    assert.deepEqual(
      f.nodes.slice(0, 3).map((n) => [n.name, n.kind]),
      [
        ['sr-pl-rewrite-encaps-v4', 'internal'],
        ['pg-input', 'input'],
        ['pg12-tx', 'internal'],
      ],
    );
    assert.ok(
      !f.nodes.some((n) => n.name === 'unix-epoll-input' || n.name === 'api-rx-from-ring'),
      'no vectors, or a process',
    );
  });

  it('two workers: sums the workers, leaves the main thread out, counts drops, follows handoff', () => {
    const f = pathFigures(parseShowRuntime(RUNTIME_TWO_WORKERS), {
      egress: ['pg13-tx'],
      expect: ['nat44-ed-in2out-output', 'nat44-ed-in2out-output-slowpath'],
    });
    assert.deepEqual(f.threads, [1, 2]);
    const w0 = 50_174_766;
    const w1 = 48_639_013;
    const out = 98_809_679;
    assert.equal(f.packets, out);
    assert.equal(f.received, w0 + w1);
    assert.equal(f.dropped, 4100);
    near(f.mpps, out / 10 / 1e6);
    // [clocks column, vectors] of every internal node of both workers, as printed.
    const internal: [number, number][] = [
      [11.9, w0],
      [10.1, w0],
      [14.6, w0],
      [13.5, w0],
      [9.8, w0],
      [12.2, w0],
      [18.7, w0],
      [27.9, out],
      [23.0, 4100],
      [61.0, 4100],
      [11.8, w1],
      [10.0, w1],
      [14.4, w1],
      [13.3, w1],
      [9.7, w1],
      [10.4, out],
      [8.8, out],
      [7.2, out],
      [12.1, w1],
      [6.1, out],
      [31.4, w0 + w1],
      [402, 4101],
      [16.9, w1],
      [4.0, out],
      [22.5, out],
    ];
    const pathClocks = internal.reduce((s, [c, v]) => s + c * v, 0);
    near(f.pathClocksPerPacket, pathClocks / out);
    near(f.graphClocksPerPacket, (pathClocks + 21.3 * w0 + 21.1 * w1) / out);
    // The slow path's name is cut to 30 characters in the output; expectations use the full name.
    assert.deepEqual(f.missing, []);
    const nat = f.nodes.find((n) => n.name === 'nat44-ed-in2out-output')!;
    near(nat.clocksPerPacket, (31.4 * (w0 + w1)) / out);
    near(nat.vectorsPerCall, (w0 + w1) / 386_000);
  });

  it('names the expected nodes no packet went through', () => {
    const f = pathFigures(parseShowRuntime(RUNTIME_MAIN_ONLY), {
      egress: ['pg12-tx'],
      expect: ['sr-localsid-d', 'ip6-lookup'],
    });
    assert.deepEqual(f.missing, ['sr-localsid-d']);
  });

  it('names the forbidden nodes packets went through, not those that stayed idle', () => {
    const f = pathFigures(parseShowRuntime(RUNTIME_MAIN_ONLY), {
      egress: ['pg12-tx'],
      forbid: ['ip4-rx-urpf-strict', 'ip4-lookup', 'sr-localsid-d'],
    });
    assert.deepEqual(f.forbidden, ['ip4-lookup']);
  });

  it('no packets out: NaN per packet, not a division by zero passed off as a number', () => {
    const f = pathFigures(parseShowRuntime(RUNTIME_MAIN_ONLY), { egress: ['pg99-tx'] });
    assert.equal(f.packets, 0);
    assert.equal(f.mpps, 0);
    assert.ok(Number.isNaN(f.pathClocksPerPacket));
  });

  it('datapath threads: the workers when there are any', () => {
    assert.deepEqual(
      datapathThreads(parseShowRuntime(RUNTIME_TWO_WORKERS)).map((t) => t.name),
      ['vpp_wk_0', 'vpp_wk_1'],
    );
    assert.deepEqual(
      datapathThreads(parseShowRuntime(RUNTIME_MAIN_ONLY)).map((t) => t.name),
      ['vpp_main'],
    );
  });
});

/** Figures at `mpps` with `pathClocks` on the path and 20 more on the graph. */
function figures(mpps: number, pathClocks: number): PathFigures {
  return figuresAt(mpps, { path: pathClocks, graph: pathClocks + 20 });
}

describe('compare, pickRun, pathOnlyMppsPerCore', () => {
  it('vppnet within 10 % of the hand configuration, or not', () => {
    const ok = compare(figures(9.1, 110), figures(10, 100));
    near(ok.mppsRatio, 0.91);
    near(ok.clocksRatio, 1.1);
    assert.equal(ok.withinTolerance, true);
    assert.equal(compare(figures(8.9, 110), figures(10, 100)).withinTolerance, false);
    assert.equal(compare(figures(11, 90), figures(10, 100)).withinTolerance, true);
    assert.equal(
      compare(figures(1, 90), figures(0, 100)).withinTolerance,
      false,
      'a hand path that forwarded nothing proves nothing',
    );
  });

  it('takes the fastest run, or the median one', () => {
    const runs = [7, 9, 8].map((m) => ({ figures: figures(m, 100), id: m }));
    assert.equal(pickRun(runs).id, 9);
    assert.equal(pickRun(runs, 'median').id, 8);
    assert.equal(pickRun([runs[0]!, runs[1]!], 'median').id, 7);
    assert.throws(() => pickRun([]), /no runs/);
  });

  it('what a core would forward doing only the path', () => {
    near(pathOnlyMppsPerCore(figures(5, 110), 2.2), 20);
    assert.ok(Number.isNaN(pathOnlyMppsPerCore(figures(5, 110), undefined)));
  });
});
