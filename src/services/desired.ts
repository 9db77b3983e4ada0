/**
 * The service bridge as VPP resources (../shared/vpp-services.md, verified on VPP 26.06):
 * - a services IPv4 table S and an L2 bridge whose BVI loopback holds the gateway address in S;
 * - per VPC table X, /32 routes for the metadata (and DNS) address that look up again in S;
 * - NAT44-EI output on the BVI, an address-only static mapping per VM port (its service address),
 *   identity mappings for the gateway address in every VPC table and in S; no address pool;
 * - per VPC a DHCP relay to the DHCP pod, with the VPC's name as the option 82 VPN id;
 * - a bridge that learns and floods nothing, ARP terminated from its table;
 * - the shared pod output ACL and, per attached pod, its port (pod-port.ts, pod-acls.ts);
 * - with services.ip6, the same over IPv6 through nat66 (ip6-services.ts).
 */
import type { AgentConfig, ServicesConfig } from '../config/model.js';
import {
  addressDescriptor,
  adminUpDescriptor,
  interfaceDescriptor,
  interfaceTableDescriptor,
} from '../dataplane/interface-descriptors.js';
import { ipTableDescriptor, routeDescriptor } from '../dataplane/ip-descriptors.js';
import { keys, tableNames, tags } from '../dataplane/keys.js';
import type { Resource } from '../reconcile/resource.js';
import { derivedMac } from '../dataplane/names.js';
import { aclDescriptor } from '../dataplane/acl-descriptors.js';
import { bridgeDomainDescriptor, bridgePortDescriptor, PORT_TYPE } from './bridge-descriptors.js';
import { bdIpMacDescriptor } from './bridge-entry-descriptors.js';
import { podAclOut } from './pod-acls.js';
import { dhcpProxyDescriptor, dhcpVssDescriptor } from './dhcp-descriptors.js';
import {
  natIdentityMappingDescriptor,
  natOutputInterfaceDescriptor,
  natPluginDescriptor,
  natStaticMappingDescriptor,
  type NatPluginValue,
} from './nat-descriptors.js';
import { podPortResources, type PodPortSpec } from './pod-port.js';
import { desiredVmRateLimits } from './vm-rate-limit.js';
import { aclSessionTimeoutsDescriptor } from './acl-session-descriptors.js';
import { desiredServicesIp6 } from './ip6-services.js';

/**
 * NAT44-EI's table sizes: a user per VM service address the range holds, each with its own share
 * of sessions, so the table holds every VM's share at once and no VM can fill it for the others.
 */
export function natSizes(services: ServicesConfig): NatPluginValue {
  const users = Math.max(1, 2 ** (32 - services.vmAddressRange.len) - 2);
  const userSessions = services.vmLimits.natSessions;
  return { users, sessions: users * userSessions, userSessions };
}

export interface ServicesDesiredInput {
  /**
   * VM port name → its service address (the allocator's answer); ports without one get no mapping.
   * With services.ip6 its IPv6 one has the same host number (ip6-services.ts).
   */
  readonly addresses: ReadonlyMap<string, string>;
  /** Attached service pods. */
  readonly pods: readonly PodPortSpec[];
}

export function desiredServices(config: AgentConfig, input: ServicesDesiredInput): Resource[] {
  const services = config.services;
  if (!services) return [];
  const out: Resource[] = [];
  const S = services.table;
  const gatewayAddress = services.gateway.address;

  // Services table, bridge and BVI, in the order the design was verified in.
  out.push(ipTableDescriptor.resource({ table: S, ip6: false, name: tableNames.services() }));
  out.push(
    bridgeDomainDescriptor.resource({
      bd: services.bridgeDomain,
      // Nothing is learned or flooded: a pod's MAC is a static entry on its port, a frame for any
      // other MAC goes nowhere, ARP from the pods (for the gateway, for another pod) is answered by
      // VPP from the bridge's IP-to-MAC table, and the BVI has each pod as a static neighbour (it
      // never asks: ARP termination leaves VPP's own requests alone, l2_arp_term.c).
      flood: false,
      uuFlood: false,
      forward: true,
      learn: false,
      arpTerm: true,
      arpUfwd: false,
      macAge: 0,
      tag: tags.servicesBridge(),
    }),
  );
  const bvi = tags.servicesBvi();
  out.push(interfaceDescriptor.resource({ type: 'loopback', name: bvi, mac: derivedMac(bvi) }));
  const bviTable = interfaceTableDescriptor.resource({ iface: bvi, table: S });
  out.push(bviTable);
  const bviPort = bridgePortDescriptor.resource(
    { iface: bvi, bd: services.bridgeDomain, portType: PORT_TYPE.L2_API_PORT_TYPE_BVI, shg: 0 },
    { after: [bviTable.key] },
  );
  out.push(bviPort);
  const gwPrefix = `${gatewayAddress}/${services.gateway.len}`;
  const bviAddress = addressDescriptor.resource(
    { iface: bvi, prefix: gwPrefix },
    { after: [bviTable.key, bviPort.key] },
  );
  out.push(bviAddress);
  out.push(adminUpDescriptor.resource({ iface: bvi }));
  // The pods' ARP for the gateway, answered by the bridge.
  out.push(
    bdIpMacDescriptor.resource({ bd: services.bridgeDomain, ip: gatewayAddress, mac: derivedMac(bvi) }),
  );

  // What every pod receives (each pod's input ACL comes with its port).
  out.push(aclDescriptor.resource(podAclOut(services)));

  // VPC side: only the service addresses themselves lead into S.
  const serviceAddresses = [
    services.metadataAddress,
    ...(services.dnsAddress === undefined ? [] : [services.dnsAddress]),
  ];
  // An IPv6-only VPC has no IPv4 table: it reaches the services over IPv6 only (services.ip6).
  const ip4Vpcs = config.vpcs.filter((v) => v.subnets.length > 0);
  for (const vpc of ip4Vpcs) {
    for (const address of serviceAddresses) {
      const prefix = `${address}/32`;
      out.push(
        routeDescriptor.resource(
          { table: vpc.table, ip6: false, prefix, paths: [{ lookupTable: S }] },
          { after: [keys.ipTable(vpc.table), keys.ipTable(S)] },
        ),
      );
    }
  }

  // NAT44-EI: the output feature on the BVI translates VMs' sources to their service addresses.
  out.push(natPluginDescriptor.resource(natSizes(services)));
  out.push(natOutputInterfaceDescriptor.resource({ iface: bvi }, { after: [bviAddress.key] }));
  const vpcByName = new Map(config.vpcs.map((v) => [v.name, v]));
  for (const port of config.ports) {
    const external = input.addresses.get(port.name);
    const vpc = vpcByName.get(port.vpc);
    if (external === undefined || vpc === undefined || port.ip === undefined) continue;
    out.push(
      natStaticMappingDescriptor.resource({
        vrf: vpc.table,
        local: port.ip,
        external,
        tag: tags.vmPort(port.name),
      }),
    );
  }
  // Relayed DHCP leaves through the BVI with source = gateway and the VM port's table: without
  // an identity mapping NAT drops it ("out of ports").
  for (const table of [S, ...ip4Vpcs.map((v) => v.table)]) {
    out.push(
      natIdentityMappingDescriptor.resource({ vrf: table, address: gatewayAddress, tag: tags.natGateway() }),
    );
  }

  // DHCP relay per VPC.
  if (services.dhcpServer !== undefined) {
    for (const vpc of ip4Vpcs) {
      out.push(
        dhcpProxyDescriptor.resource({
          rxTable: vpc.table,
          src: gatewayAddress,
          servers: [{ table: S, address: services.dhcpServer }],
        }),
      );
      out.push(dhcpVssDescriptor.resource({ table: vpc.table, vpnId: vpc.name }));
    }
  }

  if (services.ip6)
    out.push(
      ...desiredServicesIp6(config, services, services.ip6, input.addresses, [bviTable.key, bviPort.key]),
    );

  // Each VM's own share of the services.
  out.push(...desiredVmRateLimits(config, input.addresses));
  out.push(
    aclSessionTimeoutsDescriptor.resource({ udpIdleSeconds: services.vmLimits.udpSessionIdleSeconds }),
  );

  for (const pod of input.pods) out.push(...podPortResources(pod, services));
  return out;
}
