/**
 * What a pod may claim on the service bridge. A pod is the first thing an attacker takes over (it
 * parses what VMs send), and whoever holds an address on the bridge receives what VMs send to it: a
 * second pod claiming 169.254.169.254 would answer VMs' metadata requests. So:
 * - an attachment's addresses are host addresses of the bridge's own subnet (services.gateway, and
 *   services.ip6.gateway for IPv6), never the gateway, and each is held by one attachment per
 *   hypervisor at a time;
 * - with services.networks set, a service network's attachment holds exactly its service's address
 *   and no other network attaches at all;
 * - its routes lead only to the bridge subnet or the VMs' service addresses, through the gateway:
 *   the agent writes them into the pod's namespace, so a request must not route anything else there.
 */
import { AgentApiError, AgentErrorCode } from '../agent-api/errors.js';
import type { AttachIp, AttachRoute } from '../agent-api/protocol.js';
import type { ServicesConfig } from '../config/model.js';
import { isIP } from 'node:net';
import {
  ip4InPrefix,
  ip4Mask,
  ip4Network,
  ip4PrefixWithin,
  ip4ToInt,
  ip6InPrefix,
  ip6Network,
  parseIp4Prefix,
  parseIp6Prefix,
  type Ip6Prefix,
} from '../net/ip.js';
import { serviceAddressesOf, serviceRoleOfNetwork } from '../services/service-role.js';

/** Who holds an address now: an attachment's record, as the manager keeps it. */
export interface AddressHolder {
  readonly id: string;
  readonly containerId: string;
  readonly ifname: string;
  readonly network: string;
  readonly ips: readonly AttachIp[];
}

/** What an ADD asks to hold. */
export interface AttachmentClaim {
  readonly id: string;
  readonly network: string;
  readonly ips: readonly AttachIp[];
  readonly routes: readonly AttachRoute[];
}

/** Throws AgentApiError: 7 for a claim outside the pod's lane, ADDRESS_TAKEN for an address held. */
export function checkAddressClaims(
  claim: AttachmentClaim,
  services: ServicesConfig,
  holders: Iterable<AddressHolder>,
): void {
  const bridge = services.gateway;
  const bridgeText = `${ip4Network(bridge)}/${bridge.len}`;
  const problems: string[] = [];
  const claimed = new Set<string>();
  // A pod's addresses are its MACIP ACL's rules, and VPP checks nothing for a MACIP ACL without any.
  if (claim.ips.length === 0) problems.push('ips: a pod on the service bridge holds an address of it');
  for (const [i, ip] of claim.ips.entries()) {
    const at = `ips[${i}].address ${ip.address}`;
    if (isIP(ip.address.slice(0, ip.address.indexOf('/'))) === 6) {
      problems.push(...ip6ClaimProblems(ip, i, services, claimed));
      continue;
    }
    const p = parseIp4Prefix(ip.address);
    if (!p) {
      problems.push(`${at}: not an address of the service bridge`);
      continue;
    }
    const { address, len } = p;
    if (len !== bridge.len || !ip4InPrefix(address, bridge))
      problems.push(`${at}: not a host address of the service bridge ${bridgeText}`);
    else if (address === bridge.address) problems.push(`${at}: is the bridge's gateway`);
    else if (isNetworkOrBroadcast(address, bridge.len))
      problems.push(`${at}: is the bridge subnet's network or broadcast address`);
    else claimed.add(address);
    if (ip.gateway !== undefined && ip.gateway !== bridge.address)
      problems.push(`ips[${i}].gateway ${ip.gateway}: the bridge's gateway is ${bridge.address}`);
  }
  problems.push(...roleProblems(claim, services, claimed));
  for (const [i, route] of claim.routes.entries()) {
    const at = `routes[${i}]`;
    if (isIP(route.dst.slice(0, route.dst.indexOf('/'))) === 6) {
      problems.push(...ip6RouteProblems(route, at, services));
      continue;
    }
    const dst = parseIp4Prefix(route.dst);
    if (!dst || !(ip4PrefixWithin(dst, bridge) || ip4PrefixWithin(dst, services.vmAddressRange)))
      problems.push(
        `${at}.dst ${route.dst}: a pod routes only to the bridge ${bridgeText} or the VMs' service addresses ${services.vmAddressRange.address}/${services.vmAddressRange.len}`,
      );
    if (route.gw !== undefined && route.gw !== bridge.address)
      problems.push(`${at}.gw ${route.gw}: the bridge's gateway is ${bridge.address}`);
  }
  if (problems.length > 0)
    throw new AgentApiError(
      AgentErrorCode.INVALID_NETWORK_CONFIG,
      'address not allowed on the service bridge',
      problems.join('; '),
    );
  for (const h of holders) {
    if (h.id === claim.id) continue;
    for (const ip of h.ips) {
      const address = ip.address.slice(0, ip.address.indexOf('/'));
      if (claimed.has(address))
        throw new AgentApiError(
          AgentErrorCode.ADDRESS_TAKEN,
          `${address} is already held on this node's service bridge`,
          `by ${h.ifname} of container ${h.containerId} (network ${h.network})`,
        );
    }
  }
}

/** With services.networks: the network must be a service's, and hold that service's address only. */
function roleProblems(claim: AttachmentClaim, services: ServicesConfig, claimed: Set<string>): string[] {
  if (services.networks === undefined) return [];
  const role = serviceRoleOfNetwork(claim.network, services);
  if (role === undefined) {
    const named = Object.entries(services.networks)
      .filter(([, n]) => n !== undefined)
      .map(([r, n]) => `${r}: ${String(n)}`);
    return [
      `network ${claim.network} is not a service network of this node (services.networks: ${named.join(', ')})`,
    ];
  }
  const own = serviceAddressesOf(role, services);
  const others = [...claimed].filter((a) => !own.includes(a));
  const problems = others.map(
    (a) => `${a}: network ${claim.network} holds only the ${role} address ${own.join(' and ')}`,
  );
  if (!own.some((a) => claimed.has(a)) && others.length === 0)
    problems.push(`network ${claim.network} must hold the ${role} address ${own.join(' or ')}`);
  return problems;
}

/** An IPv6 address on the bridge: a host address of services.ip6.gateway's prefix, not the gateway. */
function ip6ClaimProblems(ip: AttachIp, i: number, services: ServicesConfig, claimed: Set<string>): string[] {
  const at = `ips[${i}].address ${ip.address}`;
  const ip6 = services.ip6;
  if (!ip6) return [`${at}: the service bridge has no IPv6 side (services.ip6 is not set)`];
  const bridge6 = ip6.gateway;
  const bridgeText = `${ip6Network(bridge6)}/${bridge6.len}`;
  const p = parseIp6Prefix(ip.address);
  const problems: string[] = [];
  if (!p || p.len !== bridge6.len || !ip6InPrefix(p.address, bridge6))
    problems.push(`${at}: not a host address of the service bridge ${bridgeText}`);
  else if (p.address === bridge6.address) problems.push(`${at}: is the bridge's gateway`);
  else if (p.address === ip6Network(bridge6))
    problems.push(`${at}: is the bridge prefix's subnet-router anycast address`);
  else claimed.add(p.address);
  if (ip.gateway !== undefined && ip.gateway !== bridge6.address)
    problems.push(`ips[${i}].gateway ${ip.gateway}: the bridge's IPv6 gateway is ${bridge6.address}`);
  return problems;
}

/** An IPv6 route in the pod: to the bridge's prefix or the VMs' IPv6 service addresses, via the gateway. */
function ip6RouteProblems(route: AttachRoute, at: string, services: ServicesConfig): string[] {
  const ip6 = services.ip6;
  if (!ip6) return [`${at}.dst ${route.dst}: the service bridge has no IPv6 side (services.ip6 is not set)`];
  const dst = parseIp6Prefix(route.dst);
  const within = (outer: Ip6Prefix): boolean =>
    dst !== undefined && dst.len >= outer.len && ip6InPrefix(dst.address, outer);
  const problems: string[] = [];
  if (!within(ip6.gateway) && !within(ip6.vmAddressRange))
    problems.push(
      `${at}.dst ${route.dst}: a pod routes only to the bridge ${ip6Network(ip6.gateway)}/${ip6.gateway.len} or the VMs' service addresses ${ip6Network(ip6.vmAddressRange)}/${ip6.vmAddressRange.len}`,
    );
  if (route.gw !== undefined && route.gw !== ip6.gateway.address)
    problems.push(`${at}.gw ${route.gw}: the bridge's IPv6 gateway is ${ip6.gateway.address}`);
  return problems;
}

function isNetworkOrBroadcast(address: string, len: number): boolean {
  if (len >= 31) return false;
  const host = ip4ToInt(address) & ~ip4Mask(len);
  return host === 0 || host >>> 0 === ~ip4Mask(len) >>> 0;
}
