/**
 * The simulator's nat44-ei plugin against VPP 26.06 (src/plugins/nat/nat44-ei, see nat44-ei.ts):
 * nat44_ei_user_dump and nat44_ei_del_user. nat44_ei_del_user while disabled kills a real VPP: that
 * test runs on the simulator only.
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
import { IN_USE, nat44EiSessions } from '../../../test/support/sim/nat44-ei-calls.js';

const { rv, dump, enable, disable, sm, session } = nat44EiSessions();

describe('simulator: nat44_ei_user_dump and nat44_ei_del_user', { skip: IN_USE }, () => {
  it('no users without traffic; del_user answers 1 while enabled', async () => {
    await session(async (c) => {
      assert.equal(await enable(c), 0);
      assert.equal(await sm(c, true, '10.75.0.5', '169.252.75.5'), 0);
      assert.deepEqual(await dump(c, msg.nat44_ei_user_dump, {}), []);
      assert.equal(await rv(c, msg.nat44_ei_del_user, { ip_address: '10.75.0.5', fib_index: 0 }), 1);
      assert.equal(await disable(c), 0);
      assert.deepEqual(await dump(c, msg.nat44_ei_user_dump, {}), []);
    });
  });
});
