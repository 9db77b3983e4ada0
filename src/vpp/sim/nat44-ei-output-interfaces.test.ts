/**
 * The simulator's nat44-ei plugin against VPP 26.06 (src/plugins/nat/nat44-ei, see nat44-ei.ts):
 * output interfaces (nat44_ei_add_del_output_interface, nat44_ei_output_interface_get).
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
import { msg } from '../messages/index.js';
import { IN_USE, NONE, nat44EiSessions } from '../../../test/support/sim/nat44-ei-calls.js';

const {
  rv,
  loopback,
  enable,
  disable,
  sm,
  oif,
  outputInterfaces,
  eiRoutes,
  receive,
  bind,
  session,
  newLoop,
  newTable,
} = nat44EiSessions();

describe(
  'simulator: nat44_ei_add_del_output_interface and nat44_ei_output_interface_get',
  { skip: IN_USE },
  () => {
    it('-81 twice, -6 when absent, pool order with slots reused, cursors, disable clears', async () => {
      await session(async (c, made) => {
        const [a, b, d] = [await newLoop(c, made), await newLoop(c, made), await newLoop(c, made)];
        assert.equal(await enable(c), 0);
        assert.deepEqual(await outputInterfaces(c), [0, 0, []], 'none: retval 0');
        assert.equal(await oif(c, true, a), 0);
        assert.equal(await oif(c, true, a), -81);
        assert.equal(await oif(c, true, b), 0);
        assert.equal(await oif(c, true, 0), 0, 'local0 too');
        assert.equal(await oif(c, true, 9999), -2);
        assert.deepEqual(await outputInterfaces(c), [0, NONE, [a, b, 0]]);
        assert.deepEqual(await outputInterfaces(c, 1), [0, NONE, [b, 0]]);
        assert.deepEqual(await outputInterfaces(c, 2), [0, NONE, [0]]);
        assert.deepEqual(await outputInterfaces(c, 3), [-7, NONE, []], 'past the end');
        assert.equal(await oif(c, false, a), 0);
        assert.equal(await oif(c, false, a), -6);
        assert.equal(await oif(c, false, d), -6);
        assert.deepEqual(await outputInterfaces(c), [0, NONE, [b, 0]]);
        assert.deepEqual(await outputInterfaces(c, 0), [0, NONE, [b, 0]], 'a free slot: on to the next');
        assert.equal(await oif(c, true, d), 0);
        assert.deepEqual(await outputInterfaces(c), [0, NONE, [d, b, 0]], 'the freed slot is reused');
        assert.equal(await disable(c), 0);
        assert.deepEqual(await outputInterfaces(c), [0, 0, []]);
        assert.equal(await enable(c), 0);
        assert.deepEqual(await outputInterfaces(c), [0, 0, []], 'nothing comes back');
        assert.equal(await oif(c, true, b), 0);
        assert.deepEqual(await outputInterfaces(c), [0, NONE, [b]]);
      });
    });

    it("deleting an interface removes its entry and its /32s from the interface's table", async () => {
      await session(async (c, made) => {
        await newTable(c, made, 6201);
        const a = await loopback(c);
        const b = await newLoop(c, made);
        await bind(c, a, 6201);
        await bind(c, b, 6201);
        assert.equal(await enable(c), 0);
        assert.equal(await oif(c, true, a), 0);
        assert.equal(await oif(c, true, b), 0);
        assert.equal(await sm(c, true, '10.62.0.5', '169.252.62.5'), 0);
        // one entry per table, not reference counted: the last interface (pool order) has the path
        assert.deepEqual(await eiRoutes(c, 6201), [receive('169.252.62.5', b)]);
        assert.equal(await rv(c, msg.delete_loopback, { sw_if_index: a }), 0);
        assert.deepEqual(await outputInterfaces(c), [0, NONE, [b]]);
        assert.deepEqual(await eiRoutes(c, 6201), [], "a's delete removed the entry b had too");
        assert.equal(await oif(c, false, a), -2);
        const again = await newLoop(c, made);
        assert.equal(again, a, 'the index is reused');
        assert.equal(await oif(c, true, again), 0);
        assert.deepEqual(await outputInterfaces(c), [0, NONE, [again, b]]);
        assert.deepEqual(await eiRoutes(c, 0), [receive('169.252.62.5', again)]);
        assert.equal(await sm(c, false, '10.62.0.5', '169.252.62.5'), 0);
        assert.deepEqual(await eiRoutes(c, 0), []);
      });
    });
  },
);
