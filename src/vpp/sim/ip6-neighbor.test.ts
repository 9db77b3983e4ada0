/**
 * The simulator's IPv6 (dual-stack VPCs, docs/dual-stack.md) against VPP 26.06: IPv6 static
 * neighbours. Every test but the crash ones also runs against a real VPP (VPP_API_SOCKET; start it
 * fresh: the expected stats-free dumps assume only the IPv6 suites configured it). Each test uses
 * its own interfaces, tables, SIDs and BSIDs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../messages/index.js';
import { type VppTarget } from '../../../test/support/vpp-target.js';
import { ANY, ip6, FRESH_TABLE, ip6Sessions } from '../../../test/support/sim/ip6-calls.js';

const { start, call, rv, dump, loopback, table6, routes6, open } = ip6Sessions();

describe('simulator: IPv6 static neighbours', () => {
  it('adds a static entry (adj-fib in the interface table), refuses a dynamic overwrite, −6 deleting a missing one', async () => {
    const { c } = await start();
    await table6(c, 160);
    const lo = await loopback(c, '02:fe:00:00:07:01');
    assert.equal(await rv(c, msg.sw_interface_set_table, { sw_if_index: lo, is_ipv6: true, vrf_id: 160 }), 0);
    const nb = (ip: string, mac: string, flags: number, sw = lo) => ({
      sw_if_index: sw,
      flags,
      mac_address: mac,
      ip_address: ip6(ip),
    });
    const add = (n: ReturnType<typeof nb>, is_add = true) =>
      call(c, msg.ip_neighbor_add_del, { is_add, neighbor: n });
    const vm = '2001:db8:16::5054:ff:fe61:a01';
    assert.equal((await add(nb(vm, '52:54:00:61:0a:01', 1))).retval, 0);
    assert.equal((await add(nb(vm, '52:54:00:61:0a:01', 1))).retval, 0);
    assert.deepEqual(await add(nb(vm, '52:54:00:61:0a:02', 0)), { retval: -2, stats_index: ANY });
    assert.deepEqual(await add(nb('2001:db8:16::77', '52:54:00:61:0a:01', 1), false), {
      retval: -6,
      stats_index: ANY,
    });
    assert.deepEqual(await add(nb('2001:db8:16::77', '52:54:00:61:0a:01', 1, 9999)), {
      retval: -2,
      stats_index: ANY,
    });
    const mine = (await dump(c, msg.ip_neighbor_dump, { sw_if_index: lo, af: 1 })).map((d) => d.neighbor);
    assert.deepEqual(mine, [
      {
        sw_if_index: lo,
        flags: 1,
        mac_address: '52:54:00:61:0a:01',
        ip_address: { af: 1, un: { ip4: '32.1.13.184', ip6: '2001:db8:16:0:5054:ff:fe61:a01' } },
      },
    ]);
    assert.deepEqual(await dump(c, msg.ip_neighbor_dump, { sw_if_index: lo, af: 0 }), []);
    assert.deepEqual(await routes6(c, 160), [
      FRESH_TABLE[0],
      `2001:db8:16:0:5054:ff:fe61:a01/128 src 15 [sw ${lo} table 0 type 0 flags 0 proto 1 nh 2001:db8:16:0:5054:ff:fe61:a01]`,
      FRESH_TABLE[1],
    ]);
    const { t } = open[0] as { t: VppTarget };
    if (t.sim) {
      assert.deepEqual(t.sim.state.neighbors.entries, [
        {
          swIfIndex: lo,
          address: '2001:db8:16:0:5054:ff:fe61:a01',
          mac: '52:54:00:61:0a:01',
          isStatic: true,
        },
      ]);
    }
    assert.equal((await add(nb(vm, '52:54:00:61:0a:01', 1), false)).retval, 0);
    assert.deepEqual(await dump(c, msg.ip_neighbor_dump, { sw_if_index: lo, af: 1 }), []);
    assert.deepEqual(await routes6(c, 160), FRESH_TABLE);
  });
});
