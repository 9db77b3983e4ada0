/**
 * The service bridge end to end: pod attachments on VPP taps where vhost-net exists (simulator
 * only), pods in real network namespaces (root only).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SIM_ONLY } from '../../test/support/vpp-target.js';
import { hostVethName, readPodInterface } from '../netns/index.js';
import { msg } from '../vpp/messages/index.js';
import { linuxPodNetns, type PodNetns } from './pod-netns.js';
import {
  NEEDS_ROOT,
  type Fixture,
  newUnderlay,
  setup,
  openManager,
  config,
  apply,
  planOps,
  teardown,
  traces,
  TestNetns,
  podRequest,
} from '../../test/support/service-bridge-fixture.js';

void describe(
  'pod attachments on VPP taps (simulator with vhost-net)',
  { skip: NEEDS_ROOT || SIM_ONLY },
  () => {
    let f: Fixture;
    const namespaces: TestNetns[] = [];
    before(async () => {
      f = await setup({ vhostNet: true });
      await apply(f);
    });
    after(async () => {
      for (const ns of namespaces.splice(0)) ns.remove();
      await teardown(f);
    });

    void it('prefers a tap where vhost-net exists and removes it on DEL', async () => {
      const ns = new TestNetns();
      namespaces.push(ns);
      const vhostNet: PodNetns = { ...linuxPodNetns, vhostNetAvailable: () => Promise.resolve(true) };
      const manager = await openManager(f, vhostNet);
      const req = { ...podRequest(ns, 'c-tap', 'net1', 'auto'), mtu: 1400 };
      const id = hostVethName(req.containerId, req.ifname);
      const answer = await manager.attach(req);
      assert.equal(answer.mode, 'tap');
      assert.equal(
        (await readPodInterface(ns.path, 'net1')).mtu,
        1400,
        'VPP made the tap with the MTU asked for',
      );
      assert.deepEqual(
        answer.interfaces.map((i) => i.name),
        ['net1'],
      );
      const taps = await f.client.dump(msg.sw_interface_tap_v2_dump, { sw_if_index: 0xffffffff });
      const tap = taps.find((t) => t.host_if_name === 'net1' && t.host_namespace === ns.path);
      assert.ok(tap, 'VPP made the tap in the pod netns');
      assert.equal(tap.tap_flags & 12, 12, 'persistent, re-attachable after a VPP restart');
      assert.equal(tap.host_mtu_size, 1400);
      const ifs = await f.client.dump(msg.sw_interface_dump, {
        sw_if_index: tap.sw_if_index,
        name_filter_valid: false,
      });
      assert.equal(ifs[0]?.tag, `vppnet:pod:${id}`);
      const state = await manager.check({ containerId: req.containerId, ifname: req.ifname, netns: ns.path });
      assert.equal(state.podInterface.mac, answer.interfaces[0]?.mac);
      assert.deepEqual(
        state.podInterface.addresses.filter((a) => !a.includes(':')),
        ['169.254.169.103/24'],
      );
      assert.deepEqual(await planOps(f, config(f), manager), []);

      await manager.detach({ containerId: req.containerId, ifname: req.ifname, netns: '' });
      const after = await f.client.dump(msg.sw_interface_tap_v2_dump, { sw_if_index: 0xffffffff });
      assert.ok(!after.some((t) => t.host_namespace === ns.path));
      assert.equal(ns.hasLink('net1'), false);
      assert.deepEqual(await traces(f, req.containerId, req.ifname), []);
    });

    void it('re-attaches the persistent tap after a VPP restart, addresses intact', async () => {
      const ns = new TestNetns();
      namespaces.push(ns);
      const manager = await openManager(f);
      const req = podRequest(ns, 'c-tap-restart', 'net1', 'tap');
      await manager.attach(req);
      const ready = new Promise<void>((resolve) =>
        f.client.on('ready', (info) => info.reconnect && resolve()),
      );
      await f.target.sim!.restart({ downtimeMs: 20 });
      await ready;
      await f.other.whenReady(5000);
      f.underlay = await newUnderlay(f.other);
      assert.equal(ns.hasLink('net1'), true, 'the tap device outlived VPP');
      await apply(f, config(f), manager);
      const taps = await f.client.dump(msg.sw_interface_tap_v2_dump, { sw_if_index: 0xffffffff });
      assert.ok(taps.some((t) => t.host_if_name === 'net1' && t.host_namespace === ns.path));
      const state = await manager.check({ containerId: req.containerId, ifname: req.ifname, netns: ns.path });
      assert.deepEqual(
        state.podInterface.addresses.filter((a) => !a.includes(':')),
        ['169.254.169.103/24'],
      );
      await manager.detach({ containerId: req.containerId, ifname: req.ifname, netns: ns.path });
      assert.equal(ns.hasLink('net1'), false);
    });
  },
);

/**
 * The service plane's attacks (test/integration/service-plane-traffic.test.ts sends them as real
 * packets to a real VPP), judged frame by frame with the simulator's models of the nodes a pod's
 * frame meets: the acl plugin's L2 input node, the MACIP classifier (l2-input-acl) and ARP
 * termination.
 */
