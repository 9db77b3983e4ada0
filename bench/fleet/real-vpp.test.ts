/**
 * The decisions of bench/fleet's (a) against a real VPP that need no VPP: when a replay is refused
 * (VPP not in the recorded run's start state), how the environment is read, and what the ratio
 * rows say with and without a replay.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { realVppFromEnv, realVppRows, startStateDiffers, type RealColdStart } from './real-vpp.js';

describe("bench/fleet's (a) against a real VPP", () => {
  const recorded = new Map([
    ['GigabitEthernet0/0/0', 1],
    ['GigabitEthernet0/1/0', 2],
  ]);

  test('a replay is refused unless every interface has the index it had when recorded', () => {
    assert.equal(startStateDiffers(recorded, new Map(recorded)), undefined);
    assert.match(
      startStateDiffers(
        recorded,
        new Map([
          ['GigabitEthernet0/0/0', 1],
          ['GigabitEthernet0/1/0', 3],
        ]),
      ) ?? '',
      /GigabitEthernet0\/1\/0 is sw_if_index 3, was 2/,
    );
    assert.match(
      startStateDiffers(recorded, new Map([['GigabitEthernet0/0/0', 1]])) ?? '',
      /GigabitEthernet0\/1\/0 is missing/,
    );
    assert.match(
      startStateDiffers(recorded, new Map([...recorded, ['loop7', 3]])) ?? '',
      /loop7 was not there/,
    );
  });

  test('a real VPP needs its restart command; without a socket, the simulator alone', () => {
    assert.equal(realVppFromEnv({}), undefined);
    assert.equal(realVppFromEnv({ BENCH_FLEET_VPP_SOCKET: '' }), undefined);
    assert.throws(() => realVppFromEnv({ BENCH_FLEET_VPP_SOCKET: '/run/vpp/api.sock' }), /BENCH_VPP_RESTART/);
    assert.deepEqual(
      realVppFromEnv({ BENCH_FLEET_VPP_SOCKET: '/run/vpp/api.sock', BENCH_VPP_RESTART: 'true' }),
      { socketPath: '/run/vpp/api.sock', restartCommand: 'true' },
    );
  });

  const measured: RealColdStart = {
    seconds: 2.25,
    recordedSeconds: 2.3,
    peakMiB: 100,
    wrong: 0,
    readBefore: { seconds: 0.6, keys: 10 },
    readAfter: { seconds: 0.4, keys: 10 },
    frames: 1000,
    leftOut: new Map([['sockclnt_create', 1]]),
    replay: { requests: 1000, seconds: 1, nonzeroRetval: 0 },
  };
  const setting = { socketPath: '/run/vpp/api.sock', entries: 5, window: 64, target: 2 };
  const ratioRow = (r: RealColdStart): [string, string, string?, string?] =>
    realVppRows(r, setting).find(([step]) => step.includes('÷ (bare read + replay'))!;

  test('the ratio is the cold start over the mean bare read plus the replay, judged against the target', () => {
    const [, figure, target, met] = ratioRow(measured);
    assert.match(figure, /^1\.50× \(2\.25 ÷ \(0\.50 \+ 1\.00\)\); ÷ the bare read alone: 4\.50×/);
    assert.deepEqual([target, met], ['≤ 2×', 'yes']);
    assert.equal(ratioRow({ ...measured, seconds: 4 })[3], 'NO');
    assert.equal(ratioRow({ ...measured, wrong: 1 })[3], 'NO', 'a VPP that differs from the records fails');
  });

  test('without a replay the ratio is n/a, with the reason, and the read alone an upper bound', () => {
    const [, figure, , met] = ratioRow({ ...measured, replay: { reason: 'VPP not in the start state' } });
    assert.match(figure, /^n\/a \(VPP not in the start state\); ÷ the bare read alone: 4\.50×/);
    assert.equal(met, 'unknown');
  });
});
