/**
 * The service bridge's objects as found in VPP, read from the snapshot. Ownership (what vppnet may
 * change or delete): bridge domains, ACLs and NAT mappings tagged "vppnet:…"; bridge membership,
 * ACL bindings and NAT output of vppnet's interfaces (or in vppnet's bridge domain); DHCP proxies
 * and VSS of vppnet's tables. Shared globals (the NAT plugin) and objects on someone else's
 * interfaces count only under the exact key the desired state has, so they are never deleted.
 * Values are built exactly as desired.ts builds them, so an applied state plans zero operations.
 */
import { services6TableOf } from '../config/defaults.js';
import type { AgentConfig } from '../config/model.js';
import { ip6InPrefix } from '../net/ip.js';
import { serviceAddress4Of6 } from './ip6-services.js';
import { isOwnedTag, keys, vmPortOfTag } from '../dataplane/keys.js';
import { formatAddress } from '../dataplane/snapshot.js';
import type { ServicesView } from './reading.js';
import type { Resource } from '../reconcile/resource.js';
import {
  aclBindingDescriptor,
  aclDescriptor,
  ruleFromApi,
  type AclBindingValue,
  type AclValue,
} from '../dataplane/acl-descriptors.js';
import { AclRegistry } from '../dataplane/acl-registry.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';
import { staticNeighborDescriptor } from '../dataplane/neighbor-descriptors.js';
import { bdIpMacDescriptor, l2FibEntryDescriptor, type BdIpMacValue } from './bridge-entry-descriptors.js';
import { MACIP } from './context.js';
import {
  macipAclDescriptor,
  macipBindingDescriptor,
  macipRulesFromApi,
  type MacipAclValue,
} from './macip-descriptors.js';
import {
  bridgeDomainDescriptor,
  bridgePortDescriptor,
  PORT_TYPE,
  type BridgeDomainValue,
  type BridgePortValue,
} from './bridge-descriptors.js';
import {
  dhcpProxyDescriptor,
  dhcpVssDescriptor,
  VSS_TYPE,
  type DhcpProxyValue,
  type DhcpVssValue,
} from './dhcp-descriptors.js';
import {
  NAT_EI_ADDR_ONLY,
  natIdentityMappingDescriptor,
  natOutputInterfaceDescriptor,
  natPluginDescriptor,
  natStaticMappingDescriptor,
  type NatIdentityMappingValue,
  type NatStaticMappingValue,
} from './nat-descriptors.js';
import {
  NAT_ADDR_ONLY,
  natEdIdentityMappingDescriptor,
  natEdOutputInterfaceDescriptor,
  natEdStaticMappingDescriptor,
} from './nat-ed-descriptors.js';
import { actualVmRateLimits } from './vm-rate-limit.js';
import {
  nat66InterfaceDescriptor,
  nat66PluginDescriptor,
  nat66StaticMappingDescriptor,
} from './nat66-descriptors.js';
import { aclSessionTimeoutsDescriptor } from './acl-session-descriptors.js';

export interface ServicesActualOptions {
  /** Keys the desired state has: decides ownership inside shared objects. */
  readonly desiredKeys: ReadonlySet<string>;
  /** What was set on this VPP process that VPP cannot report (its pid is checked here). */
  readonly memory?: { readonly vppPid: number; readonly aclUdpIdleSeconds?: number } | undefined;
}

export function actualServices(s: ServicesView, opts: ServicesActualOptions): Resource[] {
  const out: Resource[] = [];
  const want = opts.desiredKeys;
  const ownedIp4Tables = new Set(
    s.tables.filter((t) => !t.is_ip6 && isOwnedTag(t.name)).map((t) => t.table_id),
  );
  const ifaceOwned = (name: string): boolean => isOwnedTag(name);

  for (const bd of s.bridgeDomains) {
    const bdKey = keys.bridgeDomain(bd.bd_id);
    const bdOwned = isOwnedTag(bd.bd_tag) || want.has(bdKey);
    if (bdOwned) {
      const value: BridgeDomainValue = {
        bd: bd.bd_id,
        flood: bd.flood,
        uuFlood: bd.uu_flood,
        forward: bd.forward,
        learn: bd.learn,
        arpTerm: bd.arp_term,
        arpUfwd: bd.arp_ufwd,
        macAge: bd.mac_age,
        tag: bd.bd_tag,
      };
      out.push(bridgeDomainDescriptor.resource(value));
    }
    for (const member of bd.sw_if_details) {
      const iface = s.interfaces.nameOf(member.sw_if_index);
      if (iface === undefined) continue;
      const key = keys.bridgePort(iface);
      if (!bdOwned && !ifaceOwned(iface) && !want.has(key)) continue;
      const portType =
        member.sw_if_index === bd.bvi_sw_if_index
          ? PORT_TYPE.L2_API_PORT_TYPE_BVI
          : member.sw_if_index === bd.uu_fwd_sw_if_index
            ? PORT_TYPE.L2_API_PORT_TYPE_UU_FWD
            : PORT_TYPE.L2_API_PORT_TYPE_NORMAL;
      const value: BridgePortValue = { iface, bd: bd.bd_id, portType, shg: member.shg };
      out.push(bridgePortDescriptor.resource(value));
    }
  }

  const acls = AclRegistry.fromDump(s.acls);
  for (const acl of s.acls) {
    if (!isOwnedTag(acl.tag)) continue;
    const name = acls.nameOf(acl.acl_index);
    const rules = acl.r.map(ruleFromApi);
    const value: AclValue =
      name === acl.tag ? { tag: acl.tag, rules } : { tag: acl.tag, rules, duplicateName: name };
    out.push(aclDescriptor.resource(value));
  }
  for (const b of s.aclBindings) {
    // VPP lists every interface, bound or not.
    if (b.count === 0) continue;
    const iface = s.interfaces.nameOf(b.sw_if_index);
    if (iface === undefined) continue;
    const key = keys.aclBinding(iface);
    if (!ifaceOwned(iface) && !want.has(key)) continue;
    const names = b.acls.slice(0, b.count).map((i) => acls.nameOf(i));
    const value: AclBindingValue = {
      iface,
      input: names.slice(0, b.n_input),
      output: names.slice(b.n_input),
    };
    const boundAcls = names.filter((n) => acls.has(n)).map((n) => keys.acl(n));
    out.push(aclBindingDescriptor.resource(value, { after: boundAcls }));
  }

  const macips = AclRegistry.fromDump(s.macipAcls, MACIP);
  for (const acl of s.macipAcls) {
    if (!isOwnedTag(acl.tag)) continue;
    const name = macips.nameOf(acl.acl_index);
    const rules = macipRulesFromApi(acl.r);
    const value: MacipAclValue =
      name === acl.tag ? { tag: acl.tag, rules } : { tag: acl.tag, rules, duplicateName: name };
    out.push(macipAclDescriptor.resource(value));
  }
  s.macipBindings.forEach((aclIndex, swIfIndex) => {
    if (aclIndex === NO_INDEX) return;
    const iface = s.interfaces.nameOf(swIfIndex);
    if (iface === undefined) return;
    if (!ifaceOwned(iface) && !want.has(keys.macipBinding(iface))) return;
    out.push(macipBindingDescriptor.resource({ iface, acl: macips.nameOf(aclIndex) }));
  });

  // The bridge entries of vppnet's bridge domains: static ones vppnet may have written (not the
  // BVI's, which VPP adds itself, nor what the bridge learned before learning was turned off).
  const ownedBds = new Set(
    s.bridgeDomains
      .filter((bd) => isOwnedTag(bd.bd_tag) || want.has(keys.bridgeDomain(bd.bd_id)))
      .map((bd) => bd.bd_id),
  );
  const portOfMac = new Map<string, string>();
  for (const e of s.l2Fib) {
    if (!ownedBds.has(e.bd_id) || !e.static_mac || e.bvi_mac || e.filter_mac) continue;
    const mac = e.mac.toLowerCase();
    // An entry left on an interface that is gone (or was never vppnet's) is still the bridge's.
    const iface = s.interfaces.nameOf(e.sw_if_index) ?? `sw_if_index ${e.sw_if_index}`;
    portOfMac.set(`${e.bd_id} ${mac}`, iface);
    out.push(l2FibEntryDescriptor.resource({ bd: e.bd_id, mac, iface }));
  }
  for (const e of s.bdIpMacs) {
    const bd = e.entry.bd_id;
    if (!ownedBds.has(bd)) continue;
    const mac = e.entry.mac.toLowerCase();
    const port = portOfMac.get(`${bd} ${mac}`);
    const value: BdIpMacValue = { bd, ip: formatAddress(e.entry.ip), mac };
    out.push(bdIpMacDescriptor.resource(value, port === undefined ? {} : { after: [keys.interface(port)] }));
  }
  // The BVI's static neighbours: one per pod address (pod-port.ts), the pod found by its MAC.
  const ownedBdOfBvi = new Map(
    s.bridgeDomains.filter((bd) => ownedBds.has(bd.bd_id)).map((bd) => [bd.bvi_sw_if_index, bd.bd_id]),
  );
  for (const n of s.bviNeighborCandidates) {
    const bd = ownedBdOfBvi.get(n.neighbor.sw_if_index);
    const iface = s.interfaces.nameOf(n.neighbor.sw_if_index);
    if (bd === undefined || iface === undefined) continue;
    const mac = n.neighbor.mac_address.toLowerCase();
    const port = portOfMac.get(`${bd} ${mac}`);
    const value = { iface, address: formatAddress(n.neighbor.ip_address), mac };
    out.push(
      staticNeighborDescriptor.resource(value, port === undefined ? {} : { after: [keys.interface(port)] }),
    );
  }

  // NAT44-EI: the plugin counts only under the key the desired state has (a shared global).
  const nat = s.nat;
  if (nat.ei.config && want.has(keys.natPlugin())) out.push(natPluginDescriptor.resource(nat.ei.config));
  for (const idx of nat.ei.outputInterfaces) {
    const iface = s.interfaces.nameOf(idx);
    if (iface === undefined) continue;
    if (!ifaceOwned(iface) && !want.has(keys.natOutputInterface(iface))) continue;
    out.push(natOutputInterfaceDescriptor.resource({ iface }));
  }
  for (const m of nat.ei.static) {
    // vppnet only ever writes address-only mappings; anything else with its tag is not its doing.
    if (!isOwnedTag(m.tag) || m.flags !== NAT_EI_ADDR_ONLY) continue;
    const value: NatStaticMappingValue = {
      vrf: m.vrf_id,
      local: m.local_ip_address,
      external: m.external_ip_address,
      tag: m.tag,
    };
    out.push(natStaticMappingDescriptor.resource(value));
  }
  for (const m of nat.ei.identity) {
    if (!isOwnedTag(m.tag) || m.flags !== NAT_EI_ADDR_ONLY) continue;
    const value: NatIdentityMappingValue = { vrf: m.vrf_id, address: m.ip_address, tag: m.tag };
    out.push(natIdentityMappingDescriptor.resource(value));
  }
  // NAT44-ED, as earlier versions left it: vppnet's parts are found here and deleted.
  for (const idx of nat.ed.outputInterfaces) {
    const iface = s.interfaces.nameOf(idx);
    if (iface === undefined) continue;
    if (!ifaceOwned(iface) && !want.has(keys.natEdOutputInterface(iface))) continue;
    out.push(natEdOutputInterfaceDescriptor.resource({ iface }));
  }
  for (const m of nat.ed.static) {
    if (!isOwnedTag(m.tag) || m.flags !== NAT_ADDR_ONLY) continue;
    out.push(
      natEdStaticMappingDescriptor.resource({
        vrf: m.vrf_id,
        local: m.local_ip_address,
        external: m.external_ip_address,
        tag: m.tag,
      }),
    );
  }
  for (const m of nat.ed.identity) {
    if (!isOwnedTag(m.tag) || m.flags !== NAT_ADDR_ONLY) continue;
    out.push(natEdIdentityMappingDescriptor.resource({ vrf: m.vrf_id, address: m.ip_address, tag: m.tag }));
  }

  // NAT66: the plugin is vppnet's when desired or when one of vppnet's interfaces is in it (so a
  // node whose services.ip6 is removed turns it off again); mappings in vppnet's IPv6 tables.
  const n66 = nat.nat66;
  const n66Ifaces = n66.interfaces.flatMap((i) => {
    const iface = s.interfaces.nameOf(i.swIfIndex);
    return iface === undefined ? [] : [{ iface, inside: i.inside }];
  });
  if (n66.enabled && (want.has(keys.nat66Plugin()) || n66Ifaces.some((i) => ifaceOwned(i.iface))))
    out.push(nat66PluginDescriptor.resource({}));
  for (const i of n66Ifaces)
    if (ifaceOwned(i.iface) || want.has(keys.nat66Interface(i.iface)))
      out.push(nat66InterfaceDescriptor.resource(i));
  const ownedIp6Tables = new Set(
    s.tables.filter((t) => t.is_ip6 && isOwnedTag(t.name)).map((t) => t.table_id),
  );
  for (const m of n66.static) {
    const value = { vrf: m.vrf_id, local: m.local_ip_address, external: m.external_ip_address };
    if (ownedIp6Tables.has(m.vrf_id) || want.has(keys.nat66StaticMapping(value.vrf, value.local)))
      out.push(nat66StaticMappingDescriptor.resource(value));
  }

  out.push(...actualVmRateLimits(s.policerClassify, s.interfaces));
  const udpIdle = opts.memory?.vppPid === s.vppPid ? opts.memory.aclUdpIdleSeconds : undefined;
  if (udpIdle !== undefined) out.push(aclSessionTimeoutsDescriptor.resource({ udpIdleSeconds: udpIdle }));

  for (const p of s.dhcpProxies) {
    const proxyKey = keys.dhcpProxy(p.rx_vrf_id);
    if (p.is_ipv6 || (!ownedIp4Tables.has(p.rx_vrf_id) && !want.has(proxyKey))) continue;
    const servers = p.servers
      .slice(0, p.count)
      .map((sv) => ({ table: sv.server_vrf_id, address: sv.dhcp_server.un.ip4 }));
    const value: DhcpProxyValue = { rxTable: p.rx_vrf_id, src: p.dhcp_src_address.un.ip4, servers };
    out.push(dhcpProxyDescriptor.resource(value));
    // VPP reports "no VSS" as VSS_TYPE_INVALID without byte-swapping it: only 0 and 1 are real.
    let vpnId: string | undefined;
    if (p.vss_type === VSS_TYPE.VSS_TYPE_API_ASCII) vpnId = p.vss_vpn_ascii_id;
    else if (p.vss_type === VSS_TYPE.VSS_TYPE_API_VPN_ID) vpnId = `vpn-id:${p.vss_oui}:${p.vss_fib_id}`;
    if (vpnId !== undefined) {
      const vss: DhcpVssValue = { table: p.rx_vrf_id, vpnId };
      out.push(dhcpVssDescriptor.resource(vss));
    }
  }
  return out;
}

/** A VM's service address as VPP holds it: vppnet's static mapping, found by its tag. */
export interface ServiceAddressInVpp {
  readonly port: string;
  /** The VPC whose table the mapping is in; undefined when no configured VPC has that table. */
  readonly vpc: string | undefined;
  readonly ip: string;
  readonly address: string;
}

/**
 * The service addresses VPP holds, so that they survive the loss of the agent's state file: from
 * vppnet's static mappings, found by their tag, NAT44-EI's first and then those an earlier version
 * left in NAT44-ED (a node upgraded without its state file keeps its VMs' addresses).
 */
export function serviceAddressesInVpp(s: ServicesView, config: AgentConfig): ServiceAddressInVpp[] {
  const vpcByTable = new Map(config.vpcs.map((v) => [v.table, v.name]));
  const out: ServiceAddressInVpp[] = [];
  const seen = new Set<string>();
  const mappings = [
    ...s.nat.ei.static.filter((m) => m.flags === NAT_EI_ADDR_ONLY),
    ...s.nat.ed.static.filter((m) => m.flags === NAT_ADDR_ONLY),
  ];
  for (const m of mappings) {
    const port = vmPortOfTag(m.tag);
    if (port === undefined || seen.has(port)) continue;
    seen.add(port);
    out.push({ port, vpc: vpcByTable.get(m.vrf_id), ip: m.local_ip_address, address: m.external_ip_address });
  }
  // A VM of an IPv6-only VPC has no NAT44 mapping: its nat66 one (untagged) names it by table and
  // address, and its IPv6 service address carries the host number of its (unused) IPv4 one. The
  // table is the VPC's IPv6 services table, or, as versions before it left them, the VPC's own.
  const services = config.services;
  const ip6 = services?.ip6;
  if (!services || !ip6) return out;
  const vpcByName = new Map(config.vpcs.map((v) => [v.name, v]));
  const ip6OnlyPorts = new Map(
    config.ports.flatMap((p) => {
      const vpc = vpcByName.get(p.vpc);
      return p.ip === undefined && p.ip6 !== undefined && vpc !== undefined
        ? [[`${services6TableOf(vpc.id)} ${p.ip6}`, p] as const, [`${vpc.table} ${p.ip6}`, p] as const]
        : [];
    }),
  );
  for (const m of s.nat.nat66.static) {
    const port = ip6OnlyPorts.get(`${m.vrf_id} ${m.local_ip_address}`);
    if (port === undefined || seen.has(port.name) || !ip6InPrefix(m.external_ip_address, ip6.vmAddressRange))
      continue;
    seen.add(port.name);
    out.push({
      port: port.name,
      vpc: port.vpc,
      ip: m.local_ip_address,
      address: serviceAddress4Of6(services, ip6, m.external_ip_address),
    });
  }
  return out;
}
