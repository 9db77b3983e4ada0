/**
 * The check pass over `vpcs`, each accepted by the schema: names, ids, tables and SIDs unique, the
 * SIDs in the locator and out of the BSID prefix, subnets apart within a VPC and from the node's
 * reserved ranges, the gateway a host of a subnet, each family's settings only with that family.
 */
import {
  canonicalIp6,
  ip4InPrefix,
  ip4Mask,
  ip4PrefixesOverlap,
  ip4ToInt,
  ip6AddressInPrefix,
  ip6InPrefix,
  type Ip4Prefix,
  type Ip6Prefix,
} from '../net/ip.js';
import { detached, detachedPrefix, type Checker } from './checker.js';
import { isReservedTable, RESERVED_TABLE_MESSAGE } from './check-services.js';
import {
  DT6_SID_OFFSET,
  MAX_IP6_LOCATOR_LEN,
  MIN_TENANT_MTU,
  SRV6_ENCAP_OVERHEAD,
  VPC_DEFAULTS,
} from './defaults.js';
import { LINK_LOCAL6, reservedIp6Overlap, serviceIp6Problem } from './lanes.js';
import type { NodeConfig, ServicesConfig, ServicesIp6Config, VpcConfig } from './model.js';
import { isWrittenIp6, parsedIp4Prefix, parsedIp6Prefix } from './schema/fields.js';
import type { VpcInput } from './schema/vpc.js';

/** A list item the schema accepted, with its index in the list. */
export interface Item<T> {
  readonly i: number;
  readonly v: T;
}

export function checkVpcs(
  c: Checker,
  items: readonly Item<VpcInput>[],
  node: NodeConfig | undefined,
  services: ServicesConfig | undefined,
): VpcConfig[] {
  const out: VpcConfig[] = [];
  const names = new Map<string, string>();
  const ids = new Map<number, string>();
  const tables = new Map<number, string>();
  const sids = new Map<string, string>();
  // The first VPC with an IPv6 subnet, when the locator is too long for its DT6 SID.
  let ip6LocatorTooLong: string | undefined;
  for (const { i, v } of items) {
    const path = `vpcs[${i}]`;
    const name = detached(v.name);
    const id = v.id;
    const table = v.table ?? id;
    let ok = true;
    const fail = (at: string, message: string): void => {
      ok = false;
      c.fail(at, message);
    };
    if (services && table === services.table) c.fail(`${path}.table`, 'is the services table');
    else if (isReservedTable(table)) c.fail(`${path}.table`, RESERVED_TABLE_MESSAGE);
    c.unique(names, name, `${path}.name`, 'name');
    c.unique(ids, id, `${path}.id`, 'id');
    c.unique(tables, table, `${path}.table`, 'table');
    let sid: string | undefined;
    if (v.sid !== undefined) sid = canonicalIp6(v.sid);
    else if (node) sid = ip6AddressInPrefix(node.srv6.locator, BigInt(id));
    if (sid && node) {
      if (!ip6InPrefix(sid, node.srv6.locator))
        c.fail(`${path}.sid`, `is outside the locator ${node.srv6.locator.address}/${node.srv6.locator.len}`);
      if (ip6InPrefix(sid, node.srv6.bsidPrefix)) c.fail(`${path}.sid`, 'is inside the BSID prefix');
    }
    c.unique(sids, sid, `${path}.sid`, 'SID');
    const subnets: Ip4Prefix[] = [];
    const subnets6: Ip6Prefix[] = [];
    const hasIp6 = v.subnets.some(isWrittenIp6);
    const hasIp4 = v.subnets.some((s) => !isWrittenIp6(s));
    v.subnets.forEach((s, j) => {
      const at = `${path}.subnets[${j}]`;
      if (isWrittenIp6(s)) {
        const p = checkSubnet6(c, s, at, node, services?.ip6);
        if (!p) return;
        const clash = subnets6.find((q) => q.address === p.address);
        if (clash) return c.fail(at, `overlaps ${clash.address}/${clash.len}`);
        subnets6.push(p);
        return;
      }
      const p = parsedIp4Prefix(s);
      if (!p) return;
      if (p.len > 30) return c.fail(at, 'must be /30 or shorter');
      const clash = subnets.find((q) => ip4PrefixesOverlap(p, q));
      if (clash) return c.fail(at, `overlaps ${clash.address}/${clash.len}`);
      subnets.push(detachedPrefix(p));
    });
    let gateway: string | undefined;
    if (hasIp4) {
      if (v.gateway === undefined) fail(`${path}.gateway`, 'must be an IPv4 address');
      else {
        gateway = detached(v.gateway);
        if (subnets.length && !subnets.some((s) => isHostOf(v.gateway as string, s)))
          c.fail(`${path}.gateway`, 'must be a host address inside one of the subnets');
      }
    } else if (v.gateway !== undefined)
      c.fail(`${path}.gateway`, 'is the IPv4 gateway, but the VPC has no IPv4 subnet');
    for (const field of ['gatewayLinkLocal', 'sid6'] as const)
      if (!hasIp6 && v[field] !== undefined)
        c.fail(`${path}.${field}`, 'is for IPv6, but the VPC has no IPv6 subnet');
    let gatewayLinkLocal: string = VPC_DEFAULTS.gatewayLinkLocal;
    if (hasIp6 && v.gatewayLinkLocal !== undefined) {
      gatewayLinkLocal = canonicalIp6(v.gatewayLinkLocal);
      if (!ip6InPrefix(gatewayLinkLocal, LINK_LOCAL6))
        fail(`${path}.gatewayLinkLocal`, 'must be a link-local unicast address (fe80::/10)');
    }
    let sid6: string | undefined;
    if (hasIp6) {
      const locator = node?.srv6.locator;
      if (locator && locator.len > MAX_IP6_LOCATOR_LEN) ip6LocatorTooLong ??= path;
      if (v.sid6 !== undefined) sid6 = canonicalIp6(v.sid6);
      else if (locator && locator.len <= MAX_IP6_LOCATOR_LEN)
        sid6 = ip6AddressInPrefix(locator, DT6_SID_OFFSET + BigInt(id));
      if (sid6 && locator && node) {
        if (!ip6InPrefix(sid6, locator))
          c.fail(`${path}.sid6`, `is outside the locator ${locator.address}/${locator.len}`);
        if (ip6InPrefix(sid6, node.srv6.bsidPrefix)) c.fail(`${path}.sid6`, 'is inside the BSID prefix');
      }
      // One name space with the End.DT4 SIDs: End.DT4 drops inner IPv6, End.DT6 inner IPv4.
      c.unique(sids, sid6, `${path}.sid6`, 'SID');
    }
    const mtu = checkVpcMtu(c, v.mtu, `${path}.mtu`, node);
    if (
      ok &&
      sid &&
      (!hasIp6 || sid6) &&
      mtu !== undefined &&
      subnets.length + subnets6.length === v.subnets.length
    )
      out.push({ name, id, table, sid, subnets, gateway, subnets6, sid6, gatewayLinkLocal, mtu });
  }
  if (ip6LocatorTooLong !== undefined && node)
    c.fail(
      'node.srv6.locator',
      `must be /${MAX_IP6_LOCATOR_LEN} or shorter: ${ip6LocatorTooLong} has an IPv6 subnet, and its End.DT6 SID is the locator + 2^24 + the VPC's SID index`,
    );
  return out;
}

function checkSubnet6(
  c: Checker,
  text: string,
  path: string,
  node: NodeConfig | undefined,
  servicesIp6: ServicesIp6Config | undefined,
): Ip6Prefix | undefined {
  const p = parsedIp6Prefix(text);
  if (!p) return undefined;
  // SLAAC and the EUI-64 default addresses need exactly 64 host bits.
  if (p.len !== 64) return c.fail(path, 'an IPv6 subnet must be a /64');
  const reserved = reservedIp6Overlap(p, node) ?? serviceIp6Problem(p, servicesIp6, 'overlap');
  if (reserved) return c.fail(path, reserved);
  return p;
}

/** A VPC's MTU: what fits in the underlay once encapsulated, by default all of it. */
function checkVpcMtu(
  c: Checker,
  v: number | undefined,
  path: string,
  node: NodeConfig | undefined,
): number | undefined {
  if (!node) return v ?? 0;
  const fits = node.underlay.mtu - SRV6_ENCAP_OVERHEAD;
  if (v === undefined) return fits;
  if (v > fits)
    return c.fail(
      path,
      `${v} does not fit the underlay: node.underlay.mtu ${node.underlay.mtu} − ${SRV6_ENCAP_OVERHEAD} bytes of SRv6 encapsulation leaves ${fits}`,
    );
  return v < MIN_TENANT_MTU ? c.fail(path, `must be an integer from ${MIN_TENANT_MTU} to ${fits}`) : v;
}

/** Whether `addr` is a host of `p`: inside it, neither its network nor its broadcast address. */
export function isHostOf(addr: string, p: Ip4Prefix): boolean {
  if (!ip4InPrefix(addr, p)) return false;
  const host = ip4ToInt(addr) & (~ip4Mask(p.len) >>> 0);
  const hostMax = ~ip4Mask(p.len) >>> 0;
  return host !== 0 && host >>> 0 !== hostMax;
}
