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
  constructor(prefix: string = DEFAULT_PREFIX) {
    if (!prefix.startsWith('/') || !prefix.endsWith('/'))
      throw new Error(`datastore prefix ${JSON.stringify(prefix)} must start and end with "/"`);
    this.prefix = prefix;
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
    const start = this.prefix.length + 'endpoints/'.length;
    if (!key.startsWith(`${this.prefix}endpoints/`)) return undefined;
    const end = key.indexOf('/', start);
    return end > start ? key.slice(start, end) : undefined;
  }

  /** The record a key names, or a reason why it names none. */
  parse(key: string): ParsedKey | { readonly error: string } {
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

  #vpcName(name: string): string {
    const known = this.#vpcNames.get(name);
    if (known !== undefined) return known;
    this.#vpcNames.set(name, name);
    return name;
  }
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
