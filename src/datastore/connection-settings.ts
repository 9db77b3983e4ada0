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
 *   VPPNET_ETCD_INSECURE     "true": accept etcd without TLS beyond loopback (--etcd-insecure)
 *
 * etcd without TLS is accepted on loopback only: elsewhere the records (every VPC, port and
 * endpoint of the fleet) and the etcd password cross the network in clear text, and whoever
 * is on the path can rewrite what the agents apply. --etcd-insecure accepts it knowingly (a
 * lab); the agent logs it as a warning at start.
 */
import { readFileSync } from 'node:fs';
import { readEtcdTls, type EtcdStoreOptions } from './etcd-store.js';
import { parseEtcdEndpoint } from './etcd/endpoint.js';
import { DEFAULT_PREFIX, KeySchema } from './keys.js';

export const DEFAULT_ENDPOINTS = 'http://127.0.0.1:2379';

/** The flag values as parsed by the caller (undefined: not given). */
export interface ConnectionFlags {
  /** --etcd-insecure: plaintext etcd beyond loopback is accepted. */
  readonly insecure?: boolean | undefined;
  readonly endpoints?: string | undefined;
  readonly prefix?: string | undefined;
  readonly ca?: string | undefined;
  readonly cert?: string | undefined;
  readonly key?: string | undefined;
  readonly user?: string | undefined;
  readonly passwordFile?: string | undefined;
}

/** The settings that take a value (the others are switches). */
export type ConnectionValueSetting = Exclude<keyof ConnectionFlags, 'insecure'>;

/** How the caller spells each flag, for its errors. */
export type ConnectionFlagNames = { readonly [K in ConnectionValueSetting]: string };

/** The switch accepting plaintext etcd beyond loopback, as both programs spell it. */
export const INSECURE_FLAG = '--etcd-insecure';

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
  insecure: 'VPPNET_ETCD_INSECURE',
} as const;
const ENV: { readonly [K in ConnectionValueSetting]?: string } = CONNECTION_ENV;

export class ConnectionSettingsError extends Error {
  override readonly name = 'ConnectionSettingsError';
  readonly code = 'VPPNET_ERR_CONNECTION_SETTINGS';
}

export interface ConnectionSettings {
  readonly store: EtcdStoreOptions;
  readonly schema: KeySchema;
  /** Endpoints beyond loopback reached without TLS, accepted by --etcd-insecure: warn of them. */
  readonly insecureEndpoints: readonly string[];
}

/** The store options and the key schema, from flags, else environment variables. */
export function connectionSettingsOf(
  flags: ConnectionFlags,
  names: ConnectionFlagNames,
  env: NodeJS.ProcessEnv,
): ConnectionSettings {
  const store = etcdOptionsOf(flags, names, env);
  return {
    store,
    schema: keySchemaOf(flags, names, env),
    insecureEndpoints: plaintextRemoteEndpoints(store),
  };
}

/**
 * The endpoints the client would reach without TLS (etcd/endpoint.ts says which) that are not on
 * loopback.
 */
export function plaintextRemoteEndpoints(options: EtcdStoreOptions): string[] {
  return options.endpoints.filter((e) => {
    const endpoint = parseEtcdEndpoint(e, options.tls !== undefined);
    // An endpoint that does not parse is refused by etcd-store with its own message.
    return endpoint !== undefined && !endpoint.secure && !isLoopbackTarget(endpoint.target);
  });
}

/** host:port on loopback: 127.0.0.0/8, [::1] or localhost. */
function isLoopbackTarget(target: string): boolean {
  const host = target.startsWith('[') ? target.slice(1, target.indexOf(']')) : target.replace(/:\d+$/, '');
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function insecureAccepted(flags: ConnectionFlags, env: NodeJS.ProcessEnv): boolean {
  if (flags.insecure === true) return true;
  const v = env[CONNECTION_ENV.insecure];
  return v === 'true' || v === '1';
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
  const options: EtcdStoreOptions = {
    endpoints,
    ...(tls && { tls }),
    ...(user !== undefined && password !== undefined && { auth: { user: user.value, password } }),
  };
  const plaintext = plaintextRemoteEndpoints(options);
  if (plaintext.length > 0 && !insecureAccepted(flags, env))
    throw new ConnectionSettingsError(
      `etcd at ${plaintext.join(', ')} without TLS: the fleet's records${user ? ' and the etcd password' : ''} would cross the network in clear text, and anyone on the path could rewrite them. Give ${names.ca} (https, and ${names.cert}/${names.key} for a client certificate), or ${INSECURE_FLAG} (${CONNECTION_ENV.insecure}=true) to accept it`,
    );
  return options;
}

/** A setting's value and where it came from: the caller's flag, or the environment variable. */
function setting(
  flags: ConnectionFlags,
  names: ConnectionFlagNames,
  env: NodeJS.ProcessEnv,
  name: ConnectionValueSetting,
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
