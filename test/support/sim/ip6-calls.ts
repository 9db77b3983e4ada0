/**
 * IPv6 tables, routes, router advertisements and SRv6 messages made and read over the raw test
 * client, for the simulator's IPv6 tests (src/vpp/sim/ip6-*.test.ts, which also run against a real
 * VPP): one VPP target per test, closed after it; the views of routes and prefixes they compare.
 */
import assert from 'node:assert/strict';
import { afterEach } from 'node:test';
import { decodeMessage } from '../../../src/vpp/codec/message-codec.js';
import type { MessageDef, MessageInput } from '../../../src/vpp/codec/schema.js';
import { msg } from '../../../src/vpp/messages/index.js';
import { RawClient } from '../raw-client.js';
import { startVppTarget, type VppTarget } from '../vpp-target.js';

export const ANY = 0xffffffff;

export function strip(o: Obj): Obj {
  const { context: _c, ...rest } = o;
  return rest;
}

export const ip6 = (a: string) => ({ af: 1, un: { ip6: a } });

export const prefix6 = (a: string, len: number) => ({ address: ip6(a), len });

/** A route as vppnet reads it back: prefix and paths without stats_index or padding labels. */
export function routeView(d: Obj): string {
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

export function route(
  table: number,
  ip: string,
  len: number,
  paths: { sw: number; table: number; nh?: string }[],
) {
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

export const FRESH_TABLE = [
  '::/0 src 20 [sw 4294967295 table 0 type 2 flags 0 proto 1 nh ::]',
  'fe80::/10 src 1 [sw 4294967295 table 0 type 0 flags 0 proto 1 nh ::]',
];

/** The fields of a prefix a real VPP reports exactly (its *_expires count down from "now"). */
export function prefixView(p: Obj): Obj {
  const { valid_lifetime_expires: v, pref_lifetime_expires: pr, prefix, ...rest } = p;
  const px = prefix as { address: { un: { ip6: string } }; len: number };
  return {
    prefix: `${px.address.un.ip6}/${px.len}`,
    ...rest,
    validExpiresAbout: Math.round(v as number) + 0,
    prefExpiresAbout: Math.round(pr as number) + 0,
  };
}

export const RA_DEFAULTS = {
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

export const raConfig = (sw: number, o: Partial<MessageInput<typeof msg.sw_interface_ip6nd_ra_config>>) => ({
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

export const raPrefix = (
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

export const VPC_PREFIX = { no_onlink: true, val_lifetime: 2592000, pref_lifetime: 604800 };

export const VPC_RA = { default_router: 1, max_interval: 30, min_interval: 10, lifetime: 600 };

export const NO_NH = { af: 0, un: { ip4: '0.0.0.0' } };

export const localsid = (sid: string, behavior: number, table: number, is_del = false) => ({
  is_del,
  localsid: sid,
  end_psp: false,
  behavior,
  sw_if_index: table,
  vlan_index: 0,
  fib_table: 0,
  nh_addr: NO_NH,
});

export const policy = (bsid: string, sid: string) => ({
  bsid_addr: bsid,
  weight: 1,
  is_encap: true,
  is_spray: false,
  fib_table: 0,
  sids: { num_sids: 1, weight: 1, sids: [sid, ...Array<string>(15).fill('::')] },
});

export const steer6 = (bsid: string, table: number, ip: string, is_del = false) => ({
  is_del,
  bsid_addr: bsid,
  table_id: table,
  prefix: prefix6(ip, 128),
  sw_if_index: 0,
  traffic_type: 6,
});

export type Obj = Record<string, unknown>;

export type RaDetails = Obj & { prefixes: Obj[] };

/** Registers the file's afterEach (call it at the top level of a test file). */
export function ip6Sessions() {
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

  async function routes6(c: RawClient, table: number): Promise<string[]> {
    return (await dump(c, msg.ip_route_v2_dump, { table: { table_id: table, is_ip6: true }, src: 0 })).map(
      routeView,
    );
  }

  async function raDump(c: RawClient, sw: number): Promise<RaDetails[]> {
    return (await dump(c, msg.sw_interface_ip6nd_ra_dump, { sw_if_index: sw })) as RaDetails[];
  }
  return {
    start,
    call,
    rv,
    dump,
    loopback,
    table6,
    routes6,
    raDump,
    /** The targets and clients this test started, in order. */
    open,
    /** The context of a request a test sends itself. */
    nextContext: () => ctx++,
  };
}
