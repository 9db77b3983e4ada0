/**
 * What vppnet owns in VPP, as resources, read from a snapshot. Owned means: interfaces tagged
 * "vppnet:…", tables named "vppnet:…", and what hangs off them. In objects shared with others
 * (the underlay NIC, IPv6 table 0) only the exact keys vppnet wants count as its own: anything
 * else there is someone else's and never appears here, so it can never be planned for deletion.
 */
import type { Resource } from '../reconcile/resource.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';
import {
  addressDescriptor,
  adminUpDescriptor,
  hostVethDescriptor,
  interfaceDescriptor,
  interfaceMtuDescriptor,
  interfaceTableDescriptor,
  proxyArpInterfaceDescriptor,
  unnumberedDescriptor,
  type InterfaceValue,
} from './interface-descriptors.js';
import {
  ipTableDescriptor,
  proxyArpDescriptor,
  routeDescriptor,
  type RoutePath,
  type RouteValue,
} from './ip-descriptors.js';
import {
  ip6EnableDescriptor,
  ip6LinkLocalDescriptor,
  ip6NdMirrorProxyDescriptor,
  ip6RaConfigDescriptor,
  ip6RaPrefixDescriptor,
} from './ip6-link-descriptors.js';
import { isOwnedTag, keys } from './keys.js';
import { staticNeighborDescriptor } from './neighbor-descriptors.js';
import { sourceCheckDescriptor } from './source-check-descriptors.js';
import { msg } from '../vpp/messages/index.js';

const URPF_STRICT = msg.urpf_mode_t.values.URPF_API_MODE_STRICT;
const URPF_LOOSE = msg.urpf_mode_t.values.URPF_API_MODE_LOOSE;
import { formatPrefix, type Ip6LinkFacts, type RouteDetails, type DataplaneSnapshot } from './snapshot.js';

export interface ActualOptions {
  /** Keys the desired state has: decides ownership inside shared objects. */
  readonly desiredKeys: ReadonlySet<string>;
  /** Host ends of veth pairs vppnet created (by prefix). */
  readonly hostVeths: readonly string[];
  /** Prefixes of host veth names that are vppnet's (VM ports, pods). */
  readonly hostVethPrefixes: readonly string[];
  /** External interfaces that are VM ports (`attach: interface`): they must be untagged. */
  readonly vmPortInterfaces?: ReadonlySet<string>;
  /**
   * MACs of the loopbacks and af_packet interfaces vppnet wants, derived from their names
   * (names.ts). An untagged interface of those types with one of them is vppnet's own whose tag
   * never came (the connection was lost between the create and the tag): read as vppnet's under
   * its VPP name, it is deleted. Unseen, it leaked, one more at every such loss.
   */
  readonly untaggedOwnMacs?: ReadonlySet<string>;
  /**
   * Host interfaces only vppnet binds af_packet interfaces to (pods' veth host ends) and no
   * attachment claims: an untagged af_packet on one is a pod port whose tag never came. A pod's
   * MAC is not among the wanted ones when its attach failed that way (it never became active), so
   * the MAC alone would leave it, and its kernel rings, for good.
   */
  readonly untaggedOwnHostInterface?: (hostIfName: string) => boolean;
}

const VETH_OF_INTERFACE = (hostIfName: string, prefixes: readonly string[]): boolean =>
  prefixes.some((p) => hostIfName.startsWith(p));

export function actualDataplane(s: DataplaneSnapshot, opts: ActualOptions): Resource[] {
  const out: Resource[] = [];
  const want = opts.desiredKeys;
  const ownedTables = new Set(
    s.tables.filter((t) => isOwnedTag(t.name)).map((t) => `${t.is_ip6 ? 'ip6' : 'ip4'}:${t.table_id}`),
  );

  for (const t of s.tables) {
    if (!isOwnedTag(t.name)) continue;
    out.push(ipTableDescriptor.resource({ table: t.table_id, ip6: t.is_ip6, name: t.name }));
  }

  for (const name of opts.hostVeths) {
    out.push(hostVethDescriptor.resource({ hostName: name, netns: '', ifname: '', mac: '' }));
  }

  for (const d of s.untagged) {
    const afp = s.afPacket.get(d.sw_if_index);
    const ownHost = afp !== undefined && opts.untaggedOwnHostInterface?.(afp) === true;
    if (!opts.untaggedOwnMacs?.has(d.l2_address) && !ownHost) continue;
    const name = d.interface_name;
    const mac = d.l2_address;
    const value: InterfaceValue =
      afp === undefined ? { type: 'loopback', name, mac } : { type: 'af_packet', name, hostIfName: afp, mac };
    // A VM port attached to it by name takes it as it is (external), as any untagged interface.
    if (!want.has(keys.interface(name))) out.push(interfaceDescriptor.resource(value));
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
      out.push(interfaceDescriptor.resource(value, { after: deps }));
    } else if (want.has(ifKey)) {
      // A VM port on an interface another program tagged would take that program's interface
      // into a VPC (its table, addresses and source check replaced): only untagged ones are taken.
      const unusable =
        d.tag !== '' && opts.vmPortInterfaces?.has(name)
          ? `belongs to something else (VPP tag ${JSON.stringify(d.tag)}): a VM port takes only an untagged interface`
          : undefined;
      out.push(
        interfaceDescriptor.resource(
          { type: 'external', name },
          { external: true, ...(unusable !== undefined && { unusable }) },
        ),
      );
    }

    const adminUp = adminUpDescriptor.resource({ iface: name });
    if ((d.flags & 1) === 1 && mine(adminUp.key)) out.push(adminUp);
    // Addresses and unnumbered go with the table binding: VPP drops them when it changes.
    const binding = interfaceTableDescriptor.resource({ iface: name, table: facts.table });
    const hasTable = facts.table !== 0 && mine(binding.key);
    if (hasTable) out.push(binding);
    const withTable = hasTable ? [binding.key] : [];
    for (const prefix of facts.addresses) {
      const address = addressDescriptor.resource({ iface: name, prefix }, { after: withTable });
      if (mine(address.key)) out.push(address);
    }
    const via = s.unnumbered.get(idx);
    const viaName = via === undefined ? undefined : s.interfaces.nameOf(via);
    if (viaName !== undefined) {
      const unnumbered = unnumberedDescriptor.resource({ iface: name, via: viaName }, { after: withTable });
      if (mine(unnumbered.key)) out.push(unnumbered);
    }
    // Only where vppnet sets one: VPP gives every interface an MTU, and the others' are not ours.
    if (want.has(keys.interfaceMtu(name))) {
      // Per-protocol MTUs set by someone else read as 0, a value vppnet never wants: it sets L3 alone.
      const [l3, ...perProtocol] = d.mtu;
      out.push(
        interfaceMtuDescriptor.resource({
          iface: name,
          mtu: perProtocol.every((m) => m === 0) ? (l3 ?? 0) : 0,
        }),
      );
    }
    for (const [address, mac] of facts.staticNeighbors4 ?? []) {
      const neighbor = staticNeighborDescriptor.resource({ iface: name, address, mac }, { after: withTable });
      if (mine(neighbor.key)) out.push(neighbor);
    }
    const proxyArp = proxyArpInterfaceDescriptor.resource({ iface: name });
    if (s.proxyArpInterfaces.has(idx) && mine(proxyArp.key)) out.push(proxyArp);
    for (const u of s.sourceChecks) {
      // Input checks are the only ones vppnet makes; an output one is someone else's to keep.
      if (u.sw_if_index !== idx || !u.is_input) continue;
      const mode = u.mode === URPF_STRICT ? 'strict' : u.mode === URPF_LOOSE ? 'loose' : undefined;
      if (mode === undefined) continue;
      const family = u.af === msg.address_family_t.values.ADDRESS_IP6 ? 6 : 4;
      // Listed is not running on an interface that reused a deleted one's index (snapshot.ts).
      const running = s.sourceCheckNodes.get(idx);
      if (running !== undefined && !running.has(`ip${family}-rx-urpf-${mode}`)) continue;
      const check = sourceCheckDescriptor.resource({ iface: name, family, table: u.table_id, mode });
      if (mine(check.key)) out.push(check);
    }

    if (facts.table6 !== undefined && facts.table6 !== 0) {
      const binding6 = interfaceTableDescriptor.resource({ iface: name, table: facts.table6, ip6: true });
      if (mine(binding6.key)) {
        out.push(binding6);
        if (facts.ip6Link) out.push(...actualIp6Link(name, facts.ip6Link, binding6.key, mine, want));
      }
    }
  }

  for (const [tableKey, routes] of s.routes) {
    const owned = ownedTables.has(tableKey);
    for (const r of routes) {
      const res = routeResource(r, tableKey.startsWith('ip6'), s, owned ? ownedTables : undefined);
      // In a vppnet table a route of vppnet's shape is vppnet's; so is a desired one through an
      // interface the operator made (a VM port attached as `interface`), which has no vppnet tag:
      // left out, every pass planned it again.
      if (res && ((owned && res.owned) || want.has(res.resource.key))) out.push(res.resource);
    }
  }

  for (const p of s.proxyArpRanges) {
    if (!ownedTables.has(`ip4:${p.table_id}`)) continue;
    out.push(proxyArpDescriptor.resource({ table: p.table_id, low: p.low, hi: p.hi }));
  }
  return out;
}

/** A port's IPv6 link as resources (snapshot.ts reads it only for ports in an IPv6 table). */
function actualIp6Link(
  iface: string,
  link: Ip6LinkFacts,
  bindingKey: string,
  mine: (key: string) => boolean,
  want: ReadonlySet<string>,
): Resource[] {
  const out: Resource[] = [];
  const withBinding = { after: [bindingKey] };
  for (const [address, mac] of link.staticNeighbors) {
    const neighbor = staticNeighborDescriptor.resource({ iface, address, mac }, withBinding);
    if (mine(neighbor.key)) out.push(neighbor);
  }
  if (link.linkLocal === undefined) return out;
  const enable = ip6EnableDescriptor.resource({ iface }, withBinding);
  if (!mine(enable.key)) return out;
  out.push(enable);
  // VPP always has a link-local address once IPv6 is on: only the one vppnet sets is its.
  const linkLocal = ip6LinkLocalDescriptor.resource({ iface, address: link.linkLocal });
  if (want.has(linkLocal.key)) out.push(linkLocal);
  // No read exists: inferred from the enable (see ip6NdMirrorProxyDescriptor).
  const proxy = ip6NdMirrorProxyDescriptor.resource({ iface });
  if (want.has(proxy.key)) out.push(proxy);
  const ra = link.ra;
  if (ra === undefined) return out;
  for (const p of ra.prefixes) {
    const prefix = ip6RaPrefixDescriptor.resource({
      iface,
      prefix: formatPrefix(p.prefix),
      validLifetime: p.val_lifetime,
      preferredLifetime: p.pref_lifetime,
      onLink: p.onlink_flag,
      autonomous: p.autonomous_flag,
    });
    if (mine(prefix.key)) out.push(prefix);
  }
  // VPP starts with send_radv off: on means someone (vppnet) configured advertisements.
  if (ra.send_radv) {
    const config = ip6RaConfigDescriptor.resource({
      iface,
      maxInterval: ra.max_radv_interval,
      minInterval: ra.min_radv_interval,
      routerLifetime: ra.adv_router_lifetime,
    });
    if (mine(config.key)) out.push(config);
  }
  return out;
}

/**
 * Whether an IPv4 VM host route (to its own address, through its port) is the attached kind
 * (overlay.ts). A dump shows both kinds alike, with the address as the next hop; what tells them
 * apart is the layout they belong to: since the gateway loopback holds its address as a /32, the
 * ports unnumbered to it have attached host routes. A port of a gateway that still holds its
 * subnet (a VPP programmed before) reads as not attached, so the pass re-adds its route attached
 * while it moves the gateway to its /32.
 */
function attachedHostRoute(
  r: RouteDetails,
  ip6: boolean,
  nh: string,
  swIfIndex: number,
  s: DataplaneSnapshot,
): boolean {
  if (ip6 || r.prefix.len !== 32 || formatPrefix(r.prefix) !== `${nh}/32`) return false;
  const via = s.unnumbered.get(swIfIndex);
  const gateway = via === undefined ? undefined : s.interfaces.nameOf(via);
  const addresses = gateway === undefined ? undefined : s.interfaceFacts.get(gateway)?.addresses;
  return addresses !== undefined && addresses.some((a) => !a.includes(':') && a.endsWith('/32'));
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
  s: DataplaneSnapshot,
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
      // IPv6 table 0 too: the service bridge's IPv6 side is there (nat66 wants its outside in
      // table 0), and VPC tables reach metadata and DNS over IPv6 by a lookup in it.
      if (
        ownedTables &&
        !ownedTables.has(`${ip6 ? 'ip6' : 'ip4'}:${p.table_id}`) &&
        !(ip6 && p.table_id === 0)
      )
        owned = false;
    } else {
      if (nh === zero) return undefined; // attached/connected route of an interface address
      const iface = s.interfaces.nameOf(p.sw_if_index);
      if (iface === undefined) return undefined;
      paths.push(
        attachedHostRoute(r, ip6, nh, p.sw_if_index, s) ? { iface, nh, attached: true } : { iface, nh },
      );
      deps.add(keys.interface(iface));
      if (!isOwnedTag(iface)) owned = false;
    }
  }
  if (paths.length === 0) return undefined;
  const prefix = formatPrefix(r.prefix);
  if (r.table_id !== 0) deps.add(keys.ipTable(r.table_id, ip6));
  return {
    resource: routeDescriptor.resource({ table: r.table_id, ip6, prefix, paths }, { after: [...deps] }),
    owned,
  };
}
