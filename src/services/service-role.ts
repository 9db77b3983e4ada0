/**
 * Which service a pod on the bridge provides, known from the address it holds: the dataplane
 * gives each role only what its job needs (only the DHCP pod's port may send DHCP server replies),
 * and with services.networks set each role belongs to one CNI network.
 */
import type { ServicesConfig } from '../config/model.js';

export type ServiceRole = 'metadata' | 'dns' | 'dhcp';

export const SERVICE_ROLES: readonly ServiceRole[] = ['metadata', 'dns', 'dhcp'];

/** The service address of a role, undefined when the node runs without that service. */
export function serviceAddressOf(role: ServiceRole, services: ServicesConfig): string | undefined {
  switch (role) {
    case 'metadata':
      return services.metadataAddress;
    case 'dns':
      return services.dnsAddress;
    case 'dhcp':
      return services.dhcpServer;
  }
}

/** The IPv6 service address of a role (services.ip6), undefined when it has none. DHCP is IPv4 only. */
export function serviceAddress6Of(role: ServiceRole, services: ServicesConfig): string | undefined {
  const ip6 = services.ip6;
  if (!ip6) return undefined;
  switch (role) {
    case 'metadata':
      return ip6.metadataAddress;
    case 'dns':
      return ip6.dnsAddress;
    case 'dhcp':
      return undefined;
  }
}

/** Every address a role's pod may hold: its IPv4 one and, with services.ip6, its IPv6 one. */
export function serviceAddressesOf(role: ServiceRole, services: ServicesConfig): string[] {
  return [serviceAddressOf(role, services), serviceAddress6Of(role, services)].filter(
    (a): a is string => a !== undefined,
  );
}

/** The role whose address (IPv4 or IPv6, canonical) this is, if any. */
export function serviceRoleOfAddress(address: string, services: ServicesConfig): ServiceRole | undefined {
  return SERVICE_ROLES.find((role) => serviceAddressesOf(role, services).includes(address));
}

/** The role services.networks gives a CNI network, if any. */
export function serviceRoleOfNetwork(network: string, services: ServicesConfig): ServiceRole | undefined {
  const networks = services.networks;
  if (networks === undefined) return undefined;
  return SERVICE_ROLES.find((role) => networks[role] === network);
}

/**
 * A pod's role under the service bridge in force: its network's, when services.networks names the
 * networks (an attachment holds only its network's address then), else that of the first service
 * address it holds.
 */
export function serviceRoleOf(
  network: string,
  addresses: readonly string[],
  services: ServicesConfig,
): ServiceRole | undefined {
  if (services.networks !== undefined) return serviceRoleOfNetwork(network, services);
  for (const a of addresses) {
    const role = serviceRoleOfAddress(a, services);
    if (role !== undefined) return role;
  }
  return undefined;
}
