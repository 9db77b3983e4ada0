/**
 * The lane a route from elsewhere stays in: what a remote route of the config file, or an
 * endpoint record naming another node, may never claim in a VPC's tables.
 *
 * SR steering outranks API routes of the same prefix in VPP's FIB, and a more specific prefix
 * wins by longest match, so a route that overlaps these takes traffic the node itself must
 * handle: one endpoint record `vpc-a/169.254.169.254_32 → hv9` would send every VM's metadata
 * requests in vpc-a, on every hypervisor, to hv9. So a remote prefix must not overlap
 * - link-local and service space: 169.254.0.0/16 (the service bridge, metadata, DNS, DHCP relay),
 *   fe80::/10, and loopback and multicast, which are never a VM's;
 * - the service bridge's own prefix when the node moved it out of 169.254.0.0/16;
 * - the VPC's IPv4 gateway (its IPv6 gateway is link-local, covered above);
 * - what the node's table 0 routes itself: the underlay prefix, the locator, the BSID prefix;
 * and a remote route for an address a port on this node holds never overrides the local route
 * (local wins: localPortOf).
 *
 * IPv4 overlap is refused in both directions: a covering prefix (0.0.0.0/0) is refused too. An
 * IPv6 remote prefix is refused when it lies inside (or is) one of these ranges, and may cover
 * them (::/0 to an appliance on another node, docs/dual-stack.md): in a VPC's IPv6 table each of
 * them is routed more specifically or not at all — the VMs' /128s, fe80::/10 (a special entry VPP
 * puts in every IPv6 table, ip6_fib.c), multicast (the mfib, not this lookup), and the underlay,
 * locator and BSIDs only in table 0 — so a covering route takes only what nothing else routes
 * (remoteIp6Problem).
 */
import {
  ip4Mask,
  ip4PrefixWithin,
  ip4ToInt,
  bigIntToIp6,
  ip6InsideWhich,
  ip6PrefixesOverlap,
  ip6Network,
  ip6PrefixBytes,
  ip6ToBigInt,
  type Ip6PrefixBytes,
  type Ip4Prefix,
  type Ip6Prefix,
} from '../net/ip.js';
import type { NodeConfig, PortConfig, ServicesIp6Config } from './model.js';

interface ReservedIp4 {
  readonly prefix: Ip4Prefix;
  readonly why: string;
}

const ALWAYS_RESERVED_IP4: readonly ReservedIp4[] = [
  {
    prefix: { address: '169.254.0.0', len: 16 },
    why: 'overlaps the link-local and service range 169.254.0.0/16 (metadata, DNS and DHCP live there)',
  },
  { prefix: { address: '127.0.0.0', len: 8 }, why: 'overlaps the loopback range 127.0.0.0/8' },
  { prefix: { address: '224.0.0.0', len: 4 }, why: 'overlaps the multicast range 224.0.0.0/4' },
];

/**
 * Why an IPv4 prefix from elsewhere cannot be a route of a VPC whose gateway is `gateway` on a
 * node whose service bridge is `servicesGateway`; undefined: it can. Without the VPC or the node
 * (a record checked alone), only the ranges that are never a VM's are checked.
 */
export function reservedIp4Overlap(
  p: Ip4Prefix,
  gateway?: string,
  servicesGateway?: Ip4Prefix,
): string | undefined {
  // Asked of every remote route (100k a node): the prefix's address is read once.
  const network = ip4ToInt(p.address);
  for (const r of RESERVED_IP4_NETWORKS) if (overlap4(network, p.len, r.network, r.len)) return r.why;
  if (servicesGateway && overlap4(network, p.len, ip4ToInt(servicesGateway.address), servicesGateway.len))
    return `overlaps the service bridge ${servicesGateway.address}/${servicesGateway.len} (services.gateway)`;
  if (gateway !== undefined && overlap4(network, p.len, ip4ToInt(gateway), 32))
    return `covers the VPC's gateway ${gateway}`;
  return undefined;
}

const RESERVED_IP4_NETWORKS = ALWAYS_RESERVED_IP4.map((r) => ({
  network: ip4ToInt(r.prefix.address),
  len: r.prefix.len,
  why: r.why,
}));

/** Whether two IPv4 prefixes, as integers, share an address. */
function overlap4(a: number, aLen: number, b: number, bLen: number): boolean {
  const mask = ip4Mask(Math.min(aLen, bLen));
  return (a & mask) >>> 0 === (b & mask) >>> 0;
}

export const LINK_LOCAL6: Ip6Prefix = { address: 'fe80::', len: 10 };
const MULTICAST6: Ip6Prefix = { address: 'ff00::', len: 8 };

interface ReservedIp6 {
  readonly network: bigint;
  readonly len: number;
  readonly why: string;
}

const ALWAYS_RESERVED_IP6: readonly ReservedIp6[] = [
  {
    network: ip6ToBigInt(LINK_LOCAL6.address),
    len: LINK_LOCAL6.len,
    why: 'overlaps the link-local range fe80::/10',
  },
  {
    network: ip6ToBigInt(MULTICAST6.address),
    len: MULTICAST6.len,
    why: 'overlaps the multicast range ff00::/8',
  },
];
const reservedByNode = new WeakMap<NodeConfig, readonly ReservedIp6[]>();

/**
 * Why an IPv6 prefix of a VPC (a subnet, a VM's /128, a remote route) cannot be one: it overlaps
 * what this node's table 0 routes itself (the underlay, the locator, the BSIDs), or is link-local
 * or multicast. Undefined: it can. A node may carry 100k IPv6 routes: the reserved prefixes are
 * read once per node, each route's address once.
 */
export function reservedIp6Overlap(p: Ip6Prefix, node: NodeConfig | undefined): string | undefined {
  const addr = ip6ToBigInt(p.address);
  for (const r of reservedIp6(node)) {
    const len = Math.min(p.len, r.len);
    const shift = BigInt(128 - len);
    if (len === 0 || addr >> shift === r.network >> shift) return r.why;
  }
  return undefined;
}

function reservedIp6(node: NodeConfig | undefined): readonly ReservedIp6[] {
  if (!node) return ALWAYS_RESERVED_IP6;
  let list = reservedByNode.get(node);
  if (!list) {
    const underlay = { address: node.underlay.address, len: node.underlay.prefixLength };
    const { locator, bsidPrefix } = node.srv6;
    const entry = (q: Ip6Prefix, why: string): ReservedIp6 => ({
      network: ip6ToBigInt(q.address),
      len: q.len,
      why,
    });
    list = [
      ...ALWAYS_RESERVED_IP6,
      entry(
        underlay,
        `overlaps the underlay prefix ${ip6Network(underlay)}/${underlay.len} (node.underlay.address)`,
      ),
      entry(locator, `overlaps the locator ${locator.address}/${locator.len} (node.srv6.locator)`),
      entry(
        bsidPrefix,
        `overlaps the BSID prefix ${bsidPrefix.address}/${bsidPrefix.len} (node.srv6.bsidPrefix)`,
      ),
    ];
    reservedByNode.set(node, list);
  }
  return list;
}

/**
 * Why an IPv6 prefix of a VPC cannot be one on a node whose service bridge speaks IPv6 (`ip6`):
 * it reaches into the service bridge's IPv6 prefix (its metadata and DNS /128s are API routes in
 * every VPC's table, and SR steering of the same prefix would outrank them) or the VMs' IPv6
 * service addresses (what the pods take for a VM's identity). `overlap`: a VPC subnet, refused in
 * both directions; `inside`: a remote route, an endpoint or an allowed prefix, which may cover them
 * (::/0 through an appliance): the more specific service routes win. Undefined: it can.
 */
export function serviceIp6Problem(
  p: Ip6Prefix,
  ip6: ServicesIp6Config | undefined,
  mode: 'overlap' | 'inside',
): string | undefined {
  if (!ip6) return undefined;
  const ranges = serviceRanges6(ip6);
  const range =
    mode === 'inside'
      ? ranges.list[ip6InsideWhich(p, ranges.bytes)]
      : ranges.list.find((r) => ip6PrefixesOverlap(p, r.prefix));
  if (range === undefined) return undefined;
  const { prefix, what, field } = range;
  return `${mode === 'inside' ? 'lies inside' : 'overlaps'} ${what} ${ip6Network(prefix)}/${prefix.len} (${field})`;
}

interface ServiceRange6 {
  readonly prefix: Ip6Prefix;
  readonly what: string;
  readonly field: string;
}

const serviceRangesOf = new WeakMap<
  ServicesIp6Config,
  { readonly list: readonly ServiceRange6[]; readonly bytes: readonly Ip6PrefixBytes[] }
>();

/** The service bridge's IPv6 ranges, as bytes too: asked once per remote route (100k of them). */
function serviceRanges6(ip6: ServicesIp6Config): {
  readonly list: readonly ServiceRange6[];
  readonly bytes: readonly Ip6PrefixBytes[];
} {
  let ranges = serviceRangesOf.get(ip6);
  if (ranges === undefined) {
    const list: ServiceRange6[] = [
      { prefix: ip6.gateway, what: 'the service bridge', field: 'services.ip6.gateway' },
      {
        prefix: ip6.vmAddressRange,
        what: "the VMs' IPv6 service addresses",
        field: 'services.ip6.vmAddressRange',
      },
    ];
    ranges = { list, bytes: list.map((r) => ip6PrefixBytes(r.prefix)) };
    serviceRangesOf.set(ip6, ranges);
  }
  return ranges;
}

/** Whether a prefix is one address: a /32, or a /128 for IPv6. */
export function isHostPrefix(p: { readonly len: number }, family: 4 | 6): boolean {
  return p.len === (family === 4 ? 32 : 128);
}

/**
 * VPC + address → the local port holding it: what local-wins looks up, per host route; and VPC +
 * prefix → the port it is an allowed prefix of, for the other lengths.
 */
export type LocalAddresses = ReadonlyMap<string, string>;

export const NO_LOCAL_ADDRESSES: LocalAddresses = new Map();

function localKey(vpc: string, address: string): string {
  return `${vpc} ${address}`;
}

function localPrefixKey(vpc: string, prefix: { readonly address: string; readonly len: number }): string {
  return `${vpc} ${prefix.address}/${prefix.len}`;
}

/**
 * The addresses this node's ports hold (IPv4 and IPv6, canonical) and the prefixes routed to them
 * as allowed prefixes, by VPC.
 */
export function localAddressesOf(ports: readonly PortConfig[]): LocalAddresses {
  const out = new Map<string, string>();
  for (const p of ports) {
    if (p.ip !== undefined) out.set(localKey(p.vpc, p.ip), p.name);
    if (p.ip6 !== undefined) out.set(localKey(p.vpc, p.ip6), p.name);
    for (const a of p.allowedPrefixes)
      out.set(isHostPrefix(a, a.family) ? localKey(p.vpc, a.address) : localPrefixKey(p.vpc, a), p.name);
  }
  return out;
}

/**
 * The local port whose address (a /32 or /128) or allowed prefix (exactly) a remote route claims,
 * or undefined. Other prefixes lose to the port's own routes by longest match or win over them
 * only where the port has none. `address` is canonical (IPv6 as canonicalIp6 writes it).
 */
export function localPortOf(
  local: LocalAddresses,
  vpc: string,
  prefix: { readonly address: string; readonly len: number },
  family: 4 | 6,
): string | undefined {
  if (local.size === 0) return undefined;
  if (!isHostPrefix(prefix, family)) return local.get(localPrefixKey(vpc, prefix));
  return local.get(localKey(vpc, prefix.address));
}

/**
 * Why an IPv6 prefix from elsewhere (a remote route, an endpoint) cannot be a route of a VPC on
 * this node (`node`; undefined: a record checked alone): it lies inside one of the ranges above.
 * Covering them is allowed (header). Undefined: it can.
 */
export function remoteIp6Problem(p: Ip6Prefix, node: NodeConfig | undefined): string | undefined {
  return reservedRangeHolding(p, 6, node);
}

/**
 * Why a port's allowed prefix lies inside what is never a VM's to send from: link-local and
 * service space, loopback, multicast, or what the node's table 0 routes (underlay, locator,
 * BSIDs). Covering them is allowed: inside a VPC's tables their more specific entries win, for
 * forwarding and for the source check alike. Undefined: it may be allowed.
 */
export function reservedRangeHolding(
  p: Ip4Prefix | Ip6Prefix,
  family: 4 | 6,
  node: NodeConfig | undefined,
): string | undefined {
  if (family === 4) {
    for (const r of ALWAYS_RESERVED_IP4)
      if (ip4PrefixWithin(p, r.prefix)) return `lies inside${r.why.slice('overlaps'.length)}`;
    return undefined;
  }
  const reserved = reservedIp6(node);
  const inside = ip6InsideWhich(p, reservedBytes(reserved));
  return inside < 0
    ? undefined
    : `lies inside${(reserved[inside] as ReservedIp6).why.slice('overlaps'.length)}`;
}

const bytesOfReserved = new WeakMap<readonly ReservedIp6[], readonly Ip6PrefixBytes[]>();

/** The reserved ranges as bytes, made once per list (a node may carry 100k IPv6 routes). */
function reservedBytes(list: readonly ReservedIp6[]): readonly Ip6PrefixBytes[] {
  let bytes = bytesOfReserved.get(list);
  if (bytes === undefined) {
    bytes = list.map((r) => ip6PrefixBytes({ address: bigIntToIp6(r.network), len: r.len }));
    bytesOfReserved.set(list, bytes);
  }
  return bytes;
}

/** The message of a remote route refused because a local port holds its address. */
export function localWinsMessage(
  port: string,
  prefix: { readonly address: string; readonly len: number },
): string {
  return `${prefix.address}/${prefix.len} is held by port ${port} on this node: the local route wins, the remote one is ignored`;
}
