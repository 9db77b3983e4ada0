/**
 * Metadata and DNS over IPv6 (services.ip6), as designed and verified on VPP 26.06 in
 * docs/dual-stack.md "Metadata and DNS over IPv6":
 * - the service BVI gets the bridge's IPv6 address in IPv6 table 0 (nat66 keys its external
 *   addresses in table 0: with the BVI in another table, replies are not translated and dropped);
 * - nat66 runs on no VM port: an inside interface runs nat66-in2out on every IPv6 packet it
 *   receives, at ~16,000 clocks each (two control-plane FIB lookups per packet), and skips the
 *   features after it. Per VPC instead a services loopback, alone in the VPC's IPv6 services
 *   table, is nat66's inside: in the VPC's table the metadata and DNS /128s go via the loopback
 *   (to a static neighbour with the loopback's own MAC), and what a loopback sends VPP receives
 *   again on it, so only service-bound packets meet nat66-in2out;
 * - in the services table the metadata and DNS /128s look up again in table 0, where the
 *   bridge's prefix is connected on the BVI, and ::/0 in the VPC's table: nat66-out2in sends a
 *   translated reply to the mapping's table, the services table, and the VPC's table has the VM;
 * - nat66: the services loopbacks inside, the BVI outside, and per VM a static mapping from its
 *   address in its VPC's services table to its IPv6 service address: the same address in two
 *   VPCs is two mappings and two identities;
 * - the pods' ACLs (pod-acls.ts) let only the VMs' service addresses reach a pod over IPv6.
 */
import { services6TableOf } from '../config/defaults.js';
import type { AgentConfig, ServicesConfig, ServicesIp6Config, VpcConfig } from '../config/model.js';
import {
  addressDescriptor,
  adminUpDescriptor,
  interfaceDescriptor,
  interfaceTableDescriptor,
} from '../dataplane/interface-descriptors.js';
import { ipTableDescriptor, routeDescriptor } from '../dataplane/ip-descriptors.js';
import { ip6EnableDescriptor } from '../dataplane/ip6-link-descriptors.js';
import { keys, tableNames, tags } from '../dataplane/keys.js';
import { staticNeighborDescriptor } from '../dataplane/neighbor-descriptors.js';
import { derivedMac } from '../dataplane/names.js';
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
  for (const vpc of ip6Vpcs) out.push(...desiredServicesLoopback(vpc, ip6, bviAddress.key));

  out.push(nat66PluginDescriptor.resource({}));
  out.push(nat66InterfaceDescriptor.resource({ iface: bvi, inside: false }, { after: [bviAddress.key] }));
  const vpcByName = new Map(ip6Vpcs.map((v) => [v.name, v]));
  for (const port of config.ports) {
    const vpc = vpcByName.get(port.vpc);
    const address4 = addresses.get(port.name);
    if (vpc === undefined || port.ip6 === undefined || address4 === undefined) continue;
    out.push(
      nat66StaticMappingDescriptor.resource({
        vrf: services6TableOf(vpc.id),
        local: port.ip6,
        external: serviceAddress6(services, ip6, address4),
      }),
    );
  }
  return out;
}

/**
 * The next hop of the service routes in a VPC's IPv6 table: a static neighbour on the services
 * loopback with the loopback's own MAC, so that ethernet-input takes the echoed frame as its own.
 */
export const SERVICES_LOOPBACK_NEXT_HOP = 'fe80::1';

/**
 * One VPC's way to the services over IPv6: its services table and loopback (nat66's inside), the
 * service /128s via the loopback in the VPC's table, and in the services table the way on to the
 * BVI (table 0) and back to the VMs (the VPC's table).
 */
function desiredServicesLoopback(vpc: VpcConfig, ip6: ServicesIp6Config, bviAddressKey: string): Resource[] {
  const table = services6TableOf(vpc.id);
  const tableKey = keys.ipTable(table, true);
  const vpcTableKey = keys.ipTable(vpc.table, true);
  const loop = tags.vpcServices6(vpc.name);
  const mac = derivedMac(loop);
  const binding = interfaceTableDescriptor.resource({ iface: loop, table, ip6: true }, { after: [tableKey] });
  // IPv6 on for ip6-input to take what the loopback echoes; VPP sends no RAs on it unless asked.
  const enable = ip6EnableDescriptor.resource({ iface: loop }, { after: [binding.key] });
  const neighbor = staticNeighborDescriptor.resource(
    { iface: loop, address: SERVICES_LOOPBACK_NEXT_HOP, mac },
    { after: [binding.key] },
  );
  // Routes after their table and deleted before it: VPP's FIB breaks when a table goes with API routes.
  const inTable = (after: readonly string[]): { after: readonly string[] } => ({
    after: [tableKey, ...after],
  });
  const out: Resource[] = [
    ipTableDescriptor.resource({ table, ip6: true, name: tableNames.vpcServices6(vpc.name) }),
    interfaceDescriptor.resource({ type: 'loopback', name: loop, mac }),
    binding,
    enable,
    adminUpDescriptor.resource({ iface: loop }),
    neighbor,
    nat66InterfaceDescriptor.resource({ iface: loop, inside: true }, { after: [binding.key] }),
    // The way back: nat66-out2in looks the VM's address up in the mapping's table, this one.
    routeDescriptor.resource(
      { table, ip6: true, prefix: '::/0', paths: [{ lookupTable: vpc.table }] },
      inTable([vpcTableKey]),
    ),
  ];
  for (const address of serviceAddresses6(ip6)) {
    const prefix = `${address}/128`;
    out.push(
      routeDescriptor.resource(
        { table, ip6: true, prefix, paths: [{ lookupTable: NAT66_OUTSIDE_TABLE }] },
        inTable([bviAddressKey]),
      ),
      routeDescriptor.resource(
        { table: vpc.table, ip6: true, prefix, paths: [{ iface: loop, nh: SERVICES_LOOPBACK_NEXT_HOP }] },
        {
          after: [
            vpcTableKey,
            keys.interface(loop),
            binding.key,
            neighbor.key,
            keys.route(table, prefix, true),
          ],
        },
      ),
    );
  }
  return out;
}
