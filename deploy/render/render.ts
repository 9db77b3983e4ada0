/**
 * Values → the Kubernetes objects of one installation, grouped into the files of
 * deploy/manifests/<overlay>/. Pure: no file system, no clock; the same values always give the
 * same bytes (test/deploy checks the committed files against it).
 *
 * Every hypervisor's agent config is checked here with the agent's own validator, after the
 * shared service bridge is merged into it, so a bad config fails the render and never reaches a
 * cluster.
 */
import type { IDaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { INamespace } from 'kubernetes-models/v1/Namespace';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { ServicesConfig } from '../../src/config/model.js';
import { CONNECTION_FLAGS } from '../../src/datastore/connection-flags.js';
import {
  Checker as ConfigChecker,
  ConfigError,
  validateConfig,
  validateServices,
} from '../../src/config/validate.js';
import {
  CNI_BIN_MOUNT,
  CNI_TYPE,
  CONFIG_MOUNT_DIR,
  DATASTORE_FLAG,
  ETCD_TLS_KEYS,
  ETCD_TLS_MOUNT_DIR,
  ETCD_USERS_MOUNT_DIR,
  FLEET_ENV,
  HOST_PATHS,
  IMAGE,
  MULTUS_NETWORKS_ANNOTATION,
  NAD_API_VERSION,
  NAD_KIND,
  NAMES,
  AGENT_SOCKET,
  SERVICE_MAP_SOCKET,
  HOST_IP_ENV,
  METRICS_LISTEN_FLAG,
  METRICS_PORT_NAME,
} from './contract.js';
import {
  metricsService,
  prometheusRule,
  serviceMonitor,
  type AlertRules,
  type PrometheusRule,
  type ServiceMonitor,
} from './metrics-objects.js';
import { checkNetworkAttachment, type NetworkAttachmentDefinition, type StaticIpam } from './nad.js';
import {
  ValuesError,
  type ComputeResources,
  type EtcdValues,
  type ExampleService,
  type Values,
} from './values.js';
import { toPlainYaml, toYamlFile, type Commented } from './yaml-out.js';

export type ManifestObject =
  | INamespace
  | IServiceAccount
  | IConfigMap
  | IDaemonSet
  | NetworkAttachmentDefinition
  | IService
  | ServiceMonitor
  | PrometheusRule;

export interface ManifestFile {
  /** e.g. `30-agent-daemonset.yaml` */
  readonly name: string;
  readonly docs: readonly Commented<ManifestObject>[];
}

export interface RenderSource {
  /** How the header names the values files, e.g. `deploy/values/default.yaml + deploy/values/lab.yaml`. */
  readonly valuesFiles: string;
  /** deploy/monitoring/vppnet-alerts.yaml, parsed: needed with metrics.prometheusRule. */
  readonly alertRules?: AlertRules;
}

type Labels = Record<string, string>;

function labels(name: string, component: string): Labels {
  return {
    'app.kubernetes.io/name': name,
    'app.kubernetes.io/component': component,
    'app.kubernetes.io/part-of': 'vppnet',
  };
}

function resources(r: ComputeResources): NonNullable<IContainer['resources']> {
  return {
    requests: { cpu: r.requests.cpu, memory: r.requests.memory },
    limits: { cpu: r.limits.cpu, memory: r.limits.memory },
  };
}

function dirname(path: string): string {
  return path.slice(0, path.lastIndexOf('/'));
}

/** The agent config of each node with the service bridge merged in, checked by src/config. */
export function nodeConfigs(values: Values): {
  configs: Map<string, Record<string, unknown>>;
  services: ServicesConfig;
} {
  const configs = new Map<string, Record<string, unknown>>();
  const problems: { path: string; message: string }[] = [];
  let services: ServicesConfig | undefined;
  for (const [node, raw] of values.nodes) {
    const config = { ...raw, services: renderedServiceBridge(values) };
    try {
      const valid = validateConfig(config, `nodes.${node}`);
      services ??= valid.services;
      // The agent creates the socket's directory and sets its owner in its own view of the host:
      // only the run directory is the host's, and the same inside the agent's container. The
      // agent keeps every socket inside node.vhostUser.directory, so that is what must be there.
      const { directory } = valid.node.vhostUser;
      if (!directory.startsWith(`${HOST_PATHS.runDir}/`))
        problems.push({
          path: `nodes.${node}.vhostUser.directory`,
          message: `${directory} must be under ${HOST_PATHS.runDir}/, the host directory the agent mounts (e.g. ${HOST_PATHS.runDir}/vhost)`,
        });
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      for (const p of err.problems) {
        // `services.*` problems come from serviceBridge, the same for every node: report them once.
        const path = p.path.startsWith('services')
          ? p.path.replace(/^services/, 'serviceBridge')
          : `nodes.${node}.${p.path}`;
        if (!problems.some((q) => q.path === path && q.message === p.message))
          problems.push({ path, message: p.message });
      }
    }
    configs.set(node, config);
  }
  if (problems.length > 0) throw new ValuesError(problems, 'agent config');
  if (services === undefined)
    throw new ValuesError(
      [{ path: 'serviceBridge', message: 'no node config to check it with' }],
      'agent config',
    );
  return { configs, services };
}

/**
 * Fleet mode has no node config to check the service bridge with: it is checked alone, by the
 * agent's own validator of a config's `services:` section.
 */
export function serviceBridgeConfig(values: Values): ServicesConfig {
  const c = new ConfigChecker();
  const services = validateServices(c, renderedServiceBridge(values));
  const problems = c.problems.map((p) => ({
    path: p.path.replace(/^services/, 'serviceBridge'),
    message: p.message,
  }));
  if (problems.length > 0 || services === undefined)
    throw new ValuesError(
      problems.length > 0 ? problems : [{ path: 'serviceBridge', message: 'is not a valid service bridge' }],
      'agent config',
    );
  return services;
}

function namespaceFile(values: Values): ManifestFile {
  const ns: INamespace = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: values.namespace,
      labels: { ...labels('vppnet', 'namespace'), 'pod-security.kubernetes.io/enforce': 'privileged' },
    },
  };
  return {
    name: '00-namespace.yaml',
    docs: [
      {
        object: ns,
        comment:
          "Pod Security admission: vppnet-agent is privileged and uses host networking and host paths, so this\nnamespace enforces 'privileged'. Keep other workloads out of it.",
      },
    ],
  };
}

function serviceAccountFile(values: Values): ManifestFile {
  const sa: IServiceAccount = {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: NAMES.agent, namespace: values.namespace, labels: labels(NAMES.agent, 'agent') },
    automountServiceAccountToken: false,
  };
  return {
    name: '10-agent-serviceaccount.yaml',
    docs: [
      {
        object: sa,
        comment: [
          values.datastore.mode === 'etcd'
            ? 'RBAC: none, on purpose. vppnet-agent makes no Kubernetes API call: its config comes from etcd'
            : 'RBAC: none, on purpose. vppnet-agent makes no Kubernetes API call: its config arrives through the',
          values.datastore.mode === 'etcd'
            ? '(fleet mode) and its node name through the downward API. So no Role, ClusterRole or binding'
            : 'ConfigMap volume and its node name through the downward API. So no Role, ClusterRole or binding',
          'exists for this account and no token is mounted. The account exists so the agent does not run as',
          "the namespace's `default` account, which someone else might grant rights to.",
        ].join('\n'),
      },
    ],
  };
}

function configMapFile(
  values: Values,
  configs: Map<string, Record<string, unknown>>,
  source: RenderSource,
): ManifestFile {
  const data: Record<string, string> = {};
  for (const [node, config] of [...configs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    data[`${node}.yaml`] =
      `# vppnet-agent config of Kubernetes node ${node} (schema: src/config/model.ts), rendered from\n` +
      `# ${source.valuesFiles}; services: is the same on every node (serviceBridge).\n` +
      toPlainYaml(config);
  }
  const cm: IConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: NAMES.agentConfig, namespace: values.namespace, labels: labels(NAMES.agent, 'agent') },
    data,
  };
  return {
    name: '20-agent-config.yaml',
    docs: [
      {
        object: cm,
        comment: [
          'One vppnet-agent config per hypervisor, keyed `<Kubernetes node name>.yaml`: the agent on node N reads',
          `${CONFIG_MOUNT_DIR}/N.yaml. The agent watches the mounted directory and applies an updated ConfigMap`,
          'by itself within about a minute (kubelet sync), without a restart. An invalid config is reported',
          '(/readyz, log) and the last good one stays in force. A hypervisor without a key runs an agent that',
          "is not Ready and says why. Keep the whole ConfigMap under 1 MiB (Kubernetes' limit).",
        ].join('\n'),
      },
    ],
  };
}

function agentDaemonSet(values: Values): Commented<IDaemonSet> {
  const { agent, image, placement, host, metrics } = values;
  const imageRef = `${image.repository}:${image.tag}`;
  const selector = { 'app.kubernetes.io/name': NAMES.agent };
  const listen = `${agent.listen.host.includes(':') ? `[${agent.listen.host}]` : agent.listen.host}:${agent.listen.port}`;
  const vppDir = dirname(host.vppApiSocket);

  const installCni: IContainer = {
    name: 'install-cni',
    image: imageRef,
    imagePullPolicy: image.pullPolicy,
    command: [IMAGE.cliCommand, 'install-cni', '--source', IMAGE.cniBinary, '--dest', CNI_BIN_MOUNT],
    resources: resources(agent.installCniResources),
    securityContext: {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    },
    volumeMounts: [{ name: 'cni-bin', mountPath: CNI_BIN_MOUNT }],
  };

  const probe = (path: string) => ({
    httpGet: { host: '127.0.0.1', path, port: agent.listen.port, scheme: 'HTTP' as const },
  });
  const etcd = values.datastore.mode === 'etcd' ? values.datastore.etcd : undefined;
  const agentContainer: IContainer = {
    name: 'agent',
    image: imageRef,
    imagePullPolicy: image.pullPolicy,
    command: [IMAGE.agentCommand],
    args: [
      // File mode: this node's entry of the ConfigMap. Fleet mode: no --config, no ConfigMap; the
      // node's records in etcd, as the environment below says.
      ...(etcd === undefined
        ? ['--config', `${CONFIG_MOUNT_DIR}/$(NODE_NAME).yaml`]
        : [DATASTORE_FLAG.flag, DATASTORE_FLAG.etcd]),
      '--vpp-socket',
      host.vppApiSocket,
      '--state-dir',
      HOST_PATHS.stateDir,
      '--listen',
      listen,
      '--drift-interval',
      agent.driftInterval,
      '--log-level',
      agent.logLevel,
      // Brackets: the one form parseListenAddress takes for an IPv4 and an IPv6 host IP alike.
      ...(metrics.serviceMonitor ? [METRICS_LISTEN_FLAG, `[$(${HOST_IP_ENV})]:${metrics.port}`] : []),
      // The node's own password: the kubelet expands $(VPPNET_NODE_NAME) from the env below.
      ...(etcd?.perNodeUsers !== undefined
        ? [CONNECTION_FLAGS.passwordFile, `${ETCD_USERS_MOUNT_DIR}/$(${FLEET_ENV.nodeName})`]
        : []),
    ],
    env: [
      ...(etcd === undefined
        ? [{ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }]
        : fleetEnv(etcd)),
      ...(agent.nodeOptions !== '' ? [{ name: 'NODE_OPTIONS', value: agent.nodeOptions }] : []),
      ...(metrics.serviceMonitor
        ? [{ name: HOST_IP_ENV, valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } }]
        : []),
    ],
    ports: [
      { name: 'metrics', containerPort: agent.listen.port, protocol: 'TCP' },
      ...(metrics.serviceMonitor
        ? [{ name: METRICS_PORT_NAME, containerPort: metrics.port, protocol: 'TCP' as const }]
        : []),
    ],
    readinessProbe: { ...probe('/readyz'), periodSeconds: 10, timeoutSeconds: 2, failureThreshold: 3 },
    livenessProbe: {
      ...probe('/healthz'),
      initialDelaySeconds: 10,
      periodSeconds: 10,
      timeoutSeconds: 5,
      failureThreshold: 6,
    },
    resources: resources(agent.resources),
    securityContext: { privileged: true, readOnlyRootFilesystem: true },
    volumeMounts: [
      ...(etcd === undefined
        ? [{ name: 'config', mountPath: CONFIG_MOUNT_DIR, readOnly: true }]
        : etcd.tlsSecretName !== undefined
          ? [{ name: 'etcd-tls', mountPath: ETCD_TLS_MOUNT_DIR, readOnly: true }]
          : []),
      ...(etcd?.perNodeUsers !== undefined
        ? [{ name: 'etcd-users', mountPath: ETCD_USERS_MOUNT_DIR, readOnly: true }]
        : []),
      { name: 'vpp-api', mountPath: vppDir },
      { name: 'netns', mountPath: HOST_PATHS.netnsDir, mountPropagation: 'HostToContainer' },
      { name: 'state', mountPath: HOST_PATHS.stateDir },
      { name: 'run', mountPath: HOST_PATHS.runDir },
      { name: 'agent-api', mountPath: HOST_PATHS.agentApiDir },
      { name: 'tmp', mountPath: '/tmp' },
    ],
  };

  const hostDir = (name: string, path: string): IVolume => ({
    name,
    hostPath: { path, type: 'DirectoryOrCreate' },
  });
  const podSpec: IPodSpec = {
    serviceAccountName: NAMES.agent,
    automountServiceAccountToken: false,
    priorityClassName: agent.priorityClassName,
    hostNetwork: true,
    hostPID: false,
    hostIPC: false,
    terminationGracePeriodSeconds: agent.terminationGracePeriodSeconds,
    nodeSelector: { ...placement.nodeSelector },
    ...(placement.affinity !== undefined && { affinity: placement.affinity }),
    tolerations: placement.tolerations.map((t) => ({ ...t })),
    ...(values.imagePullSecrets.length > 0 && {
      imagePullSecrets: values.imagePullSecrets.map((name) => ({ name })),
    }),
    initContainers: [installCni],
    containers: [agentContainer],
    volumes: [
      ...(etcd === undefined
        ? [{ name: 'config', configMap: { name: NAMES.agentConfig } }]
        : etcd.tlsSecretName !== undefined
          ? [etcdTlsVolume(etcd.tlsSecretName)]
          : []),
      ...(etcd?.perNodeUsers !== undefined
        ? // Every node's password is in it; only the agent (root) reads its own.
          [{ name: 'etcd-users', secret: { secretName: etcd.perNodeUsers.secretName, defaultMode: 0o400 } }]
        : []),
      hostDir('vpp-api', vppDir),
      hostDir('cni-bin', host.cniBinDir),
      hostDir('netns', HOST_PATHS.netnsDir),
      hostDir('state', HOST_PATHS.stateDir),
      hostDir('run', HOST_PATHS.runDir),
      hostDir('agent-api', HOST_PATHS.agentApiDir),
      { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } },
    ],
  };

  const ds: IDaemonSet = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: NAMES.agent, namespace: values.namespace, labels: labels(NAMES.agent, 'agent') },
    spec: {
      selector: { matchLabels: selector },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      minReadySeconds: agent.minReadySeconds,
      template: { metadata: { labels: labels(NAMES.agent, 'agent') }, spec: podSpec },
    },
  };

  const pod = ['spec', 'template', 'spec'];
  const agentAt = [...pod, 'containers', 0];
  const mountIndex = (name: string) => agentContainer.volumeMounts?.findIndex((m) => m.name === name) ?? -1;
  const volumeIndex = (name: string) => podSpec.volumes?.findIndex((v) => v.name === name) ?? -1;
  return {
    object: ds,
    comment: [
      "vppnet-agent, one per hypervisor: programs the node's VPP (SRv6 VPC overlay, service bridge) through",
      `${host.vppApiSocket}, serves vppnet-cni on ${AGENT_SOCKET} and the service pods' read-only service map on`,
      `${SERVICE_MAP_SOCKET}.`,
    ].join('\n'),
    comments: [
      {
        path: ['spec', 'updateStrategy'],
        text: [
          'One node at a time, and never two agents on one node (maxSurge 0): both would program the same VPP,',
          `and the second could not listen on port ${agent.listen.port} (hostNetwork). The next node waits until this`,
          "node's new agent is Ready (VPP connected, config applied) for minReadySeconds, so a release that",
          'cannot program VPP stops at the first node.',
          '',
          'The CNI binary is never missing during a rolling update. Nothing removes vppnet-cni from the host',
          'CNI bin directory: there is deliberately no preStop hook and no cleanup on exit that deletes it,',
          "so it stays while the agent's pod is replaced; the new pod's install-cni init container then",
          'replaces it atomically (temp file in the same directory, fsync, rename), so a runtime calling it',
          'mid-update runs the old or the new binary, never a partial one. While no agent runs on the node,',
          'the plugin answers CNI error 11 (try again later) and the kubelet retries the pod sandbox.',
        ].join('\n'),
      },
      {
        path: [...pod, 'priorityClassName'],
        text: "Evicted last and scheduled ahead of ordinary pods: the node's VMs and service pods depend on it.",
      },
      {
        path: [...pod, 'hostNetwork'],
        text: [
          "hostNetwork: veth pairs for pods are created in the node's network namespace, where VPP takes them.",
          "hostPID stays off: pods' network namespaces are entered through their /run/netns bind mounts",
          '(containerd, CRI-O), never through /proc/<pid>/ns/net.',
        ].join('\n'),
      },
      {
        path: [...pod, 'terminationGracePeriodSeconds'],
        text: 'On SIGTERM the agent stops within 25 s and leaves VPP programmed: VMs keep their traffic meanwhile.',
      },
      {
        path: [...pod, 'nodeSelector'],
        text: [
          'Placeholder (placement.nodeSelector / placement.affinity): run on hypervisors only, e.g. after',
          '`kubectl label node NAME vppnet.io/hypervisor=true`. Tolerations: every taint a hypervisor may carry.',
        ].join('\n'),
      },
      {
        path: [...pod, 'initContainers', 0],
        text: [
          `Installs ${IMAGE.cniBinary} as ${host.cniBinDir}/${CNI_TYPE} on the host: written to a temp file in`,
          'that directory, fsynced, renamed over the old one. Needs no privilege: root owns the directory.',
        ].join('\n'),
      },
      {
        path: [...agentAt, 'readinessProbe'],
        text: [
          'host 127.0.0.1: with hostNetwork the kubelet would otherwise probe the node IP, where the agent does not',
          'listen. /readyz: config valid, VPP connected, last reconcile done; /healthz only needs the event loop,',
          'so a VPP restart never makes the kubelet restart a healthy agent.',
          ...(etcd !== undefined
            ? [
                'Fleet mode: not Ready until the records are listed and the node record is valid, nor while etcd',
                'is unreachable (VPP keeps the last good state meanwhile; the agent reconnects by itself).',
              ]
            : []),
        ].join('\n'),
      },
      {
        path: [...agentAt, 'resources'],
        text: 'The agent targets an RSS below 150 MB; the limit leaves room for a full resync.',
      },
      {
        path: [...agentAt, 'securityContext'],
        text: [
          "privileged: the agent creates veth pairs (CAP_NET_ADMIN), moves one end into a pod's network namespace",
          'and enters it with nsenter (setns needs CAP_SYS_ADMIN and is refused by the default seccomp and',
          "AppArmor profiles), and talks to VPP's root-owned API socket. Root for the same reasons (Dockerfile).",
        ].join('\n'),
      },
      {
        path: [...agentAt, 'volumeMounts', mountIndex('netns')],
        text: "HostToContainer: the runtime mounts each new pod's netns under /run/netns after this container started.",
      },
      ...(etcd === undefined
        ? [
            {
              path: [...pod, 'volumes', volumeIndex('config')],
              text: 'The whole ConfigMap as a directory (no subPath), so updates reach the running agent.',
            },
          ]
        : [
            {
              path: [...agentAt, 'env'],
              text: [
                "Fleet mode: the agent takes its node's records from etcd (docs/datastore.md). Its node name is",
                'the Kubernetes node name, the key of its node record (nodes/NAME) and of its ports (ports/NAME/).',
              ].join('\n'),
            },
            ...(etcd.tlsSecretName !== undefined
              ? [
                  {
                    path: [...pod, 'volumes', volumeIndex('etcd-tls')],
                    text: [
                      `The etcd client certificate: Secret ${etcd.tlsSecretName} with ${ETCD_TLS_KEYS.ca}, ${ETCD_TLS_KEYS.cert} and ${ETCD_TLS_KEYS.key}`,
                      '(kubernetes.io/tls plus ca.crt, as cert-manager issues it). Only these keys, readable by root only',
                      '(defaultMode 256 = 0400);',
                      'a missing key keeps the pod from starting, so a wrong Secret is seen at once.',
                    ].join('\n'),
                  },
                ]
              : []),
          ]),
      {
        path: [...pod, 'volumes', volumeIndex('vpp-api')],
        text: "VPP's API socket directory, not the socket: VPP recreates the socket when it restarts.",
      },
      {
        path: [...pod, 'volumes', volumeIndex('cni-bin')],
        text: 'Mounted by the init container only.',
      },
      {
        path: [...pod, 'volumes', volumeIndex('run')],
        text: `The VMs' vhost-user sockets, and ${SERVICE_MAP_SOCKET} (mode 0666, GET /v1/service-map only).`,
      },
      {
        path: [...pod, 'volumes', volumeIndex('agent-api')],
        text: `${AGENT_SOCKET}, where vppnet-cni on the host reaches the agent: the directory is 0700 and no pod mounts it.`,
      },
    ],
  };
}

/** Fleet mode's settings, as the environment variables the agent and `vppnet datastore` read. */
function fleetEnv(etcd: EtcdValues): NonNullable<IContainer['env']> {
  const file = (key: string) => `${ETCD_TLS_MOUNT_DIR}/${key}`;
  return [
    { name: FLEET_ENV.nodeName, valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
    { name: FLEET_ENV.endpoints, value: etcd.endpoints.join(',') },
    { name: FLEET_ENV.prefix, value: etcd.prefix },
    ...(etcd.tlsSecretName !== undefined
      ? [
          { name: FLEET_ENV.ca, value: file(ETCD_TLS_KEYS.ca) },
          { name: FLEET_ENV.cert, value: file(ETCD_TLS_KEYS.cert) },
          { name: FLEET_ENV.key, value: file(ETCD_TLS_KEYS.key) },
        ]
      : []),
    ...(etcd.auth !== undefined
      ? [
          { name: FLEET_ENV.user, value: etcd.auth.user },
          {
            name: FLEET_ENV.password,
            valueFrom: {
              secretKeyRef: { name: etcd.auth.passwordSecret.name, key: etcd.auth.passwordSecret.key },
            },
          },
        ]
      : []),
    ...(etcd.perNodeUsers !== undefined
      ? [{ name: FLEET_ENV.user, value: `${etcd.perNodeUsers.userPrefix}$(${FLEET_ENV.nodeName})` }]
      : []),
  ];
}

function etcdTlsVolume(secretName: string): IVolume {
  return {
    name: 'etcd-tls',
    secret: {
      secretName,
      // 0400: the agent runs as root; nobody else in the pod needs the key.
      defaultMode: 0o400,
      items: Object.values(ETCD_TLS_KEYS).map((key) => ({ key, path: key })),
    },
  };
}

const SERVICE_NAMES: Readonly<Record<ExampleService, { nad: string; container: string; title: string }>> = {
  dhcp: { nad: 'vppnet-dhcp', container: 'dhcp', title: 'DHCP' },
  dnsProxy: { nad: 'vppnet-dns-proxy', container: 'dns-proxy', title: 'DNS-proxy' },
  metadata: { nad: 'vppnet-metadata', container: 'metadata', title: 'metadata' },
};

/** The example service pods' user and group: nobody, as in Debian and most images. */
const EXAMPLE_SERVICE_UID = 65534;

/**
 * serviceBridge as the agents get it: unless the values say otherwise, services.networks names the
 * NetworkAttachmentDefinitions rendered here, so each service network holds only its own address.
 */
export function renderedServiceBridge(values: Values): Record<string, unknown> {
  const raw = values.serviceBridge;
  if (raw.networks !== undefined) return { ...raw };
  return {
    ...raw,
    networks: {
      metadata: SERVICE_NAMES.metadata.nad,
      ...(raw.dnsAddress !== undefined && { dns: SERVICE_NAMES.dnsProxy.nad }),
      ...(raw.dhcpServer !== undefined && { dhcp: SERVICE_NAMES.dhcp.nad }),
    },
  };
}

/** The services configured on the bridge, each with its pod's address. */
export function serviceAddresses(
  services: ServicesConfig,
): { service: ExampleService; nad: string; address: string; address6?: string }[] {
  const out: { service: ExampleService; nad: string; address: string; address6?: string }[] = [];
  const ip6 = services.ip6;
  if (services.dhcpServer !== undefined)
    out.push({ service: 'dhcp', nad: SERVICE_NAMES.dhcp.nad, address: services.dhcpServer });
  if (services.dnsAddress !== undefined)
    out.push({
      service: 'dnsProxy',
      nad: SERVICE_NAMES.dnsProxy.nad,
      address: services.dnsAddress,
      ...(ip6?.dnsAddress !== undefined && { address6: ip6.dnsAddress }),
    });
  out.push({
    service: 'metadata',
    nad: SERVICE_NAMES.metadata.nad,
    address: services.metadataAddress,
    ...(ip6 && { address6: ip6.metadataAddress }),
  });
  return out;
}

function networkAttachmentsFile(values: Values, services: ServicesConfig): ManifestFile {
  const sn = values.serviceNetworks;
  const gw = services.gateway;
  const vms = services.vmAddressRange;
  const ip6 = services.ip6;
  const docs = serviceAddresses(services).map(
    ({ service, nad, address, address6 }): Commented<NetworkAttachmentDefinition> => {
      // With services.ip6 the metadata and DNS pods hold their IPv6 address too, and route the
      // VMs' IPv6 service addresses via the bridge's IPv6 gateway.
      const six = address6 !== undefined && ip6 ? ip6 : undefined;
      const ipam: StaticIpam = {
        type: sn.ipamType,
        addresses: [
          { address: `${address}/${gw.len}`, gateway: gw.address },
          ...(six ? [{ address: `${address6}/${six.gateway.len}`, gateway: six.gateway.address }] : []),
        ],
        routes: [
          { dst: `${vms.address}/${vms.len}`, gw: gw.address },
          ...(six
            ? [{ dst: `${six.vmAddressRange.address}/${six.vmAddressRange.len}`, gw: six.gateway.address }]
            : []),
        ],
      };
      const config = {
        cniVersion: sn.cniVersion,
        name: nad,
        type: CNI_TYPE,
        mode: sn.mode,
        ...(sn.mtu !== undefined && { mtu: sn.mtu }),
        ipam,
      };
      const object: NetworkAttachmentDefinition = {
        apiVersion: NAD_API_VERSION,
        kind: NAD_KIND,
        metadata: { name: nad, namespace: values.namespace, labels: labels(nad, 'service-network') },
        spec: { config: `${JSON.stringify(config, null, 2)}\n` },
      };
      const problems = checkNetworkAttachment(object);
      if (problems.length > 0)
        throw new ValuesError(
          problems.map((message) => ({ path: `serviceNetworks (${nad})`, message })),
          'render',
        );
      return {
        object,
        comment: `The ${SERVICE_NAMES[service].title} pod's interface on each hypervisor's service bridge: ${address}${six ? ` and ${address6}` : ''}.`,
      };
    },
  );
  const first = docs[0]?.object.metadata.name ?? '';
  return {
    name: '40-service-networks.yaml',
    docs: docs.map((d, i) =>
      i > 0
        ? d
        : {
            ...d,
            comment: [
              'Service networks for Multus: a pod that names one in its annotation',
              `  ${MULTUS_NETWORKS_ANNOTATION}: '[{"name":"${first}","namespace":"${values.namespace}","interface":"${sn.podInterface}"}]'`,
              'gets a second interface on the service bridge of its own node, besides its Cilium eth0. Every',
              'hypervisor has its own bridge, so the same address on every node is no conflict. IPAM is the',
              `reference '${sn.ipamType}' plugin, which must be in the CNI bin directory next to vppnet-cni.`,
              '',
              d.comment ?? '',
            ].join('\n'),
          },
    ),
  };
}

function exampleServicesFile(values: Values, services: ServicesConfig): ManifestFile {
  const sa: IServiceAccount = {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: {
      name: NAMES.serviceExamples,
      namespace: values.namespace,
      labels: labels(NAMES.serviceExamples, 'example-service'),
    },
    automountServiceAccountToken: false,
  };
  const ports: Record<ExampleService, NonNullable<IContainer['ports']>> = {
    dhcp: [{ name: 'dhcp', containerPort: 67, protocol: 'UDP' }],
    dnsProxy: [
      { name: 'dns', containerPort: 53, protocol: 'UDP' },
      { name: 'dns-tcp', containerPort: 53, protocol: 'TCP' },
    ],
    metadata: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
  };
  const docs: Commented<ManifestObject>[] = [
    { object: sa, comment: 'Example service pods: no Kubernetes API access either.' },
  ];
  for (const { service, nad, address } of serviceAddresses(services)) {
    const ex = values.examples.services[service];
    const name = `vppnet-example-${SERVICE_NAMES[service].container}`;
    // DHCP and metadata look callers up in the agent's service map (GET /v1/service-map on its socket).
    const needsServiceMap = service !== 'dnsProxy';
    const container: IContainer = {
      name: SERVICE_NAMES[service].container,
      image: ex.image,
      ...(ex.command !== undefined && { command: [...ex.command] }),
      ...(ex.args.length > 0 && { args: [...ex.args] }),
      env: [
        { name: 'SERVICE_ADDRESS', value: address },
        { name: 'SERVICE_INTERFACE', value: values.serviceNetworks.podInterface },
        ...(needsServiceMap ? [{ name: 'VPPNET_SERVICE_MAP_SOCKET', value: SERVICE_MAP_SOCKET }] : []),
      ],
      ports: ports[service],
      resources: resources(values.examples.resources),
      // Not root: the service-map socket is readable by anyone who can reach its directory, and the
      // pod's own sysctl (below) lets it bind 53, 67 and 80 without a capability.
      securityContext: {
        runAsNonRoot: true,
        runAsUser: EXAMPLE_SERVICE_UID,
        runAsGroup: EXAMPLE_SERVICE_UID,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      },
      ...(needsServiceMap && {
        volumeMounts: [{ name: 'vppnet-service-map', mountPath: HOST_PATHS.serviceMapDir, readOnly: true }],
      }),
    };
    const selection = [
      { name: nad, namespace: values.namespace, interface: values.serviceNetworks.podInterface },
    ];
    const ds: IDaemonSet = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name, namespace: values.namespace, labels: labels(name, 'example-service') },
      spec: {
        selector: { matchLabels: { 'app.kubernetes.io/name': name } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
        template: {
          metadata: {
            labels: labels(name, 'example-service'),
            annotations: { [MULTUS_NETWORKS_ANNOTATION]: JSON.stringify(selection) },
          },
          spec: {
            serviceAccountName: NAMES.serviceExamples,
            automountServiceAccountToken: false,
            // The DNS proxy forwards to the node's resolvers, never to cluster DNS: tenants' VMs must
            // not resolve the cluster's internal names.
            ...(service === 'dnsProxy' && { dnsPolicy: 'Default' as const }),
            nodeSelector: { ...values.placement.nodeSelector },
            ...(values.placement.affinity !== undefined && { affinity: values.placement.affinity }),
            tolerations: values.placement.tolerations.map((t) => ({ ...t })),
            // Per pod network namespace, a safe sysctl since Kubernetes 1.22: low ports without root.
            securityContext: { sysctls: [{ name: 'net.ipv4.ip_unprivileged_port_start', value: '0' }] },
            containers: [container],
            ...(needsServiceMap && {
              volumes: [
                {
                  name: 'vppnet-service-map',
                  hostPath: { path: HOST_PATHS.serviceMapDir, type: 'DirectoryOrCreate' as const },
                },
              ],
            }),
          },
        },
      },
    };
    docs.push({
      object: ds,
      comment: [
        `Example ${SERVICE_NAMES[service].title} service: one pod per hypervisor (each node's VMs reach only their own node's`,
        `bridge), with its Cilium eth0 as usual plus ${values.serviceNetworks.podInterface} = ${address} on the bridge.`,
        'maxSurge 0: an old and a new pod on one node would hold the same address on the same bridge.',
        ...(needsServiceMap
          ? [
              `It reads the agent's service map (which VM is behind a 169.252.252.x source) on ${SERVICE_MAP_SOCKET},`,
              'mounting that directory alone, read-only: the socket answers GET /v1/service-map and nothing else. The',
              "agent's privileged socket (attach, detach, gc) is in a directory no pod mounts.",
            ]
          : []),
        'Replace the image (examples.*.image); the server must bind to SERVICE_ADDRESS.',
      ].join('\n'),
    });
  }
  return { name: '50-service-examples.yaml', docs };
}

function metricsFile(values: Values, source: RenderSource): ManifestFile {
  const agentLabels = labels(NAMES.agent, 'agent');
  const docs: Commented<ManifestObject>[] = [];
  if (values.metrics.serviceMonitor) {
    docs.push({
      object: metricsService(values, agentLabels),
      comment: [
        `Every agent's /metrics on its node's IP, port ${values.metrics.port} (--metrics-listen; /healthz, /readyz and`,
        '/status stay on 127.0.0.1). Headless: Prometheus scrapes each agent. The agents use the host',
        "network, so this port is open on the node's IP: restrict it to Prometheus in the node's firewall.",
      ].join('\n'),
    });
    docs.push({
      object: serviceMonitor(values, agentLabels),
      comment:
        'For the Prometheus Operator (its CRDs must be installed). `node` is the Kubernetes node name.',
    });
  }
  if (values.metrics.prometheusRule) {
    if (source.alertRules === undefined)
      throw new ValuesError(
        [
          {
            path: 'metrics.prometheusRule',
            message: 'needs deploy/monitoring/vppnet-alerts.yaml (not given to the renderer)',
          },
        ],
        'render',
      );
    docs.push({
      object: prometheusRule(values, agentLabels, source.alertRules),
      comment:
        'deploy/monitoring/vppnet-alerts.yaml as a PrometheusRule; runbooks: docs/operations.md "Troubleshooting".',
    });
  }
  return { name: '60-agent-metrics.yaml', docs };
}

/** All files of one installation, in apply order. Throws ValuesError for a bad node config. */
export function renderManifests(values: Values, source: RenderSource): ManifestFile[] {
  const fleet = values.datastore.mode === 'etcd';
  // Fleet mode: no per-node config, no ConfigMap; the service bridge is checked on its own and
  // must equal the node records' `services` (deploy/README.md).
  const { configs, services } = fleet
    ? { configs: undefined, services: serviceBridgeConfig(values) }
    : nodeConfigs(values);
  const files = [
    namespaceFile(values),
    serviceAccountFile(values),
    ...(configs !== undefined ? [configMapFile(values, configs, source)] : []),
    { name: '30-agent-daemonset.yaml', docs: [agentDaemonSet(values)] },
    networkAttachmentsFile(values, services),
  ];
  if (values.examples.enabled) files.push(exampleServicesFile(values, services));
  if (values.metrics.serviceMonitor || values.metrics.prometheusRule) files.push(metricsFile(values, source));
  return files;
}

/** File name → YAML text. */
export function renderFiles(values: Values, source: RenderSource): Map<string, string> {
  const header = [
    `Rendered by deploy/render from ${source.valuesFiles}.`,
    'Do not edit: change the values and run `npm run deploy:render` (see deploy/README.md).',
  ].join('\n');
  return new Map(renderManifests(values, source).map((f) => [f.name, toYamlFile(header, f.docs)]));
}
