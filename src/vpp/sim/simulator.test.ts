/**
 * The simulator against VPP's behaviour for bad operations (retvals taken from VPP 26.06's
 * handlers, see each module) and its fault injection. Real Unix sockets, the raw test client.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { decodeMessage, encodeMessage } from '../codec/message-codec.js';
import type { MessageDef, MessageInput } from '../codec/schema.js';
import { msg } from '../messages/index.js';
import { RawClient } from '../../../test/support/raw-client.js';
import { permissiveHost, Rv, VppSimulator, type VppSimulatorOptions } from './index.js';
import type { HostOps } from './host.js';

let dir = '';
let n = 0;
const open: { sim: VppSimulator; clients: RawClient[] }[] = [];

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-sim-test-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  for (const o of open.splice(0)) {
    for (const c of o.clients) c.close();
    await o.sim.close();
  }
});

async function start(
  opts: Partial<VppSimulatorOptions> = {},
): Promise<{ sim: VppSimulator; c: RawClient; connect: () => Promise<RawClient> }> {
  const socketPath = path.join(dir, `s${n++}.sock`);
  const sim = await VppSimulator.start({ socketPath, host: permissiveHost, vhostNet: false, ...opts });
  const entry = { sim, clients: [] as RawClient[] };
  open.push(entry);
  const connect = async (): Promise<RawClient> => {
    const c = await RawClient.connect(socketPath);
    entry.clients.push(c);
    await c.handshake();
    return c;
  };
  return { sim, c: await connect(), connect };
}

let ctx = 100;
/** One request, its reply decoded. */
async function call<M extends MessageDef>(
  c: RawClient,
  def: M,
  input: MessageInput<M>,
): Promise<Record<string, unknown>> {
  const [p] = await c.call(def, input, ctx++);
  assert.ok(def.reply);
  return decodeMessage(def.reply, p as Buffer);
}

async function rv<M extends MessageDef>(c: RawClient, def: M, input: MessageInput<M>): Promise<number> {
  return (await call(c, def, input)).retval as number;
}

const prefix4 = (a: string, len: number) => ({ address: { af: 0, un: { ip4: a } }, len });
const prefix6 = (a: string, len: number) => ({ address: { af: 1, un: { ip6: a } }, len });

describe('handshake and dispatch', () => {
  it('first client gets 0x80000001, the next 0x80000002, a freed index is reused', async () => {
    const { sim, c, connect } = await start();
    assert.equal(c.clientIndex, 0x80000001);
    const c2 = await connect();
    assert.equal(c2.clientIndex, 0x80000002);
    c2.close();
    await c2.closed;
    await sim.whenClientsAtMost(1);
    const c3 = await connect();
    assert.equal(c3.clientIndex, 0x80000002);
  });

  it('answers nothing to an unknown id or a wrong client_index, and the next request still works', async () => {
    const { sim, c } = await start();
    const before = c.received.length;
    c.sendPayload(Buffer.from([0x7f, 0xf0, 0, 0, 0, 0, 0, 0, 0, 1])); // id 32752: no such message
    c.send(msg.control_ping, {}, 7, 0x80000009); // no registration 9
    c.send(msg.control_ping, {}, 8, 0x00000001); // a shared-memory index: none here
    c.send(msg.control_ping, {}, 9);
    const [p] = (await c.waitForCount(before + 1)).slice(before);
    const r = decodeMessage(msg.control_ping_reply, p as Buffer);
    assert.equal(r.context, 9);
    assert.equal(await c.answeredBeforePing(), 0);
    assert.equal(sim.state.unansweredCounts.get('#32752'), 1);
  });

  it('performs a request with a wrong client_index without answering it (REPLY_MACRO)', async () => {
    const { sim, c } = await start();
    c.send(msg.create_loopback_instance, { is_specified: true, user_instance: 5 }, 11, 0x80000007);
    assert.equal(await c.answeredBeforePing(), 0);
    assert.deepEqual(
      sim.state.interfaces.map((i) => i.name),
      ['local0', 'loop5'],
    );
  });

  it('drops a message shorter than its counted arrays', async () => {
    const { c } = await start();
    const full = encodeMessage(
      msg.acl_add_replace,
      c.idOf(msg.acl_add_replace),
      { acl_index: 0xffffffff, tag: 't', r: [{}, {}] },
      { context: 3, clientIndex: c.clientIndex },
    ).subarray(16);
    c.sendPayload(full.subarray(0, full.length - 10));
    assert.equal(await c.answeredBeforePing(), 0);
    assert.equal(await rv(c, msg.acl_add_replace, { acl_index: 0xffffffff, tag: 't', r: [] }), 0);
  });

  it('control_ping_reply carries client_index 0 and the pid; memclnt_keepalive gets no answer', async () => {
    const { c } = await start({ pid: 4321 });
    const r = await call(c, msg.control_ping, {});
    assert.equal(r.client_index, 0);
    assert.equal(r.vpe_pid, 4321);
    c.send(msg.memclnt_keepalive, {}, 5);
    assert.equal(await c.answeredBeforePing(), 0);
  });

  it('sockclnt_delete answers response 1 and closes the socket', async () => {
    const { sim, c } = await start();
    const [p] = await c.call(msg.sockclnt_delete, { index: c.clientIndex }, 3);
    assert.equal(decodeMessage(msg.sockclnt_delete_reply, p as Buffer).response, 1);
    await c.closed;
    await sim.whenClientsAtMost(0);
    assert.equal(sim.state.clients.length, 0);
  });

  it('cli_inband: show version, unknown input', async () => {
    const { c } = await start({ version: '26.06-release' });
    const v = await call(c, msg.cli_inband, { cmd: 'show version' });
    assert.match(String(v.reply), /^vpp v26\.06-release built by \S+ on \S+ at \S+\n$/);
    const u = await call(c, msg.cli_inband, { cmd: 'frobnicate now' });
    assert.equal(u.retval, -1);
    assert.equal(u.reply, "unknown input `frobnicate now'\n");
    const s = await call(c, msg.cli_inband, { cmd: 'show frobs' });
    assert.equal(s.reply, "show: unknown input `frobs'\n");
  });

  it('cli_inband: show sr encaps hop-limit / source addr, as set through the API', async () => {
    const { c } = await start();
    // VPP's initial values: IPv6_DEFAULT_HOP_LIMIT and a zeroed source.
    const initial = await call(c, msg.cli_inband, { cmd: 'show sr encaps hop-limit' });
    assert.equal(initial.retval, 0);
    assert.equal(initial.reply, 'SR encaps hop-limit = 64\n');
    assert.equal(
      (await call(c, msg.cli_inband, { cmd: 'show sr encaps source addr' })).reply,
      'SR encaps source addr = ::\n',
    );
    assert.equal(await rv(c, msg.sr_set_encap_hop_limit, { hop_limit: 17 }), 0);
    assert.equal(await rv(c, msg.sr_set_encap_source, { encaps_source: 'fc00:0:0:1::00a0' }), 0);
    assert.equal(
      (await call(c, msg.cli_inband, { cmd: 'show sr encaps hop-limit' })).reply,
      'SR encaps hop-limit = 17\n',
    );
    assert.equal(
      (await call(c, msg.cli_inband, { cmd: '  show  sr encaps   source addr ' })).reply,
      'SR encaps source addr = fc00:0:0:1::a0\n',
    );
  });
});

describe('interfaces', () => {
  it('bad sw_if_index -2; tag/MTU/admin; events -31 on a second enable', async () => {
    const { c } = await start();
    assert.equal(
      await rv(c, msg.sw_interface_set_flags, { sw_if_index: 9999, flags: 1 }),
      Rv.INVALID_SW_IF_INDEX,
    );
    assert.equal(await rv(c, msg.want_interface_events, { enable_disable: 1, pid: 77 }), 0);
    assert.equal(
      await rv(c, msg.want_interface_events, { enable_disable: 1, pid: 77 }),
      Rv.INVALID_REGISTRATION,
    );
    // loopback create: reply, then an event (flags 0); admin up: loopback link follows (flags 3)
    const start2 = c.received.length;
    c.send(msg.create_loopback_instance, {}, 40);
    const [reply, ev] = (await c.waitForCount(start2 + 2)).slice(start2) as [Buffer, Buffer];
    const sw = decodeMessage(msg.create_loopback_instance_reply, reply).sw_if_index;
    assert.deepEqual(
      { ...decodeMessage(msg.sw_interface_event, ev) },
      { client_index: c.clientIndex, pid: 77, sw_if_index: sw, flags: 0, deleted: false },
    );
    const [, up] = await c.call(msg.sw_interface_set_flags, { sw_if_index: sw, flags: 1 }, 41, 2);
    assert.equal(decodeMessage(msg.sw_interface_event, up as Buffer).flags, 3);
    const [, del] = await c.call(msg.delete_loopback, { sw_if_index: sw }, 42, 2);
    assert.deepEqual(
      { ...decodeMessage(msg.sw_interface_event, del as Buffer), client_index: 0 },
      { client_index: 0, pid: 77, sw_if_index: sw, flags: 0, deleted: true },
    );
    assert.equal(await rv(c, msg.want_interface_events, { enable_disable: 0, pid: 77 }), 0);
    assert.equal(
      await rv(c, msg.want_interface_events, { enable_disable: 0, pid: 77 }),
      Rv.INVALID_REGISTRATION,
    );
  });

  it('af_packet: missing host interface -71, duplicate -79 with the existing index', async () => {
    const { c } = await start({
      host: { ...permissiveHost, interfaceExists: (name) => name === 'veth-a' },
      checkHostInterfaces: true,
    });
    const missing = await call(c, msg.af_packet_create_v3, {
      mode: 1,
      host_if_name: 'nope',
      use_random_hw_addr: true,
    });
    assert.deepEqual([missing.retval, missing.sw_if_index], [Rv.INVALID_INTERFACE, 0]);
    const ok = await call(c, msg.af_packet_create_v3, {
      mode: 1,
      host_if_name: 'veth-a',
      use_random_hw_addr: true,
    });
    assert.equal(ok.retval, 0);
    const dup = await call(c, msg.af_packet_create_v3, {
      mode: 1,
      host_if_name: 'veth-a',
      use_random_hw_addr: true,
    });
    assert.deepEqual([dup.retval, dup.sw_if_index], [Rv.IF_ALREADY_EXISTS, ok.sw_if_index]);
    assert.equal(await rv(c, msg.af_packet_delete, { host_if_name: 'nope' }), Rv.SYSCALL_ERROR_1);
  });

  it('tap_create_v3 without /dev/vhost-net answers -11', async () => {
    const { c } = await start({ vhostNet: false });
    const r = await call(c, msg.tap_create_v3, {
      id: 0xffffffff,
      host_if_name_set: true,
      host_if_name: 'net1',
      tap_flags: 4,
      tag: 'x',
    });
    assert.deepEqual([r.retval, r.sw_if_index], [Rv.SYSCALL_ERROR_1, 0xffffffff]);
  });

  it('tap_create_v3 with vhost-net creates an interface tapN', async () => {
    const { sim, c } = await start({ vhostNet: true });
    const r = await call(c, msg.tap_create_v3, {
      id: 0xffffffff,
      host_if_name_set: true,
      host_if_name: 'net1',
      tag: 'pod',
    });
    assert.equal(r.retval, 0);
    const i = sim.state.interfaces.find((x) => x.swIfIndex === r.sw_if_index);
    assert.equal(i?.name, 'tap0');
    assert.equal(i?.tag, 'pod');
  });

  it('a persistent tap outlives a VPP restart but not tap_delete_v2 (tap_free unsets persistence)', async () => {
    const devices = new Set<string>();
    const host: HostOps = {
      ...permissiveHost,
      createTap: (spec) => devices.add(spec.name).size > 0,
      deleteTap: (_netns, name) => void devices.delete(name),
    };
    const { sim, c, connect } = await start({ vhostNet: true, host });
    const flags = msg.tap_flags_t.values.TAP_API_FLAG_PERSIST | msg.tap_flags_t.values.TAP_API_FLAG_ATTACH;
    const create = (client: RawClient, name: string, tap_flags: number) =>
      call(client, msg.tap_create_v3, {
        id: 0xffffffff,
        host_if_name_set: true,
        host_if_name: name,
        host_namespace_set: true,
        host_namespace: 'pod',
        tap_flags,
      });
    const kept = await create(c, 'net1', flags);
    const gone = await create(c, 'net2', 0);
    assert.deepEqual([kept.retval, gone.retval], [0, 0]);
    assert.deepEqual([...devices].sort(), ['net1', 'net2']);
    await sim.restart();
    assert.deepEqual([...devices], ['net1'], 'only the persistent device survives VPP going away');
    const c2 = await connect();
    const again = await create(c2, 'net1', flags);
    assert.equal(again.retval, 0, 'attached to the device that stayed');
    assert.equal(await rv(c2, msg.tap_delete_v2, { sw_if_index: again.sw_if_index as number }), 0);
    assert.deepEqual([...devices], [], 'deleted, persistent or not');
  });
});

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

describe('srv6', () => {
  it('localsid -1/-2/-3/-4, policy -12/-13/-1, steering -2/-4/-5', async () => {
    const { c } = await start();
    const sid = (is_del: boolean, localsid: string, fib_table = 0) =>
      rv(c, msg.sr_localsid_add_del, {
        is_del,
        localsid,
        behavior: 9,
        sw_if_index: 10,
        fib_table,
        nh_addr: { af: 1 },
      });
    assert.equal(await sid(false, 'fc00:1::a'), 0);
    assert.equal(await sid(false, 'fc00:1::a'), -1);
    assert.equal(await sid(true, 'fc00:1::b'), -2);
    assert.equal(await sid(false, 'fc00:1::c', 99), -3);
    // a non-SR route already holds the address
    const lo = (await call(c, msg.create_loopback_instance, {})).sw_if_index as number;
    await rv(c, msg.sw_interface_set_flags, { sw_if_index: lo, flags: 1 });
    await rv(c, msg.sw_interface_add_del_address, {
      sw_if_index: lo,
      is_add: true,
      prefix: prefix6('fc00:1::d', 64),
    });
    assert.equal(await sid(false, 'fc00:1::d'), -4);
    assert.equal(await sid(true, 'fc00:1::a'), 0);

    const policy = (bsid: string, is_encap: boolean, fib_table = 0) =>
      rv(c, msg.sr_policy_add, {
        bsid_addr: bsid,
        is_encap,
        fib_table,
        sids: { num_sids: 1, weight: 1, sids: ['fc00:2::a'] },
      });
    assert.equal(await policy('fc00:1:ff::1', true), 0);
    assert.equal(await policy('fc00:1:ff::1', true), -12);
    assert.equal(await policy('fc00:1:ff::2', true, 77), -13);
    assert.equal(await policy('fc00:1:ff::3', false), 0);
    assert.equal(await rv(c, msg.sr_policy_del, { bsid_addr: 'fc00:1:ff::9' }), -1);

    await rv(c, msg.ip_table_add_del, { is_add: true, table: { table_id: 10 } });
    const steer = (is_del: boolean, bsid: string) =>
      rv(c, msg.sr_steering_add_del, {
        is_del,
        bsid_addr: bsid,
        table_id: 10,
        prefix: prefix4('10.0.1.0', 24),
        traffic_type: 4,
      });
    assert.equal(await steer(false, 'fc00:1:ff::9'), -2);
    assert.equal(await steer(false, 'fc00:1:ff::3'), -5);
    assert.equal(await steer(true, 'fc00:1:ff::1'), -4);
    assert.equal(await steer(false, 'fc00:1:ff::1'), 0);
    assert.equal(await steer(false, 'fc00:1:ff::3'), 0); // re-pointing skips the encap check, as in VPP
    assert.equal(await steer(true, 'fc00:1:ff::1'), 0);
  });

  it('steering into a table that does not exist crashes VPP (the simulator restarts)', async () => {
    const { sim, c } = await start();
    await call(c, msg.sr_policy_add, {
      bsid_addr: 'fc00::1',
      is_encap: true,
      sids: { num_sids: 1, weight: 1, sids: ['fc00::2'] },
    });
    c.send(
      msg.sr_steering_add_del,
      { bsid_addr: 'fc00::1', table_id: 55, prefix: prefix4('10.0.0.0', 8), traffic_type: 4 },
      9,
    );
    await c.closed;
    assert.equal(sim.state.crashes.length, 1);
    assert.equal(sim.state.sr.policies.length, 0);
  });
});

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

describe('nat, acl, dhcp', () => {
  it('nat: disabled -126, twice enabled -170, mappings -81/-6; acl: replace, -6, in use -142', async () => {
    const { sim, c } = await start();
    const sm = (is_add: boolean, external_ip_address: string, vrf_id = 0) =>
      rv(c, msg.nat44_add_del_static_mapping_v2, {
        is_add,
        flags: 8,
        local_ip_address: '10.0.0.5',
        external_ip_address,
        external_sw_if_index: 0xffffffff,
        vrf_id,
        tag: 't',
      });
    assert.equal(await sm(true, '169.252.252.5'), Rv.UNSUPPORTED);
    assert.equal(await rv(c, msg.nat44_ed_plugin_enable_disable, { enable: true, sessions: 16384 }), 0);
    assert.equal(
      await rv(c, msg.nat44_ed_plugin_enable_disable, { enable: true, sessions: 16384 }),
      Rv.FEATURE_ALREADY_ENABLED,
    );
    assert.equal(await sm(true, '169.252.252.5'), 0);
    assert.equal(await sm(true, '169.252.252.5'), Rv.VALUE_EXIST);
    assert.equal(await sm(true, '169.252.252.6'), Rv.VALUE_EXIST); // same local address and VRF
    assert.equal(await sm(false, '169.252.252.9'), Rv.NO_SUCH_ENTRY);
    assert.equal(sim.state.nat.staticMappings.length, 1);

    const acl = await call(c, msg.acl_add_replace, {
      acl_index: 0xffffffff,
      tag: 'a',
      r: [
        {
          is_permit: 1,
          src_prefix: prefix4('0.0.0.0', 0),
          dst_prefix: prefix4('0.0.0.0', 0),
          srcport_or_icmptype_last: 65535,
          dstport_or_icmpcode_last: 65535,
        },
      ],
    });
    assert.deepEqual([acl.retval, acl.acl_index], [0, 0]);
    assert.equal(
      (await call(c, msg.acl_add_replace, { acl_index: 5, tag: 'b', r: [] })).retval,
      Rv.NO_SUCH_ENTRY,
    );
    assert.equal(
      (
        await call(c, msg.acl_add_replace, {
          acl_index: 0xffffffff,
          tag: 'c',
          r: [{ src_prefix: prefix4('10.0.0.1', 24), dst_prefix: prefix4('0.0.0.0', 0) }],
        })
      ).retval,
      Rv.INVALID_SRC_ADDRESS,
    );
    const lo = (await call(c, msg.create_loopback_instance, {})).sw_if_index as number;
    assert.equal(await rv(c, msg.acl_interface_set_acl_list, { sw_if_index: lo, n_input: 1, acls: [0] }), 0);
    assert.equal(await rv(c, msg.acl_del, { acl_index: 0 }), Rv.ACL_IN_USE_INBOUND);
    assert.equal(
      await rv(c, msg.acl_interface_set_acl_list, { sw_if_index: lo, n_input: 1, acls: [3] }),
      Rv.NO_SUCH_ENTRY,
    );

    assert.equal(
      await rv(c, msg.dhcp_proxy_config, {
        rx_vrf_id: 0,
        server_vrf_id: 0,
        is_add: true,
        dhcp_server: { af: 0, un: { ip4: '0.0.0.0' } },
        dhcp_src_address: { af: 0, un: { ip4: '10.0.0.1' } },
      }),
      Rv.INVALID_DST_ADDRESS,
    );
    assert.equal(
      await rv(c, msg.dhcp_proxy_set_vss, { tbl_id: 3, vss_type: 0, vpn_ascii_id: 'x', is_add: false }),
      Rv.NO_SUCH_ENTRY,
    );
  });

  it('nat44_ed_output_interface_get pages with -165 and a cursor', async () => {
    const { sim, c } = await start();
    await rv(c, msg.nat44_ed_plugin_enable_disable, { enable: true });
    const ifs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const sw = (await call(c, msg.create_loopback_instance, {})).sw_if_index as number;
      ifs.push(sw);
      await rv(c, msg.nat44_ed_add_del_output_interface, { is_add: true, sw_if_index: sw });
    }
    sim.setCursorPageLimit(2);
    const first = await c.call(msg.nat44_ed_output_interface_get, { cursor: 0 }, 70, 3);
    const reply = decodeMessage(msg.nat44_ed_output_interface_get_reply, first[2] as Buffer);
    assert.deepEqual([reply.retval, reply.cursor], [Rv.EAGAIN, 2]);
    const rest = await c.call(msg.nat44_ed_output_interface_get, { cursor: 2 }, 71, 2);
    const done = decodeMessage(msg.nat44_ed_output_interface_get_reply, rest[1] as Buffer);
    assert.deepEqual([done.retval, done.cursor], [0, 0xffffffff]);
    const got = [...first.slice(0, 2), rest[0]].map(
      (p) => decodeMessage(msg.nat44_ed_output_interface_details, p as Buffer).sw_if_index,
    );
    assert.deepEqual(got, ifs);
  });
});

describe('fault injection', () => {
  it('restart: state lost, socket gone meanwhile, ids reshuffled (memclnt fixed), a new pid', async () => {
    const { sim, c, connect } = await start({ pid: 100 });
    await call(c, msg.create_loopback_instance, {});
    const idsBefore = sim.messageTable();
    const restarting = sim.restart({ reshuffleIds: true, downtimeMs: 50 });
    await c.closed;
    assert.equal(existsSync(sim.socketPath), false);
    await restarting;
    const c2 = await connect();
    assert.deepEqual(
      sim.state.interfaces.map((i) => i.name),
      ['local0'],
    );
    const after = c2.table;
    for (const [k, id] of [
      ['sockclnt_create_455fb9c4', 15],
      ['control_ping_51077d14', 23],
      ['get_api_json_51077d14', 27],
    ] as const) {
      assert.equal(after.get(k), id);
    }
    const moved = [...idsBefore].filter(([k, id]) => after.get(k) !== id).length;
    assert.ok(moved > 100, `only ${moved} ids moved`);
    assert.equal((await call(c2, msg.control_ping, {})).vpe_pid, 101);
    assert.equal(sim.state.restarts, 1);
  });

  it('dropConnections: sockets die without a goodbye, state stays', async () => {
    const { sim, c, connect } = await start();
    await call(c, msg.create_loopback_instance, {});
    sim.dropConnections();
    await c.closed;
    const c2 = await connect();
    assert.equal(c2.clientIndex, 0x80000001);
    assert.equal(sim.state.interfaces.length, 2);
  });

  it('stallReplies: nothing comes back until released, then everything in order', async () => {
    const { sim, c } = await start();
    sim.stallReplies(true);
    const base = c.received.length;
    for (let i = 0; i < 5; i++) c.send(msg.control_ping, {}, 500 + i);
    // All five arrived and are held: none was handled, so no reply can be on its way.
    await sim.whenHeld(5);
    assert.equal(sim.state.stalled, true);
    assert.equal(c.received.length, base);
    sim.stallReplies(false);
    const got = (await c.waitForCount(base + 5))
      .slice(base)
      .map((p) => decodeMessage(msg.control_ping_reply, p).context);
    assert.deepEqual(got, [500, 501, 502, 503, 504]);
  });

  it('removeMessage and changeCrc show in the next handshake; a removed id answers nothing', async () => {
    const { sim, c, connect } = await start();
    const oldId = c.idOf(msg.sr_policy_add);
    sim.removeMessage('sr_policy_add');
    sim.changeCrc('sw_interface_dump', 'deadbeef');
    const c2 = await connect();
    assert.equal(c2.table.has('sr_policy_add_44ac92e8'), false);
    assert.equal(c2.table.get('sw_interface_dump_deadbeef'), c.idOf(msg.sw_interface_dump));
    assert.equal(c2.table.has('sw_interface_dump_aa610c27'), false);
    c.sendRaw(encodeMessage(msg.sr_policy_add, oldId, {}, { context: 1, clientIndex: c.clientIndex }));
    assert.equal(await c.answeredBeforePing(), 0);
  });
});
