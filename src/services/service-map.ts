/**
 * The service map: which VM stands behind which service address. Metadata and DHCP services see a
 * VM's service address as the source of its packets and look the caller up here
 * (GET /v1/service-map on the agent's local API).
 */
import type { AgentConfig } from '../config/model.js';

export interface ServiceMapEntry {
  readonly serviceAddress: string;
  readonly vpc: string;
  readonly vpcId: number;
  readonly port: string;
  readonly vmIp: string;
  readonly mac: string;
  /** The VM's MTU (its VPC's): the DHCP server hands it out as option 26, interface-mtu. */
  readonly mtu: number;
}

/** One entry per VM port with a service address, in service address order. */
export function serviceMap(config: AgentConfig, addresses: ReadonlyMap<string, string>): ServiceMapEntry[] {
  const vpcs = new Map(config.vpcs.map((v) => [v.name, v]));
  const out: ServiceMapEntry[] = [];
  for (const port of config.ports) {
    const serviceAddress = addresses.get(port.name);
    const vpc = vpcs.get(port.vpc);
    if (serviceAddress === undefined || vpc === undefined) continue;
    out.push({ serviceAddress, vpc: vpc.name, vpcId: vpc.id, port: port.name, vmIp: port.ip, mac: port.mac, mtu: vpc.mtu });
  }
  return out.sort((a, b) => addressOrder(a.serviceAddress) - addressOrder(b.serviceAddress));
}

function addressOrder(a: string): number {
  return a.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}
