/**
 * What addresses a pod may claim on the service bridge. A pod is the first thing an attacker takes
 * over (it parses what VMs send), and whoever holds an address on the bridge receives what VMs send
 * to it: a second pod claiming 169.254.169.254 would answer VMs' metadata requests. So an
 * attachment's addresses are IPv4 host addresses of the bridge's own subnet (services.gateway),
 * never the gateway, and each is held by one attachment per hypervisor at a time.
 */
import { AgentApiError, AgentErrorCode } from '../agent-api/errors.js';
import type { AttachIp } from '../agent-api/protocol.js';
import type { ServicesConfig } from '../config/model.js';
import { ip4InPrefix, ip4Mask, ip4ToInt, parseIp4Prefix } from '../net/ip.js';

/** Who holds an address now: an attachment's record, as the manager keeps it. */
export interface AddressHolder {
  readonly id: string;
  readonly containerId: string;
  readonly ifname: string;
  readonly network: string;
  readonly ips: readonly AttachIp[];
}

/** Throws AgentApiError: 7 for an address outside the bridge, ADDRESS_TAKEN for one held. */
export function checkAddressClaims(
  id: string,
  ips: readonly AttachIp[],
  services: ServicesConfig,
  holders: Iterable<AddressHolder>,
): void {
  const bridge = services.gateway;
  const problems: string[] = [];
  const claimed = new Set<string>();
  for (const [i, ip] of ips.entries()) {
    const p = parseIp4Prefix(ip.address);
    const at = `ips[${i}].address ${ip.address}`;
    if (!p) {
      problems.push(`${at}: the service bridge is IPv4`);
      continue;
    }
    const { address, len } = p;
    if (len !== bridge.len || !ip4InPrefix(address, bridge))
      problems.push(`${at}: not a host address of the service bridge ${bridge.address}/${bridge.len}`);
    else if (address === bridge.address) problems.push(`${at}: is the bridge's gateway`);
    else if (isNetworkOrBroadcast(address, bridge.len))
      problems.push(`${at}: is the bridge subnet's network or broadcast address`);
    else claimed.add(address);
  }
  if (problems.length > 0)
    throw new AgentApiError(
      AgentErrorCode.INVALID_NETWORK_CONFIG,
      'address not allowed on the service bridge',
      problems.join('; '),
    );
  for (const h of holders) {
    if (h.id === id) continue;
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

function isNetworkOrBroadcast(address: string, len: number): boolean {
  if (len >= 31) return false;
  const host = ip4ToInt(address) & ~ip4Mask(len);
  return host === 0 || host >>> 0 === ~ip4Mask(len) >>> 0;
}
