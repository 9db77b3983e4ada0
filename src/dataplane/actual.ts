/**
 * What vppnet owns in VPP, as resources, read from a snapshot. Owned means: interfaces tagged
 * "vppnet:…", tables named "vppnet:…", and what hangs off them. In objects shared with others
 * (the underlay NIC, IPv6 table 0) only the exact keys vppnet wants count as its own: anything
 * else there is someone else's and never appears here, so it can never be planned for deletion.
 */
import type { Resource } from '../reconcile/resource.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';
import type {
  AddressValue,
  AdminUpValue,
  HostVethValue,
  InterfaceMtuValue,
  InterfaceTableValue,
  InterfaceValue,
  ProxyArpInterfaceValue,
  UnnumberedValue,
} from './interface-descriptors.js';
import type { IpTableValue, ProxyArpValue, RoutePath, RouteValue } from './ip-descriptors.js';
import { isOwnedTag, keys } from './keys.js';
import { formatPrefix, type RouteDetails, type VppSnapshot } from './snapshot.js';

export interface ActualOptions {
  /** Keys the desired state has: decides ownership inside shared objects. */
  readonly desiredKeys: ReadonlySet<string>;
  /** Host ends of veth pairs vppnet created (by prefix). */
  readonly hostVeths: readonly string[];
  /** Prefixes of host veth names that are vppnet's (VM ports, pods). */
  readonly hostVethPrefixes: readonly string[];
}

const VETH_OF_INTERFACE = (hostIfName: string, prefixes: readonly string[]): boolean =>
  prefixes.some((p) => hostIfName.startsWith(p));

export function actualDataplane(s: VppSnapshot, opts: ActualOptions): Resource[] {
  const out: Resource[] = [];
  const want = opts.desiredKeys;
  const ownedTables = new Set(
    s.tables.filter((t) => isOwnedTag(t.name)).map((t) => `${t.is_ip6 ? 'ip6' : 'ip4'}:${t.table_id}`),
  );

  for (const t of s.tables) {
    if (!isOwnedTag(t.name)) continue;
    const value: IpTableValue = { table: t.table_id, ip6: t.is_ip6, name: t.name };
    out.push({ kind: 'ip-table', key: keys.ipTable(t.table_id, t.is_ip6), deps: [], value });
  }

  for (const name of opts.hostVeths) {
    const value: HostVethValue = { hostName: name, netns: '', ifname: '', mac: '' };
    out.push({ kind: 'host-veth', key: keys.hostVeth(name), deps: [], value });
  }

  for (const [name, facts] of s.interfaceFacts) {
    const d = facts.details;
    const idx = d.sw_if_index;
    const owned = isOwnedTag(d.tag);
    const ifKey = keys.interface(name);
    const mine = (key: string): boolean => owned || want.has(key);
    if (owned) {
      const mac = d.l2_address;
      let value: InterfaceValue;
      const deps: string[] = [];
      const afp = s.afPacket.get(idx);
      const vhost = s.vhostUser.get(idx);
      const tap = s.taps.get(idx);
      if (afp !== undefined) {
        value = { type: 'af_packet', name, hostIfName: afp, mac };
        if (VETH_OF_INTERFACE(afp, opts.hostVethPrefixes)) deps.push(keys.hostVeth(afp));
      } else if (vhost) {
        value = { type: 'vhost-user', name, socket: vhost.sock_filename, mac };
      } else if (tap) {
        value = {
          type: 'tap',
          name,
          netns: tap.host_namespace,
          hostIfName: tap.host_if_name,
          mac,
          hostMac: tap.host_mac_addr,
          // 0: created without one (the kernel's default).
          ...(tap.host_mtu_size > 0 && { hostMtu: tap.host_mtu_size }),
        };
      } else {
        value = { type: 'loopback', name, mac };
      }
      out.push({ kind: 'interface', key: ifKey, deps, value });
    } else if (want.has(ifKey)) {
      out.push({
        kind: 'interface',
        key: ifKey,
        deps: [],
        value: { type: 'external', name } satisfies InterfaceValue,
        external: true,
      });
    }

    if ((d.flags & 1) === 1 && mine(keys.adminUp(name))) {
      out.push({
        kind: 'admin-up',
        key: keys.adminUp(name),
        deps: [ifKey],
        value: { iface: name } satisfies AdminUpValue,
      });
    }
    const tableKey = keys.ifaceTable(name);
    const hasTable = facts.table !== 0 && mine(tableKey);
    if (hasTable) {
      const value: InterfaceTableValue = { iface: name, table: facts.table };
      out.push({ kind: 'iface-table', key: tableKey, deps: [ifKey, keys.ipTable(facts.table)], value });
    }
    for (const prefix of facts.addresses) {
      const key = keys.address(name, prefix);
      if (!mine(key)) continue;
      const value: AddressValue = { iface: name, prefix };
      out.push({ kind: 'address', key, deps: hasTable ? [ifKey, tableKey] : [ifKey], value });
    }
    const via = s.unnumbered.get(idx);
    const viaName = via === undefined ? undefined : s.interfaces.nameOf(via);
    if (viaName !== undefined && mine(keys.unnumbered(name))) {
      const value: UnnumberedValue = { iface: name, via: viaName };
      const deps = [ifKey, keys.interface(viaName), ...(hasTable ? [tableKey] : [])];
      out.push({ kind: 'unnumbered', key: keys.unnumbered(name), deps, value });
    }
    // Only where vppnet sets one: VPP gives every interface an MTU, and the others' are not ours.
    if (want.has(keys.interfaceMtu(name))) {
      // Per-protocol MTUs set by someone else read as 0, a value vppnet never wants: it sets L3 alone.
      const [l3, ...perProtocol] = d.mtu;
      const value: InterfaceMtuValue = { iface: name, mtu: perProtocol.every((m) => m === 0) ? (l3 ?? 0) : 0 };
      out.push({ kind: 'interface-mtu', key: keys.interfaceMtu(name), deps: [ifKey], value });
    }
    if (s.proxyArpInterfaces.has(idx) && mine(keys.proxyArpInterface(name))) {
      const value: ProxyArpInterfaceValue = { iface: name };
      out.push({ kind: 'proxy-arp-intf', key: keys.proxyArpInterface(name), deps: [ifKey], value });
    }
  }

  for (const [tableKey, routes] of s.routes) {
    const owned = ownedTables.has(tableKey);
    for (const r of routes) {
      const res = routeResource(r, tableKey.startsWith('ip6'), s, owned ? ownedTables : undefined);
      if (res && (owned ? res.owned : want.has(res.resource.key))) out.push(res.resource);
    }
  }

  for (const p of s.proxyArpRanges) {
    if (!ownedTables.has(`ip4:${p.table_id}`)) continue;
    const value: ProxyArpValue = { table: p.table_id, low: p.low, hi: p.hi };
    out.push({
      kind: 'proxy-arp',
      key: keys.proxyArp(p.table_id, p.low, p.hi),
      deps: [keys.ipTable(p.table_id)],
      value,
    });
  }
  return out;
}

/**
 * A route as vppnet would have written it, or undefined for routes VPP makes itself (connected,
 * local, special) or SRv6 steering installs. `owned` tells whether, in a vppnet table, the route
 * has the shape of one of vppnet's: via a vppnet interface to a next hop, or a lookup in a vppnet
 * table.
 */
function routeResource(
  r: RouteDetails,
  ip6: boolean,
  s: VppSnapshot,
  ownedTables: ReadonlySet<string> | undefined,
): { resource: Resource<RouteValue>; owned: boolean } | undefined {
  const zero = ip6 ? '::' : '0.0.0.0';
  const paths: RoutePath[] = [];
  const deps = new Set<string>();
  let owned = true;
  for (const p of r.paths) {
    if (p.type !== 0) return undefined; // local, drop, …: VPP's own entries
    const nh = ip6 ? p.nh.address.ip6 : p.nh.address.ip4;
    if (p.sw_if_index === NO_INDEX) {
      if (p.table_id === NO_INDEX || nh !== zero) return undefined; // recursive via an address (SR steering)
      paths.push({ lookupTable: p.table_id });
      deps.add(keys.ipTable(p.table_id, ip6));
      if (ownedTables && !ownedTables.has(`${ip6 ? 'ip6' : 'ip4'}:${p.table_id}`)) owned = false;
    } else {
      if (nh === zero) return undefined; // attached/connected route of an interface address
      const iface = s.interfaces.nameOf(p.sw_if_index);
      if (iface === undefined) return undefined;
      paths.push({ iface, nh });
      deps.add(keys.interface(iface));
      if (!isOwnedTag(iface)) owned = false;
    }
  }
  if (paths.length === 0) return undefined;
  const prefix = formatPrefix(r.prefix);
  const key = keys.route(r.table_id, prefix, ip6);
  if (r.table_id !== 0) deps.add(keys.ipTable(r.table_id, ip6));
  const value: RouteValue = { table: r.table_id, ip6, prefix, paths };
  return { resource: { kind: 'route', key, deps: [...deps], value }, owned };
}
