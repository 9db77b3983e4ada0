/**
 * The SRv6 VPC overlay as VPP resources: per VPC with IPv4 an IPv4 table, a gateway loopback,
 * proxy ARP and an End.DT4 SID, and per VPC with IPv6 an IPv6 table (the same id) and an End.DT6
 * SID; per VM port an interface in those tables — for IPv4 unnumbered to the gateway with a /32
 * route and a static neighbour, for IPv6 with IPv6 enabled, router advertisements, the mirror ND
 * proxy, a /128 route and a static neighbour; per remote SID an H.Encaps policy (per remote prefix a steering entry:
 * desired-steering.ts). The underlay NIC gets its address and IPv6 default route. Facts:
 * ../shared/vpp-srv6.md, vpp-services.md and docs/dual-stack.md.
 */
import { fabricTableOf, sourceTableOf, UNDERLAY_SOURCE_TABLE } from '../config/defaults.js';
import type { AgentConfig, PortConfig, RemoteRouteConfig, VpcConfig } from '../config/model.js';
import { sourceCheckDescriptor } from '../dataplane/source-check-descriptors.js';
import { eui64Address } from '../net/eui64.js';
import {
  hostDirectoryDescriptor,
  socketAccessDescriptor,
  type SocketAccessValue,
} from '../dataplane/host-file-descriptors.js';
import {
  addressDescriptor,
  adminUpDescriptor,
  hostVethDescriptor,
  interfaceDescriptor,
  interfaceMtuDescriptor,
  interfaceTableDescriptor,
  proxyArpInterfaceDescriptor,
  unnumberedDescriptor,
} from '../dataplane/interface-descriptors.js';
import {
  ipTableDescriptor,
  proxyArpDescriptor,
  routeDescriptor,
  type RouteValue,
} from '../dataplane/ip-descriptors.js';
import {
  ip6EnableDescriptor,
  ip6LinkLocalDescriptor,
  ip6NdMirrorProxyDescriptor,
  ip6RaConfigDescriptor,
  ip6RaPrefixDescriptor,
} from '../dataplane/ip6-link-descriptors.js';
import { staticNeighborDescriptor } from '../dataplane/neighbor-descriptors.js';
import { keys, tableNames, tags } from '../dataplane/keys.js';
import { derivedMac, portInterfaceName, vmVethHostName } from '../dataplane/names.js';
import { canonicalIp6, intToIp4, ip4Mask, ip4ToInt, ip6InPrefix, routedPrefixes } from '../net/ip.js';
import type { Resource } from '../reconcile/resource.js';
import {
  encapSourceDescriptor,
  hopLimitDescriptor,
  localSidDescriptor,
  policyDescriptor,
} from './descriptors.js';
import { desiredUnderlayNeighbours } from './underlay-neighbours.js';
import { allocateBsids } from './bsid-allocation.js';

/**
 * BSIDs for the config's remote SIDs (bsid-allocation.ts): an existing vppnet policy in the BSID
 * prefix keeps its BSID, new SIDs take the lowest free indexes.
 */
export function configBsids(
  config: AgentConfig,
  existing: ReadonlyMap<string, string> /* remote SID → BSID found in VPP */,
): Map<string, string> {
  return allocateBsids(distinctSids(config.remoteRoutes), config.node.srv6.bsidPrefix, existing);
}

/** The remote routes' distinct SIDs, sorted: made once per routes array (a config is not changed). */
const sidsOfRoutes = new WeakMap<readonly RemoteRouteConfig[], readonly string[]>();

function distinctSids(routes: readonly RemoteRouteConfig[]): readonly string[] {
  let sids = sidsOfRoutes.get(routes);
  if (sids === undefined) {
    const distinct = new Set<string>();
    // Indexed loops over the remote routes (100k on a busy node): for-of makes an iterator
    // result per route in code V8 has not optimized yet.
    for (let i = 0; i < routes.length; i++) distinct.add((routes[i] as RemoteRouteConfig).sid);
    sids = [...distinct].sort();
    sidsOfRoutes.set(routes, sids);
  }
  return sids;
}

/** Proxy-ARP range of a subnet: every host address, minus the gateway when it sits at an end. */
export function proxyArpRange(
  subnet: { address: string; len: number },
  gateway: string,
): { low: string; hi: string } {
  const net = ip4ToInt(subnet.address) & ip4Mask(subnet.len);
  let low = (net + 1) >>> 0;
  let hi = ((net | ~ip4Mask(subnet.len)) - 1) >>> 0;
  const gw = ip4ToInt(gateway);
  if (gw === low) low++;
  else if (gw === hi) hi--;
  return { low: intToIp4(low), hi: intToIp4(hi) };
}

/** The directory of a socket path (validated absolute and normalized). */
export function socketDirectory(socket: string): string {
  return socket.slice(0, socket.lastIndexOf('/')) || '/';
}

/**
 * What a port's router advertisements say (docs/dual-stack.md): the prefix with infinite
 * lifetimes, unsolicited RAs every 10 to 30 s, the port as default router for 600 s.
 *
 * Infinite (0xffffffff), not 30 and 7 days: VPP 26.06 counts finite lifetimes down from the moment
 * the prefix is set (ip6_ra_prefix: decrement_lifetime_flag on for any new prefix unless either
 * lifetime is ~0), advertises what is left and reports it in sw_interface_ip6nd_ra_dump. The VMs
 * would lose their addresses 30 days after the port was configured, and the read-back would differ
 * from the desired value on every pass. The VM's address is vppnet's, not a lease: it never expires.
 */
export const RA_VALID_LIFETIME = 0xffffffff;
export const RA_PREFERRED_LIFETIME = 0xffffffff;
export const RA_MAX_INTERVAL = 30;
export const RA_MIN_INTERVAL = 10;
export const RA_ROUTER_LIFETIME = 600;

/** The VPC's IPv4 gateway when it has IPv4 (undefined in an IPv6-only VPC). */
function ip4GatewayOf(vpc: VpcConfig): string | undefined {
  return vpc.subnets.length > 0 ? vpc.gateway : undefined;
}

/** The VPC's IPv6 /64 holding `address`. */
function vpcSubnet6Of(vpc: VpcConfig, address: string): { address: string; len: number } {
  const s = vpc.subnets6.find((p) => ip6InPrefix(address, p));
  if (!s) throw new Error(`address ${address} outside the IPv6 subnets of VPC ${vpc.name}`);
  return s;
}

/** The overlay's resources but its steering entries (desired-steering.ts). */
export function desiredOverlay(config: AgentConfig, bsids: ReadonlyMap<string, string>): Resource[] {
  const out = [...configOnlyOverlay(config)];
  const { node } = config;

  for (const [sid, bsid] of [...bsids].sort()) {
    out.push(
      policyDescriptor.resource({ bsid, sids: [sid], encapSource: node.srv6.encapSource, fibTable: 0 }),
    );
  }
  return out;
}

/**
 * The overlay's resources that follow from the config alone (all but the policies, which follow
 * from the BSIDs too), made once per config object: a config is not
 * changed once loaded, and resources are read-only, so each pass over it (every resync of an
 * unchanged node) shares them instead of making thousands again.
 */
const overlayOfConfig = new WeakMap<AgentConfig, readonly Resource[]>();

function configOnlyOverlay(config: AgentConfig): readonly Resource[] {
  let made = overlayOfConfig.get(config);
  if (made === undefined) {
    made = makeConfigOnlyOverlay(config);
    overlayOfConfig.set(config, made);
  }
  return made;
}

function makeConfigOnlyOverlay(config: AgentConfig): Resource[] {
  const out = makeOverlayResources(config);
  out.push(...fabricRoutes(config, out));
  return out;
}

/**
 * What other hypervisors' IPv6 traffic may reach. End.DT6 decapsulates into the VPC's IPv6 fabric
 * table, not into its IPv6 table, and the fabric table holds only the routes to this node's VM
 * ports (their addresses and allowed prefixes), copied from the VPC table. Decapsulated into the
 * VPC table, a packet could reach the metadata and DNS routes that only local VMs may use: a
 * packet whose inner source was a VM's IPv6 service address then reached the metadata pod as that
 * VM (measured on VPP 26.06: nat66 passes it untranslated, and the pods' ACL admits that source).
 *
 * IPv4 needs no fabric table, and gets none: NAT44-EI finds a VM's mapping by the table of the
 * interface the packet came in on, which for a decapsulated packet is the uplink's, so one from the
 * fabric is never translated, and without a pool it is dropped (checked on VPP 26.06 with an inner
 * source of a local VM: test/integration/service-plane-ip6.test.ts). An IPv4 table costs VPP 256 KiB
 * of heap (its mtrie's root ply) where an IPv6 one is a hash: a fabric table per IPv4 VPC would
 * double what a node's VPCs take of VPP's heap for no gain. (Decapsulated traffic can also meet the
 * VPC's steering and be sent on to a third node; whoever may send to this node's SIDs may send to
 * that node's directly.)
 */
function fabricRoutes(config: AgentConfig, overlay: readonly Resource[]): Resource[] {
  const vpcByTable = new Map(config.vpcs.map((v) => [v.table, v]));
  const out: Resource[] = [];
  for (const r of overlay) {
    if (r.kind !== routeDescriptor.kind) continue;
    const route = r.value as RouteValue;
    const vpc = vpcByTable.get(route.table);
    if (vpc === undefined || !route.ip6 || !route.paths.every((p) => 'iface' in p)) continue;
    const fabric = fabricTableOf(vpc.id);
    const vpcTableKey = keys.ipTable(vpc.table, true);
    out.push(
      routeDescriptor.resource(
        { ...route, table: fabric },
        { after: [...r.deps.filter((d) => d !== vpcTableKey), keys.ipTable(fabric, true)] },
      ),
    );
  }
  return out;
}

function makeOverlayResources(config: AgentConfig): Resource[] {
  const out: Resource[] = [];
  const { node } = config;

  // Underlay: configured, never created.
  const uplink = node.underlay.interface;
  out.push(interfaceDescriptor.resource({ type: 'external', name: uplink }, { external: true }));
  out.push(adminUpDescriptor.resource({ iface: uplink }));
  const uplinkPrefix = `${node.underlay.address}/${node.underlay.prefixLength}`;
  const uplinkAddress = addressDescriptor.resource({ iface: uplink, prefix: uplinkPrefix });
  out.push(uplinkAddress);
  out.push(
    routeDescriptor.resource(
      { table: 0, ip6: true, prefix: '::/0', paths: [{ iface: uplink, nh: node.underlay.gateway }] },
      { after: [keys.interface(uplink), uplinkAddress.key] },
    ),
  );
  out.push(...desiredUnderlayNeighbours(config));
  out.push(...desiredIngressFilter(config));

  // SRv6 globals, before any policy (VPP copies them into each policy at creation).
  out.push(encapSourceDescriptor.resource({ address: node.srv6.encapSource }));
  out.push(hopLimitDescriptor.resource({ hopLimit: node.srv6.hopLimit }));

  const vpcByName = new Map(config.vpcs.map((v) => [v.name, v]));
  const vpcMtus = new Map(config.vpcs.map((v) => [v.name, v.mtu]));
  const directories = new Set<string>();
  for (const vpc of config.vpcs) {
    if (vpc.subnets6.length > 0) {
      // The IPv6 table before its End.DT6 SID and any steering into it: VPP 26.06 crashes on
      // either without it (docs/dual-stack.md, trap 1). Both depend on it.
      out.push(ipTableDescriptor.resource({ table: vpc.table, ip6: true, name: tableNames.vpc(vpc.name) }));
      if (config.ports.some((p) => p.vpc === vpc.name && p.sourceCheck))
        out.push(
          ipTableDescriptor.resource({
            table: sourceTableOf(vpc.id),
            ip6: true,
            name: tableNames.vpcSources(vpc.name),
          }),
        );
      if (vpc.sid6 !== undefined) {
        const fabric = fabricTableOf(vpc.id);
        out.push(
          ipTableDescriptor.resource({ table: fabric, ip6: true, name: tableNames.vpcFabric(vpc.name) }),
        );
        out.push(
          localSidDescriptor.resource({ sid: vpc.sid6, behavior: 'end.dt6', table: fabric, fibTable: 0 }),
        );
      }
    }
    const gateway = ip4GatewayOf(vpc);
    if (gateway === undefined) continue;
    out.push(ipTableDescriptor.resource({ table: vpc.table, ip6: false, name: tableNames.vpc(vpc.name) }));

    const gw = tags.vpcGateway(vpc.name);
    out.push(interfaceDescriptor.resource({ type: 'loopback', name: gw, mac: derivedMac(gw) }));
    const gwTable = interfaceTableDescriptor.resource({ iface: gw, table: vpc.table });
    out.push(gwTable);
    // VPP makes a port unnumbered only to an interface in the same IPv4 *and* IPv6 tables
    // (vnet_sw_interface_check_table_same, -74 otherwise): in a dual-stack VPC the gateway joins
    // the IPv6 table too. It gets no IPv6 address; VMs route via the ports' link-local.
    if (vpc.subnets6.length > 0)
      out.push(interfaceTableDescriptor.resource({ iface: gw, table: vpc.table, ip6: true }));
    // The gateway's address alone, not its subnet: a connected /24 on the loopback is an attached
    // cover, and VPP installs a neighbour it learns under an attached cover as a forwarding /32
    // (fib_entry_src_adj.c; for an interface unnumbered to the cover's too). Any VM's ARP to the
    // gateway claiming an unassigned address of the subnet made that address the VM's: traffic to
    // it went to the VM, and the VM's packets from it passed uRPF strict. Without the cover a
    // learnt entry never forwards, as under IPv6 (no /64 on any interface); proxy ARP, the
    // ports' attached /32s and unnumbered do the rest (docs/source-validation.md).
    const gwPrefix = `${gateway}/32`;
    out.push(addressDescriptor.resource({ iface: gw, prefix: gwPrefix }, { after: [gwTable.key] }));
    out.push(adminUpDescriptor.resource({ iface: gw }));

    // Without proxy ARP a VM cannot reach same-subnet addresses on other hypervisors.
    for (const subnet of vpc.subnets) {
      const { low, hi } = proxyArpRange(subnet, gateway);
      out.push(proxyArpDescriptor.resource({ table: vpc.table, low, hi }));
    }

    // End.DT4: VPP reads the IPv4 table from sw_if_index; the table must exist first, or
    // decapsulated traffic silently lands in the underlay table. Into the VPC table itself: IPv4
    // needs no fabric table (fabricRoutes says why).
    out.push(
      localSidDescriptor.resource({ sid: vpc.sid, behavior: 'end.dt4', table: vpc.table, fibTable: 0 }),
    );
  }

  for (const port of config.ports) {
    const vpc = vpcByName.get(port.vpc) as VpcConfig;
    const tableKey = keys.ipTable(vpc.table);
    const gw = tags.vpcGateway(vpc.name);
    const name = portInterfaceName(port);
    const ifKey = keys.interface(name);
    const a = port.attach;
    switch (a.type) {
      case 'veth': {
        const hostName = vmVethHostName(port, vpcMtus);
        const veth = hostVethDescriptor.resource({
          hostName,
          netns: a.netns,
          ifname: a.ifname,
          mac: port.mac,
          mtu: vpc.mtu,
        });
        out.push(veth);
        out.push(
          interfaceDescriptor.resource(
            { type: 'af_packet', name, hostIfName: hostName, mac: derivedMac(name) },
            { after: [veth.key] },
          ),
        );
        break;
      }
      case 'tap':
        out.push(
          interfaceDescriptor.resource({
            type: 'tap',
            name,
            netns: a.netns,
            hostIfName: a.ifname,
            mac: derivedMac(name),
            hostMac: port.mac,
          }),
        );
        break;
      case 'vhost-user': {
        // VPP binds the socket when it creates the port: its directory must exist by then.
        const dir = socketDirectory(a.socket);
        const { directoryMode, gid: directoryGid } = node.vhostUser;
        const directory = hostDirectoryDescriptor.resource({
          path: dir,
          mode: directoryMode,
          ...(directoryGid !== undefined && { gid: directoryGid }),
        });
        if (!directories.has(directory.key)) {
          directories.add(directory.key);
          out.push(directory);
        }
        out.push(
          interfaceDescriptor.resource(
            { type: 'vhost-user', name, socket: a.socket, mac: derivedMac(name) },
            { after: [directory.key] },
          ),
        );
        const { uid, gid, mode } = a.access;
        const access: SocketAccessValue = {
          socket: a.socket,
          ...(uid !== undefined && { uid }),
          ...(gid !== undefined && { gid }),
          mode,
        };
        out.push(socketAccessDescriptor.resource(access, { after: [ifKey] }));
        break;
      }
      case 'interface':
        out.push(interfaceDescriptor.resource({ type: 'external', name }, { external: true }));
        break;
    }
    const mtu = interfaceMtuDescriptor.resource({ iface: name, mtu: vpc.mtu });
    out.push(mtu);
    out.push(adminUpDescriptor.resource({ iface: name }));
    const ip = port.ip;
    if (ip !== undefined && ip4GatewayOf(vpc) !== undefined) {
      const tableBinding = interfaceTableDescriptor.resource({ iface: name, table: vpc.table });
      out.push(tableBinding);
      // Both tables first, the port's and the gateway's (the same-tables rule above). Only here:
      // VPP checks them when it makes the port unnumbered, and keeps it when a binding changes.
      const ip6Bindings =
        port.ip6 !== undefined && vpc.subnets6.length > 0
          ? [keys.ifaceTable(name, true), keys.ifaceTable(gw, true)]
          : [];
      const unnumbered = unnumberedDescriptor.resource(
        { iface: name, via: gw },
        { after: [tableBinding.key, ...ip6Bindings] },
      );
      out.push(unnumbered);
      out.push(proxyArpInterfaceDescriptor.resource({ iface: name }));
      // Local VM-to-VM traffic is routed in VPP by these /32s, never encapsulated. Attached: with
      // no attached subnet (the gateway's /32 above), VPP's ARP answers a VM only from a source
      // an attached route covers (arp.c); VPP resolves the VM's MAC on its port as before.
      const after = { after: [tableKey, ifKey, unnumbered.key] };
      out.push(
        routeDescriptor.resource(
          {
            table: vpc.table,
            ip6: false,
            prefix: `${ip}/32`,
            paths: [{ iface: name, nh: ip, attached: true }],
          },
          after,
        ),
      );
      // The VM's MAC as a static entry, as for IPv6: VPP never has to learn it, so a VM that fills
      // VPP's IPv4 neighbour table (it learns the sender of every ARP request a port sends its
      // gateway: arp.c) cannot leave another VM unreachable. In the port's table: after binding.
      out.push(
        staticNeighborDescriptor.resource(
          { iface: name, address: ip, mac: port.mac },
          { after: [tableBinding.key] },
        ),
      );
      // The networks behind an appliance, through the VM; the source check then accepts them too.
      for (const a of port.allowedPrefixes) {
        if (a.family !== 4) continue;
        for (const prefix of routedPrefixes(a.address, a.len, 4))
          out.push(
            routeDescriptor.resource(
              { table: vpc.table, ip6: false, prefix, paths: [{ iface: name, nh: ip }] },
              after,
            ),
          );
      }
      // The VPC table is the source table: only this /32 and the allowed prefixes lead to the port.
      if (port.sourceCheck)
        out.push(
          sourceCheckDescriptor.resource(
            { iface: name, family: 4, table: vpc.table, mode: 'strict' },
            { after: [unnumbered.key] },
          ),
        );
    }
    if (port.ip6 !== undefined && vpc.subnets6.length > 0) {
      out.push(...desiredPortIp6(vpc, name, port.ip6, port.mac, mtu.key));
      out.push(...desiredSourceCheck6(vpc, port, name, port.ip6));
    }
  }
  return out;
}

/**
 * The SRv6 ingress filter (RFC 8754 §5.1, RFC 8986 §9: an SR domain drops, at its edge, packets
 * to its SIDs from outside it): loose uRPF on the uplink's IPv6 input, looking sources up in a
 * table that holds only the allowed sources and link-local (fe80::/64, the gateway's neighbour
 * discovery), each through the uplink. A packet from any other source is dropped and counted,
 * whatever its destination: a SID, a BSID (whose policy would encapsulate it towards another node
 * with this node's source) or the node's underlay address. Packets to multicast destinations pass
 * (neighbour solicitations). One FIB lookup per packet: an ACL on the uplink cost four times as
 * much (bench/packet-rate, docs/source-validation.md).
 */
function desiredIngressFilter(config: AgentConfig): Resource[] {
  const { srv6, underlay } = config.node;
  const table = UNDERLAY_SOURCE_TABLE;
  const tableResource = ipTableDescriptor.resource({ table, ip6: true, name: tableNames.underlaySources() });
  const via = [{ iface: underlay.interface, nh: underlay.gateway }];
  const after = { after: [tableResource.key, keys.interface(underlay.interface)] };
  // fe80::/64, not /10: every table's fe80::/10 is VPP's special entry, which outranks a route.
  const prefixes = [...srv6.allowedSources.map((s) => `${s.address}/${s.len}`), 'fe80::/64'];
  return [
    tableResource,
    ...[...new Set(prefixes)].map((prefix) =>
      routeDescriptor.resource({ table, ip6: true, prefix, paths: via }, after),
    ),
    sourceCheckDescriptor.resource(
      { iface: underlay.interface, family: 6, table, mode: 'loose' },
      { after: [keys.address(underlay.interface, `${underlay.address}/${underlay.prefixLength}`)] },
    ),
  ];
}

/**
 * A port's IPv6 allowed prefixes and source check. The check looks sources up in the VPC's IPv6
 * source table (docs/source-validation.md), not in its forwarding table: a VM's link-local source
 * (its unicast neighbour probes to the gateway) must pass, and a link-local /128 in the forwarding
 * table would route link-local traffic between VMs. The source table holds, per port, its address,
 * the EUI-64 link-local of its MAC and its allowed prefixes, each through the port.
 */
function desiredSourceCheck6(vpc: VpcConfig, port: PortConfig, name: string, vmAddress: string): Resource[] {
  const out: Resource[] = [];
  const address = canonicalIp6(vmAddress);
  const via = [{ iface: name, nh: address }];
  const after = { after: [keys.interface(name), keys.ifaceTable(name, true)] };
  const allowed = port.allowedPrefixes
    .filter((a) => a.family === 6)
    .flatMap((a) => routedPrefixes(a.address, a.len, 6));
  for (const prefix of allowed)
    out.push(
      routeDescriptor.resource(
        { table: vpc.table, ip6: true, prefix, paths: via },
        { after: [...after.after, keys.ipTable(vpc.table, true)] },
      ),
    );
  if (!port.sourceCheck) return out;
  const sourceTable = sourceTableOf(vpc.id);
  const linkLocal = eui64Address(LINK_LOCAL_64, port.mac);
  // After their table, and deleted before it: VPP's FIB breaks when a table goes with API routes.
  const inSourceTable = { after: [...after.after, keys.ipTable(sourceTable, true)] };
  for (const prefix of [`${address}/128`, `${linkLocal}/128`, ...allowed])
    out.push(routeDescriptor.resource({ table: sourceTable, ip6: true, prefix, paths: via }, inSourceTable));
  out.push(
    sourceCheckDescriptor.resource(
      { iface: name, family: 6, table: sourceTable, mode: 'strict' },
      { after: [keys.ip6Enable(name)] },
    ),
  );
  return out;
}

const LINK_LOCAL_64 = { address: 'fe80::', len: 64 };

/**
 * A VM port's IPv6 side, in the order VPP needs (docs/dual-stack.md, "VM ports"): the IPv6 table
 * binding and the MTU before IPv6 is enabled (the RA's MTU is copied from the port once, at the
 * enable: trap 2), then what lives on the IPv6 link, then the VM's /128 and static neighbour.
 */
function desiredPortIp6(
  vpc: VpcConfig,
  name: string,
  vmAddress: string,
  vmMac: string,
  mtuKey: string,
): Resource[] {
  const address = canonicalIp6(vmAddress);
  const table6Key = keys.ipTable(vpc.table, true);
  const binding = interfaceTableDescriptor.resource({ iface: name, table: vpc.table, ip6: true });
  const enable = ip6EnableDescriptor.resource({ iface: name }, { after: [binding.key, mtuKey] });
  const subnet = vpcSubnet6Of(vpc, address);
  const raPrefix = ip6RaPrefixDescriptor.resource({
    iface: name,
    prefix: `${canonicalIp6(subnet.address)}/${subnet.len}`,
    validLifetime: RA_VALID_LIFETIME,
    preferredLifetime: RA_PREFERRED_LIFETIME,
    onLink: false,
    autonomous: true,
  });
  return [
    binding,
    enable,
    ip6LinkLocalDescriptor.resource({ iface: name, address: canonicalIp6(vpc.gatewayLinkLocal) }),
    raPrefix,
    // Advertising starts once the prefix is there: a first RA without it would give no address.
    ip6RaConfigDescriptor.resource(
      {
        iface: name,
        maxInterval: RA_MAX_INTERVAL,
        minInterval: RA_MIN_INTERVAL,
        routerLifetime: RA_ROUTER_LIFETIME,
      },
      { after: [raPrefix.key] },
    ),
    ip6NdMirrorProxyDescriptor.resource({ iface: name }),
    routeDescriptor.resource(
      { table: vpc.table, ip6: true, prefix: `${address}/128`, paths: [{ iface: name, nh: address }] },
      { after: [table6Key, keys.interface(name), binding.key] },
    ),
    // In the port's IPv6 table (VPP adds the neighbour's /128 there): after the binding.
    staticNeighborDescriptor.resource({ iface: name, address, mac: vmMac }, { after: [binding.key] }),
  ];
}
