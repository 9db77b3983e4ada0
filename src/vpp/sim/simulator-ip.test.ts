/**
 * The simulator's IP tables, routes and addresses against VPP's behaviour for bad operations
 * (retvals taken from VPP 26.06's handlers). Real Unix sockets, the raw test client.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeMessage } from '../codec/message-codec.js';
import type { MessageInput } from '../codec/schema.js';
import { msg } from '../messages/index.js';
import { Rv } from './index.js';
import { prefix4, simSessions } from '../../../test/support/sim/sim-sessions.js';

const { start, call, rv } = simSessions();

describe('ip', () => {
  it('set_table: -3 for a missing table, -114 with an address; routes: -3, -171, -52', async () => {
    const { c } = await start();
    const lo = (await call(c, msg.create_loopback_instance, {})).sw_if_index as number;
    assert.equal(await rv(c, msg.sw_interface_set_table, { sw_if_index: lo, vrf_id: 10 }), Rv.NO_SUCH_FIB);
    assert.equal(await rv(c, msg.ip_table_add_del, { is_add: true, table: { table_id: 10 } }), 0);
    assert.equal(
      await rv(c, msg.sw_interface_add_del_address, {
        sw_if_index: lo,
        is_add: true,
        prefix: prefix4('10.0.0.1', 24),
      }),
      0,
    );
    assert.equal(
      await rv(c, msg.sw_interface_set_table, { sw_if_index: lo, vrf_id: 10 }),
      Rv.ADDRESS_FOUND_FOR_INTERFACE,
    );
    // the same address again conflicts with itself (ip4: ADDRESS_IN_USE); deleting a missing one: -60
    assert.equal(
      await rv(c, msg.sw_interface_add_del_address, {
        sw_if_index: lo,
        is_add: true,
        prefix: prefix4('10.0.0.1', 24),
      }),
      Rv.ADDRESS_IN_USE,
    );
    assert.equal(
      await rv(c, msg.sw_interface_add_del_address, {
        sw_if_index: lo,
        is_add: false,
        prefix: prefix4('10.0.0.9', 24),
      }),
      Rv.ADDRESS_NOT_FOUND_FOR_INTERFACE,
    );
    assert.equal(
      await rv(c, msg.sw_interface_add_del_address, {
        sw_if_index: 0,
        is_add: true,
        prefix: prefix4('10.9.0.1', 24),
      }),
      Rv.UNSUPPORTED,
    );
    const route = (
      table_id: number,
      len: number,
      paths: MessageInput<typeof msg.ip_route_add_del>['route'] extends infer R
        ? R extends { paths?: infer P }
          ? P
          : never
        : never,
    ) =>
      call(c, msg.ip_route_add_del, {
        is_add: true,
        route: { table_id, prefix: prefix4('10.1.0.0', len), paths },
      });
    assert.equal((await route(77, 16, [{ sw_if_index: lo }])).retval, Rv.NO_SUCH_FIB);
    assert.equal((await route(10, 33, [{ sw_if_index: lo }])).retval, Rv.INVALID_PREFIX_LENGTH);
    assert.equal((await route(10, 16, [])).retval, Rv.NO_PATHS_IN_ROUTE);
    assert.equal((await route(10, 16, [{ sw_if_index: 4242 }])).retval, Rv.NO_MATCHING_INTERFACE);
    const ok = await route(10, 16, [{ sw_if_index: lo, nh: { address: { ip4: '10.0.0.2' } } }]);
    assert.equal(ok.retval, 0);
    assert.equal(ok.stats_index, 13); // 8..12: table 10's specials; the address is on an admin-down interface
  });

  it('a host route through an interface shows the route address as next hop (path fixup)', async () => {
    const { c } = await start();
    const lo = (await call(c, msg.create_loopback_instance, {})).sw_if_index as number;
    await call(c, msg.ip_route_add_del, {
      is_add: true,
      route: { table_id: 0, prefix: prefix4('10.0.0.5', 32), paths: [{ sw_if_index: lo }] },
    });
    const out = await c.dump(msg.ip_route_dump, { table: { table_id: 0 } }, 90);
    const r = out
      .slice(0, -1)
      .map((p) => decodeMessage(msg.ip_route_details, p).route)
      .find((x) => x.prefix.address.un.ip4 === '10.0.0.5');
    assert.equal(r?.paths[0]?.nh.address.ip4, '10.0.0.5');
    assert.equal(r?.paths[0]?.sw_if_index, lo);
    assert.equal(r?.paths[0]?.weight, 1);
  });

  it('multipath routes, "look up in table S" paths, and a table deleted while in use stays', async () => {
    const { sim, c } = await start();
    await rv(c, msg.ip_table_add_del, { is_add: true, table: { table_id: 10, name: 'vpc' } });
    await rv(c, msg.ip_table_add_del, { is_add: true, table: { table_id: 20 } });
    const p = prefix4('192.0.2.0', 24);
    await call(c, msg.ip_route_add_del, {
      is_add: true,
      is_multipath: true,
      route: { table_id: 10, prefix: p, paths: [{ sw_if_index: 0xffffffff, table_id: 20 }] },
    });
    await call(c, msg.ip_route_add_del, {
      is_add: true,
      is_multipath: true,
      route: { table_id: 10, prefix: p, paths: [{ sw_if_index: 0xffffffff, table_id: 0 }] },
    });
    const r = sim.state.routes(10)?.find((x) => x.prefix === '192.0.2.0/24');
    // a path list is sorted (fib_path_cmp_for_sort): deag paths by the fib_index looked up in
    assert.deepEqual(
      r?.paths.map((x) => [x.kind, x.tableId]),
      [
        ['deag', 0],
        ['deag', 20],
      ],
    );
    assert.deepEqual(
      sim.state.tables.map((t) => [t.af, t.tableId, t.name]),
      [
        [4, 0, 'ipv4-VRF:0'],
        [4, 10, 'vpc'],
        [4, 20, 'ipv4-VRF:20'],
        [6, 0, 'ipv6-VRF:0'],
      ],
    );
  });
});
