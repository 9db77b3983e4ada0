/**
 * The objects of `metrics.serviceMonitor` / `metrics.prometheusRule`: a headless Service over the
 * agents' node-IP metrics listeners, the Prometheus Operator's ServiceMonitor for it, and the
 * alert rules as a PrometheusRule. The operator's CRDs are not in kubernetes-models, so their
 * shapes are typed here, with the fields we set only.
 */
import type { IService } from 'kubernetes-models/v1/Service';
import { METRICS_PORT_NAME, NAMES } from './contract.js';
import type { Values } from './values.js';

export const MONITORING_API_VERSION = 'monitoring.coreos.com/v1';

export interface ServiceMonitor {
  readonly apiVersion: typeof MONITORING_API_VERSION;
  readonly kind: 'ServiceMonitor';
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels: Record<string, string>;
  };
  readonly spec: {
    readonly selector: { readonly matchLabels: Record<string, string> };
    readonly namespaceSelector: { readonly matchNames: readonly string[] };
    readonly endpoints: readonly {
      readonly port: string;
      readonly path: string;
      readonly scheme: 'http';
      readonly interval: string;
      readonly relabelings: readonly {
        readonly sourceLabels: readonly string[];
        readonly targetLabel: string;
        readonly action: 'replace';
      }[];
    }[];
  };
}

/** A Prometheus rules file's contents (deploy/monitoring/vppnet-alerts.yaml), as the CR's spec. */
export interface AlertRules {
  readonly groups: readonly unknown[];
}

export interface PrometheusRule {
  readonly apiVersion: typeof MONITORING_API_VERSION;
  readonly kind: 'PrometheusRule';
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels: Record<string, string>;
  };
  readonly spec: AlertRules;
}

/** The Service's labels: the agent's, plus the component the ServiceMonitor selects. */
export function metricsServiceLabels(agentLabels: Record<string, string>): Record<string, string> {
  return { ...agentLabels, 'app.kubernetes.io/component': 'metrics' };
}

export function metricsService(values: Values, agentLabels: Record<string, string>): IService {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: NAMES.metricsService,
      namespace: values.namespace,
      labels: metricsServiceLabels(agentLabels),
    },
    spec: {
      // Headless: Prometheus scrapes every agent (one Endpoints address per node), never a
      // load-balanced one.
      clusterIP: 'None',
      selector: { 'app.kubernetes.io/name': NAMES.agent },
      ports: [
        {
          name: METRICS_PORT_NAME,
          port: values.metrics.port,
          targetPort: values.metrics.port,
          protocol: 'TCP',
        },
      ],
    },
  };
}

export function serviceMonitor(values: Values, agentLabels: Record<string, string>): ServiceMonitor {
  return {
    apiVersion: MONITORING_API_VERSION,
    kind: 'ServiceMonitor',
    metadata: { name: NAMES.agent, namespace: values.namespace, labels: agentLabels },
    spec: {
      selector: { matchLabels: metricsServiceLabels(agentLabels) },
      namespaceSelector: { matchNames: [values.namespace] },
      endpoints: [
        {
          port: METRICS_PORT_NAME,
          path: '/metrics',
          scheme: 'http',
          interval: values.metrics.interval,
          // The Kubernetes node name on every series: alerts name the hypervisor, not its IP.
          relabelings: [
            { sourceLabels: ['__meta_kubernetes_pod_node_name'], targetLabel: 'node', action: 'replace' },
          ],
        },
      ],
    },
  };
}

export function prometheusRule(
  values: Values,
  agentLabels: Record<string, string>,
  rules: AlertRules,
): PrometheusRule {
  return {
    apiVersion: MONITORING_API_VERSION,
    kind: 'PrometheusRule',
    metadata: { name: NAMES.agent, namespace: values.namespace, labels: agentLabels },
    spec: { groups: rules.groups },
  };
}
