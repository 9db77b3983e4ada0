/**
 * The dataplane's part of the VPP snapshot (hypervisor/snapshot.ts composes the domains' parts):
 * interfaces and what vppnet sets on them, tables and their routes, proxy ARP, uRPF, the IPv6
 * neighbour settings, read with pipelined dumps. The SRv6 overlay and the service bridge read
 * theirs beside it (srv6/reading.ts, services/reading.ts); nothing else reads VPP during a
 * reconcile.
 */
import type { KindMessages } from '../reconcile/descriptor.js';
import type { Message } from '../vpp/codec/schema.js';
import type { VppApi } from '../vpp/client/vpp-api.js';
import { msg } from '../vpp/messages/index.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';
import { InterfaceRegistry } from './interface-registry.js';
import { readIp6Link } from './ip6-link-descriptors.js';
import { isOwnedTag, vmPortOfTag } from './keys.js';
import { addressFamily } from './ip-values.js';
import type { IpNeighborConfigValue } from './neighbor-descriptors.js';

export type InterfaceDetails = Message<typeof msg.sw_interface_details>;
export type RouteDetails = Message<typeof msg.ip_route_v2_details>['route'];

/**
 * fib_source_t FIB_SOURCE_API (src/vnet/fib/fib_source.h, a static enum): routes added through
 * ip_route_add_del. Dumping only those skips a VPC table's connected, special and SR-steering
 * entries, which with 100k steered prefixes are nearly all of it.
 */
export const FIB_SOURCE_API = 8;

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
  /** A VM port's static IPv4 neighbours, address → MAC; read only for VM ports in an IPv4 VPC table. */
  readonly staticNeighbors4?: ReadonlyMap<string, string>;
}

export interface DataplaneSnapshot {
  readonly interfaces: InterfaceRegistry;
  /** Facts for vppnet's interfaces and the external ones it configures, by logical name. */
  readonly interfaceFacts: ReadonlyMap<string, InterfaceFacts>;
  /**
   * Untagged loopbacks and af_packet interfaces: VPP tags these only after creating them, so a
   * create of vppnet's whose tag never came leaves one of them (actual.ts tells which by MAC).
   */
  readonly untagged: readonly InterfaceDetails[];
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
  /** VPP's neighbour database settings, IPv4 and IPv6; empty when this VPP cannot report them. */
  readonly neighborConfigs: readonly IpNeighborConfigValue[];
}

export interface DataplaneScope {
  /** VPP names of interfaces vppnet configures without owning (the underlay NIC). */
  readonly externalInterfaces: readonly string[];
  /** Tables whose routes are read even though vppnet does not own them (e.g. IPv6 table 0). */
  readonly sharedTables: readonly { readonly id: number; readonly ip6: boolean }[];
  /**
   * Called once the interface and table dumps are in and the requests that need them are
   * written: the SRv6 part asks for its long steering dump only then (srv6/reading.ts). Must not
   * throw.
   */
  readonly onFirstAnswers?: () => void;
  /**
   * Every interface's neighbours of a family, when another part of the snapshot dumps them anyway
   * (the service bridge's pod guards): the ports' static neighbours are taken from that one dump
   * instead of a dump per port. Undefined (or returning undefined): a dump per port.
   */
  readonly neighbors?: (family: 4 | 6) => Promise<readonly NeighborDetails[]> | undefined;
}

export type NeighborDetails = Message<typeof msg.ip_neighbor_details>;

/** The messages readDataplane sends (domain.ts); the required ones are checked at connect. */
export const DATAPLANE_READS: KindMessages = {
  required: [
    msg.sw_interface_dump,
    msg.sw_interface_get_table,
    msg.ip_address_dump,
    msg.ip_table_dump,
    msg.ip_route_v2_dump,
    msg.ip_unnumbered_dump,
    msg.proxy_arp_dump,
    msg.proxy_arp_intfc_dump,
    // Read only where supported, yet required: source validation is on for every VM port by
    // default, and a VPP without the urpf plugin would run VMs that can send as anyone.
    msg.urpf_interface_dump,
  ],
  optional: [
    msg.af_packet_dump,
    msg.sw_interface_vhost_user_dump,
    msg.sw_interface_tap_v2_dump,
    // in_progress in 26.06 (its layout may change): without it the settings are set every pass.
    msg.ip_neighbor_config_get,
    msg.sw_interface_ip6_get_link_local_address,
    msg.ip_neighbor_dump,
    msg.sw_interface_ip6nd_ra_dump,
    // show interface features, for external interfaces with a uRPF setting.
    msg.cli_inband,
  ],
};

const optionalDump = <T>(supported: boolean, run: () => Promise<T[]>): Promise<T[]> =>
  supported ? run() : Promise.resolve([]);

export async function readDataplane(client: VppApi, scope: DataplaneScope): Promise<DataplaneSnapshot> {
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
  // Registered after the two above, so it runs once their requests are written. Only when asked
  // for: a promise nobody awaits would turn a closed connection into an unhandled rejection.
  const onFirstAnswers = scope.onFirstAnswers;
  if (onFirstAnswers)
    Promise.all([ifDetailsRead, tablesRead]).then(
      () => onFirstAnswers(),
      // The failure is the snapshot's, through the reads below.
      () => undefined,
    );
  const [
    ifDetails,
    tableDetails,
    facts,
    routes,
    [unnumbered, proxyArpRanges, proxyArpIntfs],
    [afPacket, vhostUser, taps, sourceChecks],
    neighborConfigs,
  ] = await Promise.all([
    ifDetailsRead,
    tablesRead,
    factsRead,
    routesRead,
    Promise.all([
      client.dump(msg.ip_unnumbered_dump, { sw_if_index: NO_INDEX }),
      client.dump(msg.proxy_arp_dump, {}),
      client.dump(msg.proxy_arp_intfc_dump, {}),
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
    client.supports(msg.ip_neighbor_config_get)
      ? Promise.all(
          ([4, 6] as const).map((family) =>
            client
              .call(msg.ip_neighbor_config_get, { af: addressFamily(family) })
              .then((c): IpNeighborConfigValue => ({
                family,
                maxNumber: c.max_number,
                maxAge: c.max_age,
                recycle: c.recycle,
              })),
          ),
        )
      : Promise.resolve([]),
  ]);
  const afPacketHosts = new Map(afPacket.map((a) => [a.sw_if_index, a.host_if_name]));
  const sourceCheckNodes = await readSourceCheckNodes(client, ifDetails, sourceChecks, scope);
  return {
    interfaces: InterfaceRegistry.fromDump(ifDetails),
    interfaceFacts: facts,
    untagged: ifDetails.filter(
      (d) => d.tag === '' && (d.interface_dev_type === 'Loopback' || afPacketHosts.has(d.sw_if_index)),
    ),
    afPacket: afPacketHosts,
    vhostUser: new Map(vhostUser.map((v) => [v.sw_if_index, v])),
    taps: new Map(taps.map((t) => [t.sw_if_index, t])),
    tables: tableDetails.map((d) => d.table),
    routes,
    unnumbered: new Map(unnumbered.map((u) => [u.sw_if_index, u.ip_sw_if_index])),
    proxyArpRanges: proxyArpRanges.map((p) => p.proxy),
    proxyArpInterfaces: new Set(proxyArpIntfs.map((p) => p.sw_if_index)),
    sourceChecks,
    sourceCheckNodes,
    neighborConfigs,
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
  scope: DataplaneScope,
): Promise<Map<string, InterfaceFacts>> {
  const relevant = ifDetails.filter(
    (d) => isOwnedTag(d.tag) || scope.externalInterfaces.includes(d.interface_name),
  );
  const facts = new Map<string, InterfaceFacts>();
  // Per family, the shared dump by interface, made at the first port that needs it.
  const sharedByInterface: Partial<Record<4 | 6, Promise<Map<number, NeighborDetails[]>>>> = {};
  const neighborsOf = (family: 4 | 6, swIfIndex: number): Promise<readonly NeighborDetails[]> => {
    const shared = scope.neighbors?.(family);
    if (shared === undefined)
      return client.dump(msg.ip_neighbor_dump, { sw_if_index: swIfIndex, af: addressFamily(family) });
    const byInterface = (sharedByInterface[family] ??= shared.then(groupByInterface));
    return byInterface.then((m) => m.get(swIfIndex) ?? []);
  };
  await Promise.all(
    relevant.map(async (d) => {
      const [table, table6, v4, v6] = await Promise.all([
        client.call(msg.sw_interface_get_table, { sw_if_index: d.sw_if_index, is_ipv6: false }),
        client.call(msg.sw_interface_get_table, { sw_if_index: d.sw_if_index, is_ipv6: true }),
        client.dump(msg.ip_address_dump, { sw_if_index: d.sw_if_index, is_ipv6: false }),
        client.dump(msg.ip_address_dump, { sw_if_index: d.sw_if_index, is_ipv6: true }),
      ]);
      const addresses = [...v4, ...v6].map((a) => formatPrefix(a.prefix));
      const ip6Link =
        table6.vrf_id === 0
          ? undefined
          : await readIp6LinkFacts(client, d.sw_if_index, (sw) => neighborsOf(6, sw));
      // A VM port's (tagged, or an operator's interface attached as one): not a gateway loopback.
      const vmPort = vmPortOfTag(d.tag) !== undefined || !isOwnedTag(d.tag);
      const staticNeighbors4 =
        vmPort && table.vrf_id !== 0 ? staticNeighborsIn(await neighborsOf(4, d.sw_if_index)) : undefined;
      facts.set(isOwnedTag(d.tag) ? d.tag : d.interface_name, {
        details: d,
        table: table.vrf_id,
        table6: table6.vrf_id,
        addresses,
        ...(ip6Link && { ip6Link }),
        ...(staticNeighbors4 && { staticNeighbors4 }),
      });
    }),
  );
  return facts;
}

async function readIp6LinkFacts(
  client: VppApi,
  swIfIndex: number,
  neighborsOf: (swIfIndex: number) => Promise<readonly NeighborDetails[]>,
): Promise<Ip6LinkFacts> {
  const [linkLocal, neighbors] = await Promise.all([
    readIp6Link({ client }, swIfIndex),
    neighborsOf(swIfIndex),
  ]);
  // Without IPv6 the RA dump has nothing for the interface.
  const [ra] =
    linkLocal === undefined
      ? []
      : await client.dump(msg.sw_interface_ip6nd_ra_dump, { sw_if_index: swIfIndex });
  return { linkLocal, ra, staticNeighbors: staticNeighborsIn(neighbors) };
}

/** The static entries of a neighbour dump: address → MAC. */
function staticNeighborsIn(neighbors: readonly NeighborDetails[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const { neighbor: n } of neighbors) {
    if ((n.flags & STATIC_NEIGHBOR) !== 0) out.set(formatAddress(n.ip_address), n.mac_address);
  }
  return out;
}

function groupByInterface(all: readonly NeighborDetails[]): Map<number, NeighborDetails[]> {
  const byInterface = new Map<number, NeighborDetails[]>();
  for (const n of all) {
    const list = byInterface.get(n.neighbor.sw_if_index);
    if (list) list.push(n);
    else byInterface.set(n.neighbor.sw_if_index, [n]);
  }
  return byInterface;
}

/**
 * The routes of vppnet's tables and the shared ones, by "ip4:<id>" / "ip6:<id>": only
 * API-sourced routes, and only those that could be vppnet's are kept.
 */
async function readRoutes(
  client: VppApi,
  tableDetails: readonly Message<typeof msg.ip_table_details>[],
  scope: DataplaneScope,
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

/** The dataplane's part of a VPP with nothing in it: the base for partial snapshots and tests. */
export function emptyDataplaneSnapshot(): DataplaneSnapshot {
  return {
    interfaces: new InterfaceRegistry(),
    interfaceFacts: new Map(),
    untagged: [],
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
    neighborConfigs: [],
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
  scope: DataplaneScope,
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
