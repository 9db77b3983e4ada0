/**
 * The operator's writes: a YAML file of records, and a node's config file turned into records.
 * Everything is validated before anything is written, and written in one transaction.
 */
import { readFile } from 'node:fs/promises';
import { CORE_SCHEMA, load, YAMLException } from 'js-yaml';
import type { AgentConfig, PortAttachment } from '../config/model.js';
import { DT6_SID_OFFSET } from '../config/defaults.js';
import { ip6IndexInPrefix, ip6InPrefix, parseIp6Prefix } from '../net/ip.js';
import { vpcSid, vpcSid6 } from './derive.js';
import type { KeySchema } from './keys.js';
import { parseRecord, RecordError, type NodeRecord, type RecordProblem } from './records.js';
import type { KeyValueStore, WriteOp } from './store.js';

/**
 * A records file:
 *   nodes:     { NODE: {underlay, vhostUser, srv6, services} }
 *   vpcs:      { VPC: {id, table, subnets, gateway, gatewayLinkLocal, mtu, sidIndex} }
 *   ports:     { NODE: { PORT: {vpc, mac, ip, ip6, attach, sourceCheck, allowedPrefixes} } }
 *   endpoints: { VPC: { a.b.c.d/len: NODE } }      (or { node: NODE }; IPv6: x:y::z/len)
 */
export function recordsFileOps(schema: KeySchema, raw: unknown, source = '(file)'): WriteOp[] {
  const problems: RecordProblem[] = [];
  const ops: WriteOp[] = [];
  const mapping = (v: unknown, where: string): Record<string, unknown> => {
    if (v === undefined) return {};
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      problems.push({ key: source, path: where, message: 'must be a mapping' });
      return {};
    }
    return v as Record<string, unknown>;
  };
  const root = mapping(raw ?? {}, '(root)');
  for (const k of Object.keys(root)) {
    if (!['nodes', 'vpcs', 'ports', 'endpoints'].includes(k))
      problems.push({
        key: source,
        path: k,
        message: 'unknown field (allowed: nodes, vpcs, ports, endpoints)',
      });
  }
  const add = (key: string, value: unknown): void => {
    // null deletes the record in the same transaction: a VM's move is its port's delete on the
    // old node, its port on the new one and its endpoint's node, all or none.
    if (value === null) {
      const k = schema.parse(key);
      if ('error' in k) problems.push({ key, path: '(key)', message: k.error });
      else ops.push({ type: 'delete', key });
      return;
    }
    const text = JSON.stringify(value);
    const r = parseRecord(schema, key, text);
    if (Array.isArray(r)) problems.push(...r);
    else ops.push({ type: 'put', key, value: text });
  };
  for (const [name, v] of Object.entries(mapping(root.nodes, 'nodes'))) add(schema.node(name), v);
  for (const [name, v] of Object.entries(mapping(root.vpcs, 'vpcs'))) add(schema.vpc(name), v);
  for (const [nodeName, ports] of Object.entries(mapping(root.ports, 'ports'))) {
    for (const [name, v] of Object.entries(mapping(ports, `ports.${nodeName}`)))
      add(schema.port(nodeName, name), v);
  }
  for (const [vpc, eps] of Object.entries(mapping(root.endpoints, 'endpoints'))) {
    for (const [prefix, v] of Object.entries(mapping(eps, `endpoints.${vpc}`))) {
      // An IPv6 prefix's key is its canonical spelling, whatever the file's.
      const p6 = prefix.includes(':') ? parseIp6Prefix(prefix) : undefined;
      add(
        `${schema.prefix}endpoints/${vpc}/${p6 ? `${p6.address}_${p6.len}` : prefix.replace('/', '_')}`,
        typeof v === 'string' ? { node: v } : v === null ? null : v,
      );
    }
  }
  if (problems.length) throw new RecordError(problems);
  return ops;
}

/**
 * A records file's writes, validated, without touching the store. Its YAML errors name the file
 * and the place (FILE:LINE:COLUMN). A file of no records is refused: written, it would change
 * nothing and say so, when what the operator has is almost always a mistake (a truncated pipe, the
 * wrong file).
 */
export async function readRecordsFile(schema: KeySchema, file: string): Promise<WriteOp[]> {
  let raw: unknown;
  try {
    raw = load(await readFile(file, 'utf8'), { schema: CORE_SCHEMA, filename: file });
  } catch (err) {
    if (err instanceof YAMLException) {
      const where = err.mark ? `${file}:${err.mark.line + 1}:${err.mark.column + 1}` : file;
      throw new RecordError([{ key: where, path: '(yaml)', message: err.reason || 'YAML syntax error' }]);
    }
    throw new RecordError([{ key: file, path: '(file)', message: (err as Error).message }]);
  }
  const ops = recordsFileOps(schema, raw, file);
  if (ops.length === 0)
    throw new RecordError([
      {
        key: file,
        path: '(file)',
        message:
          'holds no records (nodes, vpcs, ports or endpoints): refused, as an empty file is usually a mistake (a truncated pipe, the wrong file)',
      },
    ]);
  return ops;
}

/** A records file's writes and deletes, all in one transaction; nothing on any problem. */
export async function putRecordsFile(
  store: KeyValueStore,
  schema: KeySchema,
  file: string,
): Promise<WriteOp[]> {
  const ops = await readRecordsFile(schema, file);
  await store.commit(ops);
  return ops;
}

const prefixText = (p: { address: string; len: number }): string => `${p.address}/${p.len}`;
const octal = (mode: number): string => `0${mode.toString(8)}`;

function attachValue(a: PortAttachment): Record<string, unknown> {
  if (a.type !== 'vhost-user') return { ...a };
  return {
    type: a.type,
    socket: a.socket,
    ...(a.access.uid !== undefined && { uid: a.access.uid }),
    ...(a.access.gid !== undefined && { gid: a.access.gid }),
    mode: octal(a.access.mode),
  };
}

/**
 * A node's config file as records: its node record, its VPCs, its ports, an endpoint for each
 * port's /32 on this node, and an endpoint for each remote route, on the node whose locator holds
 * the route's SID. A remote route whose SID is in no node's locator, or is not that node's SID for
 * the VPC, contradicts the records and is refused. Writes nothing on any problem.
 */
export async function importConfig(
  store: KeyValueStore,
  schema: KeySchema,
  config: AgentConfig,
  options: { dryRun?: boolean } = {},
): Promise<WriteOp[]> {
  const n = config.node;
  const nodeValue: Record<string, unknown> = {
    underlay: {
      interface: n.underlay.interface,
      address: `${n.underlay.address}/${n.underlay.prefixLength}`,
      gateway: n.underlay.gateway,
      neighborMaxAgeSeconds: n.underlay.neighborMaxAgeSeconds,
      mtu: n.underlay.mtu,
    },
    vhostUser: {
      ...(n.vhostUser.uid !== undefined && { uid: n.vhostUser.uid }),
      ...(n.vhostUser.gid !== undefined && { gid: n.vhostUser.gid }),
      mode: octal(n.vhostUser.mode),
      directoryMode: octal(n.vhostUser.directoryMode),
      directory: n.vhostUser.directory,
    },
    srv6: {
      locator: prefixText(n.srv6.locator),
      encapSource: n.srv6.encapSource,
      hopLimit: n.srv6.hopLimit,
      bsidPrefix: prefixText(n.srv6.bsidPrefix),
    },
  };
  const s = config.services;
  if (s) {
    nodeValue.services = {
      table: s.table,
      bridgeDomain: s.bridgeDomain,
      gateway: prefixText(s.gateway),
      vmAddressRange: prefixText(s.vmAddressRange),
      metadataAddress: s.metadataAddress,
      ...(s.dnsAddress !== undefined && { dnsAddress: s.dnsAddress }),
      ...(s.dhcpServer !== undefined && { dhcpServer: s.dhcpServer }),
      addressHoldSeconds: s.addressHoldSeconds,
      vmLimits: { ...s.vmLimits },
    };
  }
  const problems: RecordProblem[] = [];
  const vpcs: Record<string, unknown> = {};
  config.vpcs.forEach((v, i) => {
    // The file's per-node SID becomes the VPC's sidIndex; it must then be the same on every node.
    const index = Number(ip6IndexInPrefix(v.sid, n.srv6.locator));
    // Records do not store the DT6 SID either: every node takes locator + 2^24 + sidIndex.
    if (v.sid6 !== undefined && ip6IndexInPrefix(v.sid6, n.srv6.locator) !== DT6_SID_OFFSET + BigInt(index))
      problems.push({
        key: schema.vpc(v.name),
        path: `vpcs[${i}].sid6`,
        message: `${v.sid6} is not the locator + 2^24 + the SID index of ${v.sid} (${index}): records derive every node's End.DT6 SID that way`,
      });
    vpcs[v.name] = {
      id: v.id,
      table: v.table,
      subnets: [...v.subnets, ...v.subnets6].map(prefixText),
      ...(v.gateway !== undefined && { gateway: v.gateway }),
      ...(v.subnets6.length > 0 && { gatewayLinkLocal: v.gatewayLinkLocal }),
      mtu: v.mtu,
      ...(index !== v.id && { sidIndex: index }),
    };
  });
  const ports: Record<string, unknown> = {};
  // By VPC in a Map: `constructor` is a valid VPC name, and endpoints[vpc] ??= {} read Object's
  // own constructor for it, dropping the VPC's endpoints onto Object itself.
  const endpoints = new Map<string, Record<string, string>>();
  const endpoint = (vpc: string, prefix: string, node: string): void => {
    let of = endpoints.get(vpc);
    if (of === undefined) endpoints.set(vpc, (of = {}));
    of[prefix] = node;
  };
  for (const p of config.ports) {
    ports[p.name] = {
      vpc: p.vpc,
      mac: p.mac,
      ...(p.ip !== undefined && { ip: p.ip }),
      // Written even when it is the EUI-64 default: the endpoint below is this address.
      ...(p.ip6 !== undefined && { ip6: p.ip6 }),
      attach: attachValue(p.attach),
      ...(!p.sourceCheck && { sourceCheck: false }),
      // No endpoints are written for them: whether other nodes route a prefix here (0.0.0.0/0
      // behind a NAT instance may not be an endpoint at all) is the operator's decision.
      ...(p.allowedPrefixes.length > 0 && {
        allowedPrefixes: p.allowedPrefixes.map((a) => `${a.address}/${a.len}`),
      }),
    };
    if (p.ip !== undefined) endpoint(p.vpc, `${p.ip}/32`, n.name);
    if (p.ip6 !== undefined) endpoint(p.vpc, `${p.ip6}/128`, n.name);
  }
  const ops0 = recordsFileOps(
    schema,
    { nodes: { [n.name]: nodeValue }, vpcs, ports: { [n.name]: ports } },
    '(import)',
  );
  const vpcRecords = new Map(
    ops0.flatMap((op) => {
      if (op.type !== 'put') return [];
      const r = parseRecord(schema, op.key, op.value);
      return !Array.isArray(r) && r.kind === 'vpc' ? [[r.name, r] as const] : [];
    }),
  );
  const others: NodeRecord[] = [];
  for (const kv of (await store.list(schema.nodesRange)).kvs) {
    const r = parseRecord(schema, kv.key, kv.value);
    if (!Array.isArray(r) && r.kind === 'node' && r.name !== n.name) others.push(r);
  }
  config.remoteRoutes.forEach((route, i) => {
    const key = schema.endpoint(route.vpc, route.prefix);
    const owner = others.find((o) => ip6InPrefix(route.sid, o.locator));
    const vpc = vpcRecords.get(route.vpc);
    if (!owner) {
      problems.push({
        key,
        path: `remoteRoutes[${i}].sid`,
        message: `${route.sid} is in no node's locator (${schema.nodesRange.key}): import that node first`,
      });
      return;
    }
    let expected: string | undefined;
    try {
      expected = vpc ? (route.family === 6 ? vpcSid6 : vpcSid)(owner, vpc) : undefined;
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
    }
    if (expected !== route.sid) {
      const which = route.family === 6 ? 'End.DT6 SID' : 'SID';
      problems.push({
        key,
        path: `remoteRoutes[${i}].sid`,
        message:
          expected === undefined
            ? `${route.sid} is in node ${owner.name}'s locator, which cannot hold ${route.vpc}'s ${which}`
            : `${route.sid} is in node ${owner.name}'s locator, but ${owner.name}'s ${which} for ${route.vpc} is ${expected}`,
      });
      return;
    }
    endpoint(route.vpc, prefixText(route.prefix), owner.name);
  });
  if (problems.length) throw new RecordError(problems);
  const ops = [...ops0, ...recordsFileOps(schema, { endpoints: Object.fromEntries(endpoints) }, '(import)')];
  if (!options.dryRun) await store.commit(ops);
  return ops;
}
