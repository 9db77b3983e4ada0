/**
 * The service map: which VM stands behind which service address, from the config and the
 * assigned addresses. The agent's local API serves it (GET /v1/service-map, src/agent-api).
 */
import type { ServiceMapEntry } from '../agent-api/service-map.js';
import type { AgentConfig } from '../config/model.js';
import { serviceAddress6 as serviceAddress6Of } from './ip6-services.js';

/** One entry per VM port with a service address, in service address order. */
export function serviceMap(
  config: AgentConfig,
  addresses: ReadonlyMap<string, string>,
  circuitIds: ReadonlyMap<string, number> = new Map(),
): ServiceMapEntry[] {
  const vpcs = new Map(config.vpcs.map((v) => [v.name, v]));
  const services = config.services;
  const ip6 = services?.ip6;
  const out: ServiceMapEntry[] = [];
  for (const port of config.ports) {
    const serviceAddress = addresses.get(port.name);
    const vpc = vpcs.get(port.vpc);
    if (serviceAddress === undefined || vpc === undefined) continue;
    const dhcpCircuitId = circuitIds.get(port.name);
    const vmIp6 = ip6 === undefined ? undefined : port.ip6;
    const serviceAddress6 =
      services && ip6 && vmIp6 !== undefined ? serviceAddress6Of(services, ip6, serviceAddress) : undefined;
    out.push({
      serviceAddress,
      ...(serviceAddress6 !== undefined && { serviceAddress6 }),
      vpc: vpc.name,
      vpcId: vpc.id,
      port: port.name,
      ...(port.ip !== undefined && { vmIp: port.ip }),
      ...(serviceAddress6 !== undefined && vmIp6 !== undefined && { vmIp6 }),
      mac: port.mac,
      mtu: vpc.mtu,
      ...(dhcpCircuitId !== undefined && { dhcpCircuitId }),
    });
  }
  return out.sort((a, b) => addressOrder(a.serviceAddress) - addressOrder(b.serviceAddress));
}

function addressOrder(a: string): number {
  return a.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}
