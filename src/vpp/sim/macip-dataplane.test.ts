/**
 * The MACIP model (VppSimulator.macipVerdict) against VPP 26.06's macip_create_classify_tables
 * (acl.c), vnet_classify.c and l2-input-acl (l2_in_out_acl.c): which frames a MACIP ACL on a
 * bridge port lets through, the order its classifier tables are looked up in (match types by
 * metric, not the rules' order), what a miss does, and the node's counters. The verdicts are
 * the simulator's (no frames are sent), so these tests need it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../messages/index.js';
import type { RawClient } from '../../../test/support/raw-client.js';
import { rawSessions } from '../../../test/support/raw-session.js';
import { SIM_ONLY } from '../../../test/support/vpp-target.js';
import { macipClassifyTables, type MacipTableRule } from './macip-dataplane.js';
import type { VppSimulator } from './simulator.js';

const NONE = 0xffffffff;
const DENY = 0;
const PERMIT = 1;
const IP4 = 0x0800;
const IP6 = 0x86dd;
const ARP = 0x0806;
const EXACT = 'ff:ff:ff:ff:ff:ff';
const ANY = '00:00:00:00:00:00';
const MAC_A = '02:00:00:00:00:0a';
const MAC_B = '02:00:00:00:00:0b';

const HIT = 'input ACL hits';
const CHAIN = 'input ACL hits after chain walk';
const MISS = 'input ACL misses';
const TABLE_MISS = 'input ACL table-miss drops';
const SESSION_DENY = 'input ACL session deny drops';

const { start, call, rv, loopback } = rawSessions('macip-dataplane-test');

interface Rule {
  action: number;
  mac?: string;
  mask?: string;
  prefix: string;
}

function apiRule(r: Rule) {
  const [ip, len] = r.prefix.split('/') as [string, string];
  return {
    is_permit: r.action,
    src_mac: r.mac ?? ANY,
    src_mac_mask: r.mask ?? ANY,
    src_prefix: {
      address: ip.includes(':') ? { af: 1, un: { ip6: ip } } : { af: 0, un: { ip4: ip } },
      len: Number(len),
    },
  };
}

async function setup(): Promise<{
  sim: VppSimulator;
  c: RawClient;
  /** A loopback in bridge domain 10. */
  port: () => Promise<number>;
  acl: (...rules: Rule[]) => Promise<number>;
  replace: (index: number, ...rules: Rule[]) => Promise<void>;
  bind: (sw: number, acl: number) => Promise<void>;
  counters: () => [string, number][];
}> {
  const { t, c } = await start();
  const sim = t.sim as VppSimulator;
  assert.equal(await rv(c, msg.bridge_domain_add_del, { bd_id: 10, is_add: true, learn: true }), 0);
  return {
    sim,
    c,
    port: async () => {
      const sw = await loopback(c);
      assert.equal(
        await rv(c, msg.sw_interface_set_l2_bridge, { rx_sw_if_index: sw, bd_id: 10, enable: true }),
        0,
      );
      return sw;
    },
    acl: async (...rules) => {
      const r = await call(c, msg.macip_acl_add_replace, { acl_index: NONE, tag: '', r: rules.map(apiRule) });
      assert.equal(r.retval, 0);
      return r.acl_index as number;
    },
    replace: async (index, ...rules) => {
      const r = await call(c, msg.macip_acl_add_replace, {
        acl_index: index,
        tag: '',
        r: rules.map(apiRule),
      });
      assert.equal(r.retval, 0);
    },
    bind: async (sw, acl) => {
      assert.equal(
        await rv(c, msg.macip_acl_interface_add_del, { is_add: true, sw_if_index: sw, acl_index: acl }),
        0,
      );
    },
    counters: () => sim.state.errors.filter((e) => e.node === 'l2-input-acl').map((e) => [e.reason, e.count]),
  };
}

describe('simulator: the MACIP model (macipVerdict)', { skip: SIM_ONLY }, () => {
  it('no MACIP ACL, or one without rules: no check, nothing counted', async () => {
    const { sim, port, acl, bind, counters } = await setup();
    const sw = await port();
    const v = () => sim.macipVerdict({ swIfIndex: sw, ethertype: 0x88cc, srcMac: MAC_A });
    assert.equal(v(), 'no-macip');
    await bind(sw, await acl());
    assert.equal(v(), 'no-macip'); // no rules: no tables, vnet_set_input_acl_intfc enables nothing
    assert.deepEqual(counters(), []);
  });

  it('IPv4 rules: the (MAC, source) pair passes; another source, IPv6, other ethertypes are dropped as misses', async () => {
    const { sim, port, acl, bind, counters } = await setup();
    const sw = await port();
    await bind(sw, await acl({ action: PERMIT, mac: MAC_A, mask: EXACT, prefix: '10.0.0.0/24' }));
    const ip = (srcMac: string, srcIp: string, ethertype = IP4) =>
      sim.macipVerdict({ swIfIndex: sw, ethertype, srcMac, srcIp });
    assert.equal(ip(MAC_A, '10.0.0.7'), 'permit');
    assert.deepEqual(counters(), [[HIT, 1]]); // the head table: untagged IPv4 of the only match type
    assert.equal(ip(MAC_A, '10.0.1.7'), 'deny');
    assert.equal(ip(MAC_B, '10.0.0.7'), 'deny');
    assert.equal(ip(MAC_A, '2001:db8::7', IP6), 'deny'); // no IPv6 rule: no table takes it
    assert.equal(sim.macipVerdict({ swIfIndex: sw, ethertype: 0x88cc, srcMac: MAC_A }), 'deny'); // LLDP
    assert.deepEqual(counters(), [
      [MISS, 4],
      [HIT, 1],
      [TABLE_MISS, 4],
    ]);
  });

  it('ARP: Ethernet source and ARP sender MAC must both match, and the sender IPv4; found after the IP tables', async () => {
    const { sim, port, acl, bind, counters } = await setup();
    const sw = await port();
    await bind(sw, await acl({ action: PERMIT, mac: MAC_A, mask: EXACT, prefix: '10.0.0.5/32' }));
    const arp = (srcMac: string, senderMac: string, senderIp: string) =>
      sim.macipVerdict({
        swIfIndex: sw,
        ethertype: ARP,
        srcMac,
        arp: { senderMac, senderIp, targetIp: '10.0.0.1' },
      });
    assert.equal(arp(MAC_A, MAC_A, '10.0.0.5'), 'permit');
    // chain: ip4 untagged, dot1q, dot1ad, then arp untagged
    assert.deepEqual(counters(), [
      [HIT, 1],
      [CHAIN, 1],
    ]);
    assert.equal(arp(MAC_A, MAC_B, '10.0.0.5'), 'deny');
    assert.equal(arp(MAC_B, MAC_A, '10.0.0.5'), 'deny');
    assert.equal(arp(MAC_A, MAC_A, '10.0.0.6'), 'deny');
    // with the MAC mask all zero the MACs are not looked at
    await bind(sw, await acl({ action: PERMIT, prefix: '10.0.0.5/32' }));
    assert.equal(arp(MAC_A, MAC_B, '10.0.0.5'), 'permit');
  });

  it('IPv6-only ACL: IPv4 and ARP frames are dropped', async () => {
    const { sim, port, acl, bind } = await setup();
    const sw = await port();
    await bind(sw, await acl({ action: PERMIT, mac: MAC_A, mask: EXACT, prefix: '2001:db8::/64' }));
    assert.equal(
      sim.macipVerdict({ swIfIndex: sw, ethertype: IP6, srcMac: MAC_A, srcIp: '2001:db8::9' }),
      'permit',
    );
    assert.equal(
      sim.macipVerdict({ swIfIndex: sw, ethertype: IP4, srcMac: MAC_A, srcIp: '10.0.0.1' }),
      'deny',
    );
    assert.equal(
      sim.macipVerdict({
        swIfIndex: sw,
        ethertype: ARP,
        srcMac: MAC_A,
        arp: { senderMac: MAC_A, senderIp: '10.0.0.1' },
      }),
      'deny',
    );
  });

  it('a deny rule drops with "session deny drops"; the more specific match type is looked up first, whatever the rule order', async () => {
    const { sim, port, acl, bind, counters } = await setup();
    const sw = await port();
    // metrics: /8 any MAC, 1 rule: 8 + 0 + 10 = 18; /32 exact MAC: 32 + 48 + 10 = 90
    await bind(
      sw,
      await acl(
        { action: DENY, prefix: '10.0.0.0/8' },
        { action: PERMIT, mac: MAC_A, mask: EXACT, prefix: '10.0.0.1/32' },
      ),
    );
    const v = (srcIp: string) => sim.macipVerdict({ swIfIndex: sw, ethertype: IP4, srcMac: MAC_A, srcIp });
    assert.equal(v('10.0.0.1'), 'permit'); // the later, more specific rule wins
    assert.equal(v('10.0.0.2'), 'deny'); // the /8 table, after three /32 tables
    assert.deepEqual(counters(), [
      [HIT, 2],
      [CHAIN, 1],
      [SESSION_DENY, 1],
    ]);
  });

  it('the metric counts rules: a match type with more rules can outrank a more specific one', async () => {
    const { sim, port, acl, replace, bind } = await setup();
    const sw = await port();
    const v = () => sim.macipVerdict({ swIfIndex: sw, ethertype: IP4, srcMac: MAC_A, srcIp: '10.0.0.5' });
    // /32 with 1 rule: 32 + 10 = 42; /24 with 2 rules: 24 + 20 = 44 → the /24 table first
    const a = await acl(
      { action: PERMIT, prefix: '10.0.0.5/32' },
      { action: DENY, prefix: '10.0.0.0/24' },
      { action: PERMIT, prefix: '192.168.0.0/24' },
    );
    await bind(sw, a);
    assert.equal(v(), 'deny');
    // with one /24 rule: 34 < 42, the /32 table first
    await replace(a, { action: PERMIT, prefix: '10.0.0.5/32' }, { action: DENY, prefix: '10.0.0.0/24' });
    assert.equal(v(), 'permit');
  });

  it('equal metrics keep first-seen order, so the match type seen last is looked up first', async () => {
    const { sim, port, acl, replace, bind } = await setup();
    const sw = await port();
    const v = () => sim.macipVerdict({ swIfIndex: sw, ethertype: IP4, srcMac: MAC_A, srcIp: '10.0.0.5' });
    // /16 with an 8-bit MAC mask: 16 + 8 + 10 = 34; /24 with no MAC mask: 24 + 10 = 34
    const byMac = { mac: '02:00:00:00:00:00', mask: 'ff:00:00:00:00:00', prefix: '10.0.0.0/16' };
    const byIp = { prefix: '10.0.0.0/24' };
    const a = await acl({ action: PERMIT, ...byMac }, { action: DENY, ...byIp });
    await bind(sw, a);
    assert.equal(v(), 'deny');
    await replace(a, { action: DENY, ...byIp }, { action: PERMIT, ...byMac });
    assert.equal(v(), 'permit');
  });

  it('rules of one match type with the same masked MAC and address: the later one decides (the session is replaced)', async () => {
    const { sim, port, acl, bind } = await setup();
    const sw = await port();
    await bind(
      sw,
      await acl(
        { action: DENY, mac: MAC_A, mask: EXACT, prefix: '10.0.0.0/24' },
        { action: PERMIT, mac: MAC_A, mask: EXACT, prefix: '10.0.0.99/24' }, // same key once masked
      ),
    );
    assert.equal(
      sim.macipVerdict({ swIfIndex: sw, ethertype: IP4, srcMac: MAC_A, srcIp: '10.0.0.1' }),
      'permit',
    );
  });

  it('VLAN-tagged frames: dot1q and 0x88a8/0x8100 dot1ad tables; another TPID misses', async () => {
    const { sim, port, acl, bind, counters } = await setup();
    const sw = await port();
    await bind(sw, await acl({ action: PERMIT, mac: MAC_A, mask: EXACT, prefix: '10.0.0.0/24' }));
    const v = (vlanTpids: number[]) =>
      sim.macipVerdict({ swIfIndex: sw, ethertype: IP4, srcMac: MAC_A, srcIp: '10.0.0.1', vlanTpids });
    assert.equal(v([0x8100]), 'permit');
    assert.equal(v([0x88a8, 0x8100]), 'permit');
    assert.equal(v([0x9100]), 'deny');
    assert.equal(v([0x8100, 0x8100]), 'deny');
    assert.deepEqual(counters(), [
      [MISS, 2],
      [HIT, 2],
      [CHAIN, 2],
      [TABLE_MISS, 2],
    ]);
  });

  it('a replace takes effect at once; an interface that went through L3 mode keeps its binding but is no longer checked', async () => {
    const { sim, c, port, acl, replace, bind } = await setup();
    const sw = await port();
    const a = await acl();
    await bind(sw, a);
    const v = () => sim.macipVerdict({ swIfIndex: sw, ethertype: IP4, srcMac: MAC_A, srcIp: '10.0.0.1' });
    assert.equal(v(), 'no-macip');
    await replace(a, { action: PERMIT, prefix: '192.168.0.0/16' });
    assert.equal(v(), 'deny');
    // set_int_l2_mode (MODE_L3) resets the l2-input feature bitmap: L2INPUT_FEAT_ACL is gone
    assert.equal(await rv(c, msg.sw_interface_set_l2_bridge, { rx_sw_if_index: sw, enable: false }), 0);
    assert.equal(
      await rv(c, msg.sw_interface_set_l2_bridge, { rx_sw_if_index: sw, bd_id: 10, enable: true }),
      0,
    );
    assert.deepEqual((await call(c, msg.macip_acl_interface_get, {})).acls, [NONE, a]);
    assert.equal(v(), 'no-macip');
    await replace(a, { action: PERMIT, prefix: '192.168.0.0/16' }); // reapplied
    assert.equal(v(), 'deny');
    // moving to another bridge domain keeps the bitmap
    assert.equal(
      await rv(c, msg.sw_interface_set_l2_bridge, { rx_sw_if_index: sw, bd_id: 20, enable: true }),
      0,
    );
    assert.equal(v(), 'deny');
    // unbinding ends the check
    assert.equal(
      await rv(c, msg.macip_acl_interface_add_del, { is_add: false, sw_if_index: sw, acl_index: a }),
      0,
    );
    assert.equal(v(), 'no-macip');
  });

  it('an ACL applied before the interface joins a bridge checks it there', async () => {
    const { sim, c, acl, bind } = await setup();
    const sw = await loopback(c);
    await bind(sw, await acl({ action: PERMIT, prefix: '192.168.0.0/16' }));
    const v = () => sim.macipVerdict({ swIfIndex: sw, ethertype: IP4, srcMac: MAC_A, srcIp: '10.0.0.1' });
    assert.throws(v, /not a bridge port/); // L3: ip4-inacl, not modelled
    assert.equal(
      await rv(c, msg.sw_interface_set_l2_bridge, { rx_sw_if_index: sw, bd_id: 10, enable: true }),
      0,
    );
    assert.equal(v(), 'deny');
  });

  it('a prefix longer than the address masks the bytes after it: the destination decides, or the model refuses', async () => {
    const { sim, port, acl, bind } = await setup();
    const sw = await port();
    // /40 on IPv4: the destination's first byte is compared, with 0 in the session
    await bind(sw, await acl({ action: PERMIT, prefix: '10.0.0.1/40' }));
    const v = (dstIp?: string) =>
      sim.macipVerdict({
        swIfIndex: sw,
        ethertype: IP4,
        srcMac: MAC_A,
        srcIp: '10.0.0.1',
        ...(dstIp ? { dstIp } : {}),
      });
    assert.equal(v('0.1.2.3'), 'permit');
    assert.equal(v('10.1.2.3'), 'deny');
    assert.throws(() => v(), /not given/);
    // a frame that differs in known bytes needs no destination
    assert.equal(
      sim.macipVerdict({ swIfIndex: sw, ethertype: IP4, srcMac: MAC_A, srcIp: '10.9.9.9' }),
      'deny',
    );
  });
});

describe('macipClassifyTables', () => {
  const rule = (r: Partial<MacipTableRule> & { ip4?: number[] }): MacipTableRule => {
    const srcIp = Buffer.alloc(16);
    if (r.ip4) srcIp.set(r.ip4, 12);
    return {
      isPermit: r.isPermit ?? 1,
      isIpv6: r.isIpv6 ?? 0,
      srcMac: r.srcMac ?? Buffer.alloc(6),
      srcMacMask: r.srcMacMask ?? Buffer.alloc(6),
      srcIp: r.srcIp ?? srcIp,
      srcPrefixLen: r.srcPrefixLen ?? 0,
    };
  };

  it('no rules, no tables; IPv4: 3 ARP then 3 IP tables, IPv6 3 IP tables; the chain ends in a drop', () => {
    assert.equal(macipClassifyTables([]).head, undefined);
    const t = macipClassifyTables([
      rule({ ip4: [10, 0, 0, 0], srcPrefixLen: 8 }),
      rule({ isIpv6: 1, srcPrefixLen: 64 }),
    ]);
    assert.equal(t.tables.length, 9);
    assert.equal(t.head, 8);
    const order: number[] = [];
    for (let at: number | undefined = t.head; at !== undefined; at = t.tables[at]?.next) order.push(at);
    assert.deepEqual(order, [8, 7, 6, 5, 4, 3, 2, 1, 0]);
    assert.equal(t.tables[0]?.missNext, 0);
    assert.ok(t.tables.slice(1).every((x) => x.missNext === NONE));
    // untagged IPv4 /8, any MAC: the ethertype (12..13) and the source's first byte (26): 32 bytes
    const ip4 = t.tables.find((x) => x.what.startsWith('ip4 untagged'));
    const mask = Buffer.alloc(32);
    mask.fill(0xff, 12, 14);
    mask[26] = 0xff;
    assert.equal(ip4?.mask.toString('hex'), mask.toString('hex'));
    const key = Buffer.alloc(32);
    key.writeUInt16BE(0x0800, 12);
    key[26] = 10;
    assert.deepEqual([...(ip4?.sessions.keys() ?? [])], [key.toString('hex')]);
  });
});
