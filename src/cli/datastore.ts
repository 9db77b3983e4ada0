/**
 * vppnet datastore: the operator's reads and writes of the fleet's records in etcd
 * (docs/datastore.md). Writes are validated whole before anything is written, and written in one
 * transaction.
 */
import { parseArgs } from 'node:util';
import { dump } from 'js-yaml';
import { loadConfigFile } from '../config/load.js';
import {
  CLI_CONNECTION_FLAGS,
  ConnectionSettingsError,
  connectionSettingsOf,
  type ConnectionSettings,
} from '../datastore/connection-settings.js';
import { EtcdStore } from '../datastore/etcd-store.js';
import { DEFAULT_PREFIX, type KeySchema } from '../datastore/keys.js';
import { importConfig, putRecordsFile } from '../datastore/operations.js';
import { parseRecord, RecordError } from '../datastore/records.js';
import type { KeyValue } from '../datastore/store.js';

export const CONNECTION_HELP = `  --endpoints URLS   etcd endpoints, comma-separated: host:port or http(s)://host:port
                     (env VPPNET_ETCD_ENDPOINTS; default http://127.0.0.1:2379)
  --prefix PREFIX    the key prefix (env VPPNET_DATASTORE_PREFIX; default ${DEFAULT_PREFIX})
  --ca FILE          CA of etcd's server certificate, PEM (env VPPNET_ETCD_CA); implies https
  --cert FILE        client certificate, PEM (env VPPNET_ETCD_CERT)
  --key FILE         client key, PEM (env VPPNET_ETCD_KEY)
  --user NAME        etcd user (env VPPNET_ETCD_USER); the password from --password-file or env
  --password-file F  VPPNET_ETCD_PASSWORD`;

export const DATASTORE_USAGE = `usage: vppnet datastore COMMAND [options]
  vppnet datastore put -f FILE          write the records of FILE (YAML), all or none
  vppnet datastore get [KEY-PREFIX]     print the records under the prefix (or under
                                        PREFIX + KEY-PREFIX, e.g. endpoints/vpc-a/) as a records file
  vppnet datastore delete KEY...        delete these records (KEY relative to the prefix, e.g.
                                        ports/hv1/vm1), in one transaction
  vppnet datastore import --config FILE [--dry-run]
                                        a node's agent config file as records: its node, VPCs and
                                        ports, an endpoint per port, and its remote routes as
                                        endpoints of the nodes whose locators hold their SIDs
                                        (refused when a SID is not that node's SID for the VPC)
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
  PREFIX ports/NODE/PORT         vpc, mac, ip, ip6, attach: a VM port on NODE
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

export const CONNECTION_OPTIONS = {
  endpoints: { type: 'string' },
  prefix: { type: 'string' },
  ca: { type: 'string' },
  cert: { type: 'string' },
  key: { type: 'string' },
  user: { type: 'string' },
  'password-file': { type: 'string' },
} as const;

/** Where the store is, from the connection flags, else the environment (connection-settings.ts). */
export function connectionOf(
  values: { readonly [K in keyof typeof CONNECTION_OPTIONS]?: string | undefined },
  e: NodeJS.ProcessEnv,
): ConnectionSettings {
  try {
    return connectionSettingsOf(
      {
        endpoints: values.endpoints,
        prefix: values.prefix,
        ca: values.ca,
        cert: values.cert,
        key: values.key,
        user: values.user,
        passwordFile: values['password-file'],
      },
      CLI_CONNECTION_FLAGS,
      e,
    );
  } catch (err) {
    if (err instanceof ConnectionSettingsError) throw new DatastoreUsageError(err.message);
    throw err;
  }
}

export class DatastoreUsageError extends Error {
  override readonly name = 'DatastoreUsageError';
}

/** Groups key-values into a records file (the form put -f takes). */
export function recordsFileOf(
  schema: KeySchema,
  kvs: readonly KeyValue[],
): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const group = (kind: string): Record<string, unknown> => (out[kind] ??= {});
  for (const kv of kvs) {
    const k = schema.parse(kv.key);
    let value: unknown;
    try {
      value = JSON.parse(kv.value);
    } catch {
      value = kv.value;
    }
    if ('error' in k) continue;
    if (k.kind === 'node') group('nodes')[k.node] = value;
    else if (k.kind === 'vpc') group('vpcs')[k.vpc] = value;
    else if (k.kind === 'port') ((group('ports')[k.node] ??= {}) as Record<string, unknown>)[k.port] = value;
    else
      ((group('endpoints')[k.vpc] ??= {}) as Record<string, unknown>)[`${k.prefix.address}/${k.prefix.len}`] =
        (value as { node?: unknown } | null)?.node ?? value;
  }
  return out;
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
  const connection = connectionOf(values, e);
  const schema = connection.schema;
  const store = new EtcdStore(connection.store);
  try {
    switch (sub) {
      case 'put': {
        if (values.file === undefined || positionals.length)
          throw new DatastoreUsageError('datastore put: -f FILE is required, and nothing else');
        const ops = await putRecordsFile(store, schema, values.file);
        const deleted = ops.filter((o) => o.type === 'delete').length;
        write(
          `wrote ${ops.length - deleted} records${deleted ? ` and deleted ${deleted}` : ''} in one transaction`,
        );
        return 0;
      }
      case 'get': {
        if (positionals.length > 1) throw new DatastoreUsageError('datastore get: at most one KEY-PREFIX');
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
        if (positionals.length === 0)
          throw new DatastoreUsageError('datastore delete: name at least one KEY');
        const keys = positionals.map((k) => (k.startsWith('/') ? k : schema.prefix + k));
        for (const key of keys) {
          const parsedKey = schema.parse(key);
          if ('error' in parsedKey) throw new RecordError([{ key, path: '(key)', message: parsedKey.error }]);
        }
        await store.commit(keys.map((key) => ({ type: 'delete', key })));
        write(`deleted ${keys.length} keys in one transaction`);
        return 0;
      }
      case 'import': {
        if (values.config === undefined || positionals.length)
          throw new DatastoreUsageError('datastore import: --config FILE is required, and nothing else');
        const config = await loadConfigFile(values.config);
        const dryRun = values['dry-run'];
        const ops = await importConfig(store, schema, config, { dryRun });
        if (dryRun)
          write(
            dump(
              recordsFileOf(
                schema,
                ops.flatMap((o) => (o.type === 'put' ? [{ ...o, modRevision: 0 }] : [])),
              ),
              { lineWidth: 120 },
            ),
          );
        write(
          `${dryRun ? 'would write' : 'wrote'} ${ops.length} records for node ${config.node.name}${dryRun ? '' : ' in one transaction'}`,
        );
        return 0;
      }
    }
    return 2;
  } finally {
    await store.close();
  }
}
