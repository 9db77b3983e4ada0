/**
 * vppnet-agent's command line: each setting is a flag, else an environment variable (how a
 * DaemonSet sets it), else the default. Every bad value is a UsageError naming the flag.
 */
import { parseArgs } from 'node:util';
import { dirname, isAbsolute, resolve } from 'node:path';
import { DEFAULT_AGENT_SOCKET, DEFAULT_SERVICE_MAP_SOCKET } from '../agent-api/protocol.js';
import { DEFAULT_POD_NETNS_DIRS } from '../netns/index.js';
import { isNodeName } from '../config/validate.js';
import { CONNECTION_FLAGS, CONNECTION_OPTIONS, connectionFlagsOf } from '../datastore/connection-flags.js';
import type { ConnectionFlags } from '../datastore/connection-settings.js';
import { DEFAULT_PREFIX } from '../datastore/keys.js';
import { VppnetError } from '../util/errors.js';
import { DEFAULT_SOCKET_PATH } from '../vpp/client/vpp-client.js';
import { DEFAULT_DRIFT_INTERVAL_MS } from './agent.js';
import { DEFAULT_LISTEN_HOST, DEFAULT_LISTEN_PORT } from './http-server.js';

export const DEFAULT_CONFIG_PATH = '/etc/vppnet/config.yaml';
export const DEFAULT_STATE_DIR = '/var/lib/vppnet';
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const USAGE = `usage: vppnet-agent [options]
  --datastore file|etcd  where the desired state comes from (env VPPNET_DATASTORE; default file)
  --config FILE          file mode: the agent config (env VPPNET_CONFIG; default ${DEFAULT_CONFIG_PATH})
  --node-name NAME       etcd mode: this hypervisor's node record (env VPPNET_NODE_NAME; required)
  --etcd-endpoints URLS  etcd mode: comma-separated host:port or http(s)://host:port
                         (env VPPNET_ETCD_ENDPOINTS; default http://127.0.0.1:2379)
  --datastore-prefix P   etcd mode: the key prefix (env VPPNET_DATASTORE_PREFIX; default ${DEFAULT_PREFIX})
  --etcd-ca FILE         etcd mode: CA of etcd's server certificate, PEM (env VPPNET_ETCD_CA); https
  --etcd-cert FILE       etcd mode: client certificate, PEM (env VPPNET_ETCD_CERT)
  --etcd-key FILE        etcd mode: client key, PEM (env VPPNET_ETCD_KEY)
  --etcd-user NAME       etcd mode: etcd user (env VPPNET_ETCD_USER)
  --etcd-password-file F etcd mode: the user's password (else env VPPNET_ETCD_PASSWORD)
  --etcd-insecure        etcd mode: accept etcd without TLS beyond loopback (env
                         VPPNET_ETCD_INSECURE=true); refused otherwise, logged as a warning
  --vpp-socket PATH      VPP binary API socket (env VPPNET_VPP_SOCKET; default ${DEFAULT_SOCKET_PATH})
  --state-dir DIR        state kept across restarts (env VPPNET_STATE_DIR; default ${DEFAULT_STATE_DIR})
  --agent-socket PATH    vppnet-cni's API (attach, detach, gc), mode 0600 in a directory of mode 0700
                         that no pod may mount (env VPPNET_AGENT_SOCKET; default ${DEFAULT_AGENT_SOCKET})
  --service-map-socket PATH  the read-only service map for the service pods, mode 0666, in its own
                         directory; 'none' disables it (env VPPNET_SERVICE_MAP_SOCKET;
                         default ${DEFAULT_SERVICE_MAP_SOCKET})
  --netns-dirs DIRS      comma-separated directories where the container runtime pins pods' network
                         namespaces; an attachment elsewhere is refused; '/proc/*/ns' admits
                         /proc/<pid>/ns/net, as ctr run --cni and nerdctl name it (env
                         VPPNET_NETNS_DIRS; default ${DEFAULT_POD_NETNS_DIRS.join(',')})
  --listen HOST:PORT     metrics and health endpoints (env VPPNET_LISTEN; default ${DEFAULT_LISTEN_HOST}:${DEFAULT_LISTEN_PORT})
  --metrics-listen HOST:PORT  also serve /metrics alone there, e.g. on the node's IP for Prometheus
                         (env VPPNET_METRICS_LISTEN; default none)
  --drift-interval DUR   period of the drift check, e.g. 60s, 500ms, 5m; 0 disables
                         (env VPPNET_DRIFT_INTERVAL; default ${DEFAULT_DRIFT_INTERVAL_MS / 1000}s)
  --log-level LEVEL      ${LOG_LEVELS.join(', ')} (env VPPNET_LOG_LEVEL; default info)
  --version, -V          print the version and exit
  --help, -h`;

export class UsageError extends VppnetError<'VPPNET_ERR_USAGE'> {
  override readonly name = 'UsageError';
  constructor(message: string) {
    super('VPPNET_ERR_USAGE', message);
  }
}

/** etcd mode's settings as given; connectionSettingsOf resolves them (environment, files). */
export interface EtcdFlags {
  readonly nodeName: string;
  readonly connection: ConnectionFlags;
}

export interface AgentFlags {
  readonly configPath: string;
  /** Set in etcd mode (--datastore etcd): the config file is not read. */
  readonly etcd?: EtcdFlags;
  readonly vppSocketPath: string;
  readonly stateDir: string;
  readonly agentSocketPath: string;
  /** undefined: --service-map-socket none. */
  readonly serviceMapSocketPath: string | undefined;
  readonly podNetnsDirs: readonly string[];
  readonly listen: { readonly host: string; readonly port: number };
  /** A second listener with /metrics only: health and /status stay on `listen` (loopback). */
  readonly metricsListen?: { readonly host: string; readonly port: number };
  readonly driftIntervalMs: number;
  readonly logLevel: LogLevel;
}

/** The settings, or 'help' / 'version' when --help / --version was given. */
export function parseAgentFlags(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): AgentFlags | 'help' | 'version' {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        config: { type: 'string' },
        datastore: { type: 'string' },
        'node-name': { type: 'string' },
        // Spelled as vppnet spells them (connection-flags.ts).
        ...CONNECTION_OPTIONS,
        'vpp-socket': { type: 'string' },
        'state-dir': { type: 'string' },
        'agent-socket': { type: 'string' },
        'service-map-socket': { type: 'string' },
        'netns-dirs': { type: 'string' },
        listen: { type: 'string' },
        'metrics-listen': { type: 'string' },
        'drift-interval': { type: 'string' },
        'log-level': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'V' },
      },
      allowPositionals: false,
      strict: true,
    }));
  } catch (err) {
    // parseArgs says e.g. "Unknown option '--x'"; keep its words, drop its error code.
    throw new UsageError((err as Error).message);
  }
  if (values.help === true) return 'help';
  if (values.version === true) return 'version';
  const setting = (flag: string, envName: string): string | undefined => {
    const v = values[flag];
    if (typeof v === 'string') return nonEmpty(v, `--${flag}`);
    const e = env[envName];
    return e === undefined || e === '' ? undefined : e;
  };
  const datastore = setting('datastore', 'VPPNET_DATASTORE') ?? 'file';
  if (datastore !== 'file' && datastore !== 'etcd')
    throw new UsageError(`--datastore: expected file or etcd, got '${datastore}'`);
  const etcd = datastore === 'etcd' ? etcdFlags(setting, values) : undefined;
  return {
    configPath: setting('config', 'VPPNET_CONFIG') ?? DEFAULT_CONFIG_PATH,
    ...(etcd && { etcd }),
    vppSocketPath: setting('vpp-socket', 'VPPNET_VPP_SOCKET') ?? DEFAULT_SOCKET_PATH,
    stateDir: setting('state-dir', 'VPPNET_STATE_DIR') ?? DEFAULT_STATE_DIR,
    ...localApiSockets(
      setting('agent-socket', 'VPPNET_AGENT_SOCKET') ?? DEFAULT_AGENT_SOCKET,
      setting('service-map-socket', 'VPPNET_SERVICE_MAP_SOCKET') ?? DEFAULT_SERVICE_MAP_SOCKET,
    ),
    podNetnsDirs: netnsDirsOf(setting('netns-dirs', 'VPPNET_NETNS_DIRS')),
    listen: parseListenAddress(
      setting('listen', 'VPPNET_LISTEN') ?? `${DEFAULT_LISTEN_HOST}:${DEFAULT_LISTEN_PORT}`,
    ),
    ...metricsListenOf(setting('metrics-listen', 'VPPNET_METRICS_LISTEN')),
    driftIntervalMs: withFlag('--drift-interval', () =>
      parseDuration(setting('drift-interval', 'VPPNET_DRIFT_INTERVAL') ?? `${DEFAULT_DRIFT_INTERVAL_MS}ms`),
    ),
    logLevel: parseLogLevel(setting('log-level', 'VPPNET_LOG_LEVEL') ?? 'info'),
  };
}

/**
 * The two sockets, each absolute, in different directories: the service pods mount the service
 * map's directory, which must therefore never hold the privileged socket.
 */
function localApiSockets(
  agentSocketPath: string,
  serviceMap: string,
): { agentSocketPath: string; serviceMapSocketPath: string | undefined } {
  if (!isAbsolute(agentSocketPath))
    throw new UsageError(`--agent-socket: ${agentSocketPath} is not an absolute path`);
  if (serviceMap === 'none') return { agentSocketPath, serviceMapSocketPath: undefined };
  if (!isAbsolute(serviceMap))
    throw new UsageError(`--service-map-socket: ${serviceMap} is not an absolute path`);
  const privileged = dirname(resolve(agentSocketPath));
  const shared = dirname(resolve(serviceMap));
  if (privileged === shared || privileged.startsWith(`${shared}/`) || shared === '/')
    throw new UsageError(
      `--agent-socket ${agentSocketPath} is inside ${shared}, the service map's directory that service pods mount: give the privileged socket a directory of its own`,
    );
  return { agentSocketPath, serviceMapSocketPath: serviceMap };
}

function netnsDirsOf(value: string | undefined): readonly string[] {
  if (value === undefined) return DEFAULT_POD_NETNS_DIRS;
  const dirs = value
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d !== '');
  const bad = dirs.find((d) => !isAbsolute(d));
  if (dirs.length === 0 || bad !== undefined)
    throw new UsageError(`--netns-dirs: expected comma-separated absolute directories, got '${value}'`);
  return dirs;
}

function etcdFlags(
  setting: (flag: string, envName: string) => string | undefined,
  values: Record<string, string | boolean | undefined>,
): EtcdFlags {
  const nodeName = setting('node-name', 'VPPNET_NODE_NAME');
  if (nodeName === undefined)
    throw new UsageError(
      '--datastore etcd needs --node-name (or VPPNET_NODE_NAME): the node record to serve',
    );
  if (!isNodeName(nodeName))
    throw new UsageError(`--node-name: '${nodeName}' is not a Kubernetes node name (lowercase RFC 1123)`);
  // The environment's share of these is read by connectionSettingsOf, with the files.
  const connection = connectionFlagsOf(values, { aliases: false });
  for (const [name, v] of Object.entries(connection) as [keyof ConnectionFlags, string | boolean][])
    if (name !== 'insecure') nonEmpty(v as string, CONNECTION_FLAGS[name]);
  return { nodeName, connection };
}

/** `HOST:PORT`, `[IPv6]:PORT` or `:PORT` (all interfaces). */
export function parseListenAddress(text: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535)
    throw new UsageError(`--listen: expected HOST:PORT, [IPV6]:PORT or :PORT, got '${text}'`);
  const host = m[1] ?? m[2] ?? '';
  return { host: host === '' ? '::' : host, port };
}

function metricsListenOf(text: string | undefined): Pick<AgentFlags, 'metricsListen'> {
  if (text === undefined) return {};
  try {
    return { metricsListen: parseListenAddress(text) };
  } catch (err) {
    if (err instanceof UsageError)
      throw new UsageError(err.message.replace(/^--listen:/, '--metrics-listen:'));
    throw err;
  }
}

const DURATION_UNITS_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `500ms`, `60s`, `5m`, `1h`; a bare number is seconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new UsageError(`expected a duration such as 500ms, 60s or 5m, got '${text}'`);
  const ms = Number(m[1]) * (DURATION_UNITS_MS[m[2] ?? 's'] ?? 1000);
  // Node timers cap at 2^31-1 ms (about 24.8 days) and would fire at once beyond it.
  if (ms > 2 ** 31 - 1) throw new UsageError(`duration '${text}' is too long (at most 24 days)`);
  return Math.round(ms);
}

function parseLogLevel(text: string): LogLevel {
  const level = LOG_LEVELS.find((l) => l === text);
  if (level === undefined)
    throw new UsageError(`--log-level: expected one of ${LOG_LEVELS.join(', ')}, got '${text}'`);
  return level;
}

function nonEmpty(value: string, flag: string): string {
  if (value === '') throw new UsageError(`${flag} must not be empty`);
  return value;
}

function withFlag<T>(flag: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof UsageError && !err.message.startsWith('--'))
      throw new UsageError(`${flag}: ${err.message}`);
    throw err;
  }
}
