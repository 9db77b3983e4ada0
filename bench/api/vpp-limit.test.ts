/** vppblast for bench/api: built from the shared source, or a reason why VPP's limit is n/a. */
import assert from 'node:assert/strict';
import { access } from 'node:fs/promises';
import { describe, it } from 'node:test';
import {
  DEFAULT_VPPBLAST_SOURCE,
  parseBashTimes,
  parseReplayOutput,
  parseVppblastOutput,
  prepareVppLimit,
} from './vpp-limit.js';

const exists = (p: string): Promise<boolean> =>
  access(p).then(
    () => true,
    () => false,
  );

const haveSource = await exists(DEFAULT_VPPBLAST_SOURCE);

describe("bench/api's vppblast", () => {
  it('parses its result line', () => {
    const r = parseVppblastOutput(
      'control_ping n=200000 window=4096 seconds=0.5000 req_per_s=400000 nonzero_retval=0\n',
    );
    assert.deepEqual(r, { requests: 200_000, seconds: 0.5, nonzeroRetval: 0 });
    assert.throws(() => parseVppblastOutput('connect: No such file or directory\n'), /no result line/);
  });

  it("reads its CPU time from bash's `times` after the result line", () => {
    const out =
      'control_ping n=20000 window=1 seconds=1.2000 req_per_s=16666 nonzero_retval=0\n0m0.003s 0m0.001s\n1m0.120s 0m0.340s\n';
    assert.equal(parseBashTimes(out), 60.46);
    assert.equal(parseVppblastOutput(out).requests, 20_000, 'the result line is still found');
    assert.equal(
      parseBashTimes('control_ping n=1 window=1 seconds=1 req_per_s=1 nonzero_retval=0\n'),
      undefined,
    );
  });

  it('parses its replay line', () => {
    const r = parseReplayOutput(
      'replay range=0-1233 frames=1233 window=64 seconds=0.0230 req_per_s=53609 nonzero_retval=2\n',
    );
    assert.deepEqual(r, { requests: 1233, seconds: 0.023, nonzeroRetval: 2 });
    assert.throws(() => parseReplayOutput('frame 3: id 9 (?) unknown here\n'), /no result line/);
  });

  it('refuses the simulator before building anything', async () => {
    const l = await prepareVppLimit({ socketPath: '/nonexistent', simulator: true, gcc: '/nonexistent/gcc' });
    assert.equal(l.available, false);
    assert.match(l.available ? '' : l.reason, /simulator, not VPP/);
  });

  it('says when the shared source is missing', async () => {
    const l = await prepareVppLimit({
      socketPath: '/x',
      simulator: false,
      source: '/nonexistent/vppblast.c',
    });
    assert.equal(l.available, false);
    assert.match(l.available ? '' : l.reason, /no \/nonexistent\/vppblast\.c/);
  });

  it('says when gcc is missing', { skip: !haveSource }, async () => {
    const l = await prepareVppLimit({ socketPath: '/x', simulator: false, gcc: '/nonexistent/gcc' });
    assert.equal(l.available, false);
    assert.match(l.available ? '' : l.reason, /\/nonexistent\/gcc not found/);
  });

  it('builds from ../shared', { skip: !haveSource }, async () => {
    const l = await prepareVppLimit({ socketPath: '/nonexistent/api.sock', simulator: false });
    if (!l.available) {
      assert.match(l.reason, /gcc/); // no compiler on this machine: the reason names it
      return;
    }
    try {
      // The built binary runs: it fails to connect, and the failure is not a missing result line.
      await assert.rejects(l.measure('ping', 10, 1), /connect/);
    } finally {
      await l.dispose();
    }
  });
});
