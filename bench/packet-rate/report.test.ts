import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { TOLERANCE, type NodeFigure } from './metrics.js';
import {
  breakdownRows,
  comparisons,
  reportJson,
  resultRows,
  verdictRows,
  type Measurement,
  type ReportJson,
  type RunMeta,
} from './report.js';
import { IP6_TOLERANCE } from './paths.js';
import { writeReport } from './run.js';
import { measurement as m } from './testing/measurements.js';

const meta: RunMeta = {
  mode: 'pg',
  vppVersion: '26.06-release',
  vppBanner: '',
  workers: 0,
  cpuModel: undefined,
  ghz: 2,
  durationSeconds: 10,
  warmupSeconds: 2,
  flows: 256,
  date: '2026-12-01T00:00:00Z',
  node: 'v20',
};

describe('the IPv6 paths in the report', () => {
  it('are held to 5 %: 0.93 passes an IPv4 path and fails an IPv6 one', () => {
    const ms = [
      m('vm-to-remote', 'vppnet', '64B', 9.3),
      m('vm-to-remote', 'hand', '64B', 10),
      m('vm-to-remote-ip6', 'vppnet', '78B', 9.3),
      m('vm-to-remote-ip6', 'hand', '78B', 10),
      m('remote-to-vm-ip6', 'vppnet', '78B', 9.6),
      m('remote-to-vm-ip6', 'hand', '78B', 10),
    ];
    assert.deepEqual(
      comparisons(ms).map((c) => [c.path, c.tolerance, c.withinTolerance]),
      [
        ['vm-to-remote', 0.1, true],
        ['vm-to-remote-ip6', 0.05, false],
        ['remote-to-vm-ip6', 0.05, true],
      ],
    );
    assert.deepEqual(
      verdictRows(ms).map((r) => [r.path, r['within 10 %']]),
      [['vm-to-remote', 'yes']],
      'the IPv4 table keeps its rows and only them',
    );
    assert.deepEqual(
      verdictRows(ms, IP6_TOLERANCE).map((r) => [r.path, r.frames, r['Mpps ratio'], r['within 5 %']]),
      [
        ['vm-to-remote-ip6', '78B', '0.930', 'NO'],
        ['remote-to-vm-ip6', '78B', '0.960', 'yes'],
      ],
    );
    const rows = resultRows(ms, meta);
    assert.deepEqual(
      rows.map((r) => `${r.path} ${r.config} ${r['vs hand']}`),
      [
        'vm-to-remote vppnet 93.0 %',
        'vm-to-remote hand CLI ',
        'vm-to-remote-ip6 vppnet 93.0 %',
        'vm-to-remote-ip6 hand CLI ',
        'remote-to-vm-ip6 vppnet 96.0 %',
        'remote-to-vm-ip6 hand CLI ',
      ],
    );
  });

  it('a vppnet path that could not be measured shows as such, next to the hand figures', () => {
    const ms = [m('vm-to-remote-ip6', 'hand', '78B', 10), m('vm-to-remote-ip6', 'hand', 'IMIX', 6)];
    const notMeasured = [
      { path: 'vm-to-remote-ip6' as const, config: 'vppnet' as const, reason: 'no IPv6 kinds' },
    ];
    assert.deepEqual(
      resultRows(ms, meta, notMeasured).map(
        (r) => `${r.path} ${r.frames} ${r.config} ${r.Mpps} ${r['vs hand']}`,
      ),
      [
        'vm-to-remote-ip6 78B vppnet - not measured',
        'vm-to-remote-ip6 78B hand CLI 10.00 ',
        'vm-to-remote-ip6 IMIX vppnet - not measured',
        'vm-to-remote-ip6 IMIX hand CLI 6.00 ',
      ],
    );
    assert.deepEqual(
      verdictRows(ms, IP6_TOLERANCE, notMeasured).map((r) => [r.frames, r['hand Mpps'], r['within 5 %']]),
      [
        ['78B', '10.00', 'NO: not measured'],
        ['IMIX', '6.00', 'NO: not measured'],
      ],
    );
    assert.deepEqual(verdictRows(ms, 0.1, notMeasured), [], 'not an IPv4 row');
    assert.deepEqual(reportJson(ms, meta, notMeasured).notMeasured, notMeasured);
  });
});

describe('hand+checks: the second question in the same report', () => {
  // vppnet and hand+checks both pay for the source checks; hand has none.
  const ms = [
    m('vm-to-remote', 'vppnet', '64B', 8.5),
    m('vm-to-remote', 'hand', '64B', 10),
    m('vm-to-remote', 'hand-checks', '64B', 8.8),
    m('remote-to-vm-ip6', 'vppnet', '78B', 9),
    m('remote-to-vm-ip6', 'hand', '78B', 10),
    m('remote-to-vm-ip6', 'hand-checks', '78B', 9.3),
  ];

  it('judges vppnet against hand+checks in tables of their own, the targets unchanged', () => {
    assert.deepEqual(
      verdictRows(ms).map((r) => [r.path, r['hand Mpps'], r['within 10 %']]),
      [['vm-to-remote', '10.00', 'NO']],
      'against hand: the checks cost 15 %',
    );
    assert.deepEqual(
      verdictRows(ms, TOLERANCE, [], 'hand-checks').map((r) => [
        r.path,
        r['hand+checks Mpps'],
        r['Mpps ratio'],
        r['within 10 %'],
      ]),
      [['vm-to-remote', '8.80', '0.966', 'yes']],
    );
    assert.deepEqual(
      verdictRows(ms, IP6_TOLERANCE, [], 'hand-checks').map((r) => [r.path, r['within 5 %']]),
      [['remote-to-vm-ip6', 'yes']],
    );
    assert.deepEqual(
      verdictRows(ms, IP6_TOLERANCE).map((r) => [r.path, r['within 5 %']]),
      [['remote-to-vm-ip6', 'NO']],
    );
    const json = reportJson(ms, meta);
    assert.deepEqual(
      json.comparisons.map((c) => [c.path, c.against, c.handMpps, c.withinTolerance]),
      [
        ['vm-to-remote', 'hand', 10, false],
        ['remote-to-vm-ip6', 'hand', 10, false],
      ],
      '--strict reads these',
    );
    assert.deepEqual(
      json.comparisonsWithChecks.map((c) => [c.path, c.against, c.handMpps, c.withinTolerance]),
      [
        ['vm-to-remote', 'hand-checks', 8.8, true],
        ['remote-to-vm-ip6', 'hand-checks', 9.3, true],
      ],
    );
  });

  it("the rows: vs hand for vppnet and hand+checks (the checks' cost by hand), vs hand+checks for vppnet", () => {
    assert.deepEqual(
      resultRows(ms, meta)
        .filter((r) => r.path === 'vm-to-remote')
        .map((r) => [r.config, r['vs hand'], r['vs hand+checks']]),
      [
        ['vppnet', '85.0 %', '96.6 %'],
        ['hand CLI', '', ''],
        ['hand+checks', '88.0 %', ''],
      ],
    );
    const without = ms.filter((x) => x.config !== 'hand-checks');
    assert.ok(!('vs hand+checks' in (resultRows(without, meta)[0] ?? {})), 'no column without the config');
    assert.deepEqual(verdictRows(without, TOLERANCE, [], 'hand-checks'), []);
  });

  it('a vppnet path not measured reads "NO: not measured" in both comparisons', () => {
    const hands = ms.filter((x) => x.path === 'remote-to-vm-ip6' && x.config !== 'vppnet');
    const notMeasured = [
      { path: 'remote-to-vm-ip6' as const, config: 'vppnet' as const, reason: 'no kinds' },
    ];
    assert.deepEqual(
      verdictRows(hands, IP6_TOLERANCE, notMeasured, 'hand-checks').map((r) => [
        r['hand+checks Mpps'],
        r['within 5 %'],
      ]),
      [['9.30', 'NO: not measured']],
    );
    assert.deepEqual(
      verdictRows(hands, IP6_TOLERANCE, notMeasured).map((r) => [r['hand Mpps'], r['within 5 %']]),
      [['10.00', 'NO: not measured']],
    );
  });

  it('the breakdown has a hand+checks column: its check node, absent from the plain hand column', () => {
    const node = (name: string, clocksPerPacket: number): NodeFigure => ({
      name,
      kind: 'internal',
      calls: 1,
      vectors: 256,
      vectorsPerCall: 256,
      clocksPerVector: clocksPerPacket,
      clocksPerPacket,
    });
    const withNodes = (x: Measurement, nodes: NodeFigure[]): Measurement => ({
      ...x,
      figures: { ...x.figures, nodes },
    });
    const rows = breakdownRows([
      withNodes(m('vm-to-vm', 'hand', '64B', 10), [node('ip4-lookup', 20)]),
      withNodes(m('vm-to-vm', 'hand-checks', '64B', 9), [
        node('ip4-lookup', 20),
        node('ip4-rx-urpf-strict', 25),
      ]),
      withNodes(m('vm-to-vm', 'vppnet', '64B', 9), [node('ip4-lookup', 21), node('ip4-rx-urpf-strict', 24)]),
    ]);
    assert.deepEqual(
      rows.map((r) => [r.node, r['vppnet clk/pkt'], r['hand CLI clk/pkt'], r['hand+checks clk/pkt']]),
      [
        ['ip4-lookup', '21.0', '20.0', '20.0'],
        ['ip4-rx-urpf-strict', '24.0', '-', '25.0'],
        ['graph total', '13.3', '12.0', '13.3'],
      ],
    );
  });

  it('prints both comparisons, says which one --strict judges, and the JSON carries the new config', async () => {
    const out: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer | string, _enc, cb) {
        out.push(chunk.toString());
        cb();
      },
    });
    const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-packet-rate-report-'));
    try {
      const json = path.join(dir, 'r.json');
      const svg = path.join(dir, 'r.svg');
      await writeReport(
        ms,
        [],
        meta,
        { json, svg },
        { stdout: sink, stderr: new Writable({ write: (_c, _e, cb) => cb() }) },
      );
      const text = out.join('');
      const titles = text.split('\n').filter((l) => l.startsWith('vppnet vs '));
      assert.deepEqual(titles, [
        'vppnet vs the same paths configured by hand, without source checks (target: within 10 %; --strict judges this one)',
        'vppnet vs the same paths configured by hand, without source checks, IPv6 paths (target: within 5 %; --strict judges this one)',
        'vppnet vs the same paths by hand with the same source checks (target: within 10 %)',
        'vppnet vs the same paths by hand with the same source checks, IPv6 paths (target: within 5 %)',
      ]);
      const parsed = JSON.parse(await readFile(json, 'utf8')) as ReportJson;
      assert.deepEqual(
        parsed.measurements.map((x) => x.config).filter((c) => c === 'hand-checks'),
        ['hand-checks', 'hand-checks'],
      );
      assert.equal(parsed.comparisonsWithChecks.length, 2);
      assert.match(await readFile(svg, 'utf8'), /data-series="hand-checks" data-value="8.8"/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
