/**
 * The simulator's nat44-ei plugin against VPP 26.06 (src/plugins/nat/nat44-ei, see nat44-ei.ts):
 * resolve records (mappings to an interface address).
 *
 * The tests also run against a real VPP (VPP_API_SOCKET, nat44_ei plugin loaded): each starts with
 * the plugin disabled and ends by disabling it and removing what it made. nat44-ei leaves things
 * behind for good in several cases (table locks, identity mappings' /32s, tables locked by the
 * enable); tests that would do so skip on a real VPP unless VPPNET_DISPOSABLE_VPP=1 says it is a
 * fresh VPP to be thrown away (they use VRF ids and addresses of their own, so one run of the
 * nat44-ei files on a fresh VPP passes).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IN_USE, nat44EiSessions } from '../../../test/support/sim/nat44-ei-calls.js';

const {
  enable,
  disable,
  sm,
  im,
  oif,
  smDump,
  imDump,
  smRow,
  imRow,
  eiRoutes,
  receive,
  address,
  session,
  newLoop,
} = nat44EiSessions();

describe('simulator: nat44-ei resolve records (mappings to an interface address)', { skip: IN_USE }, () => {
  it('kept while disabled, resolved from the first address, followed on address changes', async () => {
    await session(async (c, made) => {
      const s = await newLoop(c, made);
      const o = await newLoop(c, made);
      assert.equal(
        await sm(c, true, '10.74.0.5', '0.0.0.0', { sw: s, tag: 'r' }),
        0,
        'no address: nothing to do',
      );
      assert.equal(await sm(c, true, '10.74.0.6', '0.0.0.0', { sw: 9999, tag: 'bad' }), 0, 'not validated');
      assert.equal(await im(c, true, '0.0.0.0', { sw: s, tag: 'ri' }), 0);
      assert.deepEqual(await smDump(c), [
        smRow('10.74.0.5', '0.0.0.0', 0, 'r', { sw: s }),
        smRow('10.74.0.6', '0.0.0.0', 0, 'bad', { sw: 9999 }),
      ]);
      assert.deepEqual(await imDump(c), [imRow('0.0.0.0', 0, 'ri', { sw: s })]);
      assert.equal(await enable(c), 0);
      assert.equal((await imDump(c)).length, 1, 'records survive an enable...');
      assert.equal(await disable(c), 0);
      assert.deepEqual(await smDump(c), [], '...not a disable');
      assert.deepEqual(await imDump(c), []);
      assert.equal(await enable(c), 0);
      assert.equal(await oif(c, true, o), 0);
      await address(c, s, '198.51.74.7/24');
      await address(c, s, '198.51.74.8/24');
      assert.equal(await sm(c, true, '10.74.0.5', '0.0.0.0', { sw: s, tag: 'r' }), 0);
      assert.equal(await sm(c, true, '10.74.0.5', '1.1.1.1', { sw: s, tag: 'r2' }), -81, 'the record exists');
      assert.deepEqual(await smDump(c), [
        smRow('10.74.0.5', '198.51.74.7', 0, 'r'),
        smRow('10.74.0.5', '0.0.0.0', 0, 'r', { sw: s }),
      ]);
      assert.deepEqual(await eiRoutes(c, 0), [receive('198.51.74.7', o)]);
      // the identity mapping on the same address fails (-81), its record stays
      assert.equal(await im(c, true, '0.0.0.0', { sw: s, tag: 'ri' }), -81);
      assert.deepEqual(await imDump(c), [imRow('0.0.0.0', 0, 'ri', { sw: s })]);
      await address(c, s, '198.51.74.7/24', false);
      assert.deepEqual(await smDump(c), [smRow('10.74.0.5', '0.0.0.0', 0, 'r', { sw: s })]);
      assert.deepEqual(await eiRoutes(c, 0), []);
      await address(c, s, '198.51.74.9/24');
      assert.deepEqual(await smDump(c), [
        smRow('10.74.0.5', '198.51.74.9', 0, 'r'),
        smRow('10.74.0.5', '0.0.0.0', 0, 'r', { sw: s }),
      ]);
      assert.deepEqual(await eiRoutes(c, 0), [receive('198.51.74.9', o)]);
      // a delete removes the record and the mapping on the *first* address (.8, the oldest): the
      // mapping made on .9 stays, without its record
      assert.equal(await sm(c, false, '10.74.0.5', '0.0.0.0', { sw: s }), 0);
      assert.deepEqual(await smDump(c), [smRow('10.74.0.5', '198.51.74.9', 0, 'r')]);
      assert.equal(await sm(c, false, '10.74.0.5', '0.0.0.0', { sw: s }), -6);
      await address(c, s, '198.51.74.9/24', false);
      assert.deepEqual(
        await smDump(c),
        [smRow('10.74.0.5', '198.51.74.9', 0, 'r')],
        'no record to follow it',
      );
      assert.equal(await sm(c, false, '10.74.0.5', '198.51.74.9'), 0);
      assert.deepEqual(await smDump(c), []);
      assert.deepEqual(await eiRoutes(c, 0), []);
      // a port mapping fails without a pool address and takes its record with it
      assert.equal(
        await sm(c, true, '10.74.0.6', '0.0.0.0', { sw: s, flags: 0, proto: 6, lPort: 1, ePort: 2 }),
        -6,
      );
      assert.deepEqual(await smDump(c), []);
      // records are a vector: a delete moves the last one into the hole
      for (const [a, tag] of [
        ['10.74.1.1', 'a'],
        ['10.74.1.2', 'b'],
        ['10.74.1.3', 'c'],
      ] as const) {
        assert.equal(await sm(c, true, a, '0.0.0.0', { sw: o, tag }), 0);
      }
      assert.equal(await sm(c, false, '10.74.1.1', '0.0.0.0', { sw: o }), 0);
      assert.deepEqual(await smDump(c), [
        smRow('10.74.1.3', '0.0.0.0', 0, 'c', { sw: o }),
        smRow('10.74.1.2', '0.0.0.0', 0, 'b', { sw: o }),
      ]);
      await address(c, s, '198.51.74.8/24', false);
    });
  });
});
