/**
 * The committed manifests (deploy/manifests/<overlay>/) as the manifests tests read them back from
 * disk, and the checks they share: the Kubernetes API schemas (kubernetes-models' bundled JSON
 * schemas, offline), lookups by kind and name, and the agent's own flag parser on a DaemonSet.
 */
import { join } from 'node:path';
import { DaemonSet, type IDaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { ConfigMap, type IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { parseAgentFlags, type AgentFlags } from '../../../src/agent/agent-flags.js';
import { NAD_KIND, NAMES } from '../../../deploy/render/contract.js';
import {
  MANIFESTS_DIR,
  loadManifestDirectory,
  overlayValues,
  type ManifestDocument,
} from '../../../deploy/render/overlays.js';

export type Obj = Record<string, unknown>;

/** kubernetes-models' classes validate against the API's JSON schema and throw a ValidationError. */
export const SCHEMAS: Readonly<Record<string, (o: Obj) => void>> = {
  'v1/Namespace': (o) => new Namespace(o).validate(),
  'v1/ServiceAccount': (o) => new ServiceAccount(o).validate(),
  'v1/ConfigMap': (o) => new ConfigMap(o).validate(),
  'apps/v1/DaemonSet': (o) => new DaemonSet(o).validate(),
  'rbac.authorization.k8s.io/v1/Role': (o) => new Role(o).validate(),
  'rbac.authorization.k8s.io/v1/ClusterRole': (o) => new ClusterRole(o).validate(),
  'rbac.authorization.k8s.io/v1/RoleBinding': (o) => new RoleBinding(o as never).validate(),
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': (o) => new ClusterRoleBinding(o as never).validate(),
};

export const kindOf = (o: Obj) => `${String(o.apiVersion)}/${String(o.kind)}`;
export const nameOf = (o: Obj) => String((o.metadata as Obj | undefined)?.name);

export function byKind<T>(docs: readonly ManifestDocument[], kind: string): T[] {
  return docs.filter((d) => d.object.kind === kind).map((d) => d.object as T);
}

export function allContainers(ds: IDaemonSet): IContainer[] {
  const pod = ds.spec?.template.spec;
  return [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])];
}

/** Every string anywhere in a value. */
export function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v !== null && typeof v === 'object') return Object.values(v).flatMap(strings);
  return [];
}

/** Does the value contain this key anywhere? */
export function hasKey(v: unknown, key: string): boolean {
  if (Array.isArray(v)) return v.some((x) => hasKey(x, key));
  if (v !== null && typeof v === 'object')
    return Object.entries(v).some(([k, x]) => k === key || hasKey(x, key));
  return false;
}

/**
 * The agent's own parser on the DaemonSet's args and env, as the kubelet would give them: the
 * downward API's node name is node-1, a Secret's value "secret".
 */
export function agentFlagsOf(
  args: readonly string[],
  env: readonly { name: string; value?: string; valueFrom?: unknown }[],
): AgentFlags | 'help' | 'version' {
  const environment: NodeJS.ProcessEnv = {};
  for (const e of env) {
    const from = e.valueFrom as { fieldRef?: { fieldPath?: string }; secretKeyRef?: unknown } | undefined;
    environment[e.name] =
      e.value ??
      (from?.fieldRef?.fieldPath === 'spec.nodeName' ? 'node-1' : from?.secretKeyRef ? 'secret' : '');
  }
  return parseAgentFlags(
    args.map((a) => a.replace('$(NODE_NAME)', 'node-1')),
    environment,
  );
}

export const isUnder = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);
export const parentDir = (path: string) => path.slice(0, path.lastIndexOf('/'));

/** What every test of an overlay reads: its objects, values and the ones looked at most. */
export function overlayManifests(overlay: string) {
  const docs = loadManifestDirectory(join(MANIFESTS_DIR, overlay));
  const values = overlayValues(overlay);
  const fleet = values.datastore.mode === 'etcd' ? values.datastore.etcd : undefined;
  const namespaces = byKind<Obj>(docs, 'Namespace');
  const namespace = nameOf(namespaces[0] ?? {});
  const daemonSets = byKind<IDaemonSet>(docs, 'DaemonSet');
  const agent = daemonSets.find((d) => d.metadata?.name === NAMES.agent);
  const configMap = byKind<IConfigMap>(docs, 'ConfigMap').find((c) => c.metadata?.name === NAMES.agentConfig);
  const nads = docs.filter((d) => d.object.kind === NAD_KIND).map((d) => d.object);
  return { docs, values, fleet, namespaces, namespace, daemonSets, agent, configMap, nads };
}
