/**
 * One consistent read of everything vppnet may own in VPP, taken with pipelined dumps. Both
 * domains (SRv6 and services) derive their "actual" resources from it; nothing else reads VPP
 * during a reconcile.
 */
import type { Message } from '../vpp/codec/schema.js';
import type { VppApi } from '../vpp/client/vpp-api.js';
import { msg } from '../vpp/messages/index.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';
import { InterfaceRegistry } from './interface-registry.js';
import { readIp6Link } from './ip6-link-descriptors.js';
import { isOwnedTag } from './keys.js';
import type { IpNeighborConfigValue } from './neighbor-descriptors.js';
import { INITIAL_SR_ENCAPS, readSrEncaps, type SrEncapsReading } from './sr-encaps.js';
import { SteeringEntries } from './steering-entries.js';
import { NO_NAT, readNat, type NatReading } from './nat-reading.js';
import {
  NO_POLICER_CLASSIFY,
  readPolicerClassify,
  type PolicerClassifyReading,
} from './policer-classify-reading.js';

export type InterfaceDetails = Message<typeof msg.sw_interface_details>;
export type RouteDetails = Message<typeof msg.ip_route_v2_details>['route'];

/**
 * fib_source_t FIB_SOURCE_API (src/vnet/fib/fib_source.h, a static enum): routes added through
 * ip_route_add_del. Dumping only those skips a VPC table's connected, special and SR-steering
 * entries, which with 100k steered prefixes are nearly all of it.
 */
export const FIB_SOURCE_API = 8;

const STEER_IPV4 = msg.sr_steer_t.values.SR_STEER_API_IPV4;
const STEER_IPV6 = msg.sr_steer_t.values.SR_STEER_API_IPV6;
const ADDRESS_IP6 = msg.address_family_t.values.ADDRESS_IP6;

/**
 * What vppnet reads of sr_steering_pol_details (the snapshot and fleet mode's drift check,
 * hypervisor/steering-audit.ts): a node may steer 100k prefixes, so no text is made that a
 * column does not need. The IPv4 address comes as its 32-bit value, the IPv6 one as its 16 bytes
 * and only for an IPv6 prefix (af 1), and the BSID, the same for a policy's run of entries, is
 * formatted once a run (selection.ts, decoder.ts' LeafForm and ArmCondition). Read with `reuse`:
 * one object for every entry, so its readers copy what they keep.
 */
export const STEERING_DETAILS_FIELDS = {
  traffic_type: true,
  fib_table: true,
  bsid: 'repeat',
  prefix: {
    len: true,
    address: {
      af: true,
      un: { ip4: 'u32', ip6: { when: 'af', is: ADDRESS_IP6, select: 'bytes' } },
    },
  },
} as const;

/** An IPv6 steering entry's prefix address as STEERING_DETAILS_FIELDS reads it. */
export interface SteeredIp6Address {
  readonly af: number;
  readonly un: { readonly ip4: number; readonly ip6?: Uint8Array | undefined };
}

/**
 * Adds an IPv6 steering entry of the dump to `entries` (an IPv6 set). VPP encodes its prefix's
 * address with ip_address_encode (IP46_TYPE_ANY), which calls an address whose first 96 bits are
 * zero IPv4: ::/1 comes back as af IPv4, 0.0.0.0/1. Such an entry is still IPv6 (its traffic type
 * says so): its address is the IPv4 value in the last 32 bits.
 */
export function addSteeredIp6(
  entries: SteeringEntries,
  table: number,
  address: SteeredIp6Address,
  len: number,
  bsid: string,
): void {
  if (address.af === ADDRESS_IP6 && address.un.ip6 !== undefined)
    entries.addBytes(table, address.un.ip6, len, bsid);
  else entries.addNumber(table, address.un.ip4, len, bsid);
}

/** The address addSteeredIp6 reads, as a 128-bit number (the drift check's, keyed as the model). */
export function steeredIp6Value(address: SteeredIp6Address): bigint {
  const bytes = address.un.ip6;
  if (address.af !== ADDRESS_IP6 || bytes === undefined) return BigInt(address.un.ip4 >>> 0);
  const view = new DataView(bytes.buffer, bytes.byteOffset, 16);
  return (view.getBigUint64(0) << 64n) | view.getBigUint64(8);
}

const STATIC_NEIGHBOR = msg.ip_neighbor_flags_t.values.IP_API_NEIGHBOR_FLAG_STATIC;

export type RaDetails = Message<typeof msg.sw_interface_ip6nd_ra_details>;

/**
 * An interface's IPv6 link, read only for interfaces bound to an IPv6 table other than 0: vppnet
 * enables IPv6 only on ports it binds to a VPC's IPv6 table, and unbinds them only after disabling
 * it (the enable depends on the binding), so IPv6 on a port in table 0 is never vppnet's.
 */
export interface Ip6LinkFacts {
  /** The link-local address when IPv6 is enabled; undefined when it is not. */
  readonly linkLocal: string | undefined;
  /** Router advertisement state (sw_interface_ip6nd_ra_dump); undefined without IPv6. */
  readonly ra: RaDetails | undefined;
  /** Static IPv6 neighbours on the interface: address → MAC. */
  readonly staticNeighbors: ReadonlyMap<string, string>;
}

export interface InterfaceFacts {
  readonly details: InterfaceDetails;
  /** IPv4 table the interface is bound to. */
  readonly table: number;
  /** IPv6 table the interface is bound to; absent: not read (taken as 0: pod ports are IPv4). */
  readonly table6?: number;
  readonly addresses: readonly string[];
  /** Present when table6 is not 0. */
  readonly ip6Link?: Ip6LinkFacts;
}

export interface VppSnapshot extends PodGuards {
  readonly vppPid: number;
  readonly interfaces: InterfaceRegistry;
  /** Facts for vppnet's interfaces and the external ones it configures, by logical name. */
  readonly interfaceFacts: ReadonlyMap<string, InterfaceFacts>;
  readonly afPacket: ReadonlyMap<number, string>;
  readonly vhostUser: ReadonlyMap<number, Message<typeof msg.sw_interface_vhost_user_details>>;
  readonly taps: ReadonlyMap<number, Message<typeof msg.sw_interface_tap_v2_details>>;
  readonly tables: readonly Message<typeof msg.ip_table_details>['table'][];
  /** Routes of the tables asked for, by "ip4:<id>" / "ip6:<id>". */
  readonly routes: ReadonlyMap<string, readonly RouteDetails[]>;
  /** Unnumbered interface → the interface lending its address. */
  readonly unnumbered: ReadonlyMap<number, number>;
  readonly proxyArpRanges: readonly Message<typeof msg.proxy_arp_details>['proxy'][];
  readonly proxyArpInterfaces: ReadonlySet<number>;
  /** uRPF settings (urpf_interface_dump); empty when this VPP has no urpf plugin. */
  readonly sourceChecks: readonly Message<typeof msg.urpf_interface_details>[];
  /**
   * For external interfaces with a uRPF setting (the uplink, `attach: interface` ports): the
   * nodes enabled on their ip4-unicast and ip6-unicast arcs, i.e. whether the setting is really
   * checked (see readSourceCheckNodes). Absent: not read; the setting is taken as it is listed.
   */
  readonly sourceCheckNodes: ReadonlyMap<number, ReadonlySet<string>>;
  readonly localSids: readonly Message<typeof msg.sr_localsids_details>[];
  readonly policies: readonly Message<typeof msg.sr_policies_v2_details>[];
  /** The SRv6 encap globals, from VPP's CLI (no message reads them back). */
  readonly srEncaps: SrEncapsReading;
  /**
   * IPv4 steering entries. Compact: a node may steer 100k prefixes, so details are reduced as they
   * arrive.
   */
  readonly steering: SteeringEntries;
  /** IPv6 steering entries (traffic type 6), as compact; other traffic types are not kept. */
  readonly steering6: SteeringEntries;
  readonly bridgeDomains: readonly Message<typeof msg.bridge_domain_details>[];
  readonly acls: readonly Message<typeof msg.acl_details>[];
  readonly aclBindings: readonly Message<typeof msg.acl_interface_list_details>[];
  /** NAT44-EI's state (the service bridge's) and NAT44-ED's (earlier versions'). */
  readonly nat: NatReading;
  readonly dhcpProxies: readonly Message<typeof msg.dhcp_proxy_details>[];
  /** IPv4 policer classification: the services' per-VM rate limits. */
  readonly policerClassify: PolicerClassifyReading;
  /** VPP's IPv6 neighbour database settings; undefined when this VPP cannot report them. */
  readonly ip6NeighborConfig: IpNeighborConfigValue | undefined;
}

/** What keeps each service pod to itself (services/pod-port.ts), as VPP has it. */
export interface PodGuards {
  readonly macipAcls: readonly Message<typeof msg.macip_acl_details>[];
  /** MACIP ACL index per sw_if_index (NO_INDEX: none), as macip_acl_interface_get lists them. */
  readonly macipBindings: readonly number[];
  /** Every bridge domain's L2 FIB entries (learned ones included). */
  readonly l2Fib: readonly Message<typeof msg.l2_fib_table_details>[];
  /** Every bridge domain's IP-to-MAC (ARP termination) entries. */
  readonly bdIpMacs: readonly Message<typeof msg.bd_ip_mac_details>[];
  /** Static neighbours of every interface, both families (the service BVI's, one per pod address). */
  readonly bviNeighborCandidates: readonly Message<typeof msg.ip_neighbor_details>[];
}

const NO_POD_GUARDS: PodGuards = {
  macipAcls: [],
  macipBindings: [],
  l2Fib: [],
  bdIpMacs: [],
  bviNeighborCandidates: [],
};

type MacipDetails = Message<typeof msg.macip_acl_details>;
type L2FibDetails = Message<typeof msg.l2_fib_table_details>;
type BdIpMacDetails = Message<typeof msg.bd_ip_mac_details>;
const none = <T>(): Promise<T[]> => Promise.resolve([]);

/** The pods' guards, each part only where this VPP has its plugin: one read for every caller. */
export async function readPodGuards(client: VppApi): Promise<PodGuards> {
  const [macipAcls, macipBindings, l2Fib, bdIpMacs, neighbors4, neighbors6] = await Promise.all([
    client.supports(msg.macip_acl_dump)
      ? client.dump(msg.macip_acl_dump, { acl_index: NO_INDEX })
      : none<MacipDetails>(),
    client.supports(msg.macip_acl_interface_get)
      ? client.call(msg.macip_acl_interface_get, {}).then((r) => r.acls.slice(0, r.count))
      : Promise.resolve([] as number[]),
    client.supports(msg.l2_fib_table_dump)
      ? client.dump(msg.l2_fib_table_dump, { bd_id: NO_INDEX })
      : none<L2FibDetails>(),
    client.supports(msg.bd_ip_mac_dump)
      ? client.dump(msg.bd_ip_mac_dump, { bd_id: NO_INDEX })
      : none<BdIpMacDetails>(),
    client.dump(msg.ip_neighbor_dump, { sw_if_index: NO_INDEX, af: msg.address_family_t.values.ADDRESS_IP4 }),
    client.dump(msg.ip_neighbor_dump, { sw_if_index: NO_INDEX, af: msg.address_family_t.values.ADDRESS_IP6 }),
  ]);
  const bviNeighborCandidates = [...neighbors4, ...neighbors6].filter(
    (n) => (n.neighbor.flags & STATIC_NEIGHBOR) !== 0,
  );
  return { macipAcls, macipBindings, l2Fib, bdIpMacs, bviNeighborCandidates };
}

export interface SnapshotScope {
  /** VPP names of interfaces vppnet configures without owning (the underlay NIC). */
  readonly externalInterfaces: readonly string[];
  /** Tables whose routes are read even though vppnet does not own them (e.g. IPv6 table 0). */
  readonly sharedTables: readonly { readonly id: number; readonly ip6: boolean }[];
  /** Whether the services plugins (l2, acl, nat, dhcp) are read. */
  readonly services: boolean;
  /**
   * Whether SR policies and steering entries are read (default true). Fleet mode's drift check
   * leaves them out: it compares them with its steering model as they stream in
   * (hypervisor/steering-audit.ts) rather than holding 100k of them in a snapshot.
   */
  readonly steering?: boolean;
}

export interface SnapshotHooks {
  /**
   * Called with the SR policies dump (empty when not read) as soon as it is in, before the rest:
   * work that needs only the policies (the overlay's desired state) can run while VPP answers the
   * other dumps. Must not throw.
   */
  readonly onPolicies?: (policies: VppSnapshot['policies']) => void;
}

export async function loadSnapshot(
  client: VppApi,
  scope: SnapshotScope,
  hooks: SnapshotHooks = {},
): Promise<VppSnapshot> {
  const steering = new SteeringEntries();
  const steering6 = new SteeringEntries(64, 6);
  const optionalDump = <T>(supported: boolean, run: () => Promise<T[]>): Promise<T[]> =>
    supported ? run() : Promise.resolve([]);
  const svc = scope.services;
  const withSteering = scope.steering ?? true;
  // Every dump is asked for at once, and what needs an earlier answer (per-interface facts, the
  // routes of each table) as soon as that answer is in: VPP answers them in order on the one
  // connection, so it never waits for the client between them, and the client decodes while
  // VPP works on the rest.
  const ifDetailsRead = client.dump(msg.sw_interface_dump, {
    sw_if_index: NO_INDEX,
    name_filter_valid: false,
  });
  const tablesRead = client.dump(msg.ip_table_dump, {});
  const factsRead = ifDetailsRead.then((ifDetails) => readInterfaceFacts(client, ifDetails, scope));
  const routesRead = tablesRead.then((tableDetails) => readRoutes(client, tableDetails, scope));
  // The steering dump (100k entries on a busy node) last, once the requests that wait for the two
  // dumps above are written (their callbacks run first, registered first): VPP answers those
  // while the client decodes, and the long stream the client decodes at its own pace comes after
  // them instead of keeping them waiting behind it. Only asked for when steering is read: a
  // promise nobody awaits would turn a closed connection into an unhandled rejection.
  const afterDependents = (): Promise<unknown> => Promise.all([ifDetailsRead, tablesRead]);
  const [
    ifDetails,
    tableDetails,
    facts,
    routes,
    [unnumbered, proxyArpRanges, proxyArpIntfs, localSids, policies, srEncaps],
    [afPacket, vhostUser, taps, sourceChecks],
    [bridgeDomains, acls, aclBindings, dhcpProxies],
    podGuards,
    policerClassify,
    nat,
    ip6NeighborConfig,
  ] = await Promise.all([
    ifDetailsRead,
    tablesRead,
    factsRead,
    routesRead,
    Promise.all([
      client.dump(msg.ip_unnumbered_dump, { sw_if_index: NO_INDEX }),
      client.dump(msg.proxy_arp_dump, {}),
      client.dump(msg.proxy_arp_intfc_dump, {}),
      client.dump(msg.sr_localsids_dump, {}),
      optionalDump(withSteering, () => client.dump(msg.sr_policies_v2_dump, {})).then((policies) => {
        hooks.onPolicies?.(policies);
        return policies;
      }),
      readSrEncaps(client),
      withSteering
        ? afterDependents().then(() =>
            client.dumpEach(
              msg.sr_steering_pol_dump,
              {},
              (d) => {
                const { address, len } = d.prefix;
                if (d.traffic_type === STEER_IPV4)
                  steering.addNumber(d.fib_table, address.un.ip4, len, d.bsid);
                else if (d.traffic_type === STEER_IPV6)
                  addSteeredIp6(steering6, d.fib_table, address, len, d.bsid);
              },
              { fields: STEERING_DETAILS_FIELDS, reuse: true },
            ),
          )
        : Promise.resolve(0),
    ]),
    Promise.all([
      optionalDump(client.supports(msg.af_packet_dump), () => client.dump(msg.af_packet_dump, {})),
      optionalDump(client.supports(msg.sw_interface_vhost_user_dump), () =>
        client.dump(msg.sw_interface_vhost_user_dump, { sw_if_index: NO_INDEX }),
      ),
      optionalDump(client.supports(msg.sw_interface_tap_v2_dump), () =>
        client.dump(msg.sw_interface_tap_v2_dump, { sw_if_index: NO_INDEX }),
      ),
      optionalDump(client.supports(msg.urpf_interface_dump), () =>
        client.dump(msg.urpf_interface_dump, { sw_if_index: NO_INDEX }),
      ),
    ]),
    Promise.all([
      optionalDump(svc, () =>
        client.dump(msg.bridge_domain_dump, { bd_id: NO_INDEX, sw_if_index: NO_INDEX }),
      ),
      optionalDump(svc && client.supports(msg.acl_dump), () =>
        client.dump(msg.acl_dump, { acl_index: NO_INDEX }),
      ),
      optionalDump(svc && client.supports(msg.acl_interface_list_dump), () =>
        client.dump(msg.acl_interface_list_dump, { sw_if_index: NO_INDEX }),
      ),
      optionalDump(svc && client.supports(msg.dhcp_proxy_dump), () =>
        client.dump(msg.dhcp_proxy_dump, { is_ip6: false }),
      ),
    ]),
    svc ? readPodGuards(client) : Promise.resolve(NO_POD_GUARDS),
    svc ? readPolicerClassify(client) : Promise.resolve(NO_POLICER_CLASSIFY),
    svc ? readNat(client) : Promise.resolve(NO_NAT),
    client.supports(msg.ip_neighbor_config_get)
      ? client
          .call(msg.ip_neighbor_config_get, { af: msg.address_family_t.values.ADDRESS_IP6 })
          .then((c): IpNeighborConfigValue => ({
            maxNumber: c.max_number,
            maxAge: c.max_age,
            recycle: c.recycle,
          }))
      : Promise.resolve(undefined),
  ]);
  const interfaces = InterfaceRegistry.fromDump(ifDetails);
  const sourceCheckNodes = await readSourceCheckNodes(client, ifDetails, sourceChecks, scope);
  await client.ping();

  return {
    vppPid: client.vppPid,
    interfaces,
    interfaceFacts: facts,
    afPacket: new Map(afPacket.map((a) => [a.sw_if_index, a.host_if_name])),
    vhostUser: new Map(vhostUser.map((v) => [v.sw_if_index, v])),
    taps: new Map(taps.map((t) => [t.sw_if_index, t])),
    tables: tableDetails.map((d) => d.table),
    routes,
    unnumbered: new Map(unnumbered.map((u) => [u.sw_if_index, u.ip_sw_if_index])),
    proxyArpRanges: proxyArpRanges.map((p) => p.proxy),
    proxyArpInterfaces: new Set(proxyArpIntfs.map((p) => p.sw_if_index)),
    sourceChecks,
    sourceCheckNodes,
    localSids,
    policies,
    srEncaps,
    steering,
    steering6,
    bridgeDomains,
    acls,
    aclBindings,
    ...podGuards,
    nat,
    dhcpProxies,
    policerClassify,
    ip6NeighborConfig,
  };
}

/**
 * Route tables read at once (a dump and its ping each). Each dump is of API routes only (a few a
 * table), so all of a node's tables at once: asked together, before the steering dump, none waits
 * behind it.
 */
const ROUTE_TABLES_IN_FLIGHT = 4096;

/** Per-interface facts, only for interfaces vppnet owns or configures, by logical name. */
async function readInterfaceFacts(
  client: VppApi,
  ifDetails: readonly InterfaceDetails[],
  scope: SnapshotScope,
): Promise<Map<string, InterfaceFacts>> {
  const relevant = ifDetails.filter(
    (d) => isOwnedTag(d.tag) || scope.externalInterfaces.includes(d.interface_name),
  );
  const facts = new Map<string, InterfaceFacts>();
  await Promise.all(
    relevant.map(async (d) => {
      const [table, table6, v4, v6] = await Promise.all([
        client.call(msg.sw_interface_get_table, { sw_if_index: d.sw_if_index, is_ipv6: false }),
        client.call(msg.sw_interface_get_table, { sw_if_index: d.sw_if_index, is_ipv6: true }),
        client.dump(msg.ip_address_dump, { sw_if_index: d.sw_if_index, is_ipv6: false }),
        client.dump(msg.ip_address_dump, { sw_if_index: d.sw_if_index, is_ipv6: true }),
      ]);
      const addresses = [...v4, ...v6].map((a) => formatPrefix(a.prefix));
      const ip6Link = table6.vrf_id === 0 ? undefined : await readIp6LinkFacts(client, d.sw_if_index);
      facts.set(isOwnedTag(d.tag) ? d.tag : d.interface_name, {
        details: d,
        table: table.vrf_id,
        table6: table6.vrf_id,
        addresses,
        ...(ip6Link && { ip6Link }),
      });
    }),
  );
  return facts;
}

async function readIp6LinkFacts(client: VppApi, swIfIndex: number): Promise<Ip6LinkFacts> {
  const [linkLocal, neighbors] = await Promise.all([
    readIp6Link({ client }, swIfIndex),
    client.dump(msg.ip_neighbor_dump, {
      sw_if_index: swIfIndex,
      af: msg.address_family_t.values.ADDRESS_IP6,
    }),
  ]);
  // Without IPv6 the RA dump has nothing for the interface.
  const [ra] =
    linkLocal === undefined
      ? []
      : await client.dump(msg.sw_interface_ip6nd_ra_dump, { sw_if_index: swIfIndex });
  const staticNeighbors = new Map<string, string>();
  for (const n of neighbors) {
    if ((n.neighbor.flags & STATIC_NEIGHBOR) !== 0)
      staticNeighbors.set(n.neighbor.ip_address.un.ip6, n.neighbor.mac_address);
  }
  return { linkLocal, ra, staticNeighbors };
}

/**
 * The routes of vppnet's tables and the shared ones, by "ip4:<id>" / "ip6:<id>": only
 * API-sourced routes, and only those that could be vppnet's are kept.
 */
async function readRoutes(
  client: VppApi,
  tableDetails: readonly Message<typeof msg.ip_table_details>[],
  scope: SnapshotScope,
): Promise<Map<string, RouteDetails[]>> {
  const routeTables = [
    ...tableDetails
      .map((d) => d.table)
      .filter((t) => isOwnedTag(t.name))
      .map((t) => ({ id: t.table_id, ip6: t.is_ip6 })),
    ...scope.sharedTables,
  ];
  const routes = new Map<string, RouteDetails[]>();
  let nextTable = 0;
  const readTables = async (): Promise<void> => {
    while (nextTable < routeTables.length) {
      const t = routeTables[nextTable++] as { id: number; ip6: boolean };
      const kept: RouteDetails[] = [];
      await client.dumpEach(
        msg.ip_route_v2_dump,
        { src: FIB_SOURCE_API, table: { table_id: t.id, is_ip6: t.ip6 } },
        (d) => {
          if (mayBeConfiguredRoute(d.route)) kept.push(d.route);
        },
      );
      routes.set(`${t.ip6 ? 'ip6' : 'ip4'}:${t.id}`, kept);
    }
  };
  await Promise.all(Array.from({ length: Math.min(ROUTE_TABLES_IN_FLIGHT, routeTables.length) }, readTables));
  return routes;
}

/**
 * Whether a route can have been configured through ip_route_add_del: every path a normal one,
 * and none recursive through another address (SR steering, VPP's special entries). Cheap,
 * applied while dumping; the ownership rules proper are in actual.ts.
 */
function mayBeConfiguredRoute(r: RouteDetails): boolean {
  return (
    r.paths.length > 0 &&
    r.paths.every((p) => p.type === 0 && !(p.sw_if_index === NO_INDEX && p.table_id === NO_INDEX))
  );
}

/** A snapshot of a VPP with nothing in it: the base for partial snapshots and tests. */
export function emptySnapshot(): VppSnapshot {
  return {
    vppPid: 0,
    interfaces: new InterfaceRegistry(),
    interfaceFacts: new Map(),
    afPacket: new Map(),
    vhostUser: new Map(),
    taps: new Map(),
    tables: [],
    routes: new Map(),
    unnumbered: new Map(),
    proxyArpRanges: [],
    proxyArpInterfaces: new Set(),
    sourceChecks: [],
    sourceCheckNodes: new Map(),
    localSids: [],
    policies: [],
    srEncaps: INITIAL_SR_ENCAPS,
    steering: new SteeringEntries(),
    steering6: new SteeringEntries(1, 6),
    bridgeDomains: [],
    acls: [],
    aclBindings: [],
    ...NO_POD_GUARDS,
    nat: NO_NAT,
    dhcpProxies: [],
    policerClassify: NO_POLICER_CLASSIFY,
    ip6NeighborConfig: undefined,
  };
}

/** "10.0.0.1" or "2001:db8::1" from a VPP address. */
export function formatAddress(a: {
  readonly af: number;
  readonly un: { readonly ip4: string; readonly ip6: string };
}): string {
  return a.af === 1 ? a.un.ip6 : a.un.ip4;
}

/** "10.0.0.1/24" or "2001:db8::1/64" from a VPP prefix. */
export function formatPrefix(p: {
  readonly address: { readonly af: number; readonly un: { readonly ip4: string; readonly ip6: string } };
  readonly len: number;
}): string {
  return `${p.address.af === 1 ? p.address.un.ip6 : p.address.un.ip4}/${p.len}`;
}

/**
 * VPP keeps uRPF settings per sw_if_index past an interface's deletion: an interface that reuses
 * the index is listed by urpf_interface_dump with the old setting while its node is off, and an
 * update that repeats it changes nothing. vppnet clears what the interfaces it creates inherit;
 * for the external ones it configures (the uplink, an operator's interface a VM port takes) it
 * asks VPP which nodes run on their unicast arcs, with `show interface features`, one command per
 * such interface.
 */
async function readSourceCheckNodes(
  client: VppApi,
  ifDetails: readonly InterfaceDetails[],
  sourceChecks: readonly Message<typeof msg.urpf_interface_details>[],
  scope: SnapshotScope,
): Promise<Map<number, ReadonlySet<string>>> {
  const out = new Map<number, ReadonlySet<string>>();
  if (!client.supports(msg.cli_inband)) return out;
  const checked = new Set(sourceChecks.filter((u) => u.is_input).map((u) => u.sw_if_index));
  const external = ifDetails.filter(
    (d) =>
      checked.has(d.sw_if_index) && !isOwnedTag(d.tag) && scope.externalInterfaces.includes(d.interface_name),
  );
  await Promise.all(
    external.map(async (d) => {
      const text = await client.cli(`show interface features ${d.interface_name}`);
      const nodes = parseUnicastFeatures(text);
      if (nodes !== undefined) out.set(d.sw_if_index, nodes);
    }),
  );
  return out;
}

/**
 * The nodes listed under the ip4-unicast and ip6-unicast arcs of `show interface features IF`
 * ("ip6-unicast:" then one indented node per line); undefined when the answer has neither arc
 * (another VPP's wording, an error): the setting is then taken as listed.
 */
export function parseUnicastFeatures(text: string): ReadonlySet<string> | undefined {
  const nodes = new Set<string>();
  let arc: string | undefined;
  let seen = false;
  for (const line of text.split('\n')) {
    const header = /^(\S+):\s*$/.exec(line);
    if (header) {
      arc = header[1];
      if (arc === 'ip4-unicast' || arc === 'ip6-unicast') seen = true;
      continue;
    }
    const node = /^\s+(\S+)\s*$/.exec(line)?.[1];
    if (node !== undefined && (arc === 'ip4-unicast' || arc === 'ip6-unicast')) nodes.add(node);
  }
  return seen ? nodes : undefined;
}
