/**
 * vppnet datastore: the operator's reads and writes of the fleet's records in etcd
 * (docs/datastore.md). Writes are validated whole before anything is written, and written in one
 * transaction.
 */
import { parseArgs } from 'node:util';
import { dump } from 'js-yaml';
import { loadConfigFile } from '../config/load.js';
import {
  CONNECTION_ALIAS_OPTIONS,
  CONNECTION_FLAG_ALIASES,
  CONNECTION_FLAGS,
  CONNECTION_OPTIONS as CANONICAL_CONNECTION_OPTIONS,
  ConnectionFlagConflictError,
  connectionFlagsOf,
} from '../datastore/connection-flags.js';
import {
  ConnectionSettingsError,
  connectionSettingsOf,
  type ConnectionValueSetting,
  type ConnectionSettings,
} from '../datastore/connection-settings.js';
import { EtcdStore } from '../datastore/etcd-store.js';
import { DEFAULT_PREFIX, type KeySchema } from '../datastore/keys.js';
import { importConfig, readRecordsFile } from '../datastore/operations.js';
import { parseRecord, RecordError } from '../datastore/records.js';
import { StoreUnavailableError, type KeyValue, type WriteOp } from '../datastore/store.js';
import { etcdUnreachableError } from './etcd-unreachable.js';

/** How long one etcd call may wait for an endpoint that does not answer. */
export const ETCD_CALL_DEADLINE_MS = 5000;

const ALIAS_LINES = (Object.keys(CONNECTION_FLAGS) as ConnectionValueSetting[])
  .map((k) => `    ${CONNECTION_FLAG_ALIASES[k]} is an alias of ${CONNECTION_FLAGS[k]}`)
  .join('\n');

export const CONNECTION_HELP = `  --etcd-endpoints URLS     etcd endpoints, comma-separated: host:port or http(s)://host:port
                            (env VPPNET_ETCD_ENDPOINTS; default http://127.0.0.1:2379)
  --datastore-prefix PREFIX the key prefix (env VPPNET_DATASTORE_PREFIX; default ${DEFAULT_PREFIX})
  --etcd-ca FILE            CA of etcd's server certificate, PEM (env VPPNET_ETCD_CA); implies https
  --etcd-cert FILE          client certificate, PEM (env VPPNET_ETCD_CERT)
  --etcd-key FILE           client key, PEM (env VPPNET_ETCD_KEY)
  --etcd-user NAME          etcd user (env VPPNET_ETCD_USER); the password from
  --etcd-password-file F    this file, else env VPPNET_ETCD_PASSWORD
  --etcd-insecure           accept etcd without TLS beyond loopback (env VPPNET_ETCD_INSECURE=true);
                            refused otherwise: records and password would cross in clear text
  The names are vppnet-agent's; vppnet's earlier names are still accepted:
${ALIAS_LINES}`;

export const DATASTORE_USAGE = `usage: vppnet datastore COMMAND [options]
  vppnet datastore put -f FILE [--dry-run]
                                        write the records of FILE (YAML), all or none; a file of
                                        no records is refused
  vppnet datastore get [KEY-PREFIX]     print the records under the prefix (or under
                                        PREFIX + KEY-PREFIX, e.g. endpoints/vpc-a/) as a records file
  vppnet datastore delete KEY... [--dry-run]
                                        delete these records (KEY relative to the prefix, e.g.
                                        ports/hv1/vm1), in one transaction
  vppnet datastore import --config FILE [--dry-run]
                                        a node's agent config file as records: its node, VPCs and
                                        ports, an endpoint per port, and its remote routes as
                                        endpoints of the nodes whose locators hold their SIDs
                                        (refused when a SID is not that node's SID for the VPC)
  --dry-run                             validate and print what would be written or deleted;
                                        nothing is written (put and delete do not contact etcd)
${CONNECTION_HELP}

Key schema, version 1 (every value is JSON, validated as the same section of an agent config
file is, with the same field-named errors):
  PREFIX nodes/NODE              underlay, vhostUser, srv6, services: the config file's node
                                 section without its name, plus its services section
  PREFIX vpcs/VPC                id, table, subnets, gateway, gatewayLinkLocal, mtu, sidIndex:
                                 a config file's vpcs[] entry without name, sid and sid6 (subnets
                                 IPv4 and IPv6 /64s); every node's End.DT4 SID for the VPC is its
                                 locator + sidIndex (default: the id), its End.DT6 SID its
                                 locator + 2^24 + sidIndex
  PREFIX ports/NODE/PORT         vpc, mac, ip, ip6, attach, sourceCheck, allowedPrefixes: a VM port on NODE
  PREFIX endpoints/VPC/A.B.C.D_LEN
  PREFIX endpoints/VPC/X:Y::Z_LEN
                                 node: the node hosting the prefix (a VM's /32 or /128, or a
                                 prefix behind an appliance VM); an IPv6 address in its RFC 5952
                                 spelling, e.g. endpoints/vpc-a/2001:db8:a:0:5054:ff:fe61:a01_128
A node's agent derives its remote routes: every endpoint of a VPC it has ports in that is on
another node steers to that node's SID for the VPC (End.DT6 for an IPv6 prefix). Moving a VM: its port to the new node, its
endpoint's node changed, its old port null (deleted), in one put.

Records file (put -f):
  nodes:     { NODE: {...} }
  vpcs:      { VPC: {...} }
  ports:     { NODE: { PORT: {...} } }
  endpoints: { VPC: { A.B.C.D/LEN: NODE, X:Y::Z/LEN: NODE } }
  a record given as null (e.g. ports: { hv2: { vm2: null } }) is deleted in the same transaction`;

/** parseArgs options of the connection flags: the agent's names, and their aliases. */
export const CONNECTION_OPTIONS = { ...CANONICAL_CONNECTION_OPTIONS, ...CONNECTION_ALIAS_OPTIONS } as const;

/** Where the store is, from the connection flags, else the environment (connection-settings.ts). */
export function connectionOf(
  values: { readonly [K in keyof typeof CONNECTION_OPTIONS]?: string | boolean | undefined },
  e: NodeJS.ProcessEnv,
): ConnectionSettings {
  try {
    return connectionSettingsOf(connectionFlagsOf(values, { aliases: true }), CONNECTION_FLAGS, e);
  } catch (err) {
    if (err instanceof ConnectionSettingsError || err instanceof ConnectionFlagConflictError)
      throw new DatastoreUsageError(err.message);
    throw err;
  }
}

export class DatastoreUsageError extends Error {
  override readonly name = 'DatastoreUsageError';
}

/**
 * Groups key-values into a records file (the form put -f takes). Built in Maps: a key's names are
 * the store's, not yet validated, and as plain object keys `__proto__` would set a prototype and
 * `constructor` (a valid node and VPC name) read Object's own, so their records went missing and
 * their values landed on Object.prototype or Object.
 */
export function recordsFileOf(
  schema: KeySchema,
  kvs: readonly KeyValue[],
): Record<string, Record<string, unknown>> {
  const groups = new Map<string, Map<string, unknown>>();
  const group = (kind: string): Map<string, unknown> => {
    let g = groups.get(kind);
    if (g === undefined) groups.set(kind, (g = new Map<string, unknown>()));
    return g;
  };
  const inner = (g: Map<string, unknown>, name: string): Map<string, unknown> => {
    let m = g.get(name) as Map<string, unknown> | undefined;
    if (m === undefined) g.set(name, (m = new Map<string, unknown>()));
    return m;
  };
  for (const kv of kvs) {
    const k = schema.parse(kv.key);
    let value: unknown;
    try {
      value = JSON.parse(kv.value);
    } catch {
      value = kv.value;
    }
    if ('error' in k) continue;
    if (k.kind === 'node') group('nodes').set(k.node, value);
    else if (k.kind === 'vpc') group('vpcs').set(k.vpc, value);
    else if (k.kind === 'port') inner(group('ports'), k.node).set(k.port, value);
    else
      inner(group('endpoints'), k.vpc).set(
        `${k.prefix.address}/${k.prefix.len}`,
        (value as { node?: unknown } | null)?.node ?? value,
      );
  }
  // Object.fromEntries defines own properties, `__proto__` included.
  const plain = (m: Map<string, unknown>): Record<string, unknown> =>
    Object.fromEntries([...m].map(([k, v]) => [k, v instanceof Map ? plain(v as Map<string, unknown>) : v]));
  return Object.fromEntries([...groups].map(([kind, g]) => [kind, plain(g)]));
}

export async function datastoreCommand(
  args: readonly string[],
  out: NodeJS.WritableStream,
  e: NodeJS.ProcessEnv = process.env,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  const write = (s: string): void => void out.write(s.endsWith('\n') ? s : `${s}\n`);
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    write(DATASTORE_USAGE);
    return 0;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: [...rest],
      options: {
        ...CONNECTION_OPTIONS,
        file: { type: 'string', short: 'f' },
        config: { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (e2) {
    throw new DatastoreUsageError(`datastore ${sub}: ${(e2 as Error).message} (see vppnet datastore --help)`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    write(DATASTORE_USAGE);
    return 0;
  }
  if (!['put', 'get', 'delete', 'import'].includes(sub))
    throw new DatastoreUsageError(`datastore: unknown command ${sub} (see vppnet datastore --help)`);
  let connection: ConnectionSettings;
  try {
    connection = connectionOf(values, e);
  } catch (e2) {
    if (e2 instanceof DatastoreUsageError) throw new DatastoreUsageError(`datastore ${sub}: ${e2.message}`);
    throw e2;
  }
  const schema = connection.schema;
  const dryRun = values['dry-run'];
  // Everything that needs no store is checked before one is opened: a bad command line or file
  // changes nothing, and a dry run of put or delete never contacts etcd.
  let writes: WriteOp[] | undefined;
  if (sub === 'put') {
    if (values.file === undefined || positionals.length)
      throw new DatastoreUsageError('datastore put: -f FILE is required, and nothing else');
    writes = await readRecordsFile(schema, values.file);
  } else if (sub === 'delete') {
    if (positionals.length === 0) throw new DatastoreUsageError('datastore delete: name at least one KEY');
    writes = positionals.map((k) => ({ type: 'delete', key: k.startsWith('/') ? k : schema.prefix + k }));
    for (const { key } of writes) {
      const parsedKey = schema.parse(key);
      if ('error' in parsedKey) throw new RecordError([{ key, path: '(key)', message: parsedKey.error }]);
    }
  } else if (sub === 'get') {
    if (positionals.length > 1) throw new DatastoreUsageError('datastore get: at most one KEY-PREFIX');
    if (dryRun) throw new DatastoreUsageError('datastore get: --dry-run is for put, delete and import');
  } else if (values.config === undefined || positionals.length)
    throw new DatastoreUsageError('datastore import: --config FILE is required, and nothing else');

  if (writes !== undefined && dryRun) {
    write(dryRunReport(schema, writes));
    return 0;
  }
  const store = new EtcdStore({ ...connection.store, callTimeoutMs: ETCD_CALL_DEADLINE_MS });
  try {
    switch (sub) {
      case 'put': {
        const ops = writes ?? [];
        await store.commit(ops);
        const deleted = ops.filter((o) => o.type === 'delete').length;
        write(
          `wrote ${ops.length - deleted} records${deleted ? ` and deleted ${deleted}` : ''} in one transaction`,
        );
        return 0;
      }
      case 'get': {
        const listing = await store.list({ key: schema.prefix + (positionals[0] ?? ''), prefix: true });
        for (const kv of listing.kvs) {
          const r = parseRecord(schema, kv.key, kv.value);
          if (Array.isArray(r))
            err.write(
              `note: ${kv.key} is invalid (agents keep its last good value): ${r.map((p) => `${p.path}: ${p.message}`).join('; ')}\n`,
            );
        }
        write(
          `# ${schema.prefix}${positionals[0] ?? ''} at revision ${listing.revision}, ${listing.kvs.length} records\n${dump(recordsFileOf(schema, listing.kvs), { lineWidth: 120 })}`,
        );
        return 0;
      }
      case 'delete': {
        const ops = writes ?? [];
        await store.commit(ops);
        write(`deleted ${ops.length} keys in one transaction`);
        return 0;
      }
      default: {
        const config = await loadConfigFile(values.config as string);
        const ops = await importConfig(store, schema, config, { dryRun });
        if (dryRun) write(dumpPuts(schema, ops));
        write(
          `${dryRun ? 'would write' : 'wrote'} ${ops.length} records for node ${config.node.name}${dryRun ? '' : ' in one transaction'}`,
        );
        return 0;
      }
    }
  } catch (e2) {
    if (e2 instanceof StoreUnavailableError)
      throw await etcdUnreachableError(connection.store.endpoints, ETCD_CALL_DEADLINE_MS, e2);
    throw e2;
  } finally {
    await store.close();
  }
}

/** What a dry run of put or delete would do: the records to write as a records file, the keys to delete. */
function dryRunReport(schema: KeySchema, ops: readonly WriteOp[]): string {
  const deletes = ops.filter((o) => o.type === 'delete').map((o) => o.key);
  const puts = ops.length - deletes.length;
  return [
    ...(puts > 0 ? [dumpPuts(schema, ops).trimEnd()] : []),
    ...deletes.map((k) => `# would delete ${k}`),
    `would write ${puts} records and delete ${deletes.length} (dry run: nothing written)`,
  ].join('\n');
}

function dumpPuts(schema: KeySchema, ops: readonly WriteOp[]): string {
  return dump(
    recordsFileOf(
      schema,
      ops.flatMap((o) => (o.type === 'put' ? [{ ...o, modRevision: 0 }] : [])),
    ),
    { lineWidth: 120 },
  );
}
