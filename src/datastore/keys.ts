/**
 * The datastore's key schema, version 1, under a prefix (default /vppnet/v1/). Keys carry the
 * names; values carry the fields (records.ts). One place builds and parses keys, so the schema
 * cannot drift between the writer (the CLI) and the readers (the agents).
 *
 *   {prefix}nodes/{node}                  a hypervisor
 *   {prefix}vpcs/{vpc}                    a VPC
 *   {prefix}ports/{node}/{port}           a VM port on that node
 *   {prefix}endpoints/{vpc}/{a.b.c.d_len} an IPv4 prefix in the VPC → the node hosting it
 *   {prefix}endpoints/{vpc}/{x:y::z_len}  an IPv6 prefix, its address in RFC 5952 spelling
 *
 * A prefix's "/" becomes "_" in its key so that every key segment is one path component (":" is
 * legal in etcd keys). An IPv6 prefix has many spellings and its key must have one, or two
 * endpoints could name one prefix: only the canonical one (what VPP's dumps decode to) is a key.
 */
import { parseIp4Prefix, parseIp6Prefix } from '../net/ip.js';
import { formatIp6, writeIp6Literal } from '../net/ip-literal.js';

/** Where isCanonicalIp6At writes the address it reads back. */
const ip6Bytes = new Uint8Array(16);

export const DEFAULT_PREFIX = '/vppnet/v1/';

export type RecordKind = 'node' | 'vpc' | 'port' | 'endpoint';

/** An endpoint's prefix: IPv4 (a.b.c.d) or IPv6 (canonical), as `family` says. */
export interface EndpointPrefix {
  readonly address: string;
  readonly len: number;
}

export type ParsedKey =
  | { readonly kind: 'node'; readonly node: string }
  | { readonly kind: 'vpc'; readonly vpc: string }
  | { readonly kind: 'port'; readonly node: string; readonly port: string }
  | {
      readonly kind: 'endpoint';
      readonly vpc: string;
      readonly prefix: EndpointPrefix;
      readonly family: 4 | 6;
    };

/** A contiguous key range: one key, or every key starting with `key`. */
export interface KeyRange {
  readonly key: string;
  readonly prefix: boolean;
}

export class KeySchema {
  readonly prefix: string;
  /**
   * One string per VPC name among the endpoint keys parsed: split() copies each key's VPC part
   * (V8 slices only strings of 13 characters or more), and an agent holds 100k endpoint records
   * of ~10 VPCs (24 bytes a copy, 2.3 MiB; memory-probe.ts). Grows with the VPCs of valid
   * endpoint keys, as the records do.
   */
  readonly #vpcNames = new Map<string, string>();
  /**
   * The last of them: a listing's endpoint keys come VPC by VPC, so a key's VPC is nearly always
   * the last one's, found by comparing in place instead of slicing it out and looking it up.
   */
  #lastVpc: string | undefined;
  /** `{prefix}endpoints/`, the start of every endpoint key. */
  readonly #endpointsStart: string;
  constructor(prefix: string = DEFAULT_PREFIX) {
    if (!prefix.startsWith('/') || !prefix.endsWith('/'))
      throw new Error(`datastore prefix ${JSON.stringify(prefix)} must start and end with "/"`);
    this.prefix = prefix;
    this.#endpointsStart = `${prefix}endpoints/`;
  }

  node(node: string): string {
    return `${this.prefix}nodes/${node}`;
  }
  vpc(vpc: string): string {
    return `${this.prefix}vpcs/${vpc}`;
  }
  port(node: string, port: string): string {
    return `${this.prefix}ports/${node}/${port}`;
  }
  endpoint(vpc: string, prefix: EndpointPrefix): string {
    return `${this.prefix}endpoints/${vpc}/${prefix.address}_${prefix.len}`;
  }

  /** Every node record. */
  get nodesRange(): KeyRange {
    return { key: `${this.prefix}nodes/`, prefix: true };
  }
  /** One node's VM ports. */
  portsRange(node: string): KeyRange {
    return { key: `${this.prefix}ports/${node}/`, prefix: true };
  }
  vpcRange(vpc: string): KeyRange {
    return { key: this.vpc(vpc), prefix: false };
  }
  /** One VPC's endpoints. */
  endpointsRange(vpc: string): KeyRange {
    return { key: `${this.prefix}endpoints/${vpc}/`, prefix: true };
  }
  /** Everything under the prefix (the CLI's get and import). */
  get allRange(): KeyRange {
    return { key: this.prefix, prefix: true };
  }

  /**
   * The VPC of an endpoint key this schema made, without parsing its prefix: the drift check
   * looks up 100k held routes this way.
   */
  endpointVpcOf(key: string): string | undefined {
    const start = this.#endpointsStart.length;
    if (!key.startsWith(this.#endpointsStart)) return undefined;
    const end = key.indexOf('/', start);
    if (end <= start) return undefined;
    return this.#isLastVpc(key, start, end) ? this.#lastVpc : key.slice(start, end);
  }

  /** The record a key names, or a reason why it names none. */
  parse(key: string): ParsedKey | { readonly error: string } {
    const endpoint = this.#endpointInPlace(key);
    if (endpoint !== undefined) return endpoint;
    if (!key.startsWith(this.prefix)) return { error: `is not under the prefix ${this.prefix}` };
    const parts = key.slice(this.prefix.length).split('/');
    const [kind, a, b, extra] = parts;
    if (extra !== undefined) return { error: 'has too many path components' };
    if (kind === 'nodes' && a && b === undefined) return { kind: 'node', node: a };
    if (kind === 'vpcs' && a && b === undefined) return { kind: 'vpc', vpc: a };
    if (kind === 'ports' && a && b) return { kind: 'port', node: a, port: b };
    if (kind === 'endpoints' && a && b) {
      const written = b.replace('_', '/');
      const prefix = b.includes('_') ? parseIp4Prefix(written) : undefined;
      if (prefix) return { kind: 'endpoint', vpc: this.#vpcName(a), prefix, family: 4 };
      const prefix6 = b.includes('_') ? parseIp6Prefix(written) : undefined;
      if (!prefix6)
        return { error: 'must end in an IPv4 prefix written a.b.c.d_len or an IPv6 one written x:y::z_len' };
      if (`${prefix6.address}_${prefix6.len}` !== b)
        return {
          error: `must spell the IPv6 prefix canonically (RFC 5952): ${prefix6.address}_${prefix6.len}`,
        };
      return { kind: 'endpoint', vpc: this.#vpcName(a), prefix: prefix6, family: 6 };
    }
    return {
      error:
        'is not a vppnet key (nodes/NODE, vpcs/VPC, ports/NODE/PORT, endpoints/VPC/a.b.c.d_len or x:y::z_len)',
    };
  }

  /**
   * An endpoint key (`{prefix}endpoints/VPC/a.b.c.d_len`, or `x:y::z_len` spelled canonically)
   * read in place: nearly every key of a large view is one (100k at an agent's cold start), and
   * the general parse below made an array, its parts, the prefix written with "/" and a regular
   * expression's match of each. Undefined for any other key, and for the spellings it leaves to
   * the general parse (a length with a leading zero, a non-canonical IPv6 address), which then
   * reads it: this accepts a subset of what that accepts, with the same result (keys.test.ts
   * holds the two to it), and refuses nothing itself.
   */
  #endpointInPlace(key: string): ParsedKey | undefined {
    const start = this.#endpointsStart.length;
    if (!key.startsWith(this.#endpointsStart)) return undefined;
    const slash = key.indexOf('/', start);
    if (slash <= start) return undefined;
    const underscore = key.indexOf('_', slash + 1);
    if (underscore < 0) return undefined;
    const family = isIp4LiteralAt(key, slash + 1, underscore)
      ? 4
      : isCanonicalIp6At(key, slash + 1, underscore)
        ? 6
        : undefined;
    if (family === undefined) return undefined;
    const len = prefixLengthAt(key, underscore + 1, family === 4 ? 32 : 128);
    if (len === undefined) return undefined;
    const vpc = this.#isLastVpc(key, start, slash)
      ? (this.#lastVpc as string)
      : this.#vpcName(key.slice(start, slash));
    return { kind: 'endpoint', vpc, prefix: { address: key.slice(slash + 1, underscore), len }, family };
  }

  /** Whether key[start, end) is the last VPC name interned. */
  #isLastVpc(key: string, start: number, end: number): boolean {
    const last = this.#lastVpc;
    return last !== undefined && last.length === end - start && key.startsWith(last, start);
  }

  #vpcName(name: string): string {
    const known = this.#vpcNames.get(name);
    this.#lastVpc = known ?? name;
    if (known !== undefined) return known;
    this.#vpcNames.set(name, name);
    return name;
  }
}

/**
 * Whether key[from, to) is an IPv4 address as isIp4Literal reads one: four octets of 1-3 digits,
 * no leading zero, up to 255, separated by ".".
 */
function isIp4LiteralAt(key: string, from: number, to: number): boolean {
  let i = from;
  for (let octet = 0; octet < 4; octet++) {
    const first = i;
    let n = 0;
    for (let c = key.charCodeAt(i); i < to && c >= 48 && c <= 57; c = key.charCodeAt(++i))
      n = n * 10 + (c - 48);
    const digits = i - first;
    if (digits === 0 || digits > 3 || n > 255 || (digits > 1 && key.charCodeAt(first) === 48)) return false;
    if (octet < 3 && (i >= to || key.charCodeAt(i++) !== 46)) return false;
  }
  return i === to;
}

/** Whether key[from, to) is an IPv6 address spelled canonically (RFC 5952). */
function isCanonicalIp6At(key: string, from: number, to: number): boolean {
  // Canonical text is lower-case hex digits and colons only.
  for (let i = from; i < to; i++) {
    const c = key.charCodeAt(i);
    if (!((c >= 48 && c <= 58) || (c >= 97 && c <= 102))) return false;
  }
  const address = key.slice(from, to);
  return address.includes(':') && writeIp6Literal(address, ip6Bytes, 0) && formatIp6(ip6Bytes, 0) === address;
}

/** The prefix length that ends the key at `from`: 1-3 digits, no leading zero, up to `max`. */
function prefixLengthAt(key: string, from: number, max: number): number | undefined {
  const digits = key.length - from;
  if (digits < 1 || digits > 3 || (digits > 1 && key.charCodeAt(from) === 48)) return undefined;
  let len = 0;
  for (let i = from; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
    len = len * 10 + (c - 48);
  }
  return len <= max ? len : undefined;
}

/** The end of a prefix range in etcd's terms: the prefix with its last byte incremented. */
export function rangeEnd(r: KeyRange): Buffer | undefined {
  if (!r.prefix) return undefined;
  const end = Buffer.from(r.key, 'utf8');
  for (let i = end.length - 1; i >= 0; i--) {
    if ((end[i] as number) < 0xff) {
      end[i] = (end[i] as number) + 1;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}

export function inRange(key: string, r: KeyRange): boolean {
  return r.prefix ? key.startsWith(r.key) : key === r.key;
}
