/**
 * The simulator's uRPF plugin against VPP 26.06 (src/plugins/urpf/urpf_api.c, urpf.c, urpf_dp.h):
 * retvals, what urpf_interface_dump lists and in which order, how table binds and interface
 * deletion change it, and the check model (VppSimulator.urpfVerdict). The API tests also run
 * against a real VPP (VPP_API_SOCKET, with the urpf plugin; each test uses its own interfaces and
 * tables); the verdicts and state snapshots are the simulator's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../messages/index.js';
import { RawClient } from '../../../test/support/raw-client.js';
import { rawSessions, type Obj } from '../../../test/support/raw-session.js';
import { SIM_ONLY } from '../../../test/support/vpp-target.js';
import type { VppSimulator } from './simulator.js';

const ANY = 0xffffffff;
const OFF = 0;
const LOOSE = 1;
const STRICT = 2;
const IP4 = 0;
const IP6 = 1;

const { start, rv, dump, loopback } = rawSessions('urpf-test');

async function up(c: RawClient, sw: number): Promise<void> {
  assert.equal(await rv(c, msg.sw_interface_set_flags, { sw_if_index: sw, flags: 1 }), 0);
}

async function address(c: RawClient, sw: number, text: string): Promise<void> {
  const [ip, len] = text.split('/') as [string, string];
  const a = ip.includes(':') ? { af: IP6, un: { ip6: ip } } : { af: IP4, un: { ip4: ip } };
  assert.equal(
    await rv(c, msg.sw_interface_add_del_address, {
      sw_if_index: sw,
      is_add: true,
      del_all: false,
      prefix: { address: a, len: Number(len) },
    }),
    0,
  );
}

async function table(c: RawClient, id: number, ip6 = false): Promise<void> {
  assert.equal(
    await rv(c, msg.ip_table_add_del, { is_add: true, table: { table_id: id, is_ip6: ip6, name: '' } }),
    0,
  );
}

/** An IPv4 route in table 0 with one path (sw ANY and no next hop: a lookup in `lookupTable`). */
function route4(prefix: string, path: { sw: number; nh?: string; lookupTable?: number }) {
  const [ip, len] = prefix.split('/') as [string, string];
  return {
    is_add: true,
    is_multipath: false,
    route: {
      table_id: 0,
      stats_index: 0,
      prefix: { address: { af: IP4, un: { ip4: ip } }, len: Number(len) },
      n_paths: 1,
      paths: [
        {
          sw_if_index: path.sw,
          table_id: path.lookupTable ?? 0,
          rpf_id: 0,
          weight: 1,
          preference: 0,
          type: 0,
          flags: 0,
          proto: 0,
          nh: { address: { ip4: path.nh ?? '0.0.0.0' }, via_label: 0, obj_id: 0, classify_table_index: 0 },
          n_labels: 0,
          label_stack: [],
        },
      ],
    },
  };
}

interface Upd {
  sw: number;
  mode: number;
  af?: number;
  isInput?: boolean;
}

const v1 = (c: RawClient, u: Upd): Promise<number> =>
  rv(c, msg.urpf_update, {
    sw_if_index: u.sw,
    mode: u.mode,
    af: u.af ?? IP4,
    is_input: u.isInput ?? true,
  });

const v2 = (c: RawClient, u: Upd & { table?: number }): Promise<number> =>
  rv(c, msg.urpf_update_v2, {
    sw_if_index: u.sw,
    mode: u.mode,
    af: u.af ?? IP4,
    is_input: u.isInput ?? true,
    table_id: u.table ?? ANY,
  });

const urpfDump = (c: RawClient, sw = ANY): Promise<Obj[]> =>
  dump(c, msg.urpf_interface_dump, { sw_if_index: sw });

const row = (sw: number, af: number, isInput: boolean, mode: number, tableId: number): Obj => ({
  sw_if_index: sw,
  is_input: isInput,
  mode,
  af,
  table_id: tableId,
});

describe('simulator: urpf_update and urpf_update_v2 retvals', () => {
  it('checks sw_if_index first (−2), then the mode (−7), then the family (−97)', async () => {
    const { c } = await start();
    const lo = await loopback(c);
    for (const upd of [v1, v2]) {
      assert.equal(await upd(c, { sw: 9999, mode: 7, af: 5 }), -2);
      assert.equal(await upd(c, { sw: ANY, mode: STRICT }), -2);
      assert.equal(await upd(c, { sw: lo, mode: 3, af: 5 }), -7);
      assert.equal(await upd(c, { sw: lo, mode: STRICT, af: 2 }), -97);
    }
    assert.deepEqual(await urpfDump(c, lo), []);
  });

  it('v2: a table_id without a table of that family is −7 (INVALID_VALUE) and stores nothing', async () => {
    const { c } = await start();
    const lo = await loopback(c);
    await table(c, 7211, true); // an IPv6 table only
    assert.equal(await v2(c, { sw: lo, mode: STRICT, table: 7212 }), -7);
    assert.equal(await v2(c, { sw: lo, mode: STRICT, af: IP4, table: 7211 }), -7);
    assert.deepEqual(await urpfDump(c, lo), []);
    assert.equal(await v2(c, { sw: lo, mode: STRICT, af: IP6, table: 7211 }), 0);
    assert.equal(await v2(c, { sw: lo, mode: LOOSE, af: IP4, table: 0 }), 0);
    assert.deepEqual(await urpfDump(c, lo), [row(lo, IP4, true, LOOSE, 0), row(lo, IP6, true, STRICT, 7211)]);
  });

  it(
    'the plugin can be missing: removed messages are gone from the next handshake',
    { skip: SIM_ONLY },
    async () => {
      const { t } = await start();
      const sim = t.sim as VppSimulator;
      for (const m of ['urpf_update', 'urpf_update_v2', 'urpf_interface_dump']) sim.removeMessage(m);
      const c2 = await RawClient.connect(t.socketPath);
      try {
        await c2.handshake('urpf-missing');
        assert.throws(() => c2.idOf(msg.urpf_update_v2), /not in the table/);
        assert.throws(() => c2.idOf(msg.urpf_interface_dump), /not in the table/);
      } finally {
        c2.close();
      }
    },
  );
});

describe('simulator: urpf_interface_dump', () => {
  it('walks interfaces in index order, IPv4 RX, IPv4 TX, IPv6 RX, IPv6 TX; lists mode OFF only with a custom table', async () => {
    const { c } = await start();
    // (a real VPP may hand out freed indices first: name them by order)
    const [a, b] = [await loopback(c), await loopback(c)].sort((x, y) => x - y) as [number, number];
    // configured in the opposite order to the dump's
    assert.equal(await v2(c, { sw: b, mode: STRICT, af: IP6, isInput: false }), 0);
    assert.equal(await v2(c, { sw: b, mode: OFF, af: IP6, isInput: true }), 0); // not custom: not listed
    assert.equal(await v2(c, { sw: b, mode: LOOSE, af: IP4, isInput: true }), 0);
    // v1 passes table id 0 to urpf_update: a custom table, listed with mode OFF
    assert.equal(await v1(c, { sw: b, mode: OFF, af: IP4, isInput: false }), 0);
    assert.equal(await v2(c, { sw: a, mode: STRICT, af: IP6, isInput: true }), 0);
    const mine = (await urpfDump(c)).filter((d) => d.sw_if_index === a || d.sw_if_index === b);
    assert.deepEqual(mine, [
      row(a, IP6, true, STRICT, 0),
      row(b, IP4, true, LOOSE, 0),
      row(b, IP4, false, OFF, 0),
      row(b, IP6, false, STRICT, 0),
    ]);
    assert.deepEqual(await urpfDump(c, a), [row(a, IP6, true, STRICT, 0)]);
    // an invalid sw_if_index: no details
    assert.deepEqual(await urpfDump(c, 9999), []);
  });

  it('mode OFF without a table clears the entry from the dump; the last update wins', async () => {
    const { c } = await start();
    const lo = await loopback(c);
    assert.equal(await v2(c, { sw: lo, mode: STRICT }), 0);
    assert.equal(await v2(c, { sw: lo, mode: LOOSE }), 0);
    assert.deepEqual(await urpfDump(c, lo), [row(lo, IP4, true, LOOSE, 0)]);
    assert.equal(await v2(c, { sw: lo, mode: OFF }), 0);
    assert.deepEqual(await urpfDump(c, lo), []);
    // OFF with a custom table (v1's table 0) stays listed
    assert.equal(await v1(c, { sw: lo, mode: OFF }), 0);
    assert.deepEqual(await urpfDump(c, lo), [row(lo, IP4, true, OFF, 0)]);
  });

  it("reports the interface's table at dump time (table binds move it); v1 and v2 custom tables stay", async () => {
    const { c } = await start();
    const lo = await loopback(c);
    await table(c, 7221);
    await table(c, 7222);
    assert.equal(await v2(c, { sw: lo, mode: STRICT, isInput: true }), 0); // the interface's table
    assert.equal(await v1(c, { sw: lo, mode: LOOSE, isInput: false }), 0); // table 0, custom
    assert.equal(await v2(c, { sw: lo, mode: LOOSE, af: IP6, table: 0 }), 0); // custom
    assert.deepEqual(await urpfDump(c, lo), [
      row(lo, IP4, true, STRICT, 0),
      row(lo, IP4, false, LOOSE, 0),
      row(lo, IP6, true, LOOSE, 0),
    ]);
    assert.equal(
      await rv(c, msg.sw_interface_set_table, { sw_if_index: lo, is_ipv6: false, vrf_id: 7221 }),
      0,
    );
    assert.deepEqual(await urpfDump(c, lo), [
      row(lo, IP4, true, STRICT, 7221),
      row(lo, IP4, false, LOOSE, 0),
      row(lo, IP6, true, LOOSE, 0),
    ]);
    // configured while bound to 7221, then the interface moves again
    assert.equal(await v2(c, { sw: lo, mode: LOOSE, isInput: false }), 0);
    assert.equal(
      await rv(c, msg.sw_interface_set_table, { sw_if_index: lo, is_ipv6: false, vrf_id: 7222 }),
      0,
    );
    assert.deepEqual(await urpfDump(c, lo), [
      row(lo, IP4, true, STRICT, 7222),
      row(lo, IP4, false, LOOSE, 7222),
      row(lo, IP6, true, LOOSE, 0),
    ]);
  });

  it('keeps a deleted interface’s entries: the next interface with its index is listed but not checked', async () => {
    const { t, c } = await start();
    const lo = await loopback(c);
    await table(c, 7231);
    assert.equal(
      await rv(c, msg.sw_interface_set_table, { sw_if_index: lo, is_ipv6: false, vrf_id: 7231 }),
      0,
    );
    assert.equal(await v2(c, { sw: lo, mode: STRICT }), 0);
    assert.deepEqual(await urpfDump(c, lo), [row(lo, IP4, true, STRICT, 7231)]);
    assert.equal(await rv(c, msg.delete_loopback, { sw_if_index: lo }), 0);
    assert.deepEqual(await urpfDump(c, lo), []);
    if (t.sim) {
      // the delete bound it back to table 0 first: the callback moved the entry
      assert.deepEqual(
        t.sim.state.urpf.filter((u) => u.swIfIndex === lo),
        [
          {
            swIfIndex: lo,
            af: 4,
            isInput: true,
            mode: 'strict',
            tableId: 0,
            customTable: false,
            checking: false,
            interfaceExists: false,
          },
        ],
      );
    }
    const again = await loopback(c);
    assert.equal(again, lo); // the pool gives the index back
    assert.deepEqual(await urpfDump(c, again), [row(again, IP4, true, STRICT, 0)]);
    await up(c, again);
    await address(c, again, '10.72.31.1/24');
    const sim = t.sim;
    if (!sim) return;
    const verdict = () => sim.urpfVerdict({ swIfIndex: again, af: 4, src: '192.0.2.1', dst: '10.72.31.1' });
    assert.equal(verdict(), 'no-check');
    // the same mode and table: "no change", the node stays off
    assert.equal(await v2(c, { sw: again, mode: STRICT }), 0);
    assert.equal(verdict(), 'no-check');
    assert.equal(await v2(c, { sw: again, mode: LOOSE }), 0);
    assert.equal(verdict(), 'drop');
    assert.equal(sim.state.urpf.find((u) => u.swIfIndex === again)?.checking, true);
  });
});

describe('simulator: the uRPF check model (urpfVerdict)', { skip: SIM_ONLY }, () => {
  /** A (10.71.1.1/24, 2001:db8:71:1::1/64, strict) and B (10.71.2.1/24, 2001:db8:71:2::1/64, loose). */
  async function twoInterfaces(): Promise<{ sim: VppSimulator; c: RawClient; a: number; b: number }> {
    const { t, c } = await start();
    const a = await loopback(c);
    const b = await loopback(c);
    for (const [sw, v4, v6] of [
      [a, '10.71.1.1/24', '2001:db8:71:1::1/64'],
      [b, '10.71.2.1/24', '2001:db8:71:2::1/64'],
    ] as const) {
      await up(c, sw);
      await address(c, sw, v4);
      await address(c, sw, v6);
    }
    for (const af of [IP4, IP6]) {
      assert.equal(await v2(c, { sw: a, mode: STRICT, af }), 0);
      assert.equal(await v2(c, { sw: b, mode: LOOSE, af }), 0);
    }
    return { sim: t.sim as VppSimulator, c, a, b };
  }

  it('IPv4 RX: connected subnets, own and other interfaces’ addresses, network and broadcast, no route', async () => {
    const { sim, a, b } = await twoInterfaces();
    const v = (sw: number, src: string, dst = '10.71.1.1') =>
      sim.urpfVerdict({ swIfIndex: sw, af: 4, src, dst });
    // a host of A's connected subnet: the glean (attached) path is on A
    assert.equal(v(a, '10.71.1.5'), 'pass');
    assert.equal(v(b, '10.71.1.5'), 'pass'); // loose: any interface
    // a host of B's subnet arriving on A
    assert.equal(v(a, '10.71.2.5'), 'drop');
    // the interface's own address and B's: receive entries contribute no interface, even loose
    assert.equal(v(a, '10.71.1.1'), 'drop');
    assert.equal(v(a, '10.71.2.1'), 'drop');
    assert.equal(v(b, '10.71.2.1'), 'drop');
    assert.equal(v(b, '10.71.1.1'), 'drop');
    // network and broadcast /32s: drops, but loose-uRPF-exempt (local0 in the list)
    assert.equal(v(a, '10.71.1.0'), 'drop');
    assert.equal(v(a, '10.71.1.255'), 'drop');
    assert.equal(v(b, '10.71.2.0'), 'pass');
    assert.equal(v(b, '10.71.1.255'), 'pass');
    // no route: 0.0.0.0/0 drops, class E and 0.0.0.0/32 too
    assert.equal(v(a, '192.0.2.1'), 'drop');
    assert.equal(v(b, '192.0.2.1'), 'drop');
    assert.equal(v(b, '240.0.0.1'), 'drop');
    assert.equal(v(b, '0.0.0.0'), 'drop');
  });

  it('IPv4: multicast destinations and 255.255.255.255 pass whatever the source; a subnet broadcast does not', async () => {
    const { sim, a } = await twoInterfaces();
    const v = (src: string, dst: string) => sim.urpfVerdict({ swIfIndex: a, af: 4, src, dst });
    assert.equal(v('192.0.2.1', '224.0.0.5'), 'pass');
    assert.equal(v('192.0.2.1', '239.255.255.250'), 'pass');
    assert.equal(v('0.0.0.0', '255.255.255.255'), 'pass');
    assert.equal(v('0.0.0.0', '10.71.1.255'), 'drop');
    assert.equal(v('10.71.2.9', '10.71.1.255'), 'drop');
  });

  it('IPv6 RX: connected prefixes, own address, link-local sources (fe80::/10), ::/0, multicast', async () => {
    const { sim, a, b } = await twoInterfaces();
    const v = (sw: number, src: string, dst = '2001:db8:71:1::1') =>
      sim.urpfVerdict({ swIfIndex: sw, af: 6, src, dst });
    assert.equal(v(a, '2001:db8:71:1::5'), 'pass');
    assert.equal(v(a, '2001:db8:71:2::5'), 'drop');
    assert.equal(v(b, '2001:db8:71:1::5'), 'pass');
    assert.equal(v(a, '2001:db8:71:1::1'), 'drop');
    assert.equal(v(b, '2001:db8:71:2::1'), 'drop');
    // fe80::/10 in the interface's table is the link-local lookup DPO: no uRPF interface
    assert.equal(v(a, 'fe80::1', 'fe80::2'), 'drop');
    assert.equal(v(b, 'fe80::1', 'fe80::2'), 'drop');
    assert.equal(v(b, '2001:db8:ffff::1'), 'drop'); // ::/0 drop
    assert.equal(v(a, 'fe80::1', 'ff02::1'), 'pass');
    assert.equal(v(a, '::', 'ff02::1:ff00:1'), 'pass');
  });

  it('routes: attached next hop, recursive via a connected host, neighbour adjacencies, a deag is loose-exempt', async () => {
    const { sim, c, a, b } = await twoInterfaces();
    const v = (sw: number, src: string) => sim.urpfVerdict({ swIfIndex: sw, af: 4, src, dst: '10.71.1.1' });
    assert.equal(await rv(c, msg.ip_route_add_del, route4('198.51.100.0/24', { sw: b, nh: '10.71.2.7' })), 0);
    assert.equal(
      await rv(c, msg.ip_route_add_del, route4('203.0.113.0/24', { sw: ANY, nh: '10.71.1.9' })),
      0,
    );
    await table(c, 7241);
    assert.equal(
      await rv(c, msg.ip_route_add_del, route4('192.0.2.0/24', { sw: ANY, lookupTable: 7241 })),
      0,
    );
    assert.equal(v(a, '198.51.100.1'), 'drop');
    assert.equal(await v2(c, { sw: b, mode: STRICT }), 0);
    assert.equal(v(b, '198.51.100.1'), 'pass');
    // recursive: resolved through 10.71.1.9/32's cover, A's connected prefix
    assert.equal(v(a, '203.0.113.1'), 'pass');
    assert.equal(v(b, '203.0.113.1'), 'drop');
    // a deag (lookup in another table) contributes no interface but is loose-exempt
    assert.equal(v(a, '192.0.2.1'), 'drop');
    assert.equal(await v2(c, { sw: b, mode: LOOSE }), 0);
    assert.equal(v(b, '192.0.2.1'), 'pass');
    // a neighbour's host route on B
    sim.learnNeighbor(b, '10.71.2.8');
    assert.equal(await v2(c, { sw: b, mode: STRICT }), 0);
    assert.equal(v(b, '10.71.2.8'), 'pass');
    assert.equal(v(a, '10.71.2.8'), 'drop');
  });

  it('SRv6: a steered prefix is loose-exempt (local0), a localsid is not; a BSID source is undefined in VPP', async () => {
    const { sim, c, a, b } = await twoInterfaces();
    const steered = '2001:db8:73::5';
    assert.equal(
      await rv(c, msg.sr_policy_add, {
        bsid_addr: 'fc00:ff:73::1',
        weight: 1,
        is_encap: true,
        is_spray: false,
        fib_table: 0,
        sids: { num_sids: 1, weight: 1, sids: ['fc00:0:73::100:a', ...Array<string>(15).fill('::')] },
      }),
      0,
    );
    assert.equal(
      await rv(c, msg.sr_steering_add_del, {
        is_del: false,
        bsid_addr: 'fc00:ff:73::1',
        table_id: 0,
        prefix: { address: { af: IP6, un: { ip6: '2001:db8:73::' } }, len: 64 },
        sw_if_index: 0,
        traffic_type: 6,
      }),
      0,
    );
    assert.equal(
      await rv(c, msg.sr_localsid_add_del, {
        is_del: false,
        localsid: 'fc00:0:73::1',
        end_psp: false,
        behavior: 1, // End
        sw_if_index: 0,
        vlan_index: 0,
        fib_table: 0,
        nh_addr: { af: 0, un: { ip4: '0.0.0.0' } },
      }),
      0,
    );
    const v = (sw: number, src: string) =>
      sim.urpfVerdict({ swIfIndex: sw, af: 6, src, dst: '2001:db8:71:1::1' });
    assert.equal(v(a, steered), 'drop'); // strict: local0 is never the receiving interface
    assert.equal(v(b, steered), 'pass');
    assert.equal(v(b, 'fc00:0:73::1'), 'drop');
    assert.throws(() => v(b, 'fc00:ff:73::1'), /INDEX_INVALID/);
  });

  it('v1 looks sources up in table 0 whatever the interface is bound to; v2 uses the interface table or the one given', async () => {
    const { t, c } = await start();
    const sim = t.sim as VppSimulator;
    const lo = await loopback(c);
    await table(c, 7251);
    assert.equal(
      await rv(c, msg.sw_interface_set_table, { sw_if_index: lo, is_ipv6: false, vrf_id: 7251 }),
      0,
    );
    await up(c, lo);
    await address(c, lo, '10.72.51.1/24');
    const v = () => sim.urpfVerdict({ swIfIndex: lo, af: 4, src: '10.72.51.5', dst: '10.72.51.1' });
    assert.equal(v(), 'no-check');
    assert.equal(await v1(c, { sw: lo, mode: STRICT }), 0);
    assert.equal(v(), 'drop'); // table 0 has no 10.72.51.0/24
    assert.equal(await v2(c, { sw: lo, mode: STRICT }), 0);
    assert.equal(v(), 'pass');
    assert.equal(await v2(c, { sw: lo, mode: STRICT, table: 0 }), 0);
    assert.equal(v(), 'drop');
    assert.equal(await v2(c, { sw: lo, mode: STRICT, table: 7251 }), 0);
    assert.equal(v(), 'pass');
    assert.equal(await v2(c, { sw: lo, mode: OFF, table: 7251 }), 0);
    assert.equal(v(), 'no-check');
  });

  it('directions are separate; TX strict drops sources reachable through the sending interface', async () => {
    const { sim, c, a, b } = await twoInterfaces();
    const tx = (src: string, locallyOriginated = false) =>
      sim.urpfVerdict({ swIfIndex: b, af: 4, src, dst: '10.71.2.5', isInput: false, locallyOriginated });
    assert.equal(tx('10.71.1.5'), 'no-check');
    assert.equal(
      sim.urpfVerdict({ swIfIndex: a, af: 6, src: '::', dst: '2001:db8::1', isInput: false }),
      'no-check',
    );
    assert.equal(await v2(c, { sw: b, mode: STRICT, isInput: false }), 0);
    assert.equal(tx('10.71.1.5'), 'pass');
    assert.equal(tx('10.71.2.5'), 'drop');
    assert.equal(tx('192.0.2.1'), 'drop');
    assert.equal(tx('10.71.2.5', true), 'pass');
    assert.equal(await v2(c, { sw: b, mode: LOOSE, isInput: false }), 0);
    assert.equal(tx('10.71.2.5'), 'pass');
    assert.equal(tx('192.0.2.1'), 'drop');
  });

  it('state shows the configuration; a deleted custom table is reported by its old id, and a check on it throws', async () => {
    const { sim, c, a } = await twoInterfaces();
    await table(c, 7261);
    assert.equal(await v2(c, { sw: a, mode: STRICT, table: 7261 }), 0);
    assert.deepEqual(
      sim.state.urpf.filter((u) => u.swIfIndex === a),
      [
        {
          swIfIndex: a,
          af: 4,
          isInput: true,
          mode: 'strict',
          tableId: 7261,
          customTable: true,
          checking: true,
          interfaceExists: true,
        },
        {
          swIfIndex: a,
          af: 6,
          isInput: true,
          mode: 'strict',
          tableId: 0,
          customTable: false,
          checking: true,
          interfaceExists: true,
        },
      ],
    );
    // urpf takes no lock on the table it was given
    assert.equal(
      await rv(c, msg.ip_table_add_del, {
        is_add: false,
        table: { table_id: 7261, is_ip6: false, name: '' },
      }),
      0,
    );
    assert.deepEqual(await urpfDump(c, a), [row(a, IP4, true, STRICT, 7261), row(a, IP6, true, STRICT, 0)]);
    assert.throws(
      () => sim.urpfVerdict({ swIfIndex: a, af: 4, src: '10.71.1.5', dst: '10.71.1.1' }),
      /freed FIB/,
    );
    assert.throws(
      () => sim.urpfVerdict({ swIfIndex: a, af: 6, src: '10.71.1.5', dst: '::1' }),
      /not an IPv6/,
    );
    assert.throws(
      () => sim.urpfVerdict({ swIfIndex: 9999, af: 4, src: '10.71.1.5', dst: '10.71.1.1' }),
      /no interface/,
    );
  });
});
