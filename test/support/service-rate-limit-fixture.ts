/**
 * The node of the service-rate-limit tests (src/hypervisor/service-rate-limit-*.test.ts): a VPP target,
 * a client and a loopback standing in for the uplink; their config and the reads of what the
 * reconciler left in VPP; and, for the tests on a RecordingVppApi, vm1's context, a limit and the
 * recorded requests in short.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startVppTarget, type VppTarget } from './vpp-target.js';
import { createUnderlay, removeUnderlay } from './underlay.js';
import { services6TableOf } from '../../src/config/defaults.js';
import { validateConfig } from '../../src/config/validate.js';
import { InterfaceRegistry } from '../../src/dataplane/interface-registry.js';
import { AclRegistry } from '../../src/dataplane/acl-registry.js';
import { NO_HOST_FILES } from '../../src/dataplane/context.js';
import { tags } from '../../src/dataplane/keys.js';
import { MACIP } from '../../src/services/context.js';
import { vmRateLimitDescriptor, type VmRateLimitValue } from '../../src/services/vm-rate-limit.js';
import { formatIp6 } from '../../src/net/ip-literal.js';
import type { Resource } from '../../src/reconcile/resource.js';
import { RecordingVppApi } from '../../src/vpp/client/testing/recording-vpp-api.js';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import { msg } from '../../src/vpp/messages/index.js';
import { reconcile } from './host-reconcile.js';
import { memoryStore } from '../../src/hypervisor/reconcile.js';
import { NO_HOST_LINKS } from './no-host-links.js';

export const METADATA = '169.254.169.254';
export const DNS = '169.254.169.53';
export const METADATA6 = 'fd00:ec2::254';
export const DNS6 = 'fd00:ec2::253';
export const VM6 = (n: number): string => `2001:db8:a::${n + 4}`;

export interface Fixture {
  target: VppTarget;
  client: VppClient;
  dir: string;
  uplink: string;
  globals: ReturnType<typeof memoryStore>;
  /** The loopback standing in for the uplink, deleted at the end (a real VPP is shared). */
  uplinkIndex: number;
}

/** A VPP target, a client, and a loopback standing in for the uplink. */
export async function openFixture(): Promise<Fixture> {
  const target = await startVppTarget();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-rate-'));
  const client = new VppClient({
    socketPath: target.socketPath,
    clientName: 'vppnet-test',
    healthCheckIntervalMs: 0,
  });
  await client.connect();
  const uplink = await createUnderlay(client);
  return { target, client, dir, uplink: uplink.name, globals: memoryStore(), uplinkIndex: uplink.swIfIndex };
}

/** Empties the node, deletes the loopback (a real VPP is shared), closes everything. */
export async function closeFixture(f: Fixture): Promise<void> {
  await apply(f, { ...rawConfig(f, { ports: [] }), vpcs: [], services: undefined }).catch(() => undefined);
  await removeUnderlay(f.client, { name: f.uplink, swIfIndex: f.uplinkIndex });
  await f.client.close();
  await f.target.close();
  await rm(f.dir, { recursive: true, force: true });
}

/**
 * `ip6`: the ports with an IPv6 address: vpc-a is then dual-stack (its ports take an address by
 * SLAAC unless given one), and the other ports are in vpc-b, IPv4 only; and whether services.ip6
 * is on (default: when any port has one).
 */
export function rawConfig(
  f: Fixture,
  opts: {
    ports?: number[];
    vmLimits?: Record<string, number>;
    ip6?: { ports: number[]; services?: boolean };
  } = {},
): Record<string, unknown> {
  const ip6Ports = new Set(opts.ip6?.ports ?? []);
  const services6 = opts.ip6?.services ?? ip6Ports.size > 0;
  return {
    node: {
      name: 'hv1',
      underlay: { interface: f.uplink, address: '2001:db8::1/64', gateway: '2001:db8::2' },
      vhostUser: { directory: f.dir },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs: [
      {
        name: 'vpc-a',
        id: 10,
        subnets: ['10.0.0.0/24', ...(ip6Ports.size > 0 ? ['2001:db8:a::/64'] : [])],
        gateway: '10.0.0.1',
      },
      ...(ip6Ports.size > 0
        ? [{ name: 'vpc-b', id: 20, subnets: ['10.0.1.0/24'], gateway: '10.0.1.1' }]
        : []),
    ],
    ports: (opts.ports ?? [1, 2]).map((n) => {
      const vpc = ip6Ports.size > 0 && !ip6Ports.has(n) ? 'b' : 'a';
      return {
        name: `vm${n}`,
        vpc: `vpc-${vpc}`,
        mac: `52:54:00:00:0c:0${n}`,
        ip: `10.0.${vpc === 'a' ? 0 : 1}.${n + 4}`,
        ...(ip6Ports.has(n) && { ip6: VM6(n) }),
        attach: { type: 'vhost-user', socket: path.join(f.dir, `vm${n}.sock`) },
      };
    }),
    remoteRoutes: [],
    services: {
      dnsAddress: DNS,
      dhcpServer: '169.254.169.103',
      ...(opts.vmLimits && { vmLimits: opts.vmLimits }),
      ...(services6 && { ip6: {} }),
    },
  };
}

export async function apply(f: Fixture, raw: unknown): Promise<{ ops: string[] }> {
  const outcome = await reconcile(validateConfig(raw), {
    client: f.client,
    host: NO_HOST_LINKS,
    globals: f.globals,
  });
  assert.deepEqual(
    outcome.result?.failed.map((x) => `${x.op.action} ${x.op.resource.key}: ${x.error.message}`),
    [],
  );
  return { ops: outcome.plan.ops.map((o) => `${o.action} ${o.resource.key}`) };
}

export async function portIndex(f: Fixture, n: number): Promise<number | undefined> {
  const all = await f.client.dump(msg.sw_interface_dump, {
    sw_if_index: 0xffffffff,
    name_filter_valid: false,
  });
  return all.find((i) => i.tag === `vppnet:vm:vm${n}`)?.sw_if_index;
}

/** vppnet's policers as VPP lists them: name → cir (kbit/s) and committed burst (bytes). */
export async function policers(f: Fixture): Promise<Map<string, { cir: number; cb: number }>> {
  const all = await f.client.dump(msg.policer_dump_v2, { policer_index: 0xffffffff });
  return new Map(all.map((p) => [p.name, { cir: p.cir, cb: Number(p.cb) }]));
}

/** The IPv4 (or L2) policer-classify bindings: sw_if_index → table. */
export async function bindings(f: Fixture, type: 'ip4' | 'ip6' | 'l2' = 'ip4'): Promise<Map<number, number>> {
  const types = msg.policer_classify_table_t.values;
  const all = await f.client.dump(msg.policer_classify_dump, {
    type:
      type === 'ip4'
        ? types.POLICER_CLASSIFY_API_TABLE_IP4
        : type === 'ip6'
          ? types.POLICER_CLASSIFY_API_TABLE_IP6
          : types.POLICER_CLASSIFY_API_TABLE_L2,
    sw_if_index: 0,
  });
  return new Map(all.map((b) => [b.sw_if_index, b.table_index]));
}

/** A table's shape, and its sessions: the IPv6 source each matches (frame bytes 22..37) → policer. */
export async function tableOf(
  f: Fixture,
  table: number,
): Promise<{
  skip: number;
  match: number;
  sessions: number;
  policers: number[];
  bySource6: Map<string, number>;
}> {
  const info = await f.client.call(msg.classify_table_info, { table_id: table });
  const sessions = await f.client.dump(msg.classify_session_dump, { table_id: table });
  return {
    skip: info.skip_n_vectors,
    match: info.match_n_vectors,
    sessions: sessions.length,
    policers: [...new Set(sessions.map((x) => x.hit_next_index))],
    bySource6: new Map(
      sessions
        .filter((x) => x.match.length >= 38)
        .map((x) => [formatIp6(Buffer.from(x.match), 22), x.hit_next_index] as const),
    ),
  };
}

/** The service BVI's sw_if_index. */
export async function bviIndex(f: Fixture): Promise<number> {
  const all = await f.client.dump(msg.sw_interface_dump, {
    sw_if_index: 0xffffffff,
    name_filter_valid: false,
  });
  return all.find((i) => i.tag === tags.servicesBvi())?.sw_if_index as number;
}

/** A VM's IPv6 service address: nat66's external address for its IPv6 address in vpc-a. */
export async function serviceAddress6(f: Fixture, n: number): Promise<string | undefined> {
  const all = await f.client.dump(msg.nat66_static_mapping_dump, {});
  const table = services6TableOf(10);
  return all.find((m) => m.local_ip_address === VM6(n) && m.vrf_id === table)?.external_ip_address;
}

export async function tableCount(f: Fixture): Promise<number> {
  return (await f.client.call(msg.classify_table_ids, {})).ids.length;
}

/** The name of the policer at an index (policer_details carries no index: asked for alone). */
export async function policerName(f: Fixture, index: number): Promise<string | undefined> {
  const [p] = await f.client.dump(msg.policer_dump_v2, { policer_index: index });
  return p?.name;
}

export function recordingContext(
  vpp: RecordingVppApi,
  policerBindings?: Map<number, { ip4: number | undefined; l2: number | undefined }>,
) {
  const interfaces = new InterfaceRegistry();
  interfaces.set('vppnet:vm:vm1', 5);
  interfaces.set(tags.servicesBvi(), 9);
  return {
    client: vpp,
    interfaces,
    host: NO_HOST_LINKS,
    files: NO_HOST_FILES,
    acls: new AclRegistry(),
    macips: new AclRegistry(MACIP),
    ...(policerBindings && { policerBindings }),
  };
}

export function limit(o: Partial<VmRateLimitValue> = {}): Resource<VmRateLimitValue> {
  return vmRateLimitDescriptor.resource({
    port: 'vm1',
    iface: 'vppnet:vm:vm1',
    rateKbps: 1000,
    burstBytes: 65536,
    destinations: [METADATA],
    sources6: [],
    ...o,
  });
}

/** classify_add_del_session requests: "add|del table policer". */
export const sessionOps = (vpp: RecordingVppApi): string[] =>
  vpp
    .requestsFor(msg.classify_add_del_session)
    .map((r) => `${r.is_add ? 'add' : 'del'} ${String(r.table_index)} ${String(r.hit_next_index)}`);
/** classify_add_del_table requests: "add skip/match" or "del index". */
export const tableOps = (vpp: RecordingVppApi): string[] =>
  vpp
    .requestsFor(msg.classify_add_del_table)
    .map((r) =>
      r.is_add
        ? `add ${String(r.skip_n_vectors)}/${String(r.match_n_vectors)}`
        : `del ${String(r.table_index)}`,
    );
export const policerOps = (vpp: RecordingVppApi): string[] =>
  vpp.requestsFor(msg.policer_add_del).map((r) => `${String(r.is_add)} ${String(r.name)}`);
/** policer_classify_set_interface requests: "is_add sw_if_index ip4 ip6 l2" (- for ~0). */
export const bindOps = (vpp: RecordingVppApi): string[] =>
  vpp
    .requestsFor(msg.policer_classify_set_interface)
    .map((r) =>
      [r.is_add, r.sw_if_index, r.ip4_table_index, r.ip6_table_index, r.l2_table_index]
        .map((x) => (x === 0xffffffff ? '-' : String(x)))
        .join(' '),
    );
