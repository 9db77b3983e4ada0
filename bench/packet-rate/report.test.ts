import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { comparisons, reportJson, resultRows, verdictRows, type RunMeta } from './report.js';
import { IP6_TOLERANCE } from './paths.js';
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
