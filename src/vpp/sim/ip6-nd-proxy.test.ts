/**
 * The simulator's IPv6 (dual-stack VPCs, docs/dual-stack.md) against VPP 26.06: ND proxy (mirror
 * and per address). Every test but the crash ones also runs against a real VPP (VPP_API_SOCKET;
 * start it fresh: the expected stats-free dumps assume only the IPv6 suites configured it). Each
 * test uses its own interfaces, tables, SIDs and BSIDs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../messages/index.js';
import { type VppTarget } from '../../../test/support/vpp-target.js';
import { FRESH_TABLE, ip6Sessions } from '../../../test/support/sim/ip6-calls.js';

const { start, rv, loopback, table6, routes6, open, nextContext } = ip6Sessions();

describe('simulator: ND proxy', () => {
  it('mirror proxy: 0 on every enable and disable, and no dump entry', async () => {
    const { c } = await start();
    const lo = await loopback(c, '02:fe:00:00:05:01');
    for (const is_enable of [true, true, false, false])
      assert.equal(await rv(c, msg.ip6nd_proxy_enable_disable, { sw_if_index: lo, is_enable }), 0);
    assert.equal(await rv(c, msg.ip6nd_proxy_enable_disable, { sw_if_index: 9999, is_enable: true }), -2);
    assert.equal(await rv(c, msg.ip6nd_proxy_enable_disable, { sw_if_index: lo, is_enable: true }), 0);
    const { t } = open[0] as { t: VppTarget };
    if (t.sim) assert.equal(t.sim.state.interfaces.find((i) => i.swIfIndex === lo)?.ip6NdProxy, true);
    const ps = await c.dump(msg.ip6nd_proxy_dump, {}, nextContext());
    assert.equal(ps.length, 1, 'only the control_ping reply');
  });

  it('per-address proxy: a /128 via the interface from the IPv6-proxy-nd source; its dump entries carry message id 10', async () => {
    const { c } = await start();
    await table6(c, 150);
    const lo = await loopback(c, '02:fe:00:00:06:01');
    assert.equal(await rv(c, msg.sw_interface_set_table, { sw_if_index: lo, is_ipv6: true, vrf_id: 150 }), 0);
    assert.equal(
      await rv(c, msg.ip6nd_proxy_add_del, { sw_if_index: lo, is_add: true, ip: '2001:db8:15::5' }),
      0,
    );
    assert.equal(
      await rv(c, msg.ip6nd_proxy_add_del, { sw_if_index: 9999, is_add: true, ip: '2001:db8:15::5' }),
      -2,
    );
    assert.equal(
      await rv(c, msg.ip6nd_proxy_add_del, { sw_if_index: lo, is_add: false, ip: '2001:db8:15::9' }),
      0,
    );
    // (in the FIB hash's order)
    assert.deepEqual(await routes6(c, 150), [
      FRESH_TABLE[0],
      `2001:db8:15::5/128 src 13 [sw ${lo} table 0 type 0 flags 0 proto 1 nh 2001:db8:15::5]`,
      FRESH_TABLE[1],
    ]);
    // VPP forgets its module's base: the details go out as id 10 (memclnt's get_first_msg_id)
    const context = nextContext();
    const ps = await c.dump(msg.ip6nd_proxy_dump, {}, context);
    const entries = ps.slice(0, -1);
    const ours = entries.filter((p) => p.readUInt32BE(6) === lo);
    assert.equal(ours.length, 1);
    const p = ours[0] as Buffer;
    assert.equal(p.length, 26);
    assert.equal(p.readUInt16BE(0), 10);
    assert.notEqual(c.idOf(msg.ip6nd_proxy_details), 10);
    assert.equal(p.readUInt32BE(2), context);
    assert.equal(p.subarray(10).toString('hex'), '20010db8001500000000000000000005');
    assert.equal(
      await rv(c, msg.ip6nd_proxy_add_del, { sw_if_index: lo, is_add: false, ip: '2001:db8:15::5' }),
      0,
    );
    assert.deepEqual(await routes6(c, 150), FRESH_TABLE);
  });
});
