/**
 * The ARP termination model (VppSimulator.arpTermVerdict) against VPP 26.06's l2_arp_term.c
 * (arp_term_l2bd) and l2_input_node.c: answered from the bridge domain's bd_ip_mac table, passed
 * on, or dropped, with the node's counters; a MACIP ACL on the port acting first. The verdicts
 * are the simulator's (no frames are sent), so these tests need it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../messages/index.js';
import type { RawClient } from '../../../test/support/raw-client.js';
import { rawSessions } from '../../../test/support/raw-session.js';
import { SIM_ONLY } from '../../../test/support/vpp-target.js';
import type { VppSimulator } from './simulator.js';

const HOST = '02:00:00:00:00:0a';
const SERVICE_MAC = '02:00:00:00:00:99';
const NODE = 'arp-term-l2bd';

const { start, rv, call, loopback } = rawSessions('arp-term-test');

async function setup(arpTerm = true): Promise<{
  sim: VppSimulator;
  c: RawClient;
  port: (shg?: number, bdId?: number) => Promise<number>;
  counters: () => [string, string, number][];
}> {
  const { t, c } = await start();
  const sim = t.sim as VppSimulator;
  assert.equal(await rv(c, msg.bridge_domain_add_del, { bd_id: 10, is_add: true, arp_term: arpTerm }), 0);
  assert.equal(
    await rv(c, msg.bd_ip_mac_add_del, {
      is_add: true,
      entry: { bd_id: 10, ip: { af: 0, un: { ip4: '10.0.0.1' } }, mac: SERVICE_MAC },
    }),
    0,
  );
  return {
    sim,
    c,
    port: async (shg = 0, bdId = 10) => {
      const sw = await loopback(c);
      assert.equal(
        await rv(c, msg.sw_interface_set_l2_bridge, { rx_sw_if_index: sw, bd_id: bdId, shg, enable: true }),
        0,
      );
      return sw;
    },
    counters: () =>
      sim.state.errors
        .filter((e) => e.node === NODE || e.node === 'l2-input-acl')
        .map((e) => [e.node, e.reason, e.count]),
  };
}

describe('simulator: ARP termination (arpTermVerdict)', { skip: SIM_ONLY }, () => {
  it('a request for an address in the table is answered with its MAC; another is passed on; so is a GARP', async () => {
    const { sim, port, counters } = await setup();
    const sw = await port();
    const req = (senderIp: string, targetIp: string) =>
      sim.arpTermVerdict({ swIfIndex: sw, senderMac: HOST, senderIp, targetIp });
    assert.deepEqual(req('10.0.0.5', '10.0.0.1'), { verdict: 'reply', mac: SERVICE_MAC });
    assert.deepEqual(req('10.0.0.5', '10.0.0.2'), { verdict: 'pass' });
    assert.deepEqual(req('10.0.0.1', '10.0.0.1'), { verdict: 'pass' }); // gratuitous, even in the table
    // the sender being in the table changes nothing
    assert.deepEqual(req('10.0.0.1', '10.0.0.2'), { verdict: 'pass' });
    // an ARP reply whose target is in the table is "answered" too
    assert.deepEqual(
      sim.arpTermVerdict({
        swIfIndex: sw,
        senderMac: HOST,
        senderIp: '10.0.0.5',
        targetIp: '10.0.0.1',
        opcode: 2,
      }),
      { verdict: 'reply', mac: SERVICE_MAC },
    );
    assert.deepEqual(
      sim.arpTermVerdict({
        swIfIndex: sw,
        senderMac: HOST,
        senderIp: '10.0.0.5',
        targetIp: '10.0.0.1',
        opcode: 3,
      }),
      { verdict: 'pass' },
    );
    assert.deepEqual(counters(), [[NODE, 'ARP replies sent', 2]]);
  });

  it('drops: mismatched or group sender MAC (unless VRRP), multicast sender, wrong types; probes and announcements counted apart', async () => {
    const { sim, port, counters } = await setup();
    const sw = await port();
    const v = (p: Partial<Parameters<VppSimulator['arpTermVerdict']>[0]>) =>
      sim.arpTermVerdict({
        swIfIndex: sw,
        senderMac: HOST,
        senderIp: '10.0.0.5',
        targetIp: '10.0.0.1',
        ...p,
      });
    const drop = (reason: string) => ({ verdict: 'drop', node: NODE, reason });
    assert.deepEqual(
      v({ srcMac: '02:00:00:00:00:0b' }),
      drop('ARP hw addr does not match L2 frame src addr'),
    );
    assert.deepEqual(
      v({ senderMac: '03:00:00:00:00:0a', srcMac: '03:00:00:00:00:0a' }),
      drop('ARP hw addr does not match L2 frame src addr'),
    );
    // a VRRP virtual MAC as the sender may differ from the frame's source
    assert.deepEqual(v({ senderMac: '00:00:5e:00:01:07' }), { verdict: 'reply', mac: SERVICE_MAC });
    assert.deepEqual(v({ senderIp: '224.0.0.5' }), drop('IP4 source address not local to subnet'));
    assert.deepEqual(v({ hwType: 6 }), drop('L2 type not ethernet'));
    assert.deepEqual(v({ hwType: 6, protoType: 0x86dd }), drop('L3 type not IP4'));
    // a probe (sender 0.0.0.0) or an announcement (sender = target) that fails a check
    assert.deepEqual(
      v({ senderIp: '0.0.0.0', srcMac: '02:00:00:00:00:0b' }),
      drop('ARP probe or announcement dropped'),
    );
    assert.deepEqual(
      v({ senderIp: '10.0.0.1', protoType: 0x86dd }),
      drop('ARP probe or announcement dropped'),
    );
    // a probe that passes the checks is looked up like any request
    assert.deepEqual(v({ senderIp: '0.0.0.0' }), { verdict: 'reply', mac: SERVICE_MAC });
    assert.deepEqual(counters(), [
      [NODE, 'ARP replies sent', 2],
      [NODE, 'L2 type not ethernet', 1],
      [NODE, 'L3 type not IP4', 1],
      [NODE, 'IP4 source address not local to subnet', 1],
      [NODE, 'ARP hw addr does not match L2 frame src addr', 2],
      [NODE, 'ARP probe or announcement dropped', 2],
    ]);
  });

  it('no arp_term on the bridge domain: no termination; a port with a split-horizon group: passed on', async () => {
    const off = await setup(false);
    const sw = await off.port();
    assert.deepEqual(
      off.sim.arpTermVerdict({ swIfIndex: sw, senderMac: HOST, senderIp: '10.0.0.5', targetIp: '10.0.0.1' }),
      { verdict: 'no-arp-term' },
    );
    const on = await setup();
    const shg = await on.port(1);
    assert.deepEqual(
      on.sim.arpTermVerdict({ swIfIndex: shg, senderMac: HOST, senderIp: '10.0.0.5', targetIp: '10.0.0.1' }),
      { verdict: 'pass' },
    );
    assert.deepEqual(on.counters(), []);
  });

  it('the table entry changing or going changes the answer', async () => {
    const { sim, c, port } = await setup();
    const sw = await port();
    const v = () =>
      sim.arpTermVerdict({ swIfIndex: sw, senderMac: HOST, senderIp: '10.0.0.5', targetIp: '10.0.0.1' });
    const entry = (mac: string) => ({ bd_id: 10, ip: { af: 0, un: { ip4: '10.0.0.1' } }, mac });
    assert.equal(await rv(c, msg.bd_ip_mac_add_del, { is_add: true, entry: entry('02:00:00:00:00:98') }), 0);
    assert.deepEqual(v(), { verdict: 'reply', mac: '02:00:00:00:00:98' });
    assert.equal(await rv(c, msg.bd_ip_mac_add_del, { is_add: false, entry: entry('02:00:00:00:00:98') }), 0);
    assert.deepEqual(v(), { verdict: 'pass' });
  });

  it('a MACIP ACL on the port acts first: a request it denies never reaches arp-term-l2bd', async () => {
    const { sim, c, port, counters } = await setup();
    const sw = await port();
    const acl = await call(c, msg.macip_acl_add_replace, {
      acl_index: 0xffffffff,
      tag: '',
      r: [
        {
          is_permit: 1,
          src_mac: HOST,
          src_mac_mask: 'ff:ff:ff:ff:ff:ff',
          src_prefix: { address: { af: 0, un: { ip4: '10.0.0.5' } }, len: 32 },
        },
      ],
    });
    assert.equal(
      await rv(c, msg.macip_acl_interface_add_del, {
        is_add: true,
        sw_if_index: sw,
        acl_index: acl.acl_index as number,
      }),
      0,
    );
    const v = (senderIp: string) =>
      sim.arpTermVerdict({ swIfIndex: sw, senderMac: HOST, senderIp, targetIp: '10.0.0.1' });
    assert.deepEqual(v('10.0.0.5'), { verdict: 'reply', mac: SERVICE_MAC });
    assert.deepEqual(v('10.0.0.6'), {
      verdict: 'drop',
      node: 'l2-input-acl',
      reason: 'input ACL table-miss drops',
    });
    assert.deepEqual(counters(), [
      ['l2-input-acl', 'input ACL misses', 1],
      ['l2-input-acl', 'input ACL hits', 1],
      ['l2-input-acl', 'input ACL hits after chain walk', 1],
      ['l2-input-acl', 'input ACL table-miss drops', 1],
      [NODE, 'ARP replies sent', 1],
    ]);
  });

  it('refuses what it does not model: not a bridge port, a BVI', async () => {
    const { sim, c, port } = await setup();
    const l3 = await loopback(c);
    assert.throws(
      () =>
        sim.arpTermVerdict({ swIfIndex: l3, senderMac: HOST, senderIp: '10.0.0.5', targetIp: '10.0.0.1' }),
      /not a bridge port/,
    );
    const bvi = await port();
    assert.equal(
      await rv(c, msg.sw_interface_set_l2_bridge, {
        rx_sw_if_index: bvi,
        bd_id: 10,
        port_type: 1,
        enable: true,
      }),
      0,
    );
    assert.throws(
      () =>
        sim.arpTermVerdict({ swIfIndex: bvi, senderMac: HOST, senderIp: '10.0.0.5', targetIp: '10.0.0.1' }),
      /BVI/,
    );
  });
});
