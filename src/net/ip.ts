/**
 * IPv4/IPv6 address and prefix arithmetic for the domain layer (validation, ranges, SID and BSID
 * derivation). Addresses are kept as canonical strings at the edges and as bigint/number inside.
 */
import {
  formatIp6,
  isIp4Literal,
  isIp6Literal,
  writeIp6Literal,
  writeIp6PrefixLiteral,
} from './ip-literal.js';
import { Ip6PrefixWords } from './ip6-prefix-words.js';

export interface Ip4Prefix {
  readonly address: string;
  readonly len: number;
}

export interface Ip6Prefix {
  readonly address: string;
  readonly len: number;
}

export function isIp4(s: string): boolean {
  return isIp4Literal(s);
}

/** Without a zone (`%eth0`): VPP's addresses have none, and writeIp6 cannot encode one. */
export function isIp6(s: string): boolean {
  return isIp6Literal(s);
}

/**
 * Runs per steering entry and per route in a reconcile, so dotted quads of plain digits are read
 * by character code without splitting; anything else takes the general path below.
 */
export function ip4ToInt(s: string): number {
  let n = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57 && digits < 3) {
      octet = octet * 10 + (c - 48);
      digits++;
    } else if (c === 46 && digits > 0 && dots < 3) {
      n = (n << 8) | (octet & 255);
      if (octet > 255) return ip4ToIntBySplitting(s);
      octet = 0;
      digits = 0;
      dots++;
    } else return ip4ToIntBySplitting(s);
  }
  if (dots !== 3 || digits === 0 || octet > 255) return ip4ToIntBySplitting(s);
  return ((n << 8) | octet) >>> 0;
}

function ip4ToIntBySplitting(s: string): number {
  const p = s.split('.').map(Number);
  return (
    (((p[0] as number) << 24) | ((p[1] as number) << 16) | ((p[2] as number) << 8) | (p[3] as number)) >>> 0
  );
}

export function intToIp4(n: number): string {
  return `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

const scratch = Buffer.alloc(16);

/** Writes an IPv6 address's bytes, or throws naming it. */
function writeIp6Or(s: string, buf: Uint8Array): void {
  if (!writeIp6Literal(s, buf, 0)) throw new TypeError(`not an IPv6 address: ${JSON.stringify(s)}`);
}

/** Writes a prefix's address bytes: from its words when it holds them (no text to parse). */
function writeIp6PrefixAddress(p: Ip6Prefix, buf: Uint8Array): void {
  if (p instanceof Ip6PrefixWords) p.writeAddress(buf, 0);
  else writeIp6Or(p.address, buf);
}

export function ip6ToBigInt(s: string): bigint {
  writeIp6Or(s, scratch);
  return (scratch.readBigUInt64BE(0) << 64n) | scratch.readBigUInt64BE(8);
}

export function bigIntToIp6(n: bigint): string {
  scratch.writeBigUInt64BE(n >> 64n, 0);
  scratch.writeBigUInt64BE(n & 0xffffffffffffffffn, 8);
  return formatIp6(scratch, 0);
}

/** Canonical spelling of an IPv6 address (RFC 5952), as VPP's dumps decode to. */
export function canonicalIp6(s: string): string {
  // Bytes to text, without ip6ToBigInt's bigint: config validation spells 100k endpoints so.
  writeIp6Or(s, scratch);
  return formatIp6(scratch, 0);
}

/** Parses "a.b.c.d/len"; returns undefined when malformed. */
export function parseIp4Prefix(s: string): Ip4Prefix | undefined {
  const m = /^([\d.]+)\/(\d{1,2})$/.exec(s);
  if (!m || !isIp4(m[1] as string)) return undefined;
  const len = Number(m[2]);
  if (len > 32) return undefined;
  return { address: m[1] as string, len };
}

export function parseIp6Prefix(s: string): Ip6Prefix | undefined {
  // isIp6 and canonicalIp6 in one parse: fleet mode checks three prefixes of each of 10k node
  // records at an agent's start.
  const len = writeIp6PrefixLiteral(s, scratch, 0);
  return len < 0 ? undefined : { address: formatIp6(scratch, 0), len };
}

export function ip4Mask(len: number): number {
  return len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0;
}

/** The network address of a prefix ("10.0.0.7/24" → 10.0.0.0). */
export function ip4Network(p: Ip4Prefix): string {
  return intToIp4((ip4ToInt(p.address) & ip4Mask(p.len)) >>> 0);
}

export function ip4InPrefix(addr: string, p: Ip4Prefix): boolean {
  const mask = ip4Mask(p.len);
  return (ip4ToInt(addr) & mask) >>> 0 === (ip4ToInt(p.address) & mask) >>> 0;
}

/** Whether every address of `p` lies in `outer`. */
export function ip4PrefixWithin(p: Ip4Prefix, outer: Ip4Prefix): boolean {
  return p.len >= outer.len && ip4InPrefix(p.address, outer);
}

export function ip4PrefixesOverlap(a: Ip4Prefix, b: Ip4Prefix): boolean {
  const len = Math.min(a.len, b.len);
  const mask = ip4Mask(len);
  return (ip4ToInt(a.address) & mask) >>> 0 === (ip4ToInt(b.address) & mask) >>> 0;
}

/** Prefix addresses parsed once: ownership checks run per SR object, thousands a pass. */
const prefixBytes = new WeakMap<Ip6Prefix, Uint8Array>();

/** Bytes compared, no BigInt: a pass checks every SID, policy and BSID it reads. */
export function ip6InPrefix(addr: string, p: Ip6Prefix): boolean {
  if (p.len === 0) return true;
  let net = prefixBytes.get(p);
  if (net === undefined) {
    net = new Uint8Array(16);
    writeIp6Or(p.address, net);
    prefixBytes.set(p, net);
  }
  writeIp6Or(addr, scratch);
  return sameLeadingBits(scratch, net, p.len);
}

/**
 * ip6InPrefix for a prefix asked about once or twice (a record's own checks): no bytes kept, so
 * no Uint8Array and WeakMap entry per prefix, which cost more than the parse when fleet mode
 * checks 10k node records at an agent's start.
 */
export function ip6InPrefixOnce(addr: string, p: Ip6Prefix): boolean {
  if (p.len === 0) return true;
  writeIp6Or(p.address, scratch2);
  writeIp6Or(addr, scratch);
  return sameLeadingBits(scratch, scratch2, p.len);
}

/** Bytes compared, no BigInt (see ip6InPrefixOnce). */
export function ip6PrefixesOverlap(a: Ip6Prefix, b: Ip6Prefix): boolean {
  const len = Math.min(a.len, b.len);
  if (len === 0) return true;
  writeIp6Or(a.address, scratch);
  writeIp6Or(b.address, scratch2);
  return sameLeadingBits(scratch, scratch2, len);
}

/** A second scratch, for the functions that compare two addresses' bytes. */
const scratch2 = Buffer.alloc(16);

/** Whether the first `len` bits (0-128) of two IPv6 addresses' bytes are equal. */
function sameLeadingBits(a: Uint8Array, b: Uint8Array, len: number): boolean {
  const whole = len >> 3;
  for (let i = 0; i < whole; i++) if (a[i] !== b[i]) return false;
  const bits = len & 7;
  if (bits === 0) return true;
  const mask = (0xff << (8 - bits)) & 0xff;
  return ((a[whole] as number) & mask) === ((b[whole] as number) & mask);
}

/**
 * Whether an IPv6 prefix has host bits set (2001:db8::1/64 has), from its bytes: config validation
 * asks this of 100k routes, and ip6Network would format a string for each.
 */
export function ip6HasHostBits(p: Ip6Prefix): boolean {
  writeIp6PrefixAddress(p, scratch);
  const whole = p.len >> 3;
  const partial = p.len & 7;
  if (partial !== 0 && ((scratch[whole] as number) & (0xff >> partial)) !== 0) return true;
  for (let i = whole + (partial === 0 ? 0 : 1); i < 16; i++) if (scratch[i] !== 0) return true;
  return false;
}

/** An IPv6 prefix as its 16 bytes, for ip6InsideWhich. */
export interface Ip6PrefixBytes {
  readonly bytes: Uint8Array;
  readonly len: number;
}

export function ip6PrefixBytes(p: Ip6Prefix): Ip6PrefixBytes {
  writeIp6Or(p.address, scratch);
  return { bytes: Uint8Array.from(scratch.subarray(0, 16)), len: p.len };
}

/**
 * The index of the first of `ranges` that holds the prefix `p` (is it, or contains it), or -1.
 * Byte compares, no parse of an Ip6PrefixWords: config validation asks it of 100k routes.
 */
export function ip6InsideWhich(p: Ip6Prefix, ranges: readonly Ip6PrefixBytes[]): number {
  writeIp6PrefixAddress(p, scratch);
  for (let r = 0; r < ranges.length; r++) {
    const range = ranges[r] as Ip6PrefixBytes;
    if (p.len >= range.len && sameLeadingBits(scratch, range.bytes, range.len)) return r;
  }
  return -1;
}

/** The network address of an IPv6 prefix (2001:db8::1/64 → 2001:db8::). */
export function ip6Network(p: Ip6Prefix): string {
  if (p.len === 0) return '::';
  // From bytes, no BigInt: fleet mode asks it twice of each of 10k node records.
  writeIp6Or(p.address, scratch);
  const whole = p.len >> 3;
  const bits = p.len & 7;
  if (bits !== 0) scratch[whole] = (scratch[whole] as number) & (0xff << (8 - bits));
  scratch.fill(0, bits === 0 ? whole : whole + 1, 16);
  return formatIp6(scratch, 0);
}

/** The address `index` positions into an IPv6 prefix (host bits = index). */
export function ip6AddressInPrefix(p: Ip6Prefix, index: bigint): string {
  const hostBits = 128 - p.len;
  if (index < 0n || (hostBits < 128 && index >= 1n << BigInt(hostBits))) {
    throw new RangeError(`index ${index} does not fit ${p.address}/${p.len}`);
  }
  const base = (ip6ToBigInt(p.address) >> BigInt(hostBits)) << BigInt(hostBits);
  return bigIntToIp6(base + index);
}

/** The index of an address inside a prefix (inverse of ip6AddressInPrefix). */
export function ip6IndexInPrefix(addr: string, p: Ip6Prefix): bigint {
  const hostBits = BigInt(128 - p.len);
  return ip6ToBigInt(addr) & ((1n << hostBits) - 1n);
}

export { isMac } from './mac.js';

/**
 * The fewest IPv6 prefixes that cover exactly the given prefixes (no address more): contained
 * prefixes are dropped and sibling pairs merged into their parent, repeatedly. A fleet's 10k
 * consecutive underlay addresses become a handful of prefixes; scattered ones stay as they are.
 */
export function aggregateIp6(prefixes: Iterable<Ip6Prefix>): Ip6Prefix[] {
  // As [network, length], sorted by network then length: a covering prefix comes first.
  let list = [...prefixes]
    .map((p): [bigint, number] => {
      const host = BigInt(128 - p.len);
      return [(ip6ToBigInt(p.address) >> host) << host, p.len];
    })
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
  for (let merged = true; merged;) {
    merged = false;
    const out: [bigint, number][] = [];
    for (const [net, len] of list) {
      const last = out[out.length - 1];
      if (last) {
        const [lastNet, lastLen] = last;
        const lastEnd = lastNet + (1n << BigInt(128 - lastLen));
        // Inside the previous prefix: nothing new.
        if (net < lastEnd) continue;
        // The previous prefix's sibling: both become their parent.
        const size = 1n << BigInt(128 - len);
        if (len === lastLen && lastLen > 0 && net === lastEnd && lastNet % (size * 2n) === 0n) {
          out[out.length - 1] = [lastNet, len - 1];
          merged = true;
          continue;
        }
      }
      out.push([net, len]);
    }
    list = out;
  }
  return list.map(([net, len]) => ({ address: bigIntToIp6(net), len }));
}

/**
 * The prefixes a route for `address/len` is installed as: itself, or for a default route (/0) its
 * two halves (/1). In VPP 26.06 a route added to a table's default entry (0.0.0.0/0, ::/0) by SR
 * steering or the API takes the default route's drop path into its own path-list (an "exclusive"
 * drop path beside the real one): flows hash across both, and about half are dropped (seen with
 * `show ip6 fib table T ::/0 detail`). The halves cover the same addresses and are plain entries.
 */
export function routedPrefixes(address: string, len: number, family: 4 | 6): readonly string[] {
  if (len !== 0) return [`${address}/${len}`];
  return family === 6 ? ['::/1', '8000::/1'] : ['0.0.0.0/1', '128.0.0.0/1'];
}
