/**
 * The check pass over the `services` section, once the schema accepted its structure: the bridge's
 * addresses inside its subnet, the VM range apart from it, the networks' services set, the IPv6
 * side inside its prefix and apart from table 0's own prefixes.
 */
import {
  canonicalIp6,
  ip4InPrefix,
  ip4Network,
  ip4PrefixesOverlap,
  ip6InPrefix,
  ip6Network,
  ip6PrefixesOverlap,
  type Ip4Prefix,
} from '../net/ip.js';
import { detached, detachedPrefix, type Checker } from './checker.js';
import {
  RESERVED_TABLE_LAST,
  SERVICE_DEFAULTS,
  SERVICE_IP6_DEFAULTS,
  SOURCE_TABLE_BASE,
} from './defaults.js';
import { reservedIp6Overlap } from './lanes.js';
import type { NodeConfig, ServiceNetworks, ServicesConfig, ServicesIp6Config } from './model.js';
import { parsedIp4Prefix, parsedIp6Prefix } from './schema/fields.js';
import type { ServiceNetworksInput, ServicesInput, ServicesIp6Input } from './schema/services.js';

export const RESERVED_TABLE_MESSAGE = `is one of vppnet's own tables (source, fabric and IPv6 services tables, ${SOURCE_TABLE_BASE} to ${RESERVED_TABLE_LAST})`;

/** vppnet's own table ids: the source, fabric and IPv6 services tables (defaults.ts). */
export function isReservedTable(table: number): boolean {
  return table >= SOURCE_TABLE_BASE && table <= RESERVED_TABLE_LAST;
}

export function checkServices(c: Checker, s: ServicesInput): ServicesConfig | undefined {
  const table = s.table ?? SERVICE_DEFAULTS.table;
  const tableTaken = isReservedTable(table);
  if (tableTaken) c.fail('services.table', RESERVED_TABLE_MESSAGE);
  const gateway = detachedPrefix4(s.gateway ?? SERVICE_DEFAULTS.gateway);
  const range = detachedPrefix4(s.vmAddressRange ?? SERVICE_DEFAULTS.vmAddressRange);
  if (range && range.len > 30) c.fail('services.vmAddressRange', 'must be /30 or shorter');
  const metadataAddress = detached(s.metadataAddress ?? SERVICE_DEFAULTS.metadataAddress);
  const dnsAddress = s.dnsAddress === undefined ? undefined : detached(s.dnsAddress);
  const dhcpServer = s.dhcpServer === undefined ? undefined : detached(s.dhcpServer);
  const networks = s.networks === undefined ? undefined : checkServiceNetworks(c, s.networks, s);
  const ip6 = s.ip6 === undefined ? undefined : checkServicesIp6(c, s.ip6, range, dnsAddress);
  if (!gateway) return undefined;
  const ip6Failed = s.ip6 !== undefined && ip6 === undefined;
  if (range && ip4PrefixesOverlap(gateway, range))
    c.fail('services.vmAddressRange', 'overlaps the service bridge subnet');
  for (const [field, a] of [
    ['metadataAddress', metadataAddress],
    ['dnsAddress', dnsAddress],
    ['dhcpServer', dhcpServer],
  ] as const) {
    if (a && !ip4InPrefix(a, gateway))
      c.fail(
        `services.${field}`,
        `is not inside the service bridge subnet ${ip4Network(gateway)}/${gateway.len}`,
      );
    if (a && a === gateway.address) c.fail(`services.${field}`, 'is the bridge gateway address');
  }
  if (tableTaken || !range || ip6Failed) return undefined;
  const l = s.vmLimits ?? {};
  return {
    ip6,
    table,
    bridgeDomain: s.bridgeDomain ?? SERVICE_DEFAULTS.bridgeDomain,
    gateway,
    vmAddressRange: range,
    metadataAddress,
    dnsAddress,
    dhcpServer,
    addressHoldSeconds: s.addressHoldSeconds ?? SERVICE_DEFAULTS.addressHoldSeconds,
    networks,
    vmLimits: {
      rateKbps: l.rateKbps ?? SERVICE_DEFAULTS.vmRateKbps,
      burstBytes: l.burstBytes ?? SERVICE_DEFAULTS.vmBurstBytes,
      natSessions: l.natSessions ?? SERVICE_DEFAULTS.vmNatSessions,
      udpSessionIdleSeconds: l.udpSessionIdleSeconds ?? SERVICE_DEFAULTS.udpSessionIdleSeconds,
    },
  };
}

function detachedPrefix4(text: string): Ip4Prefix | undefined {
  const p = parsedIp4Prefix(text);
  return p && detachedPrefix(p);
}

/**
 * services.ip6: the bridge's IPv6 prefix with the metadata and DNS addresses in it, and the VMs'
 * IPv6 service addresses, which take the host numbers of the IPv4 range (so it must hold as many).
 */
function checkServicesIp6(
  c: Checker,
  s: ServicesIp6Input,
  range4: Ip4Prefix | undefined,
  dnsAddress4: string | undefined,
): ServicesIp6Config | undefined {
  const before = c.problems.length;
  let gateway = parsedIp6Prefix(s.gateway ?? SERVICE_IP6_DEFAULTS.gateway);
  if (gateway && (gateway.len < 48 || gateway.len > 126))
    gateway = c.fail('services.ip6.gateway', 'must be a /48 to /126');
  let range = parsedIp6Prefix(s.vmAddressRange ?? SERVICE_IP6_DEFAULTS.vmAddressRange);
  if (range && range4 && 128 - range.len < 32 - range4.len)
    range = c.fail(
      'services.ip6.vmAddressRange',
      `must hold as many addresses as services.vmAddressRange (a /${128 - (32 - range4.len)} or shorter): a VM's IPv6 service address has its IPv4 one's host number`,
    );
  const metadataAddress = canonicalIp6(s.metadataAddress ?? SERVICE_IP6_DEFAULTS.metadataAddress);
  const dnsAddress =
    s.dnsAddress !== undefined
      ? canonicalIp6(s.dnsAddress)
      : dnsAddress4 !== undefined
        ? SERVICE_IP6_DEFAULTS.dnsAddress
        : undefined;
  for (const [field, q] of [
    ['gateway', gateway],
    ['vmAddressRange', range],
  ] as const) {
    if (!q) continue;
    const reserved = reservedIp6Overlap(q, undefined);
    if (reserved) c.fail(`services.ip6.${field}`, reserved);
  }
  if (gateway && range && ip6PrefixesOverlap(gateway, range))
    c.fail('services.ip6.vmAddressRange', 'overlaps the service bridge prefix (services.ip6.gateway)');
  for (const [field, a] of [
    ['metadataAddress', metadataAddress],
    ['dnsAddress', dnsAddress],
  ] as const) {
    if (a === undefined || !gateway) continue;
    if (!ip6InPrefix(a, gateway))
      c.fail(
        `services.ip6.${field}`,
        `is not inside the service bridge prefix ${ip6Network(gateway)}/${gateway.len}`,
      );
    else if (a === gateway.address) c.fail(`services.ip6.${field}`, 'is the bridge gateway address');
  }
  if (metadataAddress === dnsAddress) c.fail('services.ip6.dnsAddress', 'is the metadata address');
  if (c.problems.length > before || !gateway || !range) return undefined;
  return { gateway, vmAddressRange: range, metadataAddress, dnsAddress };
}

function checkServiceNetworks(
  c: Checker,
  n: ServiceNetworksInput,
  addresses: { readonly dnsAddress?: string; readonly dhcpServer?: string },
): ServiceNetworks {
  const seen = new Map<string, string>();
  const one = (field: 'metadata' | 'dns' | 'dhcp'): string | undefined => {
    const v = n[field];
    if (v === undefined) return undefined;
    const path = `services.networks.${field}`;
    if (field === 'dns' && addresses.dnsAddress === undefined)
      return c.fail(path, 'names a DNS network, but services.dnsAddress is not set');
    if (field === 'dhcp' && addresses.dhcpServer === undefined)
      return c.fail(path, 'names a DHCP network, but services.dhcpServer is not set');
    const other = seen.get(v);
    if (other !== undefined)
      return c.fail(path, `is also services.networks.${other}: one network per service`);
    seen.set(v, field);
    return detached(v);
  };
  return { metadata: one('metadata'), dns: one('dns'), dhcp: one('dhcp') };
}

/** The service bridge's IPv6 side lives in table 0 beside the underlay, the locator and the BSIDs. */
export function checkServicesIp6AgainstNode(c: Checker, ip6: ServicesIp6Config, node: NodeConfig): void {
  for (const [field, q] of [
    ['gateway', ip6.gateway],
    ['vmAddressRange', ip6.vmAddressRange],
  ] as const) {
    const reserved = reservedIp6Overlap(q, node);
    if (reserved) c.fail(`services.ip6.${field}`, reserved);
    for (const allowed of node.srv6.allowedSources)
      if (ip6PrefixesOverlap(q, allowed))
        c.fail(
          `services.ip6.${field}`,
          `overlaps ${ip6Network(allowed)}/${allowed.len} (node.srv6.allowedSources): the uplink would let those sources in`,
        );
  }
}
