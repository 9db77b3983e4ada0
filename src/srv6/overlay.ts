/**
 * The SRv6 VPC overlay as VPP resources: per VPC an IPv4 table, a gateway loopback, proxy ARP and
 * an End.DT4 SID; per VM port an interface in that table, unnumbered to the gateway, with a /32
 * route; per remote SID an H.Encaps policy; per remote prefix a steering entry. The underlay NIC
 * gets its address and IPv6 default route. Facts: ../shared/vpp-srv6.md and vpp-services.md.
 */
import type { AgentConfig, VpcConfig } from '../config/model.js';
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
import { ipTableDescriptor, proxyArpDescriptor, routeDescriptor } from '../dataplane/ip-descriptors.js';
import { keys, tableNames, tags } from '../dataplane/keys.js';
import { derivedMac, portInterfaceName, vmVethHostName } from '../dataplane/names.js';
import { SteeringEntries } from '../dataplane/steering-entries.js';
import { intToIp4, ip4Mask, ip4ToInt, ip6AddressInPrefix, ip6IndexInPrefix, ip6InPrefix } from '../net/ip.js';
import type { Resource } from '../reconcile/resource.js';
import {
  encapSourceDescriptor,
  hopLimitDescriptor,
  localSidDescriptor,
  policyDescriptor,
} from './descriptors.js';
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

function vpcSubnetOf(vpc: VpcConfig, addr: string): { address: string; len: number } {
  const gw = ip4ToInt(addr);
  const s = vpc.subnets.find(
    (p) => (gw & ip4Mask(p.len)) >>> 0 === (ip4ToInt(p.address) & ip4Mask(p.len)) >>> 0,
  );
  if (!s) throw new Error(`gateway ${addr} outside the subnets of VPC ${vpc.name}`);
  return s;
}

/** The overlay's resources but its steering entries (desiredSteering). */
export function desiredOverlay(config: AgentConfig, bsids: ReadonlyMap<string, string>): Resource[] {
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

  // SRv6 globals, before any policy (VPP copies them into each policy at creation).
  out.push(encapSourceDescriptor.resource({ address: node.srv6.encapSource }));
  out.push(hopLimitDescriptor.resource({ hopLimit: node.srv6.hopLimit }));

  const vpcByName = new Map(config.vpcs.map((v) => [v.name, v]));
  const vpcMtus = new Map(config.vpcs.map((v) => [v.name, v.mtu]));
  const directories = new Set<string>();
  for (const vpc of config.vpcs) {
    out.push(ipTableDescriptor.resource({ table: vpc.table, ip6: false, name: tableNames.vpc(vpc.name) }));

    const gw = tags.vpcGateway(vpc.name);
    out.push(interfaceDescriptor.resource({ type: 'loopback', name: gw, mac: derivedMac(gw) }));
    const gwTable = interfaceTableDescriptor.resource({ iface: gw, table: vpc.table });
    out.push(gwTable);
    // An IPv6-only VPC has no IPv4 gateway address, and no IPv4 subnet to proxy ARP for.
    const gateway = vpc.gateway;
    if (gateway !== undefined) {
      const gwPrefix = `${gateway}/${vpcSubnetOf(vpc, gateway).len}`;
      out.push(addressDescriptor.resource({ iface: gw, prefix: gwPrefix }, { after: [gwTable.key] }));
    }
    out.push(adminUpDescriptor.resource({ iface: gw }));

    // Without proxy ARP a VM cannot reach same-subnet addresses on other hypervisors.
    if (gateway !== undefined) {
      for (const subnet of vpc.subnets) {
        const { low, hi } = proxyArpRange(subnet, gateway);
        out.push(proxyArpDescriptor.resource({ table: vpc.table, low, hi }));
      }
    }

    // End.DT4: VPP reads the IPv4 table from sw_if_index; the table must exist first, or
    // decapsulated traffic silently lands in the underlay table.
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
    out.push(interfaceMtuDescriptor.resource({ iface: name, mtu: vpc.mtu }));
    const tableBinding = interfaceTableDescriptor.resource({ iface: name, table: vpc.table });
    out.push(tableBinding);
    const unnumbered = unnumberedDescriptor.resource({ iface: name, via: gw }, { after: [tableBinding.key] });
    out.push(unnumbered);
    out.push(adminUpDescriptor.resource({ iface: name }));
    out.push(proxyArpInterfaceDescriptor.resource({ iface: name }));
    // Local VM-to-VM traffic is routed in VPP by these /32s, never encapsulated. A VM of an
    // IPv6-only VPC has no IPv4 address.
    if (port.ip !== undefined) {
      const prefix = `${port.ip}/32`;
      out.push(
        routeDescriptor.resource(
          { table: vpc.table, ip6: false, prefix, paths: [{ iface: name, nh: port.ip }] },
          { after: [tableKey, ifKey, unnumbered.key] },
        ),
      );
    }
  }

  for (const [sid, bsid] of [...bsids].sort()) {
    out.push(
      policyDescriptor.resource({ bsid, sids: [sid], encapSource: node.srv6.encapSource, fibTable: 0 }),
    );
  }
  return out;
}

/** Per remote route, its steering entry: the route's prefix in its VPC's table, to the BSID of its SID's policy. */
export function desiredSteering(config: AgentConfig, bsids: ReadonlyMap<string, string>): SteeringEntries {
  const tableOf = new Map(config.vpcs.map((v) => [v.name, v.table]));
  const steering = new SteeringEntries(Math.max(1, config.remoteRoutes.length));
  for (const route of config.remoteRoutes) {
    // SteeringEntries holds IPv4 entries only: IPv6 steering (traffic type 6) is not built here.
    if (route.family !== 4) continue;
    steering.add(
      tableOf.get(route.vpc) as number,
      route.prefix.address,
      route.prefix.len,
      bsids.get(route.sid) as string,
    );
  }
  return steering;
}
