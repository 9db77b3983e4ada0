/**
 * What every rendered object shares: the app.kubernetes.io labels and a container's resources
 * from the values' quantities.
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { ComputeResources } from './values.js';

export type Labels = Record<string, string>;

export function labels(name: string, component: string): Labels {
  return {
    'app.kubernetes.io/name': name,
    'app.kubernetes.io/component': component,
    'app.kubernetes.io/part-of': 'vppnet',
  };
}

export function resources(r: ComputeResources): NonNullable<IContainer['resources']> {
  return {
    requests: { cpu: r.requests.cpu, memory: r.requests.memory },
    limits: { cpu: r.limits.cpu, memory: r.limits.memory },
  };
}
