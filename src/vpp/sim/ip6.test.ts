/**
 * The simulator's IPv6 (dual-stack VPCs, docs/dual-stack.md) against VPP 26.06: IPv6 tables and
 * routes, the lock-counted IPv6 link and its link-local address, router advertisements, ND proxy,
 * static neighbours, End.DT6 and IPv6 steering. Every test but the crash ones also runs against a
 * real VPP (VPP_API_SOCKET; start it fresh: the expected stats-free dumps assume only this suite
 * configured it). Each test uses its own interfaces, tables, SIDs and BSIDs.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { decodeMessage } from '../codec/message-codec.js';
import type { MessageDef, MessageInput } from '../codec/schema.js';
import { msg } from '../messages/index.js';
import { RawClient } from '../../../test/support/raw-client.js';
import { SIM_ONLY, startVppTarget, type VppTarget } from '../../../test/support/vpp-target.js';

const ANY = 0xffffffff;
const open: { t: VppTarget; c: RawClient }[] = [];
let ctx = 1;

afterEach(async () => {
  for (const o of open.splice(0)) {
    o.c.close();
    await o.t.close();
  }
});

async function start(): Promise<{ t: VppTarget; c: RawClient }> {
  const t = await startVppTarget();
  const c = await RawClient.connect(t.socketPath);
  await c.handshake('ip6-test');
  open.push({ t, c });
  return { t, c };
}

type Obj = Record<string, unknown>;

function strip(o: Obj): Obj {
  const { context: _c, ...rest } = o;
  return rest;
}

async function call<M extends MessageDef>(c: RawClient, def: M, input: MessageInput<M>): Promise<Obj> {
  const [p] = await c.call(def, input, ctx++);
  assert.ok(def.reply);
  return strip(decodeMessage(def.reply, p as Buffer));
}

async function rv<M extends MessageDef>(c: RawClient, def: M, input: MessageInput<M>): Promise<number> {
  return (await call(c, def, input)).retval as number;
}

async function dump<M extends MessageDef>(c: RawClient, def: M, input: MessageInput<M>): Promise<Obj[]> {
  const ps = await c.dump(def, input, ctx++);
  const details = def.stream as MessageDef;
  return ps.slice(0, -1).map((p) => strip(decodeMessage(details, p) as Obj));
}

const ip6 = (a: string) => ({ af: 1, un: { ip6: a } });
const prefix6 = (a: string, len: number) => ({ address: ip6(a), len });

async function loopback(c: RawClient, mac: string): Promise<number> {
  const r = await call(c, msg.create_loopback_instance, {
    mac_address: mac,
    is_specified: false,
    user_instance: 0,
  });
  assert.equal(r.retval, 0);
  return r.sw_if_index as number;
}

async function table6(c: RawClient, id: number): Promise<void> {
  assert.equal(
    await rv(c, msg.ip_table_add_del, { is_add: true, table: { table_id: id, is_ip6: true, name: '' } }),
    0,
  );
}

/** A route as vppnet reads it back: prefix and paths without stats_index or padding labels. */
function routeView(d: Obj): string {
  const r = d.route as {
    prefix: { address: { un: { ip6: string } }; len: number };
    paths: {
      sw_if_index: number;
      table_id: number;
      type: number;
      flags: number;
      proto: number;
      nh: { address: { ip6: string } };
    }[];
    src?: number;
  };
  const paths = r.paths.map(
    (p) =>
      `[sw ${p.sw_if_index} table ${p.table_id} type ${p.type} flags ${p.flags} proto ${p.proto} nh ${p.nh.address.ip6}]`,
  );
  return `${r.prefix.address.un.ip6}/${r.prefix.len}${r.src === undefined ? '' : ` src ${r.src}`} ${paths.join('')}`;
}

async function routes6(c: RawClient, table: number): Promise<string[]> {
  return (await dump(c, msg.ip_route_v2_dump, { table: { table_id: table, is_ip6: true }, src: 0 })).map(
    routeView,
  );
}

function route(table: number, ip: string, len: number, paths: { sw: number; table: number; nh?: string }[]) {
  return {
    is_add: true,
    is_multipath: false,
    route: {
      table_id: table,
      stats_index: 0,
      prefix: prefix6(ip, len),
      n_paths: paths.length,
      paths: paths.map((p) => ({
        sw_if_index: p.sw,
        table_id: p.table,
        rpf_id: 0,
        weight: 1,
        preference: 0,
        type: 0,
        flags: 0,
        proto: 1,
        nh: { address: { ip6: p.nh ?? '::' }, via_label: 0, obj_id: 0, classify_table_index: 0 },
        n_labels: 0,
        label_stack: [],
      })),
    },
  };
}

const FRESH_TABLE = [
  '::/0 src 20 [sw 4294967295 table 0 type 2 flags 0 proto 1 nh ::]',
  'fe80::/10 src 1 [sw 4294967295 table 0 type 0 flags 0 proto 1 nh ::]',
];

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

describe('simulator: the IPv6 link (sw_interface_ip6_enable_disable, link-local)', () => {
  it('counts locks: enable twice (0, −81), one disable leaves it on, the next turns it off, then −62', async () => {
    const { c } = await start();
    const lo = await loopback(c, '02:fe:c9:3d:74:f7');
    const en = (enable: boolean) => rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: lo, enable });
    const ll = () => call(c, msg.sw_interface_ip6_get_link_local_address, { sw_if_index: lo });
    assert.equal((await ll()).retval, -62); // VPP leaves ip unset then: old buffer bytes
    assert.equal(await en(false), -62);
    assert.equal(await en(true), 0);
    assert.deepEqual(await ll(), { retval: 0, ip: 'fe80::fe:c9ff:fe3d:74f7' });
    assert.equal(await en(true), -81);
    assert.equal(await en(false), 0);
    assert.deepEqual(await ll(), { retval: 0, ip: 'fe80::fe:c9ff:fe3d:74f7' });
    assert.equal(await en(false), 0);
    assert.equal((await ll()).retval, -62); // VPP leaves ip unset then: old buffer bytes
    assert.equal(await en(false), -62);
    assert.equal(await rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: 9999, enable: true }), -2);
    const { t } = open[0] as { t: VppTarget };
    assert.equal(t.sim?.state.interfaces.find((i) => i.swIfIndex === lo)?.linkLocal, undefined);
  });

  it('sets the link-local (and, when off, enables with one lock); re-enabling goes back to EUI-64', async () => {
    const { c } = await start();
    const lo = await loopback(c, '02:fe:00:00:00:02');
    const ll = () => call(c, msg.sw_interface_ip6_get_link_local_address, { sw_if_index: lo });
    const en = (enable: boolean) => rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: lo, enable });
    assert.equal(
      await rv(c, msg.sw_interface_ip6_set_link_local_address, { sw_if_index: lo, ip: 'fe80::2' }),
      0,
    );
    assert.deepEqual(await ll(), { retval: 0, ip: 'fe80::2' });
    assert.equal(
      await rv(c, msg.sw_interface_ip6_set_link_local_address, { sw_if_index: lo, ip: 'fe80::1' }),
      0,
    );
    assert.deepEqual(await ll(), { retval: 0, ip: 'fe80::1' });
    assert.equal(await en(false), 0); // the one lock set_link_local took
    assert.equal((await ll()).retval, -62); // VPP leaves ip unset then: old buffer bytes
    assert.equal(await en(true), 0);
    assert.deepEqual(await ll(), { retval: 0, ip: 'fe80::fe:ff:fe00:2' });
  });

  it('adding an IPv6 address enables IPv6 with a lock; deleting it drops that lock', async () => {
    const { c } = await start();
    const lo = await loopback(c, '02:fe:00:00:00:03');
    const addr = (is_add: boolean) =>
      rv(c, msg.sw_interface_add_del_address, {
        sw_if_index: lo,
        is_add,
        del_all: false,
        prefix: prefix6('2001:db8:ff::1', 64),
      });
    const en = (enable: boolean) => rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: lo, enable });
    const ll = () => call(c, msg.sw_interface_ip6_get_link_local_address, { sw_if_index: lo });
    assert.equal(await addr(true), 0);
    assert.deepEqual(await ll(), { retval: 0, ip: 'fe80::fe:ff:fe00:3' });
    assert.equal(await en(true), -81);
    assert.equal(await en(false), 0);
    assert.deepEqual(await ll(), { retval: 0, ip: 'fe80::fe:ff:fe00:3' }); // the address's lock
    assert.equal(await addr(false), 0);
    assert.equal((await ll()).retval, -62); // VPP leaves ip unset then: old buffer bytes
  });
});

type RaDetails = Obj & { prefixes: Obj[] };

async function raDump(c: RawClient, sw: number): Promise<RaDetails[]> {
  return (await dump(c, msg.sw_interface_ip6nd_ra_dump, { sw_if_index: sw })) as RaDetails[];
}

/** The fields of a prefix a real VPP reports exactly (its *_expires count down from "now"). */
function prefixView(p: Obj): Obj {
  const { valid_lifetime_expires: v, pref_lifetime_expires: pr, prefix, ...rest } = p;
  const px = prefix as { address: { un: { ip6: string } }; len: number };
  return {
    prefix: `${px.address.un.ip6}/${px.len}`,
    ...rest,
    validExpiresAbout: Math.round(v as number) + 0,
    prefExpiresAbout: Math.round(pr as number) + 0,
  };
}

const RA_DEFAULTS = {
  cur_hop_limit: 64,
  adv_managed_flag: false,
  adv_other_flag: false,
  adv_router_lifetime: 600,
  adv_neighbor_reachable_time: 0,
  adv_retransmit_interval: 0,
  send_radv: false,
  cease_radv: false,
  send_unicast: false,
  adv_link_layer_address: true,
  max_radv_interval: 200,
  min_radv_interval: 150,
  last_radv_time: 0,
  last_multicast_time: 0,
  next_multicast_time: 0,
  initial_adverts_count: 3,
  initial_adverts_interval: 16,
  initial_adverts_sent: false,
  n_advertisements_sent: 0,
  n_solicitations_rcvd: 0,
  n_solicitations_dropped: 0,
};

const raConfig = (sw: number, o: Partial<MessageInput<typeof msg.sw_interface_ip6nd_ra_config>>) => ({
  sw_if_index: sw,
  suppress: 0,
  managed: 0,
  other: 0,
  ll_option: 0,
  send_unicast: 0,
  cease: 0,
  is_no: false,
  default_router: 0,
  max_interval: 0,
  min_interval: 0,
  lifetime: 0,
  initial_count: 0,
  initial_interval: 0,
  ...o,
});

const raPrefix = (
  sw: number,
  p: string,
  o: Partial<MessageInput<typeof msg.sw_interface_ip6nd_ra_prefix>> = {},
) => ({
  sw_if_index: sw,
  prefix: prefix6(p, 64),
  use_default: false,
  no_advertise: false,
  off_link: false,
  no_autoconfig: false,
  no_onlink: false,
  is_no: false,
  val_lifetime: 0,
  pref_lifetime: 0,
  ...o,
});

const VPC_PREFIX = { no_onlink: true, val_lifetime: 2592000, pref_lifetime: 604800 };
const VPC_RA = { default_router: 1, max_interval: 30, min_interval: 10, lifetime: 600 };

describe('simulator: router advertisements', () => {
  it('answers −62 while IPv6 is off; once on, lists the defaults with the IPv6 MTU of that moment', async () => {
    const { c } = await start();
    const lo = await loopback(c, '02:fe:00:00:01:01');
    assert.equal(await rv(c, msg.sw_interface_ip6nd_ra_config, raConfig(lo, VPC_RA)), -62);
    assert.equal(
      await rv(c, msg.sw_interface_ip6nd_ra_prefix, raPrefix(lo, '2001:db8:a::', VPC_PREFIX)),
      -62,
    );
    assert.deepEqual(await raDump(c, lo), []);
    assert.equal(await rv(c, msg.sw_interface_set_mtu, { sw_if_index: lo, mtu: [0, 1460, 1460, 0] }), 0);
    assert.equal(await rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: lo, enable: true }), 0);
    // the MTU is copied once: a later change does not show
    assert.equal(await rv(c, msg.sw_interface_set_mtu, { sw_if_index: lo, mtu: [0, 1400, 1400, 0] }), 0);
    assert.deepEqual(await raDump(c, lo), [
      { sw_if_index: lo, ...RA_DEFAULTS, adv_link_mtu: 1460, n_prefixes: 0, prefixes: [] },
    ]);
    // enabled at the default MTU: 9000
    const lo2 = await loopback(c, '02:fe:00:00:01:02');
    assert.equal(await rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: lo2, enable: true }), 0);
    assert.equal((await raDump(c, lo2))[0]?.adv_link_mtu, 9000);
  });

  it('validates intervals and lifetime as VPP does; a rejected config still turns sending on', async () => {
    const { c } = await start();
    const lo = await loopback(c, '02:fe:00:00:02:01');
    assert.equal(await rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: lo, enable: true }), 0);
    assert.equal(
      await rv(c, msg.sw_interface_ip6nd_ra_config, raConfig(lo, { max_interval: 30, min_interval: 29 })),
      -7,
    );
    const after = (await raDump(c, lo))[0] as RaDetails;
    assert.deepEqual([after.send_radv, after.max_radv_interval, after.min_radv_interval], [true, 200, 150]);
    // lifetime only counts with default_router: 100 ≤ 200 is accepted without, refused with
    assert.equal(
      await rv(c, msg.sw_interface_ip6nd_ra_config, raConfig(lo, { max_interval: 200, lifetime: 100 })),
      0,
    );
    assert.equal(
      await rv(
        c,
        msg.sw_interface_ip6nd_ra_config,
        raConfig(lo, { max_interval: 200, lifetime: 100, default_router: 1 }),
      ),
      -7,
    );
    // no min_interval: 0.75 · max, truncated (30 → 22)
    assert.equal(
      await rv(
        c,
        msg.sw_interface_ip6nd_ra_config,
        raConfig(lo, { max_interval: 30, lifetime: 600, default_router: 1 }),
      ),
      0,
    );
    assert.equal((await raDump(c, lo))[0]?.min_radv_interval, 22);
    assert.equal(await rv(c, msg.sw_interface_ip6nd_ra_config, raConfig(lo, VPC_RA)), 0);
    const d = (await raDump(c, lo))[0] as RaDetails;
    assert.deepEqual(
      [d.send_radv, d.adv_router_lifetime, d.max_radv_interval, d.min_radv_interval],
      [true, 600, 30, 10],
    );
  });

  it('keeps prefixes by address: re-add keeps explicit lifetimes, use_default zeroes an existing one, −7/−8 on delete', async () => {
    const { c } = await start();
    const lo = await loopback(c, '02:fe:00:00:03:01');
    assert.equal(await rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: lo, enable: true }), 0);
    assert.equal(await rv(c, msg.sw_interface_ip6nd_ra_prefix, raPrefix(lo, '2001:db8:a::', VPC_PREFIX)), 0);
    assert.equal(await rv(c, msg.sw_interface_ip6nd_ra_prefix, raPrefix(lo, '2001:db8:a::', VPC_PREFIX)), 0);
    assert.equal(
      await rv(c, msg.sw_interface_ip6nd_ra_prefix, raPrefix(lo, '2001:db8:b::', { is_no: true })),
      -7,
    );
    assert.equal(
      await rv(c, msg.sw_interface_ip6nd_ra_prefix, {
        ...raPrefix(lo, '2001:db8:a::', { is_no: true }),
        prefix: prefix6('2001:db8:a::', 48),
      }),
      -8,
    );
    const vpc = {
      prefix: '2001:db8:a::/64',
      onlink_flag: false,
      autonomous_flag: true,
      val_lifetime: 2592000,
      pref_lifetime: 604800,
      decrement_lifetime_flag: true,
      no_advertise: false,
      validExpiresAbout: 2592000,
      prefExpiresAbout: 604800,
    };
    assert.deepEqual(((await raDump(c, lo))[0] as RaDetails).prefixes.map(prefixView), [vpc]);
    assert.equal(
      await rv(c, msg.sw_interface_ip6nd_ra_prefix, raPrefix(lo, '2001:db8:a::', { use_default: true })),
      0,
    );
    assert.equal(
      await rv(
        c,
        msg.sw_interface_ip6nd_ra_prefix,
        raPrefix(lo, '2001:db8:c::', { use_default: true, no_onlink: true }),
      ),
      0,
    );
    assert.equal(
      await rv(
        c,
        msg.sw_interface_ip6nd_ra_prefix,
        raPrefix(lo, '2001:db8:d::', { val_lifetime: ANY, pref_lifetime: ANY, no_advertise: true }),
      ),
      0,
    );
    const d = (await raDump(c, ANY)).find((x) => x.sw_if_index === lo) as RaDetails;
    assert.equal(d.n_prefixes, 3);
    assert.deepEqual(d.prefixes.map(prefixView), [
      // the trap: an existing prefix takes the request's (zero) lifetimes and flags
      {
        prefix: '2001:db8:a::/64',
        onlink_flag: true,
        autonomous_flag: true,
        val_lifetime: 0,
        pref_lifetime: 0,
        decrement_lifetime_flag: true,
        no_advertise: false,
        validExpiresAbout: 0,
        prefExpiresAbout: 0,
      },
      // a new one gets VPP's defaults, and its flags are ignored
      {
        prefix: '2001:db8:c::/64',
        onlink_flag: true,
        autonomous_flag: true,
        val_lifetime: 2592000,
        pref_lifetime: 604800,
        decrement_lifetime_flag: true,
        no_advertise: false,
        validExpiresAbout: 2592000,
        prefExpiresAbout: 604800,
      },
      {
        prefix: '2001:db8:d::/64',
        onlink_flag: true,
        autonomous_flag: true,
        val_lifetime: ANY,
        pref_lifetime: ANY,
        decrement_lifetime_flag: false,
        no_advertise: true,
        validExpiresAbout: 0,
        prefExpiresAbout: 0,
      },
    ]);
  });

  it('drops the RA config and prefixes when IPv6 goes off; re-enabling starts from the defaults', async () => {
    const { c } = await start();
    const lo = await loopback(c, '02:fe:00:00:04:01');
    assert.equal(await rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: lo, enable: true }), 0);
    assert.equal(await rv(c, msg.sw_interface_ip6nd_ra_prefix, raPrefix(lo, '2001:db8:a::', VPC_PREFIX)), 0);
    assert.equal(await rv(c, msg.sw_interface_ip6nd_ra_config, raConfig(lo, VPC_RA)), 0);
    assert.equal(await rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: lo, enable: false }), 0);
    assert.deepEqual(await raDump(c, lo), []);
    assert.ok(!(await raDump(c, ANY)).some((d) => d.sw_if_index === lo));
    assert.equal(await rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: lo, enable: true }), 0);
    assert.deepEqual(await raDump(c, lo), [
      { sw_if_index: lo, ...RA_DEFAULTS, adv_link_mtu: 9000, n_prefixes: 0, prefixes: [] },
    ]);
  });
});

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
    const ps = await c.dump(msg.ip6nd_proxy_dump, {}, ctx++);
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
    const context = ctx++;
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

const NO_NH = { af: 0, un: { ip4: '0.0.0.0' } };
const localsid = (sid: string, behavior: number, table: number, is_del = false) => ({
  is_del,
  localsid: sid,
  end_psp: false,
  behavior,
  sw_if_index: table,
  vlan_index: 0,
  fib_table: 0,
  nh_addr: NO_NH,
});
const policy = (bsid: string, sid: string) => ({
  bsid_addr: bsid,
  weight: 1,
  is_encap: true,
  is_spray: false,
  fib_table: 0,
  sids: { num_sids: 1, weight: 1, sids: [sid, ...Array<string>(15).fill('::')] },
});
const steer6 = (bsid: string, table: number, ip: string, is_del = false) => ({
  is_del,
  bsid_addr: bsid,
  table_id: table,
  prefix: prefix6(ip, 128),
  sw_if_index: 0,
  traffic_type: 6,
});

describe('simulator: SRv6 End.DT6 and IPv6 steering', () => {
  it('lists an End.DT6 SID with its IPv6 table id', async () => {
    const { c } = await start();
    await table6(c, 170);
    assert.equal(await rv(c, msg.sr_localsid_add_del, localsid('fc00:0:17::100:aa', 8, 170)), 0);
    assert.equal(await rv(c, msg.sr_localsid_add_del, localsid('fc00:0:17::100:aa', 8, 170)), -1);
    const sids = await dump(c, msg.sr_localsids_dump, {});
    assert.deepEqual(
      sids.filter((s) => s.addr === 'fc00:0:17::100:aa'),
      [
        {
          addr: 'fc00:0:17::100:aa',
          end_psp: false,
          behavior: 8,
          fib_table: 0,
          vlan_index: 0,
          xconnect_nh_addr: { af: 0, un: { ip4: '0.0.0.0', ip6: '::' } },
          xconnect_iface_or_vrf_table: 170,
        },
      ],
    );
    assert.equal(await rv(c, msg.sr_localsid_add_del, localsid('fc00:0:17::100:aa', 8, 170, true)), 0);
    assert.ok(!(await dump(c, msg.sr_localsids_dump, {})).some((s) => s.addr === 'fc00:0:17::100:aa'));
  });

  it('keys IPv6 steering by (prefix, table, type); a re-add re-points; the dump shows what VPP shows', async () => {
    const { c } = await start();
    await table6(c, 180);
    await table6(c, 181);
    assert.equal(await rv(c, msg.sr_policy_add, policy('fc00:ff:18::62:100:a', 'fc00:0:62::100:a')), 0);
    assert.equal(await rv(c, msg.sr_policy_add, policy('fc00:ff:18::62:100:14', 'fc00:0:62::100:14')), 0);
    const vm = '2001:db8:18::5054:ff:fe62:a01';
    assert.equal(await rv(c, msg.sr_steering_add_del, steer6('fc00:ff:18::62:100:a', 180, vm)), 0);
    assert.equal(await rv(c, msg.sr_steering_add_del, steer6('fc00:ff:18::62:100:14', 181, vm)), 0);
    assert.equal(await rv(c, msg.sr_steering_add_del, steer6('fc00:ff:18::62:100:14', 180, vm)), 0);
    assert.equal(await rv(c, msg.sr_steering_add_del, steer6('fc00:ff:18::62:100:a', 180, vm)), 0);
    assert.equal(await rv(c, msg.sr_steering_add_del, steer6('fc00:ff:18::99', 180, '2001:db8:18::1')), -2);
    assert.equal(
      await rv(c, msg.sr_steering_add_del, steer6('fc00:ff:18::62:100:a', 180, '2001:db8:18::2', true)),
      -4,
    );
    const steering = (await dump(c, msg.sr_steering_pol_dump, {})).filter((s) =>
      [180, 181].includes(s.fib_table as number),
    );
    // sw_if_index is a union with the prefix: 2001:0db8 read as a little-endian u32
    const entry = (table: number, bsid: string) => ({
      traffic_type: 6,
      fib_table: table,
      prefix: {
        address: { af: 1, un: { ip4: '32.1.13.184', ip6: '2001:db8:18:0:5054:ff:fe62:a01' } },
        len: 128,
      },
      sw_if_index: 0xb80d0120,
      bsid,
    });
    assert.deepEqual(steering, [entry(180, 'fc00:ff:18::62:100:a'), entry(181, 'fc00:ff:18::62:100:14')]);
    const remote = (await routes6(c, 180)).filter((r) => r.startsWith('2001:db8:18:'));
    assert.deepEqual(remote, [
      '2001:db8:18:0:5054:ff:fe62:a01/128 src 5 [sw 4294967295 table 4294967295 type 0 flags 0 proto 1 nh fc00:ff:18::62:100:a]',
    ]);
    assert.equal(await rv(c, msg.sr_steering_add_del, steer6('fc00:ff:18::62:100:a', 180, vm, true)), 0);
    assert.equal(await rv(c, msg.sr_steering_add_del, steer6('fc00:ff:18::62:100:14', 181, vm, true)), 0);
    assert.equal(
      await rv(c, msg.sr_policy_del, { bsid_addr: 'fc00:ff:18::62:100:a', sr_policy_index: 0 }),
      0,
    );
    assert.equal(
      await rv(c, msg.sr_policy_del, { bsid_addr: 'fc00:ff:18::62:100:14', sr_policy_index: 0 }),
      0,
    );
  });

  it(
    'a DT6 or DT4 SID into a missing table answers 0, and the next sr_localsids_dump kills VPP',
    { skip: SIM_ONLY },
    async () => {
      for (const behavior of [8, 9]) {
        const { t, c } = await start();
        assert.equal(await rv(c, msg.sr_localsid_add_del, localsid('fc00:0:19::1', behavior, 190)), 0);
        c.send(msg.sr_localsids_dump, {}, ctx++);
        await c.closed;
        assert.equal(t.sim?.state.crashes.length, 1);
        assert.equal(t.sim?.state.sr.localsids.length, 0, 'VPP came back empty');
      }
    },
  );

  it('IPv6 steering into a missing IPv6 table kills VPP at once', { skip: SIM_ONLY }, async () => {
    const { t, c } = await start();
    assert.equal(await rv(c, msg.sr_policy_add, policy('fc00:ff:19::1', 'fc00:0:62::100:a')), 0);
    const received = c.received.length;
    c.send(msg.sr_steering_add_del, steer6('fc00:ff:19::1', 191, '2001:db8:19::1'), ctx++);
    await c.closed;
    assert.equal(c.received.length, received, 'no reply');
    assert.equal(t.sim?.state.crashes.length, 1);
  });
});
