/**
 * The simulator's IPv6 (dual-stack VPCs, docs/dual-stack.md) against VPP 26.06: IPv6 tables and
 * routes. Every test but the crash ones also runs against a real VPP (VPP_API_SOCKET; start it
 * fresh: the expected stats-free dumps assume only the IPv6 suites configured it). Each test uses
 * its own interfaces, tables, SIDs and BSIDs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../messages/index.js';
import { ANY, route, FRESH_TABLE, ip6Sessions, type Obj } from '../../../test/support/sim/ip6-calls.js';

const { start, call, rv, dump, loopback, table6, routes6 } = ip6Sessions();

describe('simulator: IPv6 tables and routes', () => {
  it("keeps IPv6 table ids apart from IPv4's; a new IPv6 table lists ::/0 (drop) and fe80::/10", async () => {
    const { c } = await start();
    await table6(c, 110);
    const tables = (await dump(c, msg.ip_table_dump, {})).map((d) => d.table as Obj);
    assert.ok(tables.some((t) => t.table_id === 110 && t.is_ip6 === true && t.name === 'ipv6-VRF:110'));
    assert.ok(!tables.some((t) => t.table_id === 110 && t.is_ip6 === false));
    assert.deepEqual(await routes6(c, 110), FRESH_TABLE);
    // the IPv4 table 110 does not exist: binding to it fails, binding IPv6 works
    const lo = await loopback(c, '02:fe:00:01:10:01');
    assert.equal(
      await rv(c, msg.sw_interface_set_table, { sw_if_index: lo, is_ipv6: false, vrf_id: 110 }),
      -3,
    );
    assert.equal(
      await rv(c, msg.sw_interface_set_table, { sw_if_index: lo, is_ipv6: true, vrf_id: 111 }),
      -3,
    );
    assert.equal(await rv(c, msg.sw_interface_set_table, { sw_if_index: lo, is_ipv6: true, vrf_id: 110 }), 0);
    assert.deepEqual(await call(c, msg.sw_interface_get_table, { sw_if_index: lo, is_ipv6: true }), {
      retval: 0,
      vrf_id: 110,
    });
    assert.deepEqual(await call(c, msg.sw_interface_get_table, { sw_if_index: lo, is_ipv6: false }), {
      retval: 0,
      vrf_id: 0,
    });
  });

  it('shows a /128 via an interface with the address as next hop, and a lookup path as sw ~0 with its table', async () => {
    const { c } = await start();
    await table6(c, 120);
    const lo = await loopback(c, '02:fe:00:01:20:01');
    assert.equal(await rv(c, msg.sw_interface_set_table, { sw_if_index: lo, is_ipv6: true, vrf_id: 120 }), 0);
    assert.equal(
      await rv(
        c,
        msg.ip_route_add_del,
        route(120, '2001:db8:a::5054:ff:fe61:a01', 128, [{ sw: lo, table: 0 }]),
      ),
      0,
    );
    assert.equal(
      await rv(c, msg.ip_route_add_del, route(120, 'fd00:ec2::254', 128, [{ sw: ANY, table: 0 }])),
      0,
    );
    // a lookup in a table that does not exist, a route in a table that does not exist
    assert.equal(
      await rv(c, msg.ip_route_add_del, route(120, 'fd00:ec2::253', 128, [{ sw: ANY, table: 121 }])),
      -3,
    );
    assert.equal(
      await rv(c, msg.ip_route_add_del, route(121, 'fd00:ec2::253', 128, [{ sw: ANY, table: 0 }])),
      -3,
    );
    assert.deepEqual(await routes6(c, 120), [
      FRESH_TABLE[0],
      FRESH_TABLE[1],
      `2001:db8:a:0:5054:ff:fe61:a01/128 src 8 [sw ${lo} table 0 type 0 flags 0 proto 1 nh 2001:db8:a:0:5054:ff:fe61:a01]`,
      'fd00:ec2::254/128 src 8 [sw 4294967295 table 0 type 0 flags 0 proto 1 nh ::]',
    ]);
  });
});
