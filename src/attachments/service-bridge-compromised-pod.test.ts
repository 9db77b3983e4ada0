/**
 * The service bridge end to end: what a compromised service pod can send, judged by the simulator's
 * dataplane (simulator only), pods in real network namespaces (root only).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SIM_ONLY } from '../../test/support/vpp-target.js';
import { hostVethName } from '../netns/index.js';
import { msg } from '../vpp/messages/index.js';
import type { VppSimulator } from '../vpp/sim/index.js';
import {
  NEEDS_ROOT,
  type Fixture,
  setup,
  apply,
  teardown,
  TestNetns,
  podRequest,
} from '../../test/support/service-bridge-fixture.js';

void describe('a compromised service pod, on the simulator', { skip: NEEDS_ROOT || SIM_ONLY }, () => {
  let f: Fixture;
  const namespaces: TestNetns[] = [];
  const pods = {
    md: { address: '169.254.169.254', mac: '0a:58:a9:fe:a9:fe' },
    dns: { address: '169.254.169.53', mac: '0a:58:a9:fe:a9:35' },
    dhcp: { address: '169.254.169.103', mac: '0a:58:a9:fe:a9:67' },
  } as const;
  const port = new Map<keyof typeof pods, number>();
  let bviMac = '';
  const sim = (): VppSimulator => f.target.sim as VppSimulator;

  before(async () => {
    f = await setup();
    await apply(f);
    for (const [name, pod] of Object.entries(pods)) {
      const ns = new TestNetns();
      namespaces.push(ns);
      const req = { ...podRequest(ns, `c-${name}`, 'net1', 'veth', `${pod.address}/24`), mac: pod.mac };
      await f.manager.attach(req);
    }
    const ifs = await f.client.dump(msg.sw_interface_dump, {
      sw_if_index: 0xffffffff,
      name_filter_valid: false,
    });
    for (const name of Object.keys(pods) as (keyof typeof pods)[])
      port.set(
        name,
        ifs.find((i) => i.tag === `vppnet:pod:${hostVethName(`c-${name}`, 'net1')}`)?.sw_if_index ?? -1,
      );
    bviMac = ifs.find((i) => i.tag === 'vppnet:services:bvi')?.l2_address ?? '';
  });
  after(async () => {
    for (const r of f.manager.list()) await f.manager.detach(r).catch(() => undefined);
    for (const ns of namespaces) ns.remove();
    await teardown(f);
  });

  const arp = (from: keyof typeof pods, senderIp: string, opcode = 1) =>
    sim().macipVerdict({
      swIfIndex: port.get(from) ?? -1,
      ethertype: 0x0806,
      srcMac: pods[from].mac,
      arp: { senderMac: pods[from].mac, senderIp, targetIp: senderIp, opcode },
    });
  const udp = (from: keyof typeof pods, src: string, dst: string, srcPort: number, dstPort: number) =>
    sim().aclVerdict({ swIfIndex: port.get(from) ?? -1, af: 4, src, dst, proto: 17, srcPort, dstPort });

  void it("drops a pod's ARP for any address but its own, and answers its ARP for the gateway itself", () => {
    assert.equal(arp('dns', '169.254.169.254'), 'deny', 'claiming the metadata address');
    assert.equal(arp('dns', '169.254.169.1', 2), 'deny', 'claiming the gateway');
    assert.equal(arp('md', '169.254.169.103'), 'deny', "claiming the DHCP pod's address");
    assert.equal(arp('dns', pods.dns.address), 'permit', 'about itself');
    const answer = sim().arpTermVerdict({
      swIfIndex: port.get('dns') ?? -1,
      senderMac: pods.dns.mac,
      senderIp: pods.dns.address,
      targetIp: '169.254.169.1',
    });
    assert.deepEqual(answer, { verdict: 'reply', mac: bviMac.toLowerCase() });
  });

  void it('drops frames from another MAC, and IPv6, whatever the address', () => {
    const frame = (srcMac: string, srcIp: string, ethertype = 0x0800) =>
      sim().macipVerdict({ swIfIndex: port.get('dhcp') ?? -1, ethertype, srcMac, srcIp });
    assert.equal(frame(pods.dhcp.mac, pods.dhcp.address), 'permit');
    assert.equal(frame(pods.dns.mac, pods.dhcp.address), 'deny', "another pod's MAC");
    assert.equal(frame(bviMac, pods.dhcp.address), 'deny', "the gateway's MAC");
    assert.equal(frame(pods.dhcp.mac, '169.252.252.5'), 'deny', "a VM's service address");
    assert.equal(frame(pods.dhcp.mac, 'fe80::1', 0x86dd), 'deny', 'IPv6');
  });

  void it('lets only the DHCP pod send DHCP replies, and no pod reach another or a VM unasked', () => {
    assert.equal(
      udp('dhcp', pods.dhcp.address, '169.254.169.1', 67, 67),
      'permit',
      'the DHCP pod to the relay',
    );
    assert.equal(udp('dns', pods.dns.address, '169.254.169.1', 67, 67), 'deny', 'the DNS pod to the relay');
    assert.equal(udp('md', pods.md.address, '169.254.169.1', 67, 68), 'deny');
    assert.equal(udp('dns', pods.dns.address, pods.md.address, 4000, 80), 'deny', 'pod to pod');
    assert.equal(udp('dhcp', pods.dhcp.address, pods.md.address, 67, 80), 'deny', 'the DHCP pod to a pod');
    assert.equal(udp('md', pods.md.address, '169.252.252.5', 80, 4000), 'deny', 'a pod to a VM, unasked');
    assert.equal(udp('dns', pods.md.address, '169.252.252.5', 53, 4000), 'deny', "another pod's address");
  });

  void it("passes a pod's answer to a VM's request, in the request's session", () => {
    const vm = '169.252.252.7';
    const request = sim().aclVerdict({
      swIfIndex: port.get('md') ?? -1,
      af: 4,
      src: vm,
      dst: pods.md.address,
      proto: 17,
      srcPort: 41000,
      dstPort: 80,
      isInput: false,
    });
    assert.equal(request, 'permit', "the VM's request leaves through the pod's port");
    assert.equal(udp('md', pods.md.address, vm, 80, 41000), 'permit', 'the answer');
    assert.equal(udp('md', pods.md.address, vm, 80, 41001), 'deny', 'not an answer');
  });
});

/**
 * The same pod guards over IPv6 (services.ip6): the BVI's IPv6 side is in table 0 with the
 * underlay, so what a pod may send and receive over IPv6 is all that keeps it from the fabric and
 * the fabric from it. Real packets: test/integration/service-plane-ip6.test.ts.
 */
