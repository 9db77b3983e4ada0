/**
 * The SRv6 VPC overlay as VPP resources: per VPC an IPv4 table, a gateway loopback, proxy ARP and
 * an End.DT4 SID; per VM port an interface in that table, unnumbered to the gateway, with a /32
 * route; per remote SID an H.Encaps policy; per remote prefix a steering entry. The underlay NIC
 * gets its address and IPv6 default route. Facts: ../shared/vpp-srv6.md and vpp-services.md.
 */
import type { AgentConfig, VpcConfig } from '../config/model.js';
import type { HostDirectoryValue, SocketAccessValue } from '../dataplane/host-file-descriptors.js';
import type {
  AddressValue,
  AdminUpValue,
  HostVethValue,
  InterfaceMtuValue,
  InterfaceTableValue,
  InterfaceValue,
  ProxyArpInterfaceValue,
  UnnumberedValue,
} from '../dataplane/interface-descriptors.js';
import type { IpTableValue, ProxyArpValue, RouteValue } from '../dataplane/ip-descriptors.js';
import { keys, tableNames, tags } from '../dataplane/keys.js';
import { derivedMac, portInterfaceName, vmVethHostName } from '../dataplane/names.js';
import { SteeringEntries } from '../dataplane/steering-entries.js';
import { intToIp4, ip4Mask, ip4ToInt, ip6AddressInPrefix, ip6IndexInPrefix, ip6InPrefix } from '../net/ip.js';
import type { Resource } from '../reconcile/resource.js';
import type { EncapSourceValue, HopLimitValue, LocalSidValue, PolicyValue } from './descriptors.js';
import { desiredUnderlayNeighbours } from './underlay-neighbours.js';

/**
 * BSIDs for the remote SIDs: an existing vppnet policy keeps its BSID (steering keeps pointing at
 * it, no churn after restarts); new SIDs take the lowest free index in the BSID prefix.
 */
export function allocateBsids(
  config: AgentConfig,
  existing: ReadonlyMap<string, string> /* remote SID → BSID found in VPP */,
): Map<string, string> {
  const block = config.node.srv6.bsidPrefix;
  const distinct = new Set<string>();
  for (const r of config.remoteRoutes) distinct.add(r.sid);
  const sids = [...distinct].sort();
  const out = new Map<string, string>();
  const used = new Set<bigint>();
  for (const sid of sids) {
    const bsid = existing.get(sid);
    if (bsid !== undefined && ip6InPrefix(bsid, block)) {
      out.set(sid, bsid);
      used.add(ip6IndexInPrefix(bsid, block));
    }
  }
  let next = 1n;
  for (const sid of sids) {
    if (out.has(sid)) continue;
    while (used.has(next)) next++;
    out.set(sid, ip6AddressInPrefix(block, next));
    used.add(next);
  }
  return out;
}

/** Proxy-ARP range of a subnet: every host address, minus the gateway when it sits at an end. */
export function proxyArpRange(subnet: { address: string; len: number }, gateway: string): { low: string; hi: string } {
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

function res<V>(kind: string, key: string, deps: string[], value: V, external = false): Resource<V> {
  return external ? { kind, key, deps, value, external } : { kind, key, deps, value };
}

function vpcSubnetOf(vpc: VpcConfig, addr: string): { address: string; len: number } {
  const gw = ip4ToInt(addr);
  const s = vpc.subnets.find((p) => ((gw & ip4Mask(p.len)) >>> 0) === ((ip4ToInt(p.address) & ip4Mask(p.len)) >>> 0));
  if (!s) throw new Error(`gateway ${addr} outside the subnets of VPC ${vpc.name}`);
  return s;
}

/** The overlay's resources but its steering entries (desiredSteering). */
export function desiredOverlay(config: AgentConfig, bsids: ReadonlyMap<string, string>): Resource[] {
  const out: Resource[] = [];
  const { node } = config;

  // Underlay: configured, never created.
  const uplink = node.underlay.interface;
  out.push(res<InterfaceValue>('interface', keys.interface(uplink), [], { type: 'external', name: uplink }, true));
  out.push(res<AdminUpValue>('admin-up', keys.adminUp(uplink), [keys.interface(uplink)], { iface: uplink }));
  const uplinkPrefix = `${node.underlay.address}/${node.underlay.prefixLength}`;
  out.push(res<AddressValue>('address', keys.address(uplink, uplinkPrefix), [keys.interface(uplink)], { iface: uplink, prefix: uplinkPrefix }));
  out.push(
    res<RouteValue>('route', keys.route(0, '::/0', true), [keys.interface(uplink), keys.address(uplink, uplinkPrefix)], {
      table: 0,
      ip6: true,
      prefix: '::/0',
      paths: [{ iface: uplink, nh: node.underlay.gateway }],
    }),
  );
  out.push(...desiredUnderlayNeighbours(config));

  // SRv6 globals, before any policy (VPP copies them into each policy at creation).
  out.push(res<EncapSourceValue>('sr-encap-source', keys.srEncapSource(), [], { address: node.srv6.encapSource }));
  out.push(res<HopLimitValue>('sr-hop-limit', keys.srHopLimit(), [], { hopLimit: node.srv6.hopLimit }));

  const vpcByName = new Map(config.vpcs.map((v) => [v.name, v]));
  const vpcMtus = new Map(config.vpcs.map((v) => [v.name, v.mtu]));
  const directories = new Set<string>();
  for (const vpc of config.vpcs) {
    const tableKey = keys.ipTable(vpc.table);
    out.push(res<IpTableValue>('ip-table', tableKey, [], { table: vpc.table, ip6: false, name: tableNames.vpc(vpc.name) }));

    const gw = tags.vpcGateway(vpc.name);
    const gwKey = keys.interface(gw);
    const gwSubnet = vpcSubnetOf(vpc, vpc.gateway);
    out.push(res<InterfaceValue>('interface', gwKey, [], { type: 'loopback', name: gw, mac: derivedMac(gw) }));
    out.push(res<InterfaceTableValue>('iface-table', keys.ifaceTable(gw), [gwKey, tableKey], { iface: gw, table: vpc.table }));
    const gwPrefix = `${vpc.gateway}/${gwSubnet.len}`;
    out.push(res<AddressValue>('address', keys.address(gw, gwPrefix), [gwKey, keys.ifaceTable(gw)], { iface: gw, prefix: gwPrefix }));
    out.push(res<AdminUpValue>('admin-up', keys.adminUp(gw), [gwKey], { iface: gw }));

    // Without proxy ARP a VM cannot reach same-subnet addresses on other hypervisors.
    for (const subnet of vpc.subnets) {
      const { low, hi } = proxyArpRange(subnet, vpc.gateway);
      out.push(res<ProxyArpValue>('proxy-arp', keys.proxyArp(vpc.table, low, hi), [tableKey], { table: vpc.table, low, hi }));
    }

    // End.DT4: VPP reads the IPv4 table from sw_if_index; the table must exist first, or
    // decapsulated traffic silently lands in the underlay table.
    out.push(
      res<LocalSidValue>('sr-localsid', keys.srLocalSid(vpc.sid), [tableKey], { sid: vpc.sid, behavior: 'end.dt4', table: vpc.table, fibTable: 0 }),
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
        out.push(
          res<HostVethValue>('host-veth', keys.hostVeth(hostName), [], { hostName, netns: a.netns, ifname: a.ifname, mac: port.mac, mtu: vpc.mtu }),
        );
        out.push(res<InterfaceValue>('interface', ifKey, [keys.hostVeth(hostName)], { type: 'af_packet', name, hostIfName: hostName, mac: derivedMac(name) }));
        break;
      }
      case 'tap':
        out.push(
          res<InterfaceValue>('interface', ifKey, [], { type: 'tap', name, netns: a.netns, hostIfName: a.ifname, mac: derivedMac(name), hostMac: port.mac }),
        );
        break;
      case 'vhost-user': {
        // VPP binds the socket when it creates the port: its directory must exist by then.
        const dir = socketDirectory(a.socket);
        const dirKey = keys.hostDirectory(dir);
        if (!directories.has(dirKey)) {
          directories.add(dirKey);
          const { directoryMode, gid } = node.vhostUser;
          out.push(res<HostDirectoryValue>('host-directory', dirKey, [], { path: dir, mode: directoryMode, ...(gid !== undefined && { gid }) }));
        }
        out.push(res<InterfaceValue>('interface', ifKey, [dirKey], { type: 'vhost-user', name, socket: a.socket, mac: derivedMac(name) }));
        const { uid, gid, mode } = a.access;
        out.push(
          res<SocketAccessValue>('socket-access', keys.socketAccess(a.socket), [ifKey], {
            socket: a.socket,
            ...(uid !== undefined && { uid }),
            ...(gid !== undefined && { gid }),
            mode,
          }),
        );
        break;
      }
      case 'interface':
        out.push(res<InterfaceValue>('interface', ifKey, [], { type: 'external', name }, true));
        break;
    }
    out.push(res<InterfaceMtuValue>('interface-mtu', keys.interfaceMtu(name), [ifKey], { iface: name, mtu: vpc.mtu }));
    const tableBinding = keys.ifaceTable(name);
    out.push(res<InterfaceTableValue>('iface-table', tableBinding, [ifKey, tableKey], { iface: name, table: vpc.table }));
    out.push(
      res<UnnumberedValue>('unnumbered', keys.unnumbered(name), [ifKey, keys.interface(gw), tableBinding], { iface: name, via: gw }),
    );
    out.push(res<AdminUpValue>('admin-up', keys.adminUp(name), [ifKey], { iface: name }));
    out.push(res<ProxyArpInterfaceValue>('proxy-arp-intf', keys.proxyArpInterface(name), [ifKey], { iface: name }));
    // Local VM-to-VM traffic is routed in VPP by these /32s, never encapsulated.
    const prefix = `${port.ip}/32`;
    out.push(
      res<RouteValue>('route', keys.route(vpc.table, prefix), [tableKey, ifKey, keys.unnumbered(name)], {
        table: vpc.table,
        ip6: false,
        prefix,
        paths: [{ iface: name, nh: port.ip }],
      }),
    );
  }

  const policyDeps = [keys.srEncapSource(), keys.srHopLimit()];
  for (const [sid, bsid] of [...bsids].sort()) {
    out.push(res<PolicyValue>('sr-policy', keys.srPolicy(bsid), policyDeps, { bsid, sids: [sid], encapSource: node.srv6.encapSource, fibTable: 0 }));
  }
  return out;
}

/** Per remote route, its steering entry: the route's prefix in its VPC's table, to the BSID of its SID's policy. */
export function desiredSteering(config: AgentConfig, bsids: ReadonlyMap<string, string>): SteeringEntries {
  const tableOf = new Map(config.vpcs.map((v) => [v.name, v.table]));
  const steering = new SteeringEntries(Math.max(1, config.remoteRoutes.length));
  for (const route of config.remoteRoutes) {
    steering.add(tableOf.get(route.vpc) as number, route.prefix.address, route.prefix.len, bsids.get(route.sid) as string);
  }
  return steering;
}
