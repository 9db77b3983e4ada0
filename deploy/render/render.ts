/**
 * Values → the Kubernetes objects of one installation, grouped into the files of
 * deploy/manifests/<overlay>/. Pure: no file system, no clock; the same values always give the
 * same bytes (test/deploy checks the committed files against it).
 *
 * Every hypervisor's agent config is checked here with the agent's own validator, after the
 * shared service bridge is merged into it, so a bad config fails the render and never reaches a
 * cluster.
 *
 * Here: the node configs and the small files (namespace, service account, ConfigMap, metrics);
 * the agent's DaemonSet is agent-daemonset.ts, the service networks service-networks.ts, the
 * example service pods example-services.ts.
 */
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { INamespace } from 'kubernetes-models/v1/Namespace';
import type { IServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IDaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import type { ServicesConfig } from '../../src/config/model.js';
import {
  Checker as ConfigChecker,
  ConfigError,
  validateConfig,
  validateServices,
} from '../../src/config/validate.js';
import { agentDaemonSet } from './agent-daemonset.js';
import { CONFIG_MOUNT_DIR, HOST_PATHS, NAMES } from './contract.js';
import { exampleServicesFile } from './example-services.js';
import {
  metricsService,
  prometheusRule,
  serviceMonitor,
  type AlertRules,
  type PrometheusRule,
  type ServiceMonitor,
} from './metrics-objects.js';
import type { NetworkAttachmentDefinition } from './nad.js';
import { labels } from './object-parts.js';
import { networkAttachmentsFile, renderedServiceBridge } from './service-networks.js';
import { ValuesError, type Values } from './values.js';
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
