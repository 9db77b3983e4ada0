/**
 * The service bridge end to end: full reconciles and pod attachments against a VPP (the simulator
 * by default, a real VPP 26.06 with VPP_API_SOCKET), pods in real network namespaces on veth pairs
 * (root only). Each test leaves VPP, the host and the state directory as it found them.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { performance } from 'node:perf_hooks';

import { SIM_ONLY, startVppTarget, type VppTarget } from '../../test/support/vpp-target.js';
import { AgentApiError, AgentErrorCode } from '../agent-api/errors.js';
import type { AttachRequest } from '../agent-api/protocol.js';
import type { AgentConfig } from '../config/model.js';
import { validateConfig } from '../config/validate.js';
import type { HostLinks } from '../dataplane/context.js';
import { linuxHostLinks } from '../agent/host-links.js';
import { memoryStore, reconcile, type ReconcileOutcome, type SrGlobalsStore } from '../agent/reconciler.js';
import {
  createVethIntoNetns,
  hostLinkOwner,
  hostVethName,
  ownedHostMac,
  readPodInterface,
} from '../netns/index.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { msg } from '../vpp/messages/index.js';
import { keys } from '../dataplane/keys.js';
import type { VppSimulator } from '../vpp/sim/index.js';
import type { ServicesRuntime } from '../services/runtime.js';
import { ServiceAddresses } from '../services/service-addresses.js';
import { AddressBookFileStore } from './address-book-file-store.js';
import { AsyncLock } from './async-lock.js';
import { AttachmentManager, MAX_ATTACHMENTS_PER_NETWORK } from './attachment-manager.js';
import { ATTACHMENTS_DIR, AttachmentFileStore, type AttachmentStore } from './attachment-store.js';
import {
  ATTACHMENT_CHANNEL,
  ATTACHMENT_PHASE_CHANNEL,
  type AttachmentDiagnostic,
  type AttachmentPhaseEntry,
} from './attachment-timing.js';
import { linuxPodNetns, type PodNetns } from './pod-netns.js';

const IS_ROOT = process.getuid?.() === 0;
const NEEDS_ROOT = IS_ROOT ? false : 'needs root (network namespaces and veth pairs)';
const NETWORK = 'vppnet-services';

interface Fixture {
  target: VppTarget;
  client: VppClient;
  /** Someone else's client: makes the "underlay NIC" as an existing interface would be. */
  other: VppClient;
  underlay: string;
  dir: string;
  stateDir: string;
  lock: AsyncLock;
  globals: SrGlobalsStore;
  addresses: ServiceAddresses;
  manager: AttachmentManager;
  /** The node runs the services over IPv6 too (services.ip6). */
  readonly servicesIp6?: boolean;
}

function rawConfig(f: Fixture): Record<string, unknown> {
  return {
    node: {
      name: 'hv1',
      underlay: { interface: f.underlay, address: '2001:db8::1/64', gateway: '2001:db8::2' },
      vhostUser: { directory: f.dir },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs: [
      { name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' },
      { name: 'vpc-b', id: 20, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' },
    ],
    ports: ['vm1', 'vm2'].map((name, i) => ({
      name,
      vpc: i === 0 ? 'vpc-a' : 'vpc-b',
      mac: `52:54:00:00:0${i + 1}:05`,
      ip: '10.0.0.5',
      attach: { type: 'vhost-user', socket: path.join(f.dir, `${name}.sock`) },
    })),
    remoteRoutes: [{ vpc: 'vpc-a', prefix: '10.0.0.7/32', sid: 'fc00:2::a' }],
    services: {
      dhcpServer: '169.254.169.103',
      dnsAddress: '169.254.169.53',
      ...(f.servicesIp6 === true && { ip6: {} }),
    },
  };
}

async function newUnderlay(other: VppClient): Promise<string> {
  const lo = await other.call(msg.create_loopback_instance, {});
  const [details] = await other.dump(msg.sw_interface_dump, {
    sw_if_index: lo.sw_if_index,
    name_filter_valid: false,
  });
  return details!.interface_name;
}

async function setup(
  simOptions: { vhostNet?: boolean } = {},
  node: { servicesIp6?: boolean } = {},
): Promise<Fixture> {
  const target = await startVppTarget(simOptions);
  const other = new VppClient({
    socketPath: target.socketPath,
    clientName: 'someone-else',
    healthCheckIntervalMs: 0,
    retryStrategy: () => 20,
  });
  await other.connect();
  const underlay = await newUnderlay(other);
  const client = new VppClient({
    socketPath: target.socketPath,
    clientName: 'vppnet-services-test',
    healthCheckIntervalMs: 0,
    retryStrategy: () => 20,
  });
  await client.connect();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-svc-'));
  const stateDir = path.join(dir, 'state');
  const lock = new AsyncLock();
  const f = {
    target,
    client,
    other,
    underlay,
    dir,
    stateDir,
    lock,
    globals: memoryStore(),
    ...(node.servicesIp6 === true && { servicesIp6: true }),
  } as Omit<Fixture, 'addresses' | 'manager'>;
  const addresses = new ServiceAddresses(new AddressBookFileStore(stateDir));
  const manager = await openManager(f as Fixture);
  return { ...f, addresses, manager };
}

/** The host links of the fixture's agent: its VPP socket names their owner. */
function hostLinks(f: Fixture): HostLinks {
  return linuxHostLinks(hostLinkOwner(f.target.socketPath));
}

function openManager(
  f: Fixture,
  netns: PodNetns = linuxPodNetns,
  store: AttachmentStore = new AttachmentFileStore(f.stateDir),
): Promise<AttachmentManager> {
  return AttachmentManager.open({
    client: f.client,
    host: hostLinks(f),
    hostLinkOwner: hostLinkOwner(f.target.socketPath),
    lock: f.lock,
    store,
    services: () => config(f).services,
    netns,
  });
}

function config(f: Fixture): AgentConfig {
  return validateConfig(rawConfig(f));
}

function runtime(f: Fixture, manager = f.manager): ServicesRuntime {
  return { addresses: f.addresses, attachments: manager, lock: f.lock };
}

async function apply(f: Fixture, cfg = config(f), manager = f.manager): Promise<ReconcileOutcome> {
  const outcome = await reconcile(cfg, {
    client: f.client,
    host: hostLinks(f),
    globals: f.globals,
    services: runtime(f, manager),
  });
  assert.deepEqual(
    outcome.result?.failed.map((x) => `${x.op.action} ${x.op.resource.key}: ${x.error.message}`),
    [],
    'no operation failed',
  );
  assert.deepEqual(outcome.plan.pending, []);
  assert.deepEqual(outcome.warnings, []);
  return outcome;
}

async function planOps(f: Fixture, cfg = config(f), manager = f.manager): Promise<string[]> {
  const { plan } = await reconcile(cfg, {
    client: f.client,
    host: hostLinks(f),
    globals: f.globals,
    services: runtime(f, manager),
    planOnly: true,
  });
  return plan.ops.map((o) => `${o.action} ${o.resource.key}`);
}

async function teardown(f: Fixture): Promise<void> {
  if (f.target.real) {
    // Leave a real VPP as found: an empty desired state removes everything vppnet owns.
    const empty = validateConfig({
      ...rawConfig(f),
      vpcs: [],
      ports: [],
      remoteRoutes: [],
      services: undefined,
    });
    await reconcile(empty, { client: f.client, host: hostLinks(f), globals: memoryStore() });
  }
  await f.client.close();
  await f.other.close();
  await f.target.close();
  await rm(f.dir, { recursive: true, force: true });
}

/** What VPP and the host hold of one pod attachment (and of its MAC, when given). */
async function traces(f: Fixture, containerId: string, ifname: string, podMac?: string): Promise<string[]> {
  const id = hostVethName(containerId, ifname);
  const out: string[] = [];
  const acls = await f.client.dump(msg.acl_dump, { acl_index: 0xffffffff });
  if (acls.some((a) => a.tag === `vppnet:pod-in:${id}`)) out.push(`ACL vppnet:pod-in:${id}`);
  const macips = await f.client.dump(msg.macip_acl_dump, { acl_index: 0xffffffff });
  if (macips.some((a) => a.tag === `vppnet:pod-macip:${id}`)) out.push(`MACIP ACL vppnet:pod-macip:${id}`);
  if (podMac !== undefined) {
    const fib = await f.client.dump(msg.l2_fib_table_dump, { bd_id: 0xffffffff });
    if (fib.some((e) => e.mac === podMac)) out.push(`L2 FIB entry ${podMac}`);
    const arp = await f.client.dump(msg.bd_ip_mac_dump, { bd_id: 0xffffffff });
    if (arp.some((e) => e.entry.mac === podMac)) out.push(`ARP termination entry ${podMac}`);
  }
  const ifs = await f.client.dump(msg.sw_interface_dump, {
    sw_if_index: 0xffffffff,
    name_filter_valid: false,
  });
  const port = ifs.find((i) => i.tag === `vppnet:pod:${id}`);
  if (port) out.push(`VPP interface ${port.interface_name}`);
  const afp = await f.client.dump(msg.af_packet_dump, {});
  if (afp.some((a) => a.host_if_name === id)) out.push(`af_packet on ${id}`);
  if (existsSync(`/sys/class/net/${id}`)) out.push(`host link ${id}`);
  const records = await readdir(path.join(f.stateDir, ATTACHMENTS_DIR)).catch(() => [] as string[]);
  if (records.includes(`${id}.json`)) out.push(`record ${id}`);
  return out;
}

function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

class TestNetns {
  readonly name = `vppnet-t-${randomBytes(3).toString('hex')}`;
  readonly path = `/var/run/netns/${this.name}`;
  constructor() {
    ip('netns', 'add', this.name);
  }
  hasLink(ifname: string): boolean {
    try {
      ip('-n', this.name, 'link', 'show', 'dev', ifname);
      return true;
    } catch {
      return false;
    }
  }
  remove(): void {
    try {
      ip('netns', 'del', this.name);
    } catch {
      // already gone
    }
  }
}

function podRequest(
  ns: TestNetns,
  containerId: string,
  ifname = 'net1',
  mode: AttachRequest['mode'] = 'veth',
  address = '169.254.169.103/24',
): AttachRequest {
  return {
    network: NETWORK,
    containerId,
    ifname,
    netns: ns.path,
    mode,
    ips: [{ address, gateway: '169.254.169.1' }],
    routes: [{ dst: '169.252.252.0/24', gw: '169.254.169.1' }],
  };
}

/**
 * Each suite here builds its node on a VPP of its own (same underlay address, same tables): on one
 * shared real VPP they would collide. Against a real VPP the service bridge is exercised through
 * the reconciler with services configured instead (see the notes of the issue).
 */
const OWN_VPP_PER_SUITE =
  SIM_ONLY && 'these suites need a fresh VPP each (the simulator); VPP_API_SOCKET is set';

void describe('service bridge reconcile', { skip: OWN_VPP_PER_SUITE }, () => {
  let f: Fixture;
  before(async () => {
    f = await setup();
  });
  after(async () => {
    await teardown(f);
  });

  void it('converges from empty with the design objects, and a second pass plans nothing', async () => {
    const first = await apply(f);
    assert.ok((first.result?.applied ?? 0) > 30);
    assert.deepEqual(await planOps(f), []);

    const bds = await f.client.dump(msg.bridge_domain_dump, { bd_id: 100, sw_if_index: 0xffffffff });
    assert.equal(bds[0]?.bd_tag, 'vppnet:services');
    const ifs = await f.client.dump(msg.sw_interface_dump, {
      sw_if_index: 0xffffffff,
      name_filter_valid: false,
    });
    const bvi = ifs.find((i) => i.tag === 'vppnet:services:bvi');
    assert.equal(bds[0]?.bvi_sw_if_index, bvi?.sw_if_index);
    const statics = await f.client.dump(msg.nat44_ei_static_mapping_dump, {});
    assert.deepEqual(
      statics.map((m) => [m.tag, m.vrf_id, m.local_ip_address, m.external_ip_address, m.flags]).sort(),
      [
        ['vppnet:vm:vm1', 10, '10.0.0.5', '169.252.252.1', 8],
        ['vppnet:vm:vm2', 20, '10.0.0.5', '169.252.252.2', 8],
      ],
    );
    const identities = await f.client.dump(msg.nat44_ei_identity_mapping_dump, {});
    assert.deepEqual(
      identities.map((m) => m.vrf_id).sort((a, b) => a - b),
      [10, 20, 4000],
    );
    const proxies = await f.client.dump(msg.dhcp_proxy_dump, { is_ip6: false });
    assert.deepEqual(proxies.map((p) => [p.rx_vrf_id, p.vss_vpn_ascii_id]).sort(), [
      [10, 'vpc-a'],
      [20, 'vpc-b'],
    ]);
    assert.deepEqual(
      f.addresses.serviceMap().map((e) => [e.serviceAddress, e.port, e.vpcId]),
      [
        ['169.252.252.1', 'vm1', 10],
        ['169.252.252.2', 'vm2', 20],
      ],
    );
  });

  void it('moves a VM to a new service address only when it becomes another VM', async () => {
    await apply(f);
    const raw = rawConfig(f);
    (raw.ports as { ip: string }[])[0]!.ip = '10.0.0.9';
    const ops = await planOps(f, validateConfig(raw));
    assert.ok(ops.includes('create nat-ei-static:10:10.0.0.9'), ops.join('\n'));
    assert.ok(ops.includes('delete nat-ei-static:10:10.0.0.5'), ops.join('\n'));
    await apply(f, validateConfig(raw));
    const statics = await f.client.dump(msg.nat44_ei_static_mapping_dump, {});
    // .1 is held back, so vm1 (now another VM) gets .3.
    assert.ok(statics.some((m) => m.tag === 'vppnet:vm:vm1' && m.external_ip_address === '169.252.252.3'));
    await apply(f);
  });
});

void describe('pod attachments', { skip: NEEDS_ROOT || OWN_VPP_PER_SUITE }, () => {
  let f: Fixture;
  const namespaces: TestNetns[] = [];
  const netns = (): TestNetns => {
    const ns = new TestNetns();
    namespaces.push(ns);
    return ns;
  };
  before(async () => {
    f = await setup();
    await apply(f);
  });
  afterEach(async () => {
    // A failed test must not leave its pods to the next one.
    for (const r of f.manager.list()) await f.manager.detach(r).catch(() => undefined);
    for (const ns of namespaces.splice(0)) ns.remove();
  });
  after(async () => {
    await teardown(f);
  });

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
  });

  void it('refuses a second holder of a service address, naming the first, leaving nothing behind', async () => {
    const first = podRequest(netns(), 'c-metadata', 'net1', 'veth', '169.254.169.254/24');
    await f.manager.attach(first);
    const ns = netns();
    const thief = podRequest(ns, 'c-thief', 'net1', 'veth', '169.254.169.254/24');
    await assert.rejects(f.manager.attach(thief), (err: unknown) => {
      assert.ok(err instanceof AgentApiError);
      assert.equal(err.code, AgentErrorCode.ADDRESS_TAKEN);
      assert.match(`${err.msg} ${err.details ?? ''}`, /169\.254\.169\.254 .* container c-metadata/);
      return true;
    });
    // Nor an address off the bridge, or its gateway.
    for (const address of ['10.0.0.5/24', '169.254.169.1/24'])
      await assert.rejects(
        f.manager.attach(podRequest(ns, 'c-thief', 'net1', 'veth', address)),
        (err: unknown) => err instanceof AgentApiError && err.code === AgentErrorCode.INVALID_NETWORK_CONFIG,
      );
    assert.equal(ns.hasLink('net1'), false);
    assert.deepEqual(await traces(f, 'c-thief', 'net1'), []);
    assert.deepEqual(
      f.manager.list().map((r) => r.containerId),
      ['c-metadata'],
    );
  });

  void it("refuses the host's namespace and any namespace outside the runtime's directories, in both modes", async () => {
    // /run/netns/<name> bound to this process's (the agent's, the host's) namespace: in the right
    // directory, but the host's own.
    const hostAlias = `vppnet-hostalias-${randomBytes(3).toString('hex')}`;
    ip('netns', 'attach', hostAlias, String(process.pid));
    // A real pod-like namespace, bind-mounted outside /run/netns.
    const ns = netns();
    const outside = await mkdtemp(path.join(os.tmpdir(), 'vppnet-ns-'));
    const stray = path.join(outside, 'ns');
    await writeFile(stray, '');
    execFileSync('mount', ['--bind', ns.path, stray]);
    try {
      const cases: [string, RegExp][] = [
        ['/proc/self/ns/net', /not in the container runtime's netns directories/],
        ['/proc/1/ns/net', /not in the container runtime's netns directories/],
        [stray, /not in the container runtime's netns directories/],
        [`/run/netns/${hostAlias}`, /is the host's network namespace/],
        [`/var/run/netns/../netns/${hostAlias}`, /is the host's network namespace/],
      ];
      for (const [netnsPath, why] of cases)
        for (const mode of ['veth', 'tap'] as const) {
          const req = { ...podRequest(ns, 'c-hostns', 'vppnet9', mode), netns: netnsPath };
          await assert.rejects(f.manager.attach(req), (err: unknown) => {
            assert.ok(err instanceof AgentApiError, String(err));
            assert.equal(err.code, AgentErrorCode.INVALID_NETWORK_CONFIG, `${netnsPath} ${mode}`);
            assert.match(err.msg, why);
            return true;
          });
          assert.deepEqual(await traces(f, 'c-hostns', 'vppnet9'), [], `${netnsPath} ${mode}`);
        }
      assert.notEqual(
        spawnSync('ip', ['link', 'show', 'vppnet9']).status,
        0,
        'no vppnet9 in the host namespace',
      );
    } finally {
      execFileSync('umount', [stray]);
      await rm(outside, { recursive: true, force: true });
      ip('netns', 'del', hostAlias);
    }
    assert.deepEqual(f.manager.list(), []);
  });

  void it('upgrades a bridge and pod port of the earlier design in place: flags, then ACLs', async () => {
    const ns = netns();
    const req = podRequest(ns, 'c-upgrade');
    const id = hostVethName(req.containerId, req.ifname);
    await f.manager.attach(req);
    // What an agent before the hardening left: a learning bridge without ARP termination, and
    // one input ACL shared by every pod port.
    const F = msg.bd_flags_t.values;
    await f.other.call(msg.bridge_flags, {
      bd_id: 100,
      is_set: true,
      flags: F.BRIDGE_API_FLAG_LEARN | F.BRIDGE_API_FLAG_UU_FLOOD,
    });
    await f.other.call(msg.bridge_flags, { bd_id: 100, is_set: false, flags: F.BRIDGE_API_FLAG_ARP_TERM });
    const shared = await f.other.call(msg.acl_add_replace, {
      acl_index: 0xffffffff,
      tag: 'vppnet:pod-in',
      r: [],
    });
    const ifs = await f.client.dump(msg.sw_interface_dump, {
      sw_if_index: 0xffffffff,
      name_filter_valid: false,
    });
    const sw = ifs.find((i) => i.tag === `vppnet:pod:${id}`)?.sw_if_index ?? -1;
    const acls = await f.client.dump(msg.acl_dump, { acl_index: 0xffffffff });
    const out = acls.find((a) => a.tag === 'vppnet:pod-out')?.acl_index ?? -1;
    await f.other.call(msg.acl_interface_set_acl_list, {
      sw_if_index: sw,
      n_input: 1,
      acls: [shared.acl_index, out],
    });

    const ops = await planOps(f);
    assert.ok(ops.includes(`update ${keys.bridgeDomain(100)}`), ops.join(', '));
    assert.ok(ops.includes(`delete ${keys.acl('vppnet:pod-in')}`), ops.join(', '));
    await apply(f);
    const [bd] = await f.client.dump(msg.bridge_domain_dump, { bd_id: 100, sw_if_index: 0xffffffff });
    assert.deepEqual([bd?.learn, bd?.uu_flood, bd?.arp_term, bd?.flood], [false, false, true, false]);
    const after = await f.client.dump(msg.acl_dump, { acl_index: 0xffffffff });
    assert.equal(
      after.find((a) => a.tag === 'vppnet:pod-in'),
      undefined,
      'the shared ACL is gone',
    );
    const [binding] = await f.client.dump(msg.acl_interface_list_dump, { sw_if_index: sw });
    assert.deepEqual(binding?.acls, [after.find((a) => a.tag === `vppnet:pod-in:${id}`)?.acl_index, out]);
    assert.deepEqual(await planOps(f), []);
  });

  void it(`refuses a network's attachment beyond ${MAX_ATTACHMENTS_PER_NETWORK} on the node, leaving nothing behind`, async () => {
    const crowd = (i: number) => ({
      ...podRequest(netns(), `c-crowd-${i}`, 'net1', 'veth', `169.254.169.${120 + i}/24`),
      network: 'crowd',
    });
    for (let i = 0; i < MAX_ATTACHMENTS_PER_NETWORK; i++) await f.manager.attach(crowd(i));
    const extra = crowd(MAX_ATTACHMENTS_PER_NETWORK);
    await assert.rejects(f.manager.attach(extra), (err: unknown) => {
      assert.ok(err instanceof AgentApiError);
      assert.equal(err.code, AgentErrorCode.INVALID_NETWORK_CONFIG);
      assert.match(err.msg, /network crowd already has 16 attachments on this node/);
      return true;
    });
    assert.deepEqual(await traces(f, extra.containerId, extra.ifname), []);
    // Another network is not held back by this one.
    await f.manager.attach(podRequest(netns(), 'c-other-network', 'net1', 'veth', '169.254.169.150/24'));
  });

  void it('refuses an ifname the netns already has, touching nothing', async () => {
    const ns = netns();
    ip('-n', ns.name, 'link', 'add', 'net1', 'type', 'veth', 'peer', 'name', 'other1');
    const req = podRequest(ns, 'c-taken');
    await assert.rejects(
      f.manager.attach(req),
      (err: unknown) => err instanceof AgentApiError && err.code === 100,
    );
    assert.equal(ns.hasLink('net1'), true);
    assert.deepEqual(await traces(f, req.containerId, req.ifname), []);
  });

  void it('undoes everything when the last step of ADD fails', async () => {
    const ns = netns();
    // The pair exists, VPP has the port: then the record cannot be written (disk full, say).
    const files = new AttachmentFileStore(f.stateDir);
    const failing: AttachmentStore = {
      loadAll: () => files.loadAll(),
      save: () => Promise.reject(new Error('injected: ENOSPC')),
      remove: (id) => files.remove(id),
    };
    const manager = await openManager(f, linuxPodNetns, failing);
    const req = podRequest(ns, 'c-fail');
    await assert.rejects(
      manager.attach(req),
      (err: unknown) => err instanceof AgentApiError && err.code === 999 && /injected/.test(err.message),
    );
    assert.deepEqual(await traces(f, req.containerId, req.ifname), []);
    assert.equal(ns.hasLink('net1'), false);
    assert.deepEqual(manager.list(), []);
  });

  void it('undoes the pair when the pod end cannot be configured', async () => {
    const ns = netns();
    // The same route twice: allowed by the agent's rules, refused by the kernel ("File exists").
    const route = { dst: '169.252.252.0/25', gw: '169.254.169.1' };
    const req = { ...podRequest(ns, 'c-bad-route'), routes: [route, route] };
    await assert.rejects(
      f.manager.attach(req),
      (err: unknown) =>
        err instanceof AgentApiError &&
        err.code === 999 &&
        /route add 169\.252\.252\.0\/25/.test(err.message),
    );
    assert.deepEqual(await traces(f, req.containerId, req.ifname), []);
    assert.equal(ns.hasLink('net1'), false);
    assert.deepEqual(f.manager.list(), []);
  });

  void it(
    'reports a VPP that cannot make taps (no /dev/vhost-net) and leaves nothing behind',
    { skip: existsSync('/dev/vhost-net') && 'this host has vhost-net' },
    async () => {
      const ns = netns();
      const req = podRequest(ns, 'c-no-vhost', 'net1', 'tap');
      await assert.rejects(
        f.manager.attach(req),
        (err: unknown) =>
          err instanceof AgentApiError && err.code === 999 && /tap_create_v3/.test(err.message),
      );
      assert.deepEqual(await traces(f, req.containerId, req.ifname), []);
      assert.equal(ns.hasLink('net1'), false, 'no tap device left in the netns');
    },
  );

  void it(
    'falls back to veth in auto mode when VPP cannot open /dev/vhost-net',
    { skip: existsSync('/dev/vhost-net') && 'this host has vhost-net' },
    async () => {
      const ns = netns();
      // The agent sees vhost-net, VPP (say, in another container) does not.
      const manager = await openManager(f, {
        ...linuxPodNetns,
        vhostNetAvailable: () => Promise.resolve(true),
      });
      const req = podRequest(ns, 'c-auto', 'net1', 'auto');
      const answer = await manager.attach(req);
      assert.equal(answer.mode, 'veth');
      assert.equal((await traces(f, req.containerId, req.ifname)).length, 6);
      await manager.detach(req);
      assert.deepEqual(await traces(f, req.containerId, req.ifname), []);
    },
  );

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
    assert.equal((await traces(f, req.containerId, req.ifname)).length, 6);
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
      [`host link ${id}`, `record ${id}`],
      'VPP lost the port, the veth pair and record stayed',
    );
    await apply(f);
    assert.deepEqual(await traces(f, req.containerId, req.ifname), [
      `ACL vppnet:pod-in:${id}`,
      `MACIP ACL vppnet:pod-macip:${id}`,
      `VPP interface host-${id}`,
      `af_packet on ${id}`,
      `host link ${id}`,
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
