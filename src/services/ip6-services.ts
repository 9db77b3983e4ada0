/**
 * Metadata and DNS over IPv6 (services.ip6), as designed and verified on VPP 26.06 in
 * docs/dual-stack.md "Metadata and DNS over IPv6":
 * - the service BVI gets the bridge's IPv6 address in IPv6 table 0 (nat66 keys its external
 *   addresses in table 0: with the BVI in another table, replies are not translated and dropped);
 * - in every VPC's IPv6 table, /128 routes for the metadata and DNS addresses that look up again
 *   in table 0, where the bridge's prefix is connected on the BVI;
 * - nat66: every IPv6 VM port inside, the BVI outside, and per VM a static mapping from its
 *   address in its VPC's table to its IPv6 service address: the same address in two VPCs is two
 *   mappings and two identities;
 * - the pods' ACLs (pod-acls.ts) let only the VMs' service addresses reach a pod over IPv6.
 */
import type { AgentConfig, ServicesConfig, ServicesIp6Config } from '../config/model.js';
import { addressDescriptor } from '../dataplane/interface-descriptors.js';
import { routeDescriptor } from '../dataplane/ip-descriptors.js';
import { keys, tags } from '../dataplane/keys.js';
import { derivedMac, portInterfaceName } from '../dataplane/names.js';
import { ip4Network, ip4ToInt, ip6AddressInPrefix, ip6IndexInPrefix, intToIp4 } from '../net/ip.js';
import type { Resource } from '../reconcile/resource.js';
import { bdIpMacDescriptor } from './bridge-entry-descriptors.js';
import {
  nat66InterfaceDescriptor,
  nat66PluginDescriptor,
  nat66StaticMappingDescriptor,
  NAT66_OUTSIDE_TABLE,
} from './nat66-descriptors.js';

/**
 * A VM's IPv6 service address: its IPv4 service address's host number in the IPv6 range. One
 * allocation (with its book and its hold) gives a VM both, so a pod that knows one knows the VM.
 */
export function serviceAddress6(services: ServicesConfig, ip6: ServicesIp6Config, address4: string): string {
  const host = ip4ToInt(address4) - ip4ToInt(ip4Network(services.vmAddressRange));
  return ip6AddressInPrefix(ip6.vmAddressRange, BigInt(host >>> 0));
}

/** The inverse: the IPv4 service address whose host number an IPv6 one carries. */
export function serviceAddress4Of6(
  services: ServicesConfig,
  ip6: ServicesIp6Config,
  address6: string,
): string {
  const host = Number(ip6IndexInPrefix(address6, ip6.vmAddressRange));
  return intToIp4((ip4ToInt(ip4Network(services.vmAddressRange)) + host) >>> 0);
}

/** The IPv6 addresses a VPC reaches the services at. */
export function serviceAddresses6(ip6: ServicesIp6Config): string[] {
  return [ip6.metadataAddress, ...(ip6.dnsAddress === undefined ? [] : [ip6.dnsAddress])];
}

/**
 * The IPv6 side of the service bridge. `addresses`: VM port name → its (IPv4) service address,
 * whose host number its IPv6 one takes. `bviAfter`: the keys the BVI's address waits for (its
 * bridge port), as the IPv4 address does.
 */
export function desiredServicesIp6(
  config: AgentConfig,
  services: ServicesConfig,
  ip6: ServicesIp6Config,
  addresses: ReadonlyMap<string, string>,
  bviAfter: readonly string[],
): Resource[] {
  const out: Resource[] = [];
  const bvi = tags.servicesBvi();
  const bviAddress = addressDescriptor.resource(
    { iface: bvi, prefix: `${ip6.gateway.address}/${ip6.gateway.len}` },
    { after: bviAfter },
  );
  out.push(bviAddress);
  // The pods' neighbour solicitations for the gateway, answered by the bridge.
  out.push(
    bdIpMacDescriptor.resource({ bd: services.bridgeDomain, ip: ip6.gateway.address, mac: derivedMac(bvi) }),
  );

  const ip6Vpcs = config.vpcs.filter((v) => v.subnets6.length > 0);
  for (const vpc of ip6Vpcs)
    for (const address of serviceAddresses6(ip6)) {
      out.push(
        routeDescriptor.resource(
          {
            table: vpc.table,
            ip6: true,
            prefix: `${address}/128`,
            paths: [{ lookupTable: NAT66_OUTSIDE_TABLE }],
          },
          { after: [keys.ipTable(vpc.table, true), bviAddress.key] },
        ),
      );
    }

  out.push(nat66PluginDescriptor.resource({}));
  out.push(nat66InterfaceDescriptor.resource({ iface: bvi, inside: false }, { after: [bviAddress.key] }));
  const vpcByName = new Map(ip6Vpcs.map((v) => [v.name, v]));
  for (const port of config.ports) {
    const vpc = vpcByName.get(port.vpc);
    const address4 = addresses.get(port.name);
    if (vpc === undefined || port.ip6 === undefined || address4 === undefined) continue;
    out.push(nat66InterfaceDescriptor.resource({ iface: portInterfaceName(port), inside: true }));
    out.push(
      nat66StaticMappingDescriptor.resource({
        vrf: vpc.table,
        local: port.ip6,
        external: serviceAddress6(services, ip6, address4),
      }),
    );
  }
  return out;
}
