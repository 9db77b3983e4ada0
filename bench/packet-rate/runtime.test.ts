import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseNodeRow, parseShowCpu, parseShowRuntime, parseShowThreads, runtimeName } from './runtime.js';
import {
  RUNTIME_MAIN_ONLY,
  RUNTIME_TWO_WORKERS,
  SHOW_CPU,
  THREADS_MAIN_ONLY,
  THREADS_TWO_WORKERS,
} from './runtime-samples.js';

describe('parseShowRuntime', () => {
  it('reads a main-thread-only block: time line, every node row, nothing from header or continuation lines', () => {
    const r = parseShowRuntime(RUNTIME_MAIN_ONLY);
    assert.equal(r.threads.length, 1);
    const t = r.threads[0]!;
    assert.deepEqual(
      [t.index, t.name, t.lcore, t.seconds, t.vectorRate, t.loopsPerSecond],
      [0, 'vpp_main', undefined, 10, 256, 38400],
    );
    assert.equal(t.nodes.length, 14);
    assert.ok(!t.nodes.some((n) => n.name === 'Name' || n.name.startsWith('events')));
    const encap = t.nodes.find((n) => n.name === 'sr-pl-rewrite-encaps-v4');
    assert.deepEqual(encap, {
      name: 'sr-pl-rewrite-encaps-v4',
      state: 'active',
      kind: 'internal',
      calls: 384000,
      vectors: 98304000,
      suspends: 0,
      clocks: 24.9,
      vectorsPerCall: 256,
      totalClocks: 24.9 * 98304000,
    });
  });

  it('tells node kinds by their state; quoted process states; clocks per call or per suspend without vectors', () => {
    const nodes = parseShowRuntime(RUNTIME_MAIN_ONLY).threads[0]!.nodes;
    const by = (name: string) => nodes.find((n) => n.name === name)!;
    assert.equal(by('pg-input').kind, 'input');
    assert.equal(by('unix-epoll-input').kind, 'input');
    assert.equal(by('unix-epoll-input').totalClocks, 212 * 384000);
    assert.equal(by('api-rx-from-ring').state, '"any wait"');
    assert.equal(by('api-rx-from-ring').kind, 'process');
    assert.equal(by('api-rx-from-ring').totalClocks, 31800 * 23);
    assert.equal(by('statseg-collector-process').clocks, 118000);
    assert.equal(by('ip6-ra-process').kind, 'process');
  });

  it('splits thread blocks; names cut at 30 characters stay as printed', () => {
    const r = parseShowRuntime(RUNTIME_TWO_WORKERS);
    assert.deepEqual(
      r.threads.map((t) => [t.index, t.name, t.lcore, t.seconds, t.nodes.length]),
      [
        [0, 'vpp_main', 1, 10, 5],
        [1, 'vpp_wk_0', 2, 10, 8],
        [2, 'vpp_wk_1', 3, 10, 19],
      ],
    );
    const wk1 = r.threads[2]!;
    assert.equal(wk1.vectorRate, 248.91);
    const slow = wk1.nodes.find((n) => n.name === runtimeName('nat44-ed-in2out-output-slowpath'))!;
    assert.equal(slow.name, 'nat44-ed-in2out-output-slowpat');
    assert.deepEqual([slow.calls, slow.vectors, slow.clocks, slow.vectorsPerCall], [12, 4101, 402, 341.75]);
    assert.ok(r.threads[1]!.nodes.some((n) => n.name === 'nat44-in2out-output-worker-han'));
    assert.equal(r.threads[0]!.nodes.find((n) => n.name === 'memif-process')!.state, '"event wait"');
  });

  it('splits a 30-character name that runs into a 12-character state', () => {
    // "%-30v%=12U%16Ld%16Ld%16Ld%16.2e%16.2f" with "interrupt wait" cut to 12 and a 30+ name cut to 30.
    const line = `${'abcdefghij-klmnopqrst-uvwxy-input'.slice(0, 30)}interrupt wa${'17'.padStart(16)}${'0'.padStart(16)}${'0'.padStart(16)}${'1.23e3'.padStart(16)}${'0.00'.padStart(16)}`;
    const n = parseNodeRow(line)!;
    assert.deepEqual(
      [n.name, n.state, n.kind, n.calls, n.clocks, n.totalClocks],
      ['abcdefghij-klmnopqrst-uvwxy-in', 'interrupt wa', 'input', 17, 1230, 17 * 1230],
    );
  });

  it('reads vppinfra floats: ".50", "0.00e0", negative exponents', () => {
    const row = (clocks: string, vpc: string) =>
      `${'x-node'.padEnd(30)}${'   active   '}${'2'.padStart(16)}${'1'.padStart(16)}${'0'.padStart(16)}${clocks.padStart(16)}${vpc.padStart(16)}`;
    assert.equal(parseNodeRow(row('0.00e0', '.50'))!.vectorsPerCall, 0.5);
    assert.equal(parseNodeRow(row('0.00e0', '.50'))!.clocks, 0);
    assert.equal(parseNodeRow(row('2.55e-1', '1.00'))!.clocks, 0.255);
  });

  it('refuses text that is not show runtime', () => {
    assert.throws(() => parseShowRuntime("show: unknown input `runtme'\n"), /not `show runtime` output/);
  });
});

describe('parseShowThreads and parseShowCpu', () => {
  it('counts workers by their registration name', () => {
    const t = parseShowThreads(THREADS_TWO_WORKERS);
    assert.equal(t.workers, 2);
    assert.deepEqual(
      t.threads.map((x) => [x.id, x.name, x.type, x.lcore]),
      [
        [0, 'vpp_main', '', 1],
        [1, 'vpp_wk_0', 'workers', 2],
        [2, 'vpp_wk_1', 'workers', 3],
      ],
    );
    const main = parseShowThreads(THREADS_MAIN_ONLY);
    assert.equal(main.workers, 0);
    assert.deepEqual(main.threads, [{ id: 0, name: 'vpp_main', type: '', lcore: undefined }]);
  });

  it('reads the CPU model and the clock runtime counts in', () => {
    assert.deepEqual(parseShowCpu(SHOW_CPU), {
      model: 'Intel(R) Xeon(R) Gold 6338N CPU @ 2.20GHz',
      ghz: 2.1999,
    });
    assert.deepEqual(parseShowCpu('nothing'), { model: undefined, ghz: undefined });
  });
});
