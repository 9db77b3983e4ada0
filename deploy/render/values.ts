/**
 * The renderer's input: deploy/values/default.yaml (every setting, documented) with an overlay
 * file merged over it. `parseValues` checks the merged tree and reports every problem at once,
 * each naming its field (`agent.resources.limits.memory`); unknown fields are errors, as in the
 * agent's own config, so a typo never silently becomes a default.
 *
 * The hypervisors' agent configs (`nodes`) and the service bridge (`serviceBridge`) are kept raw
 * here: the agent's validator (src/config/validate.ts) checks them in render.ts, where the
 * service bridge is merged into each node's config.
 *
 * Here: the values' shape (types), their top-level check, and overlay merging. The field checker
 * and formats are values-checker.ts, the datastore section values-datastore.ts, quantities
 * quantity.ts.
 */
import { parse, YAMLParseError } from 'yaml';
import type { IToleration } from 'kubernetes-models/v1/Toleration';
import {
  LOG_LEVELS,
  parseDuration,
  parseListenAddress,
  UsageError,
  type LogLevel,
} from '../../src/agent/agent-flags.js';
import { ATTACH_MODES, type AttachMode } from '../../src/agent-api/protocol.js';
import { SUPPORTED_CNI_VERSIONS } from '../../src/cni/version.js';
import {
  Checker,
  DNS_LABEL,
  DNS_SUBDOMAIN,
  IFNAME,
  IMAGE_REPOSITORY,
  IMAGE_TAG,
  isObj,
  LABEL_NAME,
  LABEL_VALUE,
  TOLERATION_FIELDS,
  type Obj,
} from './values-checker.js';
import { parseDatastore } from './values-datastore.js';

export interface ValuesProblem {
  readonly path: string;
  readonly message: string;
}

export class ValuesError extends Error {
  readonly code = 'VPPNET_ERR_DEPLOY_VALUES';
  readonly problems: readonly ValuesProblem[];
  constructor(problems: readonly ValuesProblem[], source: string) {
    super(
      `invalid deploy values (${source}):\n${problems.map((p) => `  ${p.path}: ${p.message}`).join('\n')}`,
    );
    this.name = 'ValuesError';
    this.problems = problems;
  }
}

export type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';
const PULL_POLICIES: readonly PullPolicy[] = ['Always', 'IfNotPresent', 'Never'];

/** CPU and memory, each as a Kubernetes quantity string. */
export interface ComputeResources {
  readonly requests: { readonly cpu: string; readonly memory: string };
  readonly limits: { readonly cpu: string; readonly memory: string };
}

export type ExampleService = 'dhcp' | 'dnsProxy' | 'metadata';
export const EXAMPLE_SERVICES: readonly ExampleService[] = ['dhcp', 'dnsProxy', 'metadata'];

export interface ExampleServiceValues {
  readonly image: string;
  readonly command: readonly string[] | undefined;
  readonly args: readonly string[];
}

/** Fleet mode's connection to etcd (docs/datastore.md); the agent gets it as environment variables. */
export interface EtcdValues {
  /** `http(s)://HOST:PORT` each. */
  readonly endpoints: readonly string[];
  readonly prefix: string;
  /** The Secret with ca.crt, tls.crt and tls.key; undefined: plaintext (http://) endpoints. */
  readonly tlsSecretName: string | undefined;
  /** etcd password authentication, besides or instead of the client certificate. */
  readonly auth:
    | { readonly user: string; readonly passwordSecret: { readonly name: string; readonly key: string } }
    | undefined;
  /**
   * Or one etcd user per node (deploy/etcd/node-users.sh): node N's agent is `userPrefix` + N, its
   * password the Secret's key N. Exclusive with `auth`.
   */
  readonly perNodeUsers: { readonly secretName: string; readonly userPrefix: string } | undefined;
}

/**
 * Where each agent takes its desired state from: `file`, the per-node configs under `nodes` in a
 * ConfigMap; `etcd`, fleet mode, the records in etcd (no ConfigMap, no `nodes`).
 */
export type DatastoreValues =
  { readonly mode: 'file' } | { readonly mode: 'etcd'; readonly etcd: EtcdValues };

export interface Values {
  readonly namespace: string;
  readonly image: { readonly repository: string; readonly tag: string; readonly pullPolicy: PullPolicy };
  readonly imagePullSecrets: readonly string[];
  readonly placement: {
    readonly nodeSelector: Readonly<Record<string, string>>;
    /** A core/v1 Affinity, passed through; undefined when empty. */
    readonly affinity: Readonly<Record<string, unknown>> | undefined;
    readonly tolerations: readonly IToleration[];
  };
  readonly agent: {
    readonly logLevel: LogLevel;
    /** As given (e.g. `60s`): the agent parses it; checked here with the agent's own parser. */
    readonly driftInterval: string;
    /** NODE_OPTIONS for the agent's container: Node.js options, e.g. `--v8-pool-size=1`; '' for none. */
    readonly nodeOptions: string;
    readonly listen: { readonly host: string; readonly port: number };
    readonly priorityClassName: string;
    readonly terminationGracePeriodSeconds: number;
    readonly minReadySeconds: number;
    readonly resources: ComputeResources;
    readonly installCniResources: ComputeResources;
  };
  readonly host: {
    /** VPP's binary API socket; its directory is mounted. */
    readonly vppApiSocket: string;
    readonly cniBinDir: string;
  };
  /** The `services:` section of every node's config, raw (validated by src/config). */
  readonly serviceBridge: Readonly<Record<string, unknown>>;
  readonly serviceNetworks: {
    readonly cniVersion: string;
    readonly mode: AttachMode;
    readonly mtu: number | undefined;
    /** The interface name the service pods get for the service bridge (Multus `interface`). */
    readonly podInterface: string;
    readonly ipamType: string;
  };
  readonly examples: {
    readonly enabled: boolean;
    readonly services: Readonly<Record<ExampleService, ExampleServiceValues>>;
    readonly resources: ComputeResources;
  };
  readonly datastore: DatastoreValues;
  readonly metrics: MetricsValues;
  /** Kubernetes node name → that hypervisor's agent config without `services`, raw; empty in fleet mode. */
  readonly nodes: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
}

/**
 * Prometheus in the cluster. Off by default: the agent's listener is on the node's loopback. With
 * serviceMonitor the agent also serves /metrics alone on the node's IP at `port`, behind a
 * headless Service and a ServiceMonitor; prometheusRule renders the alert rules as a PrometheusRule.
 */
export interface MetricsValues {
  readonly serviceMonitor: boolean;
  readonly prometheusRule: boolean;
  readonly port: number;
  /** The ServiceMonitor's scrape interval, e.g. `30s`. */
  readonly interval: string;
}

const TOP_LEVEL = [
  'namespace',
  'image',
  'imagePullSecrets',
  'placement',
  'agent',
  'host',
  'serviceBridge',
  'serviceNetworks',
  'examples',
  'datastore',
  'metrics',
  'nodes',
] as const;

/** Checks the merged values tree. Throws ValuesError listing every problem. */
export function parseValues(raw: unknown, source: string): Values {
  const c = new Checker();
  const root = c.object(raw, '(root)', TOP_LEVEL);
  for (const key of TOP_LEVEL)
    if (root[key] === undefined && key !== 'nodes' && key !== 'datastore' && key !== 'metrics')
      c.fail(key, 'is required');

  const namespace = c.string(
    root.namespace,
    'namespace',
    DNS_LABEL,
    'a DNS label (lowercase letters, digits, "-")',
  );

  const img = c.object(root.image, 'image', ['repository', 'tag', 'pullPolicy']);
  const image = {
    repository: c.string(
      img.repository,
      'image.repository',
      IMAGE_REPOSITORY,
      'an image repository such as registry.example.com/vppnet',
    ),
    tag: c.string(
      typeof img.tag === 'number' ? String(img.tag) : img.tag,
      'image.tag',
      IMAGE_TAG,
      'an image tag',
    ),
    pullPolicy: c.oneOf(img.pullPolicy, 'image.pullPolicy', PULL_POLICIES),
  };
  const imagePullSecrets = c.stringList(
    root.imagePullSecrets ?? [],
    'imagePullSecrets',
    DNS_SUBDOMAIN,
    'a Secret name',
  );

  const pl = c.object(root.placement, 'placement', ['nodeSelector', 'affinity', 'tolerations']);
  const nodeSelector: Record<string, string> = {};
  for (const [k, v] of Object.entries(
    c.object(pl.nodeSelector ?? {}, 'placement.nodeSelector', Object.keys(pl.nodeSelector ?? {})),
  )) {
    const [prefix, name] = k.includes('/')
      ? [k.slice(0, k.indexOf('/')), k.slice(k.indexOf('/') + 1)]
      : ['', k];
    if ((prefix !== '' && !DNS_SUBDOMAIN.test(prefix)) || !LABEL_NAME.test(name))
      c.fail(`placement.nodeSelector.${k}`, 'is not a label key');
    nodeSelector[k] = c.string(v, `placement.nodeSelector.${k}`, LABEL_VALUE, 'a label value (quote "true")');
  }
  let affinity: Record<string, unknown> | undefined;
  if (pl.affinity !== undefined && pl.affinity !== null) {
    affinity = c.object(pl.affinity, 'placement.affinity', [
      'nodeAffinity',
      'podAffinity',
      'podAntiAffinity',
    ]);
    if (Object.keys(affinity).length === 0) affinity = undefined;
  }
  const tolerations: IToleration[] = [];
  if (!Array.isArray(pl.tolerations)) c.fail('placement.tolerations', 'must be a list');
  else {
    pl.tolerations.forEach((t, i) => {
      const path = `placement.tolerations[${i}]`;
      const o = c.object(t, path, TOLERATION_FIELDS);
      if (o.operator !== undefined) c.oneOf(o.operator, `${path}.operator`, ['Exists', 'Equal']);
      if (o.effect !== undefined)
        c.oneOf(o.effect, `${path}.effect`, ['NoSchedule', 'PreferNoSchedule', 'NoExecute']);
      tolerations.push(o);
    });
  }

  const ag = c.object(root.agent, 'agent', [
    'logLevel',
    'driftInterval',
    'nodeOptions',
    'listen',
    'priorityClassName',
    'terminationGracePeriodSeconds',
    'minReadySeconds',
    'resources',
    'installCniResources',
  ]);
  const logLevel = c.oneOf(ag.logLevel, 'agent.logLevel', LOG_LEVELS);
  const driftInterval = c.string(ag.driftInterval, 'agent.driftInterval');
  agentParser(c, 'agent.driftInterval', () => parseDuration(driftInterval));
  // NODE_OPTIONS takes options only (no script, no V8 flag Node does not allow there).
  const nodeOptions =
    ag.nodeOptions === undefined || ag.nodeOptions === ''
      ? ''
      : c.string(
          ag.nodeOptions,
          'agent.nodeOptions',
          /^--\S+( --\S+)*$/,
          "Node.js options such as '--v8-pool-size=1', one space between them, or ''",
        );
  // Node refuses to start when NODE_OPTIONS holds a flag it does not allow there (most V8 flags,
  // e.g. --optimize-for-size): the agent would crash-loop on every node.
  for (const option of nodeOptions.split(' ').filter((o) => o.startsWith('--'))) {
    const flag = option.split('=')[0] as string;
    if (!process.allowedNodeEnvironmentFlags.has(flag))
      c.fail(
        'agent.nodeOptions',
        `${flag} is not allowed in NODE_OPTIONS: Node.js refuses to start with it (pass V8 flags Node does not allow there in the container's command instead)`,
      );
  }
  const listenText = c.string(ag.listen, 'agent.listen');
  const listen = agentParser(c, 'agent.listen', () => parseListenAddress(listenText)) ?? {
    host: '127.0.0.1',
    port: 9464,
  };
  // The kubelet probes 127.0.0.1 (hostNetwork): the agent must listen there.
  if (!['127.0.0.1', '0.0.0.0', '::'].includes(listen.host)) {
    c.fail(
      'agent.listen',
      `the kubelet probes 127.0.0.1: listen on 127.0.0.1, 0.0.0.0 or :PORT, not ${listen.host}`,
    );
  }
  const agent = {
    logLevel,
    driftInterval,
    nodeOptions,
    listen,
    priorityClassName: c.string(
      ag.priorityClassName,
      'agent.priorityClassName',
      DNS_SUBDOMAIN,
      'a PriorityClass name',
    ),
    terminationGracePeriodSeconds: c.int(
      ag.terminationGracePeriodSeconds,
      'agent.terminationGracePeriodSeconds',
      30,
      3600,
    ),
    minReadySeconds: c.int(ag.minReadySeconds, 'agent.minReadySeconds', 0, 3600),
    resources: c.resources(ag.resources, 'agent.resources'),
    installCniResources: c.resources(ag.installCniResources, 'agent.installCniResources'),
  };

  const h = c.object(root.host, 'host', ['vppApiSocket', 'cniBinDir']);
  const host = {
    vppApiSocket: c.absolutePath(h.vppApiSocket, 'host.vppApiSocket'),
    cniBinDir: c.absolutePath(h.cniBinDir, 'host.cniBinDir'),
  };
  if (host.vppApiSocket !== '' && host.vppApiSocket.lastIndexOf('/') === 0) {
    c.fail(
      'host.vppApiSocket',
      'must be inside a directory other than /: that directory is mounted into the agent',
    );
  }

  // Contents are the agent's `services:` section; src/config checks them.
  const serviceBridge = c.object(
    root.serviceBridge ?? {},
    'serviceBridge',
    Object.keys(isObj(root.serviceBridge) ? root.serviceBridge : {}),
  );

  const sn = c.object(root.serviceNetworks, 'serviceNetworks', [
    'cniVersion',
    'mode',
    'mtu',
    'podInterface',
    'ipamType',
  ]);
  const serviceNetworks = {
    cniVersion: c.oneOf(sn.cniVersion, 'serviceNetworks.cniVersion', SUPPORTED_CNI_VERSIONS),
    mode: c.oneOf(sn.mode, 'serviceNetworks.mode', ATTACH_MODES),
    mtu:
      sn.mtu === undefined || sn.mtu === null ? undefined : c.int(sn.mtu, 'serviceNetworks.mtu', 68, 65535),
    podInterface: c.string(
      sn.podInterface,
      'serviceNetworks.podInterface',
      IFNAME,
      'a Linux interface name (1-15 characters)',
    ),
    ipamType: c.string(
      sn.ipamType,
      'serviceNetworks.ipamType',
      /^[A-Za-z0-9_.-]+$/,
      'a CNI plugin file name',
    ),
  };
  if (serviceNetworks.podInterface === 'eth0')
    c.fail('serviceNetworks.podInterface', "eth0 is the pod's primary (Cilium) interface");

  const ex = c.object(root.examples, 'examples', ['enabled', 'resources', ...EXAMPLE_SERVICES]);
  const services = {} as Record<ExampleService, ExampleServiceValues>;
  for (const name of EXAMPLE_SERVICES) {
    const path = `examples.${name}`;
    const s = c.object(ex[name], path, ['image', 'command', 'args']);
    services[name] = {
      image: c.string(s.image, `${path}.image`, /^\S+$/, 'an image reference'),
      command:
        s.command === undefined || s.command === null
          ? undefined
          : c.stringList(s.command, `${path}.command`),
      args: c.stringList(s.args ?? [], `${path}.args`),
    };
  }
  const examples = {
    enabled: c.boolean(ex.enabled, 'examples.enabled'),
    services,
    resources: c.resources(ex.resources, 'examples.resources'),
  };

  const datastore = parseDatastore(c, root.datastore ?? { mode: 'file' });

  // Values without the section (older site files) keep the metrics on loopback, as before.
  const m = c.object(root.metrics ?? {}, 'metrics', ['serviceMonitor', 'prometheusRule', 'port', 'interval']);
  const metrics: MetricsValues = {
    serviceMonitor: c.boolean(m.serviceMonitor ?? false, 'metrics.serviceMonitor'),
    prometheusRule: c.boolean(m.prometheusRule ?? false, 'metrics.prometheusRule'),
    port: c.int(m.port ?? 9465, 'metrics.port', 1024, 65535),
    interval: c.string(
      m.interval ?? '30s',
      'metrics.interval',
      /^[1-9]\d*(s|m)$/,
      'a scrape interval such as 30s or 1m',
    ),
  };
  if (metrics.serviceMonitor && metrics.port === listen.port)
    c.fail(
      'metrics.port',
      `is agent.listen's port ${listen.port}: the node-IP metrics listener needs a port of its own`,
    );

  const nodes = new Map<string, Record<string, unknown>>();
  if (datastore.mode === 'etcd') {
    // The agents derive their configs from etcd's records: a `nodes` left over from the base would
    // be rendered nowhere, and an operator would edit it in vain.
    if (root.nodes !== undefined && root.nodes !== null)
      c.fail(
        'nodes',
        'is not used with datastore.mode etcd (the agents take their config from etcd): remove it with `nodes: null` in the overlay, and load the configs with `vppnet datastore import` (deploy/README.md)',
      );
  } else if (root.nodes === undefined || root.nodes === null) {
    c.fail('nodes', 'is required with datastore.mode file');
  } else {
    const n = c.object(root.nodes, 'nodes', Object.keys(isObj(root.nodes) ? root.nodes : {}));
    for (const [name, cfg] of Object.entries(n)) {
      if (!DNS_SUBDOMAIN.test(name))
        c.fail(`nodes.${name}`, 'must be a Kubernetes node name (lowercase DNS subdomain)');
      const o = c.object(cfg, `nodes.${name}`, ['node', 'vpcs', 'ports', 'remoteRoutes']);
      nodes.set(name, o);
    }
    if (isObj(root.nodes) && nodes.size === 0) c.fail('nodes', 'must describe at least one hypervisor');
  }

  if (c.problems.length > 0) throw new ValuesError(c.problems, source);
  return {
    namespace,
    image,
    imagePullSecrets,
    placement: { nodeSelector, affinity, tolerations },
    agent,
    host,
    serviceBridge,
    serviceNetworks,
    examples,
    datastore,
    metrics,
    nodes,
  };
}
/** Runs one of the agent's own flag parsers, turning its UsageError into a problem. */
function agentParser<T>(c: Checker, path: string, parse: () => T): T | undefined {
  try {
    return parse();
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return c.fail(path, err.message.replace(/^--[a-z-]+: /, ''));
  }
}

/**
 * The overlay merged over the base: mappings merge key by key, anything else (lists included) is
 * replaced, and `null` removes a key. `nodes` is replaced as a whole: an overlay describes its
 * own hypervisors, never the base's plus its own.
 */
export function mergeValues(base: unknown, overlay: unknown): unknown {
  if (!isObj(base) || !isObj(overlay)) return overlay;
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(overlay)) {
    if (v === null) delete out[k];
    else if (k === 'nodes') out[k] = v;
    else out[k] = deepMerge(out[k], v);
  }
  return out;
}

function deepMerge(base: unknown, overlay: unknown): unknown {
  if (!isObj(base) || !isObj(overlay)) return overlay;
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(overlay)) {
    if (v === null) delete out[k];
    else out[k] = deepMerge(out[k], v);
  }
  return out;
}

/** Parses one values file; a YAML error becomes a ValuesError naming the line. */
export function parseValuesYaml(text: string, source: string): unknown {
  try {
    return parse(text, { uniqueKeys: true, prettyErrors: true }) ?? {};
  } catch (err) {
    const where = err instanceof YAMLParseError && err.linePos ? `line ${err.linePos[0].line}` : '(yaml)';
    throw new ValuesError(
      [{ path: where, message: (err as Error).message.split('\n')[0] ?? 'YAML syntax error' }],
      source,
    );
  }
}
