/**
 * The service bridge end to end: pods attached and detached, alone, in a batch waiting for the
 * dataplane lock, and beside another agent's links, against a VPP (the simulator by default, a real
 * VPP 26.06 with VPP_API_SOCKET), pods in real network namespaces on veth pairs (root only). Each
 * test leaves VPP, the host and the state directory as it found them.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { performance } from 'node:perf_hooks';
import { AgentApiError, AgentErrorCode } from '../agent-api/errors.js';
import {
  createVethIntoNetns,
  deleteHostLink,
  hostLinkOwner,
  hostVethName,
  ownedHostMac,
} from '../netns/index.js';
import { msg } from '../vpp/messages/index.js';
import {
  ATTACHMENT_CHANNEL,
  ATTACHMENT_PHASE_CHANNEL,
  type AttachmentDiagnostic,
  type AttachmentPhaseEntry,
} from './attachment-timing.js';
import {
  NEEDS_ROOT,
  type Fixture,
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

  void it('attaches a pod on a veth pair and detaches it without a trace', async () => {
    const ns = netns();
    const req = podRequest(ns, 'c-attach');
    const id = hostVethName(req.containerId, req.ifname);
    const answer = await f.manager.attach(req);
    assert.equal(answer.mode, 'veth');
    assert.deepEqual(
      answer.interfaces.map((i) => [i.name, i.sandbox]),
      [
        [id, undefined],
        ['net1', ns.path],
      ],
    );

    // VPP: af_packet on the host end, member of the bridge, up, with pod-in in and pod-out out.
    const ifs = await f.client.dump(msg.sw_interface_dump, {
      sw_if_index: 0xffffffff,
      name_filter_valid: false,
    });
    const port = ifs.find((i) => i.tag === `vppnet:pod:${id}`);
    assert.ok(port, 'pod port in VPP');
    assert.equal(port.flags & 1, 1, 'admin up');
    const [bd] = await f.client.dump(msg.bridge_domain_dump, { bd_id: 100, sw_if_index: 0xffffffff });
    assert.ok(bd?.sw_if_details.some((m) => m.sw_if_index === port.sw_if_index));
    const acls = await f.client.dump(msg.acl_dump, { acl_index: 0xffffffff });
    const aclIndex = (tag: string): number | undefined => acls.find((a) => a.tag === tag)?.acl_index;
    const [binding] = await f.client.dump(msg.acl_interface_list_dump, { sw_if_index: port.sw_if_index });
    assert.deepEqual(
      [binding?.n_input, ...(binding?.acls ?? [])],
      [1, aclIndex(`vppnet:pod-in:${id}`), aclIndex('vppnet:pod-out')],
    );
    // Its only sources: its MAC with its address; the bridge knows it without learning.
    const podMac = f.manager.list().find((r) => r.id === id)?.podMac ?? '';
    const macips = await f.client.dump(msg.macip_acl_dump, { acl_index: 0xffffffff });
    const macip = macips.find((a) => a.tag === `vppnet:pod-macip:${id}`);
    assert.deepEqual(
      macip?.r.map((r) => [
        r.is_permit,
        r.src_mac,
        r.src_mac_mask,
        r.src_prefix.address.un.ip4,
        r.src_prefix.len,
      ]),
      [[1, podMac, 'ff:ff:ff:ff:ff:ff', '169.254.169.103', 32]],
    );
    const bound = await f.client.call(msg.macip_acl_interface_get, {});
    assert.equal(bound.acls[port.sw_if_index], macip?.acl_index);
    const fib = await f.client.dump(msg.l2_fib_table_dump, { bd_id: 100 });
    assert.ok(fib.some((e) => e.mac === podMac && e.sw_if_index === port.sw_if_index && e.static_mac));
    const arp = await f.client.dump(msg.bd_ip_mac_dump, { bd_id: 100 });
    assert.ok(arp.some((e) => e.entry.mac === podMac && e.entry.ip.un.ip4 === '169.254.169.103'));

    // The pod sees its interface with the address IPAM gave.
    const state = await f.manager.check({ containerId: req.containerId, ifname: req.ifname, netns: ns.path });
    assert.deepEqual(
      state.podInterface.addresses.filter((a) => !a.includes(':')),
      ['169.254.169.103/24'],
    );
    assert.equal(state.podInterface.up, true);
    assert.deepEqual(await traces(f, req.containerId, req.ifname, podMac), [
      `ACL vppnet:pod-in:${id}`,
      `MACIP ACL vppnet:pod-macip:${id}`,
      `L2 FIB entry ${podMac}`,
      `ARP termination entry ${podMac}`,
      `VPP interface host-${id}`,
      `af_packet on ${id}`,
      `host link ${id}`,
      `ingress chain ingress_${id}`,
      `record ${id}`,
    ]);
    assert.deepEqual(await planOps(f), [], 'a full reconcile keeps the pod as it is');

    await f.manager.detach({ containerId: req.containerId, ifname: req.ifname, netns: ns.path });
    assert.deepEqual(await traces(f, req.containerId, req.ifname, podMac), []);
    assert.equal(ns.hasLink('net1'), false);
    // DEL is repeatable, also without a netns.
    await f.manager.detach({ containerId: req.containerId, ifname: req.ifname, netns: '' });
    assert.deepEqual(await planOps(f), []);
  });

  void it('serves pods that wait for the dataplane lock in one batch, each on its own', async () => {
    const namespacesOf = [netns(), netns(), netns()];
    // One address each: a service address has one holder.
    const requests = namespacesOf.map((ns, i) =>
      podRequest(ns, `c-batch-${i}`, 'net1', 'veth', `169.254.169.${110 + i}/24`),
    );
    const dumps: string[] = [];
    const count = (m: unknown): void => {
      const name = (m as { name: string }).name;
      if (name === 'sw_interface_dump') dumps.push(name);
    };
    const timings: AttachmentDiagnostic[] = [];
    const time = (m: unknown): void => void timings.push(m as AttachmentDiagnostic);
    diagnostics.subscribe('vppnet:vpp:request', count);
    diagnostics.subscribe(ATTACHMENT_CHANNEL.name, time);
    // A full reconcile holds the lock while three ADDs arrive; the third pod's veth pair vanishes
    // before VPP's turn comes, so its port cannot be made.
    const ids = requests.map((req) => hostVethName(req.containerId, req.ifname));
    // When each ADD began waiting for the lock (its veth pair made, its next step VPP's turn).
    const waitingSince = new Map<string, number>();
    let allWaiting!: () => void;
    const whenAllWaiting = new Promise<void>((r) => (allWaiting = r));
    const onPhase = (m: unknown): void => {
      const e = m as AttachmentPhaseEntry;
      if (e.op !== 'attach' || e.phase !== 'vpp_lock' || !ids.includes(e.id)) return;
      waitingSince.set(e.id, e.at);
      if (waitingSince.size === ids.length) allWaiting();
    };
    diagnostics.subscribe(ATTACHMENT_PHASE_CHANNEL.name, onPhase);
    let release!: () => void;
    const held = f.lock.run(() => new Promise<void>((r) => (release = r)));
    let releasedAt = 0;
    try {
      const adds = requests.map((req) =>
        f.manager.attach(req).then(
          () => 'ok',
          (err: AgentApiError) => err.code,
        ),
      );
      await whenAllWaiting;
      // (Deleted directly: a deleted netns takes its veth pairs with it only some time later.)
      execFileSync('ip', ['link', 'del', ids[2]!]);
      releasedAt = performance.now();
      release();
      await held;
      assert.deepEqual(await Promise.all(adds), ['ok', 'ok', AgentErrorCode.TRY_AGAIN_LATER]);
    } finally {
      diagnostics.unsubscribe('vppnet:vpp:request', count);
      diagnostics.unsubscribe(ATTACHMENT_CHANNEL.name, time);
      diagnostics.unsubscribe(ATTACHMENT_PHASE_CHANNEL.name, onPhase);
    }
    assert.deepEqual(
      f.manager
        .list()
        .map((r) => r.containerId)
        .sort(),
      ['c-batch-0', 'c-batch-1'],
    );
    // One look at VPP's interfaces for the three pods, one more for undoing the failed one.
    assert.equal(dumps.length, 2, dumps.join(', '));
    assert.deepEqual(await traces(f, 'c-batch-2', 'net1'), []);
    // Where the time went, per call: the wait for the lock is its own phase.
    const ok = timings.filter((t) => t.op === 'attach' && t.outcome === 'ok');
    assert.equal(ok.length, 2);
    for (const t of ok) {
      // Its vpp_lock phase spans at least from its queueing to the lock's release (one clock).
      const waited = releasedAt - (waitingSince.get(t.id) ?? Number.NaN);
      assert.ok(waited > 0);
      assert.ok((t.phasesMs.vpp_lock ?? 0) >= waited, `waited for the lock: ${JSON.stringify(t.phasesMs)}`);
      assert.ok(
        t.phasesMs.netns !== undefined && t.phasesMs.vpp !== undefined && t.phasesMs.record !== undefined,
      );
      const sum = Object.values(t.phasesMs).reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(sum - t.durationMs) < 1, 'the phases add up to the call');
    }
    assert.deepEqual(
      timings.filter((t) => t.op === 'attach' && t.outcome !== 'ok').map((t) => t.outcome),
      [AgentErrorCode.TRY_AGAIN_LATER],
    );
  });

  void it("removes its own leftover pod links and leaves another agent's alone", async () => {
    const ns = netns();
    const mine = hostVethName('c-leftover', 'net1');
    const theirs = hostVethName('c-theirs', 'net2');
    // A pair an interrupted ADD of ours left behind, and one of another agent (another VPP) on this host.
    await createVethIntoNetns({
      hostName: mine,
      netnsPath: ns.path,
      podIfName: 'net1',
      hostMac: ownedHostMac(hostLinkOwner(f.target.socketPath), mine),
    });
    await createVethIntoNetns({
      hostName: theirs,
      netnsPath: ns.path,
      podIfName: 'net2',
      hostMac: ownedHostMac(hostLinkOwner('/run/other-vpp/api.sock'), theirs),
    });
    assert.ok(existsSync(`/sys/class/net/${mine}`) && existsSync(`/sys/class/net/${theirs}`));
    await apply(f);
    assert.equal(existsSync(`/sys/class/net/${mine}`), false, 'ours, no longer wanted: removed');
    assert.equal(existsSync(`/sys/class/net/${theirs}`), true, "the other agent's: untouched");
    assert.deepEqual(await planOps(f), []);
    await deleteHostLink(theirs);
  });
});
