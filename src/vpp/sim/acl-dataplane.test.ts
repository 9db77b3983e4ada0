/**
 * The ACL plugin's node model (VppSimulator.aclVerdict) against VPP 26.06's dataplane_node.c,
 * public_inlines.h and session_inlines.h: first match across the interface's ACLs in order, the
 * implicit deny, rules of the other family, protocols, ports, ICMP type/code and TCP flags, the
 * direction, the node's error counters, and the sessions permit+reflect leaves. The verdicts are
 * the simulator's (no packets are sent), so these tests need it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../messages/index.js';
import { RawClient } from '../../../test/support/raw-client.js';
import { rawSessions } from '../../../test/support/raw-session.js';
import { SIM_ONLY } from '../../../test/support/vpp-target.js';
import type { VppSimulator } from './simulator.js';

const DENY = 0;
const PERMIT = 1;
const REFLECT = 2;
const TCP = 6;
const UDP = 17;
const SYN = 0x02;
const ACK = 0x10;

const { start, call, loopback } = rawSessions('acl-dataplane-test');

interface Rule {
  action: number;
  src?: string;
  dst?: string;
  proto?: number;
  sport?: [number, number];
  dport?: [number, number];
  tcpMask?: number;
  tcpValue?: number;
}

function prefix(text: string) {
  const [ip, len] = text.split('/') as [string, string];
  const address = ip.includes(':') ? { af: 1, un: { ip6: ip } } : { af: 0, un: { ip4: ip } };
  return { address, len: Number(len) };
}

function apiRule(r: Rule) {
  const any = (r.src ?? r.dst ?? '').includes(':') ? '::/0' : '0.0.0.0/0';
  return {
    is_permit: r.action,
    src_prefix: prefix(r.src ?? any),
    dst_prefix: prefix(r.dst ?? any),
    proto: r.proto ?? 0,
    srcport_or_icmptype_first: r.sport?.[0] ?? 0,
    srcport_or_icmptype_last: r.sport?.[1] ?? 65535,
    dstport_or_icmpcode_first: r.dport?.[0] ?? 0,
    dstport_or_icmpcode_last: r.dport?.[1] ?? 65535,
    tcp_flags_mask: r.tcpMask ?? 0,
    tcp_flags_value: r.tcpValue ?? 0,
  };
}

async function setup(): Promise<{
  sim: VppSimulator;
  c: RawClient;
  loopback: () => Promise<number>;
  acl: (...rules: Rule[]) => Promise<number>;
  replace: (index: number, ...rules: Rule[]) => Promise<void>;
  bind: (sw: number, input: number[], output?: number[]) => Promise<number>;
  counters: () => [string, string, number][];
}> {
  const { t, c } = await start();
  const sim = t.sim as VppSimulator;
  return {
    sim,
    c,
    loopback: () => loopback(c),
    acl: async (...rules) => {
      const r = await call(c, msg.acl_add_replace, { acl_index: 0xffffffff, tag: '', r: rules.map(apiRule) });
      assert.equal(r.retval, 0);
      return r.acl_index as number;
    },
    replace: async (index, ...rules) => {
      const r = await call(c, msg.acl_add_replace, { acl_index: index, tag: '', r: rules.map(apiRule) });
      assert.equal(r.retval, 0);
    },
    bind: async (sw, input, output = []) =>
      (
        await call(c, msg.acl_interface_set_acl_list, {
          sw_if_index: sw,
          n_input: input.length,
          acls: [...input, ...output],
        })
      ).retval as number,
    counters: () => sim.state.errors.map((e) => [e.node, e.reason, e.count]),
  };
}

describe('simulator: the ACL node model (aclVerdict)', { skip: SIM_ONLY }, () => {
  it('no ACL bound: no-acl and nothing counted; an empty list again, an ACL without rules denies everything', async () => {
    const { sim, loopback, acl, bind, counters } = await setup();
    const lo = await loopback();
    const v = (isInput = true) =>
      sim.aclVerdict({ swIfIndex: lo, af: 4, src: '10.0.0.1', dst: '10.0.0.2', isInput });
    assert.equal(v(), 'no-acl');
    const empty = await acl();
    assert.equal(await bind(lo, [], [empty]), 0);
    assert.equal(v(), 'no-acl'); // no input ACL: the input node is off
    assert.equal(v(false), 'deny');
    assert.equal(await bind(lo, [empty]), 0);
    assert.equal(v(), 'deny');
    assert.equal(v(false), 'no-acl');
    assert.equal(await bind(lo, []), 0);
    assert.equal(v(), 'no-acl');
    assert.deepEqual(counters(), [
      ['acl-plugin-out-ip4-fa', 'ACL deny packets', 1],
      ['acl-plugin-out-ip4-fa', 'checked packets', 1],
      ['acl-plugin-in-ip4-fa', 'ACL deny packets', 1],
      ['acl-plugin-in-ip4-fa', 'checked packets', 1],
    ]);
  });

  it('the first matching rule decides, across the ACLs in list order; nothing matching is a deny', async () => {
    const { sim, loopback, acl, bind, counters } = await setup();
    const lo = await loopback();
    const a = await acl({ action: DENY, src: '10.1.0.5/32' }, { action: PERMIT, src: '10.1.0.0/16' });
    const b = await acl({ action: PERMIT, src: '10.1.0.5/32' }, { action: DENY, src: '10.0.0.0/8' });
    const v = (src: string) => sim.aclVerdict({ swIfIndex: lo, af: 4, src, dst: '192.0.2.1' });
    assert.equal(await bind(lo, [a, b]), 0);
    assert.equal(v('10.1.0.5'), 'deny'); // a's first rule
    assert.equal(v('10.1.7.7'), 'permit'); // a's second rule
    assert.equal(v('10.2.0.1'), 'deny'); // b's second rule
    assert.equal(v('172.16.0.1'), 'deny'); // nothing: the implicit deny
    assert.equal(await bind(lo, [b, a]), 0);
    assert.equal(v('10.1.0.5'), 'permit'); // b's first rule now comes first
    assert.equal(v('10.1.7.7'), 'deny'); // b's 10.0.0.0/8 deny before a's permit
    assert.deepEqual(counters(), [
      ['acl-plugin-in-ip4-fa', 'ACL deny packets', 4],
      ['acl-plugin-in-ip4-fa', 'ACL permit packets', 2],
      ['acl-plugin-in-ip4-fa', 'checked packets', 6],
    ]);
  });

  it('a rule of the other family never matches; IPv6 packets count on the ip6 node', async () => {
    const { sim, loopback, acl, bind, counters } = await setup();
    const lo = await loopback();
    const any4 = await acl({ action: PERMIT, src: '0.0.0.0/0', dst: '0.0.0.0/0' });
    assert.equal(await bind(lo, [any4]), 0);
    const v6 = () => sim.aclVerdict({ swIfIndex: lo, af: 6, src: '2001:db8::1', dst: '2001:db8::2' });
    assert.equal(sim.aclVerdict({ swIfIndex: lo, af: 4, src: '10.0.0.1', dst: '10.0.0.2' }), 'permit');
    assert.equal(v6(), 'deny');
    const any6 = await acl({ action: PERMIT, src: '::/0', dst: '::/0' });
    assert.equal(await bind(lo, [any4, any6]), 0);
    assert.equal(v6(), 'permit');
    assert.deepEqual(counters(), [
      ['acl-plugin-in-ip4-fa', 'ACL permit packets', 1],
      ['acl-plugin-in-ip4-fa', 'checked packets', 1],
      ['acl-plugin-in-ip6-fa', 'ACL deny packets', 1],
      ['acl-plugin-in-ip6-fa', 'ACL permit packets', 1],
      ['acl-plugin-in-ip6-fa', 'checked packets', 2],
    ]);
  });

  it('addresses: destination and source prefixes, /0 matches all, IPv6 lengths inside a byte', async () => {
    const { sim, loopback, acl, bind } = await setup();
    const lo = await loopback();
    const a = await acl(
      { action: PERMIT, src: '2001:db8:ab80::/41', dst: '2001:db8:1::/48' },
      { action: PERMIT, src: '192.0.2.128/25', dst: '198.51.100.7/32' },
    );
    assert.equal(await bind(lo, [a]), 0);
    const v = (af: 4 | 6, src: string, dst: string) => sim.aclVerdict({ swIfIndex: lo, af, src, dst });
    assert.equal(v(6, '2001:db8:abff::1', '2001:db8:1:2::3'), 'permit');
    assert.equal(v(6, '2001:db8:ab7f::1', '2001:db8:1:2::3'), 'deny');
    assert.equal(v(6, '2001:db8:ab80::1', '2001:db8:2::3'), 'deny');
    assert.equal(v(4, '192.0.2.200', '198.51.100.7'), 'permit');
    assert.equal(v(4, '192.0.2.127', '198.51.100.7'), 'deny');
    assert.equal(v(4, '192.0.2.200', '198.51.100.8'), 'deny');
  });

  it('proto 0 is any protocol and ignores ports; otherwise the protocol and both port ranges must match', async () => {
    const { sim, loopback, acl, bind } = await setup();
    const lo = await loopback();
    const a = await acl(
      { action: PERMIT, proto: TCP, sport: [1024, 65535], dport: [80, 443] },
      { action: PERMIT, proto: 47, dport: [1, 65535] }, // GRE has no ports: port 0 is outside
      { action: DENY, src: '10.9.0.0/16', sport: [7, 7] }, // proto 0: ports ignored
      { action: PERMIT, proto: UDP, src: '10.9.0.0/16' },
    );
    assert.equal(await bind(lo, [a]), 0);
    const v = (proto: number, srcPort: number, dstPort: number, src = '10.8.0.1') =>
      sim.aclVerdict({ swIfIndex: lo, af: 4, src, dst: '10.0.0.1', proto, srcPort, dstPort });
    assert.equal(v(TCP, 40000, 80), 'permit');
    assert.equal(v(TCP, 40000, 443), 'permit');
    assert.equal(v(TCP, 40000, 444), 'deny');
    assert.equal(v(TCP, 1023, 80), 'deny');
    assert.equal(v(UDP, 40000, 80), 'deny'); // not TCP, and not from 10.9/16
    assert.equal(v(47, 0, 0), 'deny');
    assert.equal(v(47, 5, 5), 'deny'); // ports of a portless protocol are not read
    assert.equal(v(UDP, 1, 2, '10.9.1.1'), 'deny'); // the proto-0 deny, whatever its port range
    assert.equal(v(TCP, 40000, 80, '10.9.1.1'), 'permit'); // the TCP rule comes before the deny
  });

  it('ICMP: type and code are the ports (ICMPv4 in IPv4, ICMPv6 in IPv6 only)', async () => {
    const { sim, loopback, acl, bind } = await setup();
    const lo = await loopback();
    const a = await acl(
      { action: PERMIT, src: '0.0.0.0/0', proto: 1, sport: [8, 8], dport: [0, 0] },
      { action: PERMIT, src: '::/0', proto: 58, sport: [128, 129] },
      { action: PERMIT, src: '0.0.0.0/0', proto: 58, sport: [0, 65535], dport: [1, 65535] },
    );
    assert.equal(await bind(lo, [a]), 0);
    const v4 = (proto: number, type: number, code: number) =>
      sim.aclVerdict({
        swIfIndex: lo,
        af: 4,
        src: '10.0.0.1',
        dst: '10.0.0.2',
        proto,
        srcPort: type,
        dstPort: code,
      });
    const v6 = (type: number) =>
      sim.aclVerdict({
        swIfIndex: lo,
        af: 6,
        src: '2001:db8::1',
        dst: '2001:db8::2',
        proto: 58,
        srcPort: type,
      });
    assert.equal(v4(1, 8, 0), 'permit'); // echo request
    assert.equal(v4(1, 8, 1), 'deny');
    assert.equal(v4(1, 0, 0), 'deny'); // echo reply
    assert.equal(v4(58, 3, 3), 'deny'); // proto 58 in IPv4 is not ICMP: no type/code, ports 0
    assert.equal(v6(128), 'permit');
    assert.equal(v6(135), 'deny');
  });

  it('TCP flags: masked flags must equal the value, for TCP only', async () => {
    const { sim, loopback, acl, bind } = await setup();
    const lo = await loopback();
    const synOnly = await acl({ action: PERMIT, proto: TCP, tcpMask: SYN | ACK, tcpValue: SYN });
    assert.equal(await bind(lo, [synOnly]), 0);
    const v = (tcpFlags?: number) =>
      sim.aclVerdict({
        swIfIndex: lo,
        af: 4,
        src: '10.0.0.1',
        dst: '10.0.0.2',
        proto: TCP,
        dstPort: 22,
        ...(tcpFlags === undefined ? {} : { tcpFlags }),
      });
    assert.equal(v(SYN), 'permit');
    assert.equal(v(SYN | 0x08), 'permit'); // PSH is outside the mask
    assert.equal(v(SYN | ACK), 'deny');
    assert.equal(v(), 'deny'); // no flags
  });

  it('output ACLs are the sending interface’s, counted on the -out- node; a bridge port uses the -l2 nodes', async () => {
    const { sim, c, loopback, acl, bind, counters } = await setup();
    const lo = await loopback();
    const port = await loopback();
    const deny10 = await acl({ action: DENY, src: '10.0.0.0/8' }, { action: PERMIT, src: '0.0.0.0/0' });
    assert.equal(await bind(lo, [], [deny10]), 0);
    assert.equal(await bind(port, [deny10], [deny10]), 0);
    const v = (sw: number, src: string, isInput: boolean, af: 4 | 6 = 4) =>
      sim.aclVerdict({ swIfIndex: sw, af, src, dst: af === 4 ? '192.0.2.1' : '2001:db8::9', isInput });
    assert.equal(v(lo, '10.0.0.1', true), 'no-acl');
    assert.equal(v(lo, '10.0.0.1', false), 'deny');
    assert.equal(v(lo, '192.0.2.9', false), 'permit');
    const bd = await call(c, msg.bridge_domain_add_del_v2, {
      bd_id: 0xffffffff,
      is_add: true,
      flood: true,
      uu_flood: true,
      forward: true,
      learn: true,
      arp_term: false,
      arp_ufwd: false,
      mac_age: 0,
      bd_tag: '',
    });
    assert.equal(bd.retval, 0);
    const l2 = await call(c, msg.sw_interface_set_l2_bridge, {
      rx_sw_if_index: port,
      bd_id: bd.bd_id as number,
      port_type: 0,
      shg: 0,
      enable: true,
    });
    assert.equal(l2.retval, 0);
    assert.equal(v(port, '10.1.1.1', true), 'deny');
    assert.equal(v(port, '2001:db8::1', false, 6), 'deny'); // an IPv4-only ACL: the implicit deny
    assert.deepEqual(counters(), [
      ['acl-plugin-out-ip4-fa', 'ACL deny packets', 1],
      ['acl-plugin-out-ip4-fa', 'ACL permit packets', 1],
      ['acl-plugin-out-ip4-fa', 'checked packets', 2],
      ['acl-plugin-out-ip6-l2', 'ACL deny packets', 1],
      ['acl-plugin-out-ip6-l2', 'checked packets', 1],
      ['acl-plugin-in-ip4-l2', 'ACL deny packets', 1],
      ['acl-plugin-in-ip4-l2', 'checked packets', 1],
    ]);
  });

  it('permit+reflect: the flow and its replies on the same interface pass by the session, whatever the ACLs say', async () => {
    const { sim, loopback, acl, replace, bind, counters } = await setup();
    const lo = await loopback();
    const other = await loopback();
    const reflect = await acl({ action: REFLECT, src: '10.1.0.0/16', proto: TCP });
    const denyAll = await acl({ action: DENY, src: '0.0.0.0/0' });
    assert.equal(await bind(lo, [reflect], [denyAll]), 0);
    assert.equal(await bind(other, [], [denyAll]), 0);
    const pkt = (
      sw: number,
      isInput: boolean,
      src: string,
      dst: string,
      sp: number,
      dp: number,
      tcpFlags = 0,
    ) =>
      sim.aclVerdict({
        swIfIndex: sw,
        af: 4,
        src,
        dst,
        proto: TCP,
        srcPort: sp,
        dstPort: dp,
        tcpFlags,
        isInput,
      });
    const reply = (sw = lo) => pkt(sw, false, '192.0.2.1', '10.1.0.5', 80, 40000, SYN | ACK);
    assert.equal(reply(), 'deny'); // before the flow: the output ACL
    assert.equal(pkt(lo, true, '10.1.0.5', '192.0.2.1', 40000, 80, SYN), 'permit');
    assert.equal(sim.state.aclSessions, 1);
    assert.equal(reply(), 'permit'); // the reverse key
    assert.equal(reply(other), 'deny'); // another interface's output
    assert.equal(pkt(lo, false, '192.0.2.1', '10.1.0.5', 80, 40001), 'deny'); // another port
    assert.equal(pkt(lo, true, '192.0.2.1', '10.1.0.5', 80, 40000), 'deny'); // the reply's key, but input
    assert.equal(pkt(lo, true, '10.1.0.5', '192.0.2.1', 40000, 80, ACK), 'permit'); // both SYN+ACK: established
    // a replaced ACL keeps its sessions (reclassify-sessions is off)
    await replace(reflect, { action: DENY, src: '0.0.0.0/0' });
    assert.equal(pkt(lo, true, '10.1.0.5', '192.0.2.1', 40000, 80), 'permit');
    assert.equal(pkt(lo, true, '10.1.0.6', '192.0.2.1', 40000, 80), 'deny');
    // the same ACLs again, reordered or not: no change, the sessions stay
    assert.equal(await bind(lo, [reflect], [denyAll]), 0);
    assert.equal(reply(), 'permit');
    // another set of ACLs in one direction clears the interface's sessions
    assert.equal(await bind(lo, [reflect, denyAll], [denyAll]), 0);
    assert.equal(sim.state.aclSessions, 0);
    assert.equal(reply(), 'deny');
    assert.deepEqual(counters(), [
      ['acl-plugin-out-ip4-fa', 'ACL deny packets', 4],
      ['acl-plugin-out-ip4-fa', 'existing session packets', 2],
      ['acl-plugin-out-ip4-fa', 'checked packets', 6],
      ['acl-plugin-in-ip4-fa', 'ACL deny packets', 2],
      ['acl-plugin-in-ip4-fa', 'new sessions added', 1],
      ['acl-plugin-in-ip4-fa', 'existing session packets', 2],
      ['acl-plugin-in-ip4-fa', 'checked packets', 5],
      ['acl-plugin-in-ip4-fa', 'restart session timer', 1],
    ]);
  });

  it('permit+reflect for ICMP: an echo request gets a reverse session for the echo reply; other types only their own', async () => {
    const { sim, loopback, acl, bind } = await setup();
    const lo = await loopback();
    const reflect = await acl({ action: REFLECT, src: '0.0.0.0/0', proto: 1 });
    const denyAll = await acl({ action: DENY, src: '0.0.0.0/0' });
    assert.equal(await bind(lo, [reflect], [denyAll]), 0);
    const icmp = (isInput: boolean, src: string, dst: string, type: number, code = 0) =>
      sim.aclVerdict({ swIfIndex: lo, af: 4, src, dst, proto: 1, srcPort: type, dstPort: code, isInput });
    assert.equal(icmp(true, '10.0.0.1', '10.0.0.2', 8), 'permit'); // echo request
    assert.equal(icmp(false, '10.0.0.2', '10.0.0.1', 0), 'permit'); // echo reply
    assert.equal(icmp(false, '10.0.0.2', '10.0.0.1', 8), 'deny');
    assert.equal(icmp(true, '10.0.0.1', '10.0.0.2', 3, 1), 'permit'); // unreachable: forward key only
    assert.equal(icmp(false, '10.0.0.2', '10.0.0.1', 3, 1), 'deny');
    assert.equal(sim.state.aclSessions, 2);
  });

  it('deleting the interface drops its sessions and bindings', async () => {
    const { sim, c, loopback, acl, bind } = await setup();
    const lo = await loopback();
    const reflect = await acl({ action: REFLECT, src: '0.0.0.0/0' });
    assert.equal(await bind(lo, [reflect]), 0);
    assert.equal(sim.aclVerdict({ swIfIndex: lo, af: 4, src: '10.0.0.1', dst: '10.0.0.2' }), 'permit');
    assert.equal(sim.state.aclSessions, 1);
    assert.equal((await call(c, msg.delete_loopback, { sw_if_index: lo })).retval, 0);
    assert.equal(sim.state.aclSessions, 0);
    assert.deepEqual(sim.state.aclInterfaces, []);
    assert.throws(
      () => sim.aclVerdict({ swIfIndex: lo, af: 4, src: '10.0.0.1', dst: '10.0.0.2' }),
      /no interface/,
    );
  });

  it('an ACL twice in one list: retval 1 (the handler ORs the two results), output checked first', async () => {
    const { sim, loopback, acl, bind } = await setup();
    const lo = await loopback();
    const a = await acl({ action: PERMIT, src: '0.0.0.0/0' });
    const b = await acl({ action: DENY, src: '0.0.0.0/0' });
    assert.equal(await bind(lo, [a], [b, b]), 1);
    assert.deepEqual(sim.state.aclInterfaces, []);
    assert.equal(await bind(lo, [a, a], [b]), 1);
    assert.deepEqual(sim.state.aclInterfaces, [{ swIfIndex: lo, input: [], output: [b] }]);
  });

  it('refuses what is not a packet', async () => {
    const { sim, loopback } = await setup();
    const lo = await loopback();
    assert.throws(() => sim.aclVerdict({ swIfIndex: lo, af: 6, src: '10.0.0.1', dst: '::1' }), /not an IPv6/);
    assert.throws(
      () =>
        sim.aclVerdict({
          swIfIndex: lo,
          af: 4,
          src: '10.0.0.1',
          dst: '10.0.0.2',
          proto: TCP,
          dstPort: 70000,
        }),
      /dstPort/,
    );
  });
});
