/**
 * The agent's DaemonSet (30-agent-daemonset.yaml): the CNI installer and the agent containers,
 * their host mounts, probes and security context, and in fleet mode the etcd connection as
 * environment variables and mounted Secrets. The largest object rendered, and the one that must
 * match what the agent reads (contract.ts).
 */
import type { IDaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import { CONNECTION_FLAGS } from '../../src/datastore/connection-flags.js';
import {
  AGENT_SOCKET,
  CNI_BIN_MOUNT,
  CNI_TYPE,
  CONFIG_MOUNT_DIR,
  DATASTORE_FLAG,
  ETCD_TLS_KEYS,
  ETCD_TLS_MOUNT_DIR,
  ETCD_USERS_MOUNT_DIR,
  FLEET_ENV,
  HOST_IP_ENV,
  HOST_PATHS,
  IMAGE,
  METRICS_LISTEN_FLAG,
  METRICS_PORT_NAME,
  NAMES,
  SERVICE_MAP_SOCKET,
} from './contract.js';
import { labels, resources } from './object-parts.js';
import type { EtcdValues, Values } from './values.js';
import type { Commented } from './yaml-out.js';

function dirname(path: string): string {
  return path.slice(0, path.lastIndexOf('/'));
}

export function agentDaemonSet(values: Values): Commented<IDaemonSet> {
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
