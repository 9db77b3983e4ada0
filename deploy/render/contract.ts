/**
 * Paths and names that tie the manifests to the image (Dockerfile), the agent (src/agent) and the
 * CNI plugin (src/cni). They are not values: changing one means changing the other side too, and
 * test/deploy checks each pair.
 */
import { DEFAULT_CONFIG_PATH, DEFAULT_STATE_DIR } from '../../src/agent/agent-flags.js';
import { dirname } from 'node:path';
import { DEFAULT_AGENT_SOCKET, DEFAULT_SERVICE_MAP_SOCKET } from '../../src/agent-api/protocol.js';
import { CONNECTION_ENV } from '../../src/datastore/connection-settings.js';

/** Where the Dockerfile puts the things the DaemonSet runs. */
export const IMAGE = {
  /** The agent executable on PATH: its one-file bundle, dist/bundle/vppnet-agent.js (Dockerfile). */
  agentCommand: 'vppnet-agent',
  /** The operator CLI on PATH (dist/src/cli/vppnet.js); the init container runs `vppnet install-cni`. */
  cliCommand: 'vppnet',
  /** The self-contained (Node SEA) vppnet-cni binary that install-cni copies to the host. */
  cniBinary: '/opt/vppnet/bin/vppnet-cni',
} as const;

/** The host directories the agent needs, mounted at the same path inside the container. */
export const HOST_PATHS = {
  /**
   * The pods' network namespaces (containerd and CRI-O pin them here). Same path inside so that
   * CNI_NETNS, which the plugin forwards unchanged, resolves in the agent's container too.
   */
  netnsDir: '/run/netns',
  /** The agent's state across restarts (SRv6 globals, service addresses, attachments). */
  stateDir: DEFAULT_STATE_DIR,
  /** The VMs' vhost-user sockets, and services/ with the service map's socket. */
  runDir: '/run/vppnet',
  /**
   * Holds agent.sock, which vppnet-cni (run by the kubelet's runtime on the host) connects to:
   * mode 0700, mounted by the agent alone.
   */
  agentApiDir: dirname(DEFAULT_AGENT_SOCKET),
  /** Holds service-map.sock: the one host path the service pods mount, read-only. */
  serviceMapDir: dirname(DEFAULT_SERVICE_MAP_SOCKET),
} as const;

/** Where the init container sees the host's CNI bin directory. */
export const CNI_BIN_MOUNT = '/host/opt/cni/bin';

/** The ConfigMap is mounted as a directory with one `<node name>.yaml` per hypervisor. */
export const CONFIG_MOUNT_DIR = '/etc/vppnet/nodes';

export const AGENT_SOCKET = DEFAULT_AGENT_SOCKET;

export const SERVICE_MAP_SOCKET = DEFAULT_SERVICE_MAP_SOCKET;

/** The agent's built-in default, for the documentation: the DaemonSet always passes --config. */
export const AGENT_DEFAULT_CONFIG_PATH = DEFAULT_CONFIG_PATH;

/** The Multus annotation that attaches a pod to additional networks. */
export const MULTUS_NETWORKS_ANNOTATION = 'k8s.v1.cni.cncf.io/networks';

export const NAD_API_VERSION = 'k8s.cni.cncf.io/v1';
export const NAD_KIND = 'NetworkAttachmentDefinition';

/** The CNI plugin's type: the executable's file name in the CNI bin directory. */
export const CNI_TYPE = 'vppnet-cni';

/** Object names. */
export const NAMES = {
  agent: 'vppnet-agent',
  agentConfig: 'vppnet-agent-config',
  serviceExamples: 'vppnet-service-example',
  metricsService: 'vppnet-agent-metrics',
} as const;

/**
 * metrics.serviceMonitor: the agent's second listener (--metrics-listen), on the node's IP from
 * the downward API, and the name of its port in the container, the Service and the ServiceMonitor.
 */
export const METRICS_LISTEN_FLAG = '--metrics-listen';
export const HOST_IP_ENV = 'HOST_IP';
export const METRICS_PORT_NAME = 'node-metrics';

/**
 * Fleet mode (`datastore.mode: etcd`, docs/datastore.md): the agent's datastore settings, passed
 * as environment variables, which the agent (src/agent/agent-flags.ts) and `vppnet datastore`
 * read under the same names.
 */
export const DATASTORE_FLAG = { flag: '--datastore', etcd: 'etcd' } as const;
/**
 * The variables the DaemonSet may set. Not VPPNET_ETCD_INSECURE: a rendered fleet talks to etcd
 * over TLS, or on loopback (values-datastore.ts refuses anything else).
 */
const { insecure: _insecure, ...RENDERED_CONNECTION_ENV } = CONNECTION_ENV;
export const FLEET_ENV = {
  /** The node whose records the agent takes: the Kubernetes node name (downward API). */
  nodeName: 'VPPNET_NODE_NAME',
  ...RENDERED_CONNECTION_ENV,
} as const;

/** Where the per-node etcd users' Secret is mounted, read-only: one file per node name. */
export const ETCD_USERS_MOUNT_DIR = '/etc/vppnet/etcd-users';

/** Where the etcd client Secret is mounted, read-only. */
export const ETCD_TLS_MOUNT_DIR = '/etc/vppnet/etcd';

/** The Secret's keys: a kubernetes.io/tls Secret plus ca.crt, as cert-manager issues it. */
export const ETCD_TLS_KEYS = { ca: 'ca.crt', cert: 'tls.crt', key: 'tls.key' } as const;
