/**
 * The service bridge end to end: service pods over IPv6, judged by the simulator's dataplane
 * (simulator only), pods in real network namespaces (root only).
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

void describe('service pods over IPv6, on the simulator', { skip: NEEDS_ROOT || SIM_ONLY }, () => {
  let f: Fixture;
  const ns = new TestNetns();
  const pod = { address: '169.254.169.254', address6: 'fd00:ec2::254', mac: '0a:58:a9:fe:a9:fe' };
  let podPort = -1;
  const sim = (): VppSimulator => f.target.sim as VppSimulator;

  before(async () => {
    f = await setup({}, { servicesIp6: true });
    await apply(f);
    await f.manager.attach({
      ...podRequest(ns, 'c-md6', 'net1', 'veth', `${pod.address}/24`),
      mac: pod.mac,
      ips: [
        { address: `${pod.address}/24`, gateway: '169.254.169.1' },
        // A spelling of fd00:ec2::254 that is not RFC 5952's: the agent keeps one.
        { address: 'fd00:ec2:0:0::254/64', gateway: 'fd00:ec2::1' },
      ],
      routes: [
        { dst: '169.252.252.0/24', gw: '169.254.169.1' },
        { dst: 'fd00:ec2:0:ff::/64', gw: 'fd00:ec2::1' },
      ],
    });
    const ifs = await f.client.dump(msg.sw_interface_dump, {
      sw_if_index: 0xffffffff,
      name_filter_valid: false,
    });
    podPort = ifs.find((i) => i.tag === `vppnet:pod:${hostVethName('c-md6', 'net1')}`)?.sw_if_index ?? -1;
  });
  after(async () => {
    for (const r of f.manager.list()) await f.manager.detach(r).catch(() => undefined);
    ns.remove();
    await teardown(f);
  });

  const udp6 = (src: string, dst: string, srcPort: number, dstPort: number, isInput = true) =>
    sim().aclVerdict({ swIfIndex: podPort, af: 6, src, dst, proto: 17, srcPort, dstPort, isInput });
  const nd = (src: string, dst: string, isInput: boolean) =>
    sim().aclVerdict({ swIfIndex: podPort, af: 6, src, dst, proto: 58, srcPort: 135, dstPort: 0, isInput });

  void it('a full pass after the attach plans nothing (the pod is read back with its IPv6 address)', async () => {
    const outcome = await apply(f);
    assert.deepEqual(
      outcome.plan.ops.map((o) => `${o.action} ${o.resource.key}`),
      [],
    );
  });

  void it("receives only the VMs' service addresses and neighbour discovery, nothing from table 0", () => {
    assert.equal(udp6('fd00:ec2:0:ff::7', pod.address6, 41000, 80, false), 'permit', 'a VM through nat66');
    assert.equal(udp6('2001:db8::2', pod.address6, 41000, 80, false), 'deny', 'the underlay');
    assert.equal(udp6('2001:db8:a::5', pod.address6, 41000, 80, false), 'deny', 'an untranslated VM address');
    assert.equal(
      udp6('fd00:ec2::9', pod.address6, 41000, 80, false),
      'deny',
      'another address of the bridge',
    );
    assert.equal(nd('fd00:ec2::1', pod.address6, false), 'permit', 'the gateway resolving the pod');
    assert.equal(nd('2001:db8::2', pod.address6, false), 'deny', 'ND from the underlay');
  });

  void it('answers a VM in its session and opens nothing: not to a VM, not into table 0', () => {
    const vm = 'fd00:ec2:0:ff::8';
    assert.equal(udp6(vm, pod.address6, 42000, 80, false), 'permit');
    assert.equal(udp6(pod.address6, vm, 80, 42000), 'permit', 'the answer');
    assert.equal(udp6(pod.address6, vm, 80, 42001), 'deny', 'not an answer');
    assert.equal(udp6(pod.address6, 'fd00:ec2:0:ff::9', 80, 4000), 'deny', 'a VM, unasked');
    assert.equal(udp6(pod.address6, '2001:db8::2', 80, 4000), 'deny', 'the underlay');
    assert.equal(udp6(pod.address6, 'fc00:1::a', 80, 4000), 'deny', "this node's End.DT4 SID");
    assert.equal(nd(pod.address6, 'ff02::1:ff00:1', true), 'permit', 'resolving the gateway');
    assert.equal(nd(pod.address6, vm, true), 'deny', 'ND-shaped packets to a VM');
  });

  void it('sends only as itself: its MAC with its addresses and its link-local', () => {
    const frame = (srcMac: string, srcIp: string) =>
      sim().macipVerdict({ swIfIndex: podPort, ethertype: 0x86dd, srcMac, srcIp });
    assert.equal(frame(pod.mac, pod.address6), 'permit');
    assert.equal(frame(pod.mac, 'fe80::858:a9ff:fefe:a9fe'), 'permit', 'its link-local');
    assert.equal(frame(pod.mac, 'fd00:ec2::253'), 'deny', "the DNS pod's address");
    assert.equal(frame(pod.mac, 'fd00:ec2:0:ff::7'), 'deny', "a VM's service address");
    assert.equal(frame('0a:58:a9:fe:a9:35', pod.address6), 'deny', 'another MAC');
  });
});
