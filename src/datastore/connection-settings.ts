/**
 * Where the datastore is and how to log in: etcd endpoints, key prefix, TLS files, user and
 * password, from the caller's flags, else the environment. The operator CLI and the agent read
 * the same environment variables through this one parser, and spell their flags the same
 * (connection-flags.ts: `--etcd-endpoints`, …); the errors name the flag, or the environment
 * variable the value came from.
 *
 *   VPPNET_ETCD_ENDPOINTS    comma-separated host:port or http(s)://host:port
 *   VPPNET_DATASTORE_PREFIX  the key prefix (default /vppnet/v1/)
 *   VPPNET_ETCD_CA           CA of etcd's server certificate, PEM; implies https
 *   VPPNET_ETCD_CERT/KEY     client certificate and key, PEM
 *   VPPNET_ETCD_USER         etcd user; its password from the password file flag, else
 *   VPPNET_ETCD_PASSWORD
 */
import { readFileSync } from 'node:fs';
import { readEtcdTls, type EtcdStoreOptions } from './etcd-store.js';
import { DEFAULT_PREFIX, KeySchema } from './keys.js';

export const DEFAULT_ENDPOINTS = 'http://127.0.0.1:2379';

/** The flag values as parsed by the caller (undefined: not given). */
export interface ConnectionFlags {
  readonly endpoints?: string | undefined;
  readonly prefix?: string | undefined;
  readonly ca?: string | undefined;
  readonly cert?: string | undefined;
  readonly key?: string | undefined;
  readonly user?: string | undefined;
  readonly passwordFile?: string | undefined;
}

/** How the caller spells each flag, for its errors. */
export type ConnectionFlagNames = { readonly [K in keyof Required<ConnectionFlags>]: string };

/**
 * The agent's spelling, which is vppnet's too (connection-flags.ts); the name stays for the
 * callers that branch on the agent's flags.
 */
export { CONNECTION_FLAGS as AGENT_CONNECTION_FLAGS } from './connection-flags.js';

/** The environment variable of each setting (deploy/ renders the DaemonSet's env from these). */
export const CONNECTION_ENV = {
  endpoints: 'VPPNET_ETCD_ENDPOINTS',
  prefix: 'VPPNET_DATASTORE_PREFIX',
  ca: 'VPPNET_ETCD_CA',
  cert: 'VPPNET_ETCD_CERT',
  key: 'VPPNET_ETCD_KEY',
  user: 'VPPNET_ETCD_USER',
  /** The password itself (a file is named only by the flag). */
  password: 'VPPNET_ETCD_PASSWORD',
} as const;
const ENV: { readonly [K in keyof Required<ConnectionFlags>]?: string } = CONNECTION_ENV;

export class ConnectionSettingsError extends Error {
  override readonly name = 'ConnectionSettingsError';
  readonly code = 'VPPNET_ERR_CONNECTION_SETTINGS';
}

export interface ConnectionSettings {
  readonly store: EtcdStoreOptions;
  readonly schema: KeySchema;
}

/** The store options and the key schema, from flags, else environment variables. */
export function connectionSettingsOf(
  flags: ConnectionFlags,
  names: ConnectionFlagNames,
  env: NodeJS.ProcessEnv,
): ConnectionSettings {
  return { store: etcdOptionsOf(flags, names, env), schema: keySchemaOf(flags, names, env) };
}

/** The key schema under the prefix of the flag, else VPPNET_DATASTORE_PREFIX, else the default. */
export function keySchemaOf(
  flags: ConnectionFlags,
  names: ConnectionFlagNames,
  env: NodeJS.ProcessEnv,
): KeySchema {
  const prefix = setting(flags, names, env, 'prefix');
  try {
    return new KeySchema(prefix?.value ?? DEFAULT_PREFIX);
  } catch (err) {
    throw new ConnectionSettingsError(`${prefix?.from}: ${(err as Error).message}`);
  }
}

/** The etcd client's options from flags, else environment variables. */
export function etcdOptionsOf(
  flags: ConnectionFlags,
  names: ConnectionFlagNames,
  env: NodeJS.ProcessEnv,
): EtcdStoreOptions {
  const given = setting(flags, names, env, 'endpoints');
  const endpoints = (given?.value ?? DEFAULT_ENDPOINTS)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (endpoints.length === 0) throw new ConnectionSettingsError(`${given?.from}: names no endpoint`);
  const ca = setting(flags, names, env, 'ca');
  const cert = setting(flags, names, env, 'cert');
  const key = setting(flags, names, env, 'key');
  if ((cert === undefined) !== (key === undefined))
    throw new ConnectionSettingsError(`${names.cert} and ${names.key} go together`);
  if (cert !== undefined && ca === undefined)
    throw new ConnectionSettingsError(`${names.cert} needs ${names.ca}`);
  const user = setting(flags, names, env, 'user');
  const passwordFile = flags.passwordFile;
  let password: string | undefined;
  if (passwordFile !== undefined) {
    try {
      password = readFileSync(passwordFile, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      throw new ConnectionSettingsError(`${names.passwordFile} ${passwordFile}: ${(err as Error).message}`);
    }
  } else password = nonEmpty(env[CONNECTION_ENV.password]);
  if (user !== undefined && password === undefined)
    throw new ConnectionSettingsError(
      `${names.user} needs a password (${names.passwordFile} or VPPNET_ETCD_PASSWORD)`,
    );
  let tls: EtcdStoreOptions['tls'];
  if (ca !== undefined) {
    try {
      tls = readEtcdTls({ ca: ca.value, cert: cert?.value, key: key?.value });
    } catch (err) {
      throw new ConnectionSettingsError(
        `${[ca, cert, key].flatMap((s) => (s ? [`${s.from} ${s.value}`] : [])).join(', ')}: ${(err as Error).message}`,
      );
    }
  }
  return {
    endpoints,
    ...(tls && { tls }),
    ...(user !== undefined && password !== undefined && { auth: { user: user.value, password } }),
  };
}

/** A setting's value and where it came from: the caller's flag, or the environment variable. */
function setting(
  flags: ConnectionFlags,
  names: ConnectionFlagNames,
  env: NodeJS.ProcessEnv,
  name: keyof ConnectionFlags,
): { readonly value: string; readonly from: string } | undefined {
  const flag = flags[name];
  if (flag !== undefined) return { value: flag, from: names[name] };
  const variable = ENV[name];
  const value = variable === undefined ? undefined : nonEmpty(env[variable]);
  return value === undefined ? undefined : { value, from: variable as string };
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}
