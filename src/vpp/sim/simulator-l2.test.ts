/**
 * The simulator's L2 bridge domains against VPP's behaviour for bad operations (retvals taken from
 * VPP 26.06's handlers). Real Unix sockets, the raw test client.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../messages/index.js';
import { Rv } from './index.js';
import { simSessions } from '../../../test/support/sim/sim-sessions.js';

const { start, call, rv } = simSessions();

describe('l2', () => {
  it('bridge domains: -119 exists, -120 in use, -152 second BVI; ~0 picks 7271263 first', async () => {
    const { sim, c } = await start();
    const v2 = await call(c, msg.bridge_domain_add_del_v2, {
      bd_id: 0xffffffff,
      is_add: true,
      flood: true,
      forward: true,
      learn: true,
      uu_flood: true,
    });
    assert.deepEqual([v2.retval, v2.bd_id], [0, 7271263]);
    assert.equal(
      await rv(c, msg.bridge_domain_add_del, { bd_id: 7271263, is_add: true }),
      Rv.BD_ALREADY_EXISTS,
    );
    const a = (await call(c, msg.create_loopback_instance, {})).sw_if_index as number;
    const b = (await call(c, msg.create_loopback_instance, {})).sw_if_index as number;
    assert.equal(
      await rv(c, msg.sw_interface_set_l2_bridge, {
        rx_sw_if_index: a,
        bd_id: 7271263,
        port_type: 1,
        enable: true,
      }),
      0,
    );
    assert.equal(
      await rv(c, msg.sw_interface_set_l2_bridge, {
        rx_sw_if_index: b,
        bd_id: 7271263,
        port_type: 1,
        enable: true,
      }),
      Rv.BD_ALREADY_HAS_BVI,
    );
    assert.equal(await rv(c, msg.bridge_domain_add_del_v2, { bd_id: 7271263, is_add: false }), Rv.BD_IN_USE);
    assert.deepEqual(sim.state.bridgeDomains, [{ bdId: 7271263, tag: '', bvi: a, members: [a] }]);
  });
});
