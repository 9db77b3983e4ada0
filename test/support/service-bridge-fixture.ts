/**
 * The node of the service bridge tests (src/attachments/service-bridge-*.test.ts): a VPP target,
 * clients, the state directory and the attachment manager; its config and passes, pods' requests
 * and network namespaces, and what a pod may leave behind in VPP, the host and the state directory.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before } from 'node:test';
import { connectedClient, SIM_ONLY, startVppTarget, type VppTarget } from './vpp-target.js';
import type { AttachRequest } from '../../src/agent-api/protocol.js';
import type { AgentConfig } from '../../src/config/model.js';
import { validateConfig } from '../../src/config/validate.js';
import type { HostLinks } from '../../src/dataplane/context.js';
import { linuxHostLinks } from '../../src/agent/host-links.js';
import { reconcile } from '../../src/agent/reconciler.js';
import { memoryStore, type ReconcileOutcome, type SrGlobalsStore } from '../../src/hypervisor/reconcile.js';
import { hostLinkOwner, hostVethName } from '../../src/netns/index.js';
import { HOST_END_TABLE, hostEndChain } from '../../src/netns/host-end.js';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import { msg } from '../../src/vpp/messages/index.js';
import type { ServicesRuntime } from '../../src/services/runtime.js';
import { ServiceAddresses } from '../../src/services/service-addresses.js';
import { AddressBookFileStore } from '../../src/attachments/address-book-file-store.js';
import { AsyncLock } from '../../src/attachments/async-lock.js';
import { AttachmentManager } from '../../src/attachments/attachment-manager.js';
import {
  ATTACHMENTS_DIR,
  AttachmentFileStore,
  type AttachmentStore,
} from '../../src/attachments/attachment-store.js';
import { linuxPodNetns, type PodNetns } from '../../src/attachments/pod-netns.js';

export const IS_ROOT = process.getuid?.() === 0;
export const NEEDS_ROOT = IS_ROOT ? false : 'needs root (network namespaces and veth pairs)';
export const NETWORK = 'vppnet-services';

export interface Fixture {
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

export function rawConfig(f: Fixture): Record<string, unknown> {
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

export async function newUnderlay(other: VppClient): Promise<string> {
  const lo = await other.call(msg.create_loopback_instance, {});
  const [details] = await other.dump(msg.sw_interface_dump, {
    sw_if_index: lo.sw_if_index,
    name_filter_valid: false,
  });
  return details!.interface_name;
}

export async function setup(
  simOptions: { vhostNet?: boolean } = {},
  node: { servicesIp6?: boolean } = {},
): Promise<Fixture> {
  const target = await startVppTarget(simOptions);
  const other = await connectedClient(target.socketPath, 'someone-else');
  const underlay = await newUnderlay(other);
  const client = await connectedClient(target.socketPath, 'vppnet-services-test');
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
export function hostLinks(f: Fixture): HostLinks {
  return linuxHostLinks(hostLinkOwner(f.target.socketPath));
}

export function openManager(
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

export function config(f: Fixture): AgentConfig {
  return validateConfig(rawConfig(f));
}

export function runtime(f: Fixture, manager = f.manager): ServicesRuntime {
  return { addresses: f.addresses, attachments: manager, lock: f.lock };
}

export async function apply(f: Fixture, cfg = config(f), manager = f.manager): Promise<ReconcileOutcome> {
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

export async function planOps(f: Fixture, cfg = config(f), manager = f.manager): Promise<string[]> {
  const { plan } = await reconcile(cfg, {
    client: f.client,
    host: hostLinks(f),
    globals: f.globals,
    services: runtime(f, manager),
    planOnly: true,
  });
  return plan.ops.map((o) => `${o.action} ${o.resource.key}`);
}

export async function teardown(f: Fixture): Promise<void> {
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
export async function traces(
  f: Fixture,
  containerId: string,
  ifname: string,
  podMac?: string,
): Promise<string[]> {
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
  const chain = spawnSync('nft', ['list', 'chain', 'netdev', HOST_END_TABLE, hostEndChain(id)]);
  if (chain.status === 0) out.push(`ingress chain ${hostEndChain(id)}`);
  const records = await readdir(path.join(f.stateDir, ATTACHMENTS_DIR)).catch(() => [] as string[]);
  if (records.includes(`${id}.json`)) out.push(`record ${id}`);
  return out;
}

export function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export class TestNetns {
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

export function podRequest(
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
export const OWN_VPP_PER_SUITE =
  SIM_ONLY && 'these suites need a fresh VPP each (the simulator); VPP_API_SOCKET is set';

/**
 * The pod attachment suites' node: one VPP, reconciled once, for the suite; after each test its
 * pods are detached (a failed test must not leave them to the next one) and its namespaces
 * removed. Call inside a describe; `set` receives the fixture once it is built. Returns a maker
 * of namespaces that are removed after each test.
 */
export function podAttachmentSuite(set: (f: Fixture) => void): () => TestNetns {
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
    set(f);
  });
  afterEach(async () => {
    // A failed test must not leave its pods to the next one.
    for (const r of f.manager.list()) await f.manager.detach(r).catch(() => undefined);
    for (const ns of namespaces.splice(0)) ns.remove();
  });
  after(async () => {
    await teardown(f);
  });
  return netns;
}
