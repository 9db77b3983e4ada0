/**
 * The datastore's record values (JSON), validated by the config file's own validators
 * (src/config/validate.ts), so a record and the same section of a node's YAML file are accepted
 * and rejected alike, with the same field-named messages. A record's name is its key's: a value
 * may not name itself again.
 */
import {
  Checker,
  validateNode,
  validatePorts,
  validateServices,
  validateVhostUserDefaults,
  validateVpcs,
} from '../config/validate.js';
import { remoteIp6Problem, reservedIp4Overlap } from '../config/lanes.js';
import type { NodeConfig } from '../config/model.js';
import { ip6InPrefixOnce, ip6Network, type Ip6Prefix } from '../net/ip.js';
import type { EndpointPrefix, KeySchema, ParsedKey } from './keys.js';
import { quickEndpointRecord } from './quick-endpoint.js';

export type RawValue = Record<string, unknown>;

export interface NodeRecord {
  readonly kind: 'node';
  readonly name: string;
  /**
   * The value as stored: the `node` section of a config file without its name, plus `services`.
   * A DatastoreView keeps it for its own node only (others' are empty there).
   */
  readonly raw: RawValue;
  readonly locator: { readonly address: string; readonly len: number };
  /** Where its policies' binding SIDs come from: no other node's prefixes may overlap it. */
  readonly bsidPrefix: { readonly address: string; readonly len: number };
  /**
   * Where its SRv6 packets come from, what other nodes' ingress filters accept: its underlay
   * address's prefix, and its encapsulation source when that lies outside it.
   */
  readonly sources: readonly Ip6Prefix[];
}

export interface VpcRecord {
  readonly kind: 'vpc';
  readonly name: string;
  readonly raw: RawValue;
  readonly id: number;
  /**
   * Each node's End.DT4 SID for the VPC is its locator + this (default: the VPC id), its End.DT6
   * SID its locator + 2^24 + this.
   */
  readonly sidIndex: number;
  /** The VMs' IPv4 gateway: no endpoint may cover it. Undefined for an IPv6-only VPC. */
  readonly gateway: string | undefined;
  /** Whether the VPC has IPv4 subnets: its IPv4 endpoints are routes. */
  readonly hasSubnets4: boolean;
  /** Whether the VPC has IPv6 subnets: its IPv6 endpoints are routes. */
  readonly hasSubnets6: boolean;
}

export interface PortRecord {
  readonly kind: 'port';
  readonly node: string;
  readonly name: string;
  readonly raw: RawValue;
  readonly vpc: string;
  /** Undefined for a port of an IPv6-only VPC. */
  readonly ip: string | undefined;
}

export interface EndpointRecord {
  readonly kind: 'endpoint';
  readonly vpc: string;
  readonly prefix: EndpointPrefix;
  readonly family: 4 | 6;
  /** The node that hosts the prefix. */
  readonly node: string;
}

export type DatastoreRecord = NodeRecord | VpcRecord | PortRecord | EndpointRecord;

export interface RecordProblem {
  readonly key: string;
  /** The field inside the value, as in the config file's errors ("underlay.address"). */
  readonly path: string;
  readonly message: string;
}

export class RecordError extends Error {
  readonly code = 'VPPNET_ERR_RECORD';
  readonly problems: readonly RecordProblem[];
  constructor(problems: readonly RecordProblem[]) {
    super(`invalid datastore records:\n${problems.map(formatProblem).join('\n')}`);
    this.name = 'RecordError';
    this.problems = problems;
  }
}

export function formatProblem(p: RecordProblem): string {
  return `  ${p.key}: ${p.path}: ${p.message}`;
}

export const NODE_RECORD_FIELDS = ['underlay', 'vhostUser', 'srv6', 'services'] as const;
export const VPC_RECORD_FIELDS = [
  'id',
  'table',
  'subnets',
  'gateway',
  'gatewayLinkLocal',
  'mtu',
  'sidIndex',
] as const;
export const PORT_RECORD_FIELDS = [
  'vpc',
  'mac',
  'ip',
  'ip6',
  'attach',
  'sourceCheck',
  'allowedPrefixes',
] as const;
export const ENDPOINT_RECORD_FIELDS = ['node'] as const;

/** Parses and validates one stored value; returns the record or its problems. */
export function parseRecord(schema: KeySchema, key: string, text: string): DatastoreRecord | RecordProblem[] {
  const parsedKey = schema.parse(key);
  if ('error' in parsedKey) return [{ key, path: '(key)', message: parsedKey.error }];
  const quick = parsedKey.kind === 'endpoint' ? quickEndpointRecord(parsedKey, text) : undefined;
  if (quick) return quick;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return [{ key, path: '(value)', message: `is not JSON: ${(err as Error).message}` }];
  }
  return validateRecord(key, parsedKey, raw);
}

export function validateRecord(key: string, k: ParsedKey, raw: unknown): DatastoreRecord | RecordProblem[] {
  const c = new Checker();
  const fields: readonly string[] =
    k.kind === 'node'
      ? NODE_RECORD_FIELDS
      : k.kind === 'vpc'
        ? VPC_RECORD_FIELDS
        : k.kind === 'port'
          ? PORT_RECORD_FIELDS
          : ENDPOINT_RECORD_FIELDS;
  const v = c.object(raw, '(value)', fields);
  const problems = (strip: string): RecordProblem[] =>
    c.problems.map((p) => ({
      key,
      path: p.path.startsWith(strip) ? p.path.slice(strip.length) : p.path,
      message: p.message,
    }));
  if (!v) return problems('');
  switch (k.kind) {
    case 'node': {
      c.nodeName(k.node, '(key) node name');
      const { services, ...node } = v;
      const config = validateNode(c, { ...node, name: k.node });
      if (services !== undefined) validateServices(c, services);
      if (c.problems.length || !config) return problems('node.');
      return {
        kind: 'node',
        name: k.node,
        raw: v,
        locator: config.srv6.locator,
        bsidPrefix: config.srv6.bsidPrefix,
        sources: nodeSources(config),
      };
    }
    case 'vpc': {
      c.name(k.vpc, '(key) VPC name');
      const { sidIndex: rawIndex, ...vpc } = v;
      validateVpcs(c, [{ ...vpc, name: k.vpc }], undefined, undefined);
      const id = typeof vpc.id === 'number' ? vpc.id : 0;
      const sidIndex = rawIndex === undefined ? id : c.int(rawIndex, 'vpcs[0].sidIndex', 1, 0xffffff);
      if (c.problems.length || sidIndex === undefined) return problems('vpcs[0].');
      // Valid subnets: IPv6 ones are the ones with a colon.
      const subnets = vpc.subnets as readonly string[];
      const hasSubnets6 = subnets.some((s) => s.includes(':'));
      const hasSubnets4 = subnets.some((s) => !s.includes(':'));
      // Valid by now: an IPv4 address exactly when the VPC has an IPv4 subnet.
      const gateway = typeof vpc.gateway === 'string' ? vpc.gateway : undefined;
      return { kind: 'vpc', name: k.vpc, raw: v, id, sidIndex, gateway, hasSubnets4, hasSubnets6 };
    }
    case 'port': {
      c.nodeName(k.node, '(key) node name');
      const vpc = c.name(v.vpc, 'ports[0].vpc');
      // The node's vhost-user defaults are not known here: the built-in ones stand in, the
      // derivation (derive.ts) validates the port again with its node's.
      // The node's socket directory is not known either: '/' lets any absolute path through here.
      const builtIn = validateVhostUserDefaults(c, undefined);
      const defaults = builtIn && { ...builtIn, directory: '/' };
      validatePorts(c, [{ ...v, name: k.port }], [], new Set([v.vpc as string]), defaults);
      if (c.problems.length || !vpc) return problems('ports[0].');
      return { kind: 'port', node: k.node, name: k.port, raw: v, vpc, ip: v.ip as string | undefined };
    }
    case 'endpoint': {
      c.name(k.vpc, '(key) VPC name');
      const written = `${k.prefix.address}/${k.prefix.len}`;
      // The ranges that are never a VM's are refused here, at `datastore put`; what depends on
      // the VPC and the node (its gateway, locator, local ports) is the derivation's (lanes.ts).
      if (k.family === 4) {
        const p = c.ip4Prefix(written, '(key) prefix', true);
        const reserved = p && reservedIp4Overlap(p);
        if (reserved) c.fail('(key) prefix', reserved);
      } else {
        const p = c.ip6Prefix(written, '(key) prefix', true);
        const reserved = p && remoteIp6Problem(p, undefined);
        if (reserved) c.fail('(key) prefix', reserved);
      }
      const node = c.nodeName(v.node, 'node');
      if (c.problems.length || !node) return problems('');
      return { kind: 'endpoint', vpc: k.vpc, prefix: k.prefix, family: k.family, node };
    }
  }
}

/** The key a record is stored under. */
export function recordKey(schema: KeySchema, r: DatastoreRecord): string {
  switch (r.kind) {
    case 'node':
      return schema.node(r.name);
    case 'vpc':
      return schema.vpc(r.name);
    case 'port':
      return schema.port(r.node, r.name);
    case 'endpoint':
      return schema.endpoint(r.vpc, r.prefix);
  }
}

/** The stored value of a record: its raw fields, as written. */
export function recordValue(r: DatastoreRecord): RawValue {
  return r.kind === 'endpoint' ? { node: r.node } : r.raw;
}

/** A node's SRv6 sources (NodeRecord.sources). */
function nodeSources(config: NodeConfig): Ip6Prefix[] {
  const underlay = { address: config.underlay.address, len: config.underlay.prefixLength };
  const network = { address: ip6Network(underlay), len: underlay.len };
  const encap = config.srv6.encapSource;
  return ip6InPrefixOnce(encap, underlay) ? [network] : [network, { address: encap, len: 128 }];
}
