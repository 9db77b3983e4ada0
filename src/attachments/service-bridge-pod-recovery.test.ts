/**
 * The service bridge end to end: attachments after an agent or VPP restart, gone namespaces, pods
 * the runtime no longer lists, and full reconciles alongside, against a VPP (the simulator by
 * default, a real VPP 26.06 with VPP_API_SOCKET), pods in real network namespaces on veth pairs
 * (root only). Each test leaves VPP, the host and the state directory as it found them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SIM_ONLY } from '../../test/support/vpp-target.js';
import { type ReconcileOutcome } from '../hypervisor/reconcile.js';
import { hostVethName } from '../netns/index.js';
import {
  NEEDS_ROOT,
  NETWORK,
  type Fixture,
  newUnderlay,
  openManager,
  config,
  apply,
  planOps,
  traces,
  podRequest,
  OWN_VPP_PER_SUITE,
  podAttachmentSuite,
} from '../../test/support/service-bridge-fixture.js';

void describe('pod attachments', { skip: NEEDS_ROOT || OWN_VPP_PER_SUITE }, () => {
  let f: Fixture;
  const netns = podAttachmentSuite((made) => (f = made));

  void it('detaches after an agent restart, with only the state directory to go by', async () => {
    const ns = netns();
    const req = podRequest(ns, 'c-restart');
    await f.manager.attach(req);
    const restarted = await openManager(f);
    assert.deepEqual(
      restarted.list().map((r) => r.containerId),
      ['c-restart'],
    );
    assert.deepEqual(
      await planOps(f, config(f), restarted),
      [],
      'the restarted agent wants the pod as it is',
    );
    await restarted.detach({ containerId: req.containerId, ifname: req.ifname, netns: '' });
    assert.deepEqual(await traces(f, req.containerId, req.ifname), []);
    // The first manager still thinks it is attached; a DEL through it finds nothing and succeeds.
    await f.manager.detach({ containerId: req.containerId, ifname: req.ifname, netns: ns.path });
  });

  void it('removes attachments whose netns is gone', async () => {
    const ns = netns();
    const req = podRequest(ns, 'c-vanish');
    await f.manager.attach(req);
    ns.remove(); // the pod is deleted, no DEL reaches the agent
    await apply(f);
    assert.deepEqual(f.manager.list(), []);
    assert.deepEqual(await traces(f, req.containerId, req.ifname), []);
  });

  void it('collects the attachments of its network that the runtime no longer lists', async () => {
    const [a, b] = [netns(), netns()];
    await f.manager.attach(podRequest(a, 'c-keep'));
    await f.manager.attach(podRequest(b, 'c-drop', 'net1', 'veth', '169.254.169.104/24'));
    await f.manager.gc({ network: 'another-network', validAttachments: [] });
    assert.equal(f.manager.list().length, 2, 'GC of another network touches nothing');
    await f.manager.gc({ network: NETWORK, validAttachments: [{ containerID: 'c-keep', ifname: 'net1' }] });
    assert.deepEqual(
      f.manager.list().map((r) => r.containerId),
      ['c-keep'],
    );
    assert.deepEqual(await traces(f, 'c-drop', 'net1'), []);
    await f.manager.detach({ containerId: 'c-keep', ifname: 'net1', netns: a.path });
  });

  void it('keeps a pod attached while full reconciles run alongside its ADD and DEL', async () => {
    const ns = netns();
    const req = podRequest(ns, 'c-race');
    const passes = (): Promise<ReconcileOutcome[]> => Promise.all([apply(f), apply(f), apply(f)]);
    await Promise.all([f.manager.attach(req), passes()]);
    assert.equal((await traces(f, req.containerId, req.ifname)).length, 7);
    assert.deepEqual(await planOps(f), []);
    await Promise.all([
      f.manager.detach({ containerId: req.containerId, ifname: req.ifname, netns: ns.path }),
      passes(),
    ]);
    assert.deepEqual(await traces(f, req.containerId, req.ifname), []);
  });

  void it('restores pod ports after a VPP restart', { skip: SIM_ONLY }, async () => {
    const ns = netns();
    const req = podRequest(ns, 'c-vpp-restart');
    const id = hostVethName(req.containerId, req.ifname);
    await f.manager.attach(req);
    const ready = new Promise<void>((resolve) => f.client.on('ready', (info) => info.reconnect && resolve()));
    await f.target.sim!.restart({ downtimeMs: 20 });
    await ready;
    await f.other.whenReady(5000);
    f.underlay = await newUnderlay(f.other); // the "NIC" comes back with VPP
    const before = await traces(f, req.containerId, req.ifname);
    assert.deepEqual(
      before,
      [`host link ${id}`, `ingress chain ingress_${id}`, `record ${id}`],
      'VPP lost the port, the veth pair and record stayed',
    );
    await apply(f);
    assert.deepEqual(await traces(f, req.containerId, req.ifname), [
      `ACL vppnet:pod-in:${id}`,
      `MACIP ACL vppnet:pod-macip:${id}`,
      `VPP interface host-${id}`,
      `af_packet on ${id}`,
      `host link ${id}`,
      `ingress chain ingress_${id}`,
      `record ${id}`,
    ]);
    const state = await f.manager.check({ containerId: req.containerId, ifname: req.ifname, netns: ns.path });
    assert.deepEqual(
      state.podInterface.addresses.filter((a) => !a.includes(':')),
      ['169.254.169.103/24'],
    );
    assert.deepEqual(await planOps(f), []);
    await f.manager.detach({ containerId: req.containerId, ifname: req.ifname, netns: ns.path });
    assert.deepEqual(await traces(f, req.containerId, req.ifname), []);
  });
});
