/**
 * The committed manifests (deploy/manifests/<overlay>/), read back from disk as a cluster would get
 * them: every object against the Kubernetes API schemas (kubernetes-models' bundled JSON schemas,
 * offline), the NetworkAttachmentDefinitions against Multus' CRD and vppnet-cni's own config
 * parser, the agent configs against the agent's own validator, and the deployment's invariants.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DaemonSet, type IDaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { ConfigMap, type IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { ServiceAccount, type IServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { parseAgentFlags, type AgentFlags } from '../../src/agent/agent-flags.js';
import { AGENT_CONNECTION_FLAGS, etcdOptionsOf } from '../../src/datastore/connection-settings.js';
import { parseNetworkConfig } from '../../src/cni/config.js';
import { MIN_VERSION_FOR_COMMAND } from '../../src/cni/skel.js';
import { compareVersions } from '../../src/cni/version.js';
import { parseConfig } from '../../src/config/load.js';
import type { AgentConfig } from '../../src/config/model.js';
import {
  AGENT_SOCKET,
  CNI_TYPE,
  DATASTORE_FLAG,
  ETCD_TLS_KEYS,
  ETCD_TLS_MOUNT_DIR,
  FLEET_ENV,
  HOST_PATHS,
  IMAGE,
  MULTUS_NETWORKS_ANNOTATION,
  NAD_KIND,
  NAMES,
} from '../../deploy/render/contract.js';
import { checkNetworkAttachment } from '../../deploy/render/nad.js';
import {
  MANIFESTS_DIR,
  loadManifestDirectory,
  overlayNames,
  overlayValues,
  type ManifestDocument,
} from '../../deploy/render/overlays.js';
import { serviceBridgeConfig } from '../../deploy/render/render.js';
import { parseQuantity } from '../../deploy/render/quantity.js';

type Obj = Record<string, unknown>;

/** kubernetes-models' classes validate against the API's JSON schema and throw a ValidationError. */
const SCHEMAS: Readonly<Record<string, (o: Obj) => void>> = {
  'v1/Namespace': (o) => new Namespace(o).validate(),
  'v1/ServiceAccount': (o) => new ServiceAccount(o).validate(),
  'v1/ConfigMap': (o) => new ConfigMap(o).validate(),
  'apps/v1/DaemonSet': (o) => new DaemonSet(o).validate(),
  'rbac.authorization.k8s.io/v1/Role': (o) => new Role(o).validate(),
  'rbac.authorization.k8s.io/v1/ClusterRole': (o) => new ClusterRole(o).validate(),
  'rbac.authorization.k8s.io/v1/RoleBinding': (o) => new RoleBinding(o as never).validate(),
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': (o) => new ClusterRoleBinding(o as never).validate(),
};

const kindOf = (o: Obj) => `${String(o.apiVersion)}/${String(o.kind)}`;
const nameOf = (o: Obj) => String((o.metadata as Obj | undefined)?.name);

function byKind<T>(docs: readonly ManifestDocument[], kind: string): T[] {
  return docs.filter((d) => d.object.kind === kind).map((d) => d.object as T);
}

function allContainers(ds: IDaemonSet): IContainer[] {
  const pod = ds.spec?.template.spec;
  return [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])];
}

/** Every string anywhere in a value. */
function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v !== null && typeof v === 'object') return Object.values(v).flatMap(strings);
  return [];
}

/** Does the value contain this key anywhere? */
function hasKey(v: unknown, key: string): boolean {
  if (Array.isArray(v)) return v.some((x) => hasKey(x, key));
  if (v !== null && typeof v === 'object')
    return Object.entries(v).some(([k, x]) => k === key || hasKey(x, key));
  return false;
}

/**
 * The agent's own parser on the DaemonSet's args and env, as the kubelet would give them: the
 * downward API's node name is node-1, a Secret's value "secret".
 */
function agentFlagsOf(
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

const isUnder = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);
const parentDir = (path: string) => path.slice(0, path.lastIndexOf('/'));

for (const overlay of overlayNames()) {
  describe(`deploy/manifests/${overlay}`, () => {
    const docs = loadManifestDirectory(join(MANIFESTS_DIR, overlay));
    const values = overlayValues(overlay);
    const fleet = values.datastore.mode === 'etcd' ? values.datastore.etcd : undefined;
    const namespaces = byKind<Obj>(docs, 'Namespace');
    const namespace = nameOf(namespaces[0] ?? {});
    const daemonSets = byKind<IDaemonSet>(docs, 'DaemonSet');
    const agent = daemonSets.find((d) => d.metadata?.name === NAMES.agent);
    const configMap = byKind<IConfigMap>(docs, 'ConfigMap').find(
      (c) => c.metadata?.name === NAMES.agentConfig,
    );
    const nads = docs.filter((d) => d.object.kind === NAD_KIND).map((d) => d.object);

    it('has one Namespace, in the first file, and every other object in it', () => {
      assert.equal(namespaces.length, 1);
      assert.equal(docs[0]?.object.kind, 'Namespace');
      assert.equal(namespace, 'vppnet-system');
      for (const { object } of docs.slice(1)) {
        assert.equal((object.metadata as Obj).namespace, namespace, `${kindOf(object)} ${nameOf(object)}`);
      }
      // The agent is privileged: Pod Security must allow it in this namespace (and only here).
      const labels = (namespaces[0]?.metadata as Obj).labels as Obj;
      assert.equal(labels['pod-security.kubernetes.io/enforce'], 'privileged');
    });

    it('validates every Kubernetes object against the API schema (kubernetes-models)', () => {
      for (const { file, object } of docs) {
        if (object.kind === NAD_KIND) continue;
        const validate = SCHEMAS[kindOf(object)];
        assert.ok(validate, `${file}: no schema for ${kindOf(object)}`);
        assert.doesNotThrow(() => validate(object), `${file}: ${kindOf(object)} ${nameOf(object)}`);
      }
    });

    it('the schema check does catch a bad object', () => {
      const broken = structuredClone(agent) as IDaemonSet;
      const mount = broken.spec?.template.spec?.containers[0]?.volumeMounts?.find((m) => m.name === 'netns');
      assert.ok(mount);
      (mount as unknown as Obj).mountPropagation = 'HostToContainr';
      assert.throws(() => SCHEMAS['apps/v1/DaemonSet']?.(broken as unknown as Obj), /mountPropagation/);
    });

    it('grants no Kubernetes API access: no RBAC objects, no service account tokens', () => {
      const rbac = docs.filter((d) => String(d.object.apiVersion).startsWith('rbac.authorization.k8s.io/'));
      assert.deepEqual(
        rbac.map((d) => kindOf(d.object)),
        [],
      );
      const accounts = byKind<IServiceAccount>(docs, 'ServiceAccount');
      for (const sa of accounts) assert.equal(sa.automountServiceAccountToken, false, sa.metadata?.name);
      for (const ds of daemonSets) {
        const pod = ds.spec?.template.spec;
        assert.equal(pod?.automountServiceAccountToken, false, ds.metadata?.name);
        assert.ok(
          accounts.some((sa) => sa.metadata?.name === pod?.serviceAccountName),
          `${ds.metadata?.name}: its ServiceAccount`,
        );
      }
    });

    it('NetworkAttachmentDefinitions: Multus CRD shape, config accepted by vppnet-cni, static IPAM', () => {
      assert.ok(nads.length > 0);
      for (const nad of nads) {
        assert.deepEqual(checkNetworkAttachment(nad), [], nameOf(nad));
        const config = parseNetworkConfig((nad.spec as Obj).config as string);
        assert.equal(config.type, CNI_TYPE);
        // STATUS (and GC) exist from 1.1.0 on: an older version answers "config version does not
        // allow STATUS" instead of the agent's verdict.
        assert.ok(
          compareVersions(config.cniVersion, MIN_VERSION_FOR_COMMAND.STATUS ?? '') >= 0,
          `${nameOf(nad)}: cniVersion ${config.cniVersion} allows STATUS`,
        );
        assert.equal(config.agentSocket, AGENT_SOCKET);
      }
    });

    it('the NetworkAttachmentDefinition check does catch a bad config', () => {
      const nad = structuredClone(nads[0]) as Obj;
      const spec = nad.spec as Obj;
      spec.config = (spec.config as string).replace('"mode": "auto"', '"mode": "bridge"');
      assert.match(checkNetworkAttachment(nad).join('\n'), /vppnet-cni rejects it: .*mode/);
      spec.config = '{"cniVersion":"1.0.0","name":"x"';
      assert.match(checkNetworkAttachment(nad).join('\n'), /not JSON/);
    });

    const configs = new Map<string, AgentConfig>();
    it(
      'fleet mode: no ConfigMap at all (the agents take their configs from etcd)',
      { skip: fleet === undefined ? 'file mode' : false },
      () => {
        assert.deepEqual(byKind<Obj>(docs, 'ConfigMap').map(nameOf), []);
        assert.equal(
          docs.some((d) => d.file === '20-agent-config.yaml'),
          false,
        );
      },
    );

    it(
      "agent ConfigMap: every hypervisor's config passes the agent's own parser and validator",
      {
        skip: fleet !== undefined ? 'fleet mode has no ConfigMap' : false,
      },
      () => {
        assert.ok(configMap?.data);
        const keys = Object.keys(configMap.data);
        assert.ok(keys.length > 0);
        for (const [key, text] of Object.entries(configMap.data)) {
          assert.match(key, /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\.yaml$/, 'key = <Kubernetes node name>.yaml');
          // parseConfig is what the agent runs on the file: YAML (unique keys) then validateConfig.
          const config = parseConfig(text, key);
          assert.ok(config.services, `${key}: the service bridge is configured`);
          configs.set(key, config);
        }
      },
    );

    it('service networks and agent configs agree on every address', () => {
      // Fleet mode: the service bridge of the values, which the node records' `services` must equal.
      const services =
        fleet !== undefined ? [serviceBridgeConfig(values)] : [...configs.values()].map((c) => c.services);
      for (const s of services)
        assert.deepEqual(s, services[0], 'the service bridge is the same on every node');
      const s = services[0];
      assert.ok(s);
      const expected = new Map<string, string>([['vppnet-metadata', s.metadataAddress]]);
      if (s.dhcpServer !== undefined) expected.set('vppnet-dhcp', s.dhcpServer);
      if (s.dnsAddress !== undefined) expected.set('vppnet-dns-proxy', s.dnsAddress);
      // With services.ip6 the metadata and DNS pods hold their IPv6 address too (DHCP is IPv4).
      const expected6 = new Map<string, string>();
      if (s.ip6) expected6.set('vppnet-metadata', s.ip6.metadataAddress);
      if (s.ip6?.dnsAddress !== undefined && s.dnsAddress !== undefined)
        expected6.set('vppnet-dns-proxy', s.ip6.dnsAddress);
      assert.deepEqual(nads.map(nameOf).sort(), [...expected.keys()].sort());
      for (const nad of nads) {
        const ipam = parseNetworkConfig((nad.spec as Obj).config as string).raw.ipam as {
          addresses: { address: string; gateway: string }[];
          routes: { dst: string; gw: string }[];
        };
        const six = expected6.get(nameOf(nad));
        assert.deepEqual(ipam.addresses, [
          { address: `${expected.get(nameOf(nad))}/${s.gateway.len}`, gateway: s.gateway.address },
          ...(six !== undefined && s.ip6
            ? [{ address: `${six}/${s.ip6.gateway.len}`, gateway: s.ip6.gateway.address }]
            : []),
        ]);
        assert.deepEqual(ipam.routes, [
          { dst: `${s.vmAddressRange.address}/${s.vmAddressRange.len}`, gw: s.gateway.address },
          ...(six !== undefined && s.ip6
            ? [
                {
                  dst: `${s.ip6.vmAddressRange.address}/${s.ip6.vmAddressRange.len}`,
                  gw: s.ip6.gateway.address,
                },
              ]
            : []),
        ]);
      }
    });

    describe('agent DaemonSet', () => {
      assert.ok(agent, 'the agent DaemonSet exists');
      const pod = agent.spec?.template.spec;
      assert.ok(pod);
      const init = pod.initContainers?.[0];
      const main = pod.containers[0];
      assert.ok(init && main && pod.initContainers?.length === 1 && pod.containers.length === 1);
      const volume = (name: string) => pod.volumes?.find((v) => v.name === name);
      const mountOf = (c: IContainer, volumeName: string) =>
        c.volumeMounts?.find((m) => m.name === volumeName);
      const flags = agentFlagsOf(main.args ?? [], main.env ?? []);
      assert.equal(typeof flags, 'object');
      if (typeof flags === 'string') return;

      it('rolls one node at a time and never runs two agents on a node', () => {
        assert.deepEqual(agent.spec?.updateStrategy, {
          type: 'RollingUpdate',
          rollingUpdate: { maxUnavailable: 1, maxSurge: 0 },
        });
        assert.ok((agent.spec?.minReadySeconds ?? 0) > 0);
      });

      it('never removes the CNI binary: no lifecycle hooks, no rm/unlink anywhere in the pod', () => {
        assert.equal(hasKey(pod, 'lifecycle'), false, 'no preStop/postStart hook');
        for (const s of strings(allContainers(agent).map((c) => [c.command, c.args]))) {
          assert.doesNotMatch(s, /\b(rm|unlink|uninstall)\b/, s);
        }
      });

      it("installs vppnet-cni with the init container, from the image into the host's CNI bin dir", () => {
        const dest = mountOf(init, 'cni-bin')?.mountPath;
        assert.ok(dest);
        assert.deepEqual(init.command, [
          IMAGE.cliCommand,
          'install-cni',
          '--source',
          IMAGE.cniBinary,
          '--dest',
          dest,
        ]);
        assert.equal(init.args, undefined);
        assert.ok(volume('cni-bin')?.hostPath, 'cni-bin is a hostPath');
        assert.equal(mountOf(main, 'cni-bin'), undefined, 'the agent itself does not mount the CNI bin dir');
        assert.notEqual(init.securityContext?.privileged, true);
        assert.equal(init.securityContext?.allowPrivilegeEscalation, false);
      });

      it('uses host networking, privileged, without the host PID or IPC namespace', () => {
        assert.equal(pod.hostNetwork, true);
        assert.equal(pod.hostPID, false);
        assert.equal(pod.hostIPC, false);
        assert.equal(main.securityContext?.privileged, true);
      });

      it('mounts only the host paths it needs, each at the same path as on the host', () => {
        const hostPaths = (pod.volumes ?? [])
          .filter((v) => v.hostPath)
          .map((v) => v.hostPath?.path)
          .sort();
        assert.deepEqual(
          hostPaths,
          [
            '/opt/cni/bin',
            parentDir(flags.vppSocketPath),
            HOST_PATHS.netnsDir,
            HOST_PATHS.runDir,
            HOST_PATHS.agentApiDir,
            HOST_PATHS.stateDir,
          ].sort(),
        );
        for (const m of main.volumeMounts ?? []) {
          const v = volume(m.name);
          assert.ok(v, `volume ${m.name}`);
          if (v.hostPath) assert.equal(m.mountPath, v.hostPath.path, `${m.name} mounted at its host path`);
          assert.notEqual(m.mountPropagation, 'Bidirectional', m.name);
          assert.equal(m.subPath, undefined, `${m.name}: a subPath mount would not see updates`);
        }
      });

      it("sees new pods' network namespaces: /run/netns with HostToContainer propagation", () => {
        const m = (main.volumeMounts ?? []).find((x) => x.mountPath === HOST_PATHS.netnsDir);
        assert.equal(m?.mountPropagation, 'HostToContainer');
      });

      const env = (name: string) => main.env?.find((e) => e.name === name);

      it('runs the agent with flags that point into its mounts', () => {
        assert.deepEqual(main.command, [IMAGE.agentCommand]);
        assert.ok(isUnder(flags.vppSocketPath, mountOf(main, 'vpp-api')?.mountPath ?? '?'));
        assert.equal(flags.stateDir, mountOf(main, 'state')?.mountPath);
        assert.equal(
          parentDir(AGENT_SOCKET),
          mountOf(main, 'agent-api')?.mountPath,
          "the CNI plugin's socket is on the host",
        );
      });

      it('file mode: one config per node from the ConfigMap', { skip: fleet ? 'fleet mode' : false }, () => {
        assert.ok(!(main.args ?? []).includes(DATASTORE_FLAG.flag));
        const configMount = mountOf(main, 'config');
        assert.ok(configMount && isUnder(flags.configPath, configMount.mountPath));
        assert.equal(
          flags.configPath,
          `${configMount.mountPath}/node-1.yaml`,
          'one config per node: $(NODE_NAME)',
        );
        assert.equal(volume('config')?.configMap?.name, configMap?.metadata?.name);
        const nodeName = env('NODE_NAME');
        assert.equal(nodeName?.valueFrom?.fieldRef?.fieldPath, 'spec.nodeName');
      });

      describe('fleet mode', { skip: fleet === undefined ? 'file mode' : false }, () => {
        if (fleet === undefined) return;
        const args = main.args ?? [];

        it('runs the agent with --datastore etcd, without --config or a ConfigMap volume', () => {
          assert.equal(args.filter((a) => a === DATASTORE_FLAG.flag).length, 1);
          assert.equal(args[args.indexOf(DATASTORE_FLAG.flag) + 1], DATASTORE_FLAG.etcd);
          assert.equal(args.includes('--config'), false);
          // The agent's own parser reads the rendered args and env as etcd mode's settings.
          assert.equal(flags.etcd?.nodeName, 'node-1');
          assert.equal(
            strings(args).some((a) => a.includes('$(')),
            false,
            'no per-node path',
          );
          assert.equal(
            (pod.volumes ?? []).some((v) => v.configMap !== undefined),
            false,
          );
          assert.equal(mountOf(main, 'config'), undefined);
          assert.equal(env('NODE_NAME'), undefined);
          assert.equal(env('VPPNET_CONFIG'), undefined);
        });

        it('names its node from the downward API and its etcd from the values', () => {
          assert.deepEqual(env(FLEET_ENV.nodeName)?.valueFrom, { fieldRef: { fieldPath: 'spec.nodeName' } });
          assert.equal(env(FLEET_ENV.endpoints)?.value, fleet.endpoints.join(','));
          assert.equal(env(FLEET_ENV.prefix)?.value, fleet.prefix);
          const names = (main.env ?? []).map((e) => e.name);
          assert.equal(new Set(names).size, names.length, 'no variable twice');
        });

        it(
          'mounts the TLS Secret read-only, its three keys only, and points VPPNET_ETCD_CA/CERT/KEY at them',
          {
            skip: fleet.tlsSecretName === undefined ? 'TLS disabled' : false,
          },
          () => {
            const secret = volume('etcd-tls')?.secret;
            assert.ok(secret);
            assert.equal(secret.secretName, fleet.tlsSecretName);
            assert.equal(secret.defaultMode, 0o400);
            assert.equal(secret.optional, undefined, 'a missing Secret keeps the pod from starting');
            assert.deepEqual(
              secret.items,
              Object.values(ETCD_TLS_KEYS).map((key) => ({ key, path: key })),
            );
            const m = mountOf(main, 'etcd-tls');
            assert.deepEqual(m, { name: 'etcd-tls', mountPath: ETCD_TLS_MOUNT_DIR, readOnly: true });
            assert.equal(mountOf(init, 'etcd-tls'), undefined, 'install-cni has no use for it');
            for (const [variable, key] of [
              [FLEET_ENV.ca, ETCD_TLS_KEYS.ca],
              [FLEET_ENV.cert, ETCD_TLS_KEYS.cert],
              [FLEET_ENV.key, ETCD_TLS_KEYS.key],
            ] as const) {
              assert.equal(env(variable)?.value, `${m.mountPath}/${key}`, variable);
            }
            for (const e of fleet.endpoints) assert.match(e, /^https:\/\//, 'TLS: https endpoints only');
          },
        );

        it(
          'takes the etcd password from its Secret (secretKeyRef), never from a literal',
          {
            skip: fleet.auth === undefined ? 'no etcd user' : false,
          },
          () => {
            assert.equal(env(FLEET_ENV.user)?.value, fleet.auth?.user);
            const password = env(FLEET_ENV.password);
            assert.equal(password?.value, undefined);
            assert.deepEqual(password?.valueFrom, {
              secretKeyRef: { name: fleet.auth?.passwordSecret.name, key: fleet.auth?.passwordSecret.key },
            });
          },
        );

        it('gives an environment that the etcd connection settings parser turns into these settings', () => {
          // The rendered env, with the Secrets resolved as the kubelet would: files in a temp dir
          // standing for the mount, the password from its key.
          const dir = mkdtempSync(join(tmpdir(), 'vppnet-fleet-env-'));
          try {
            const resolved: NodeJS.ProcessEnv = {};
            for (const e of main.env ?? []) {
              if (e.value !== undefined) resolved[e.name] = e.value.replace(ETCD_TLS_MOUNT_DIR, dir);
              else if (e.valueFrom?.secretKeyRef) resolved[e.name] = 'secret-from-kubelet';
              else if (e.valueFrom?.fieldRef) resolved[e.name] = 'node-1';
            }
            for (const key of Object.values(ETCD_TLS_KEYS)) writeFileSync(join(dir, key), `PEM of ${key}\n`);
            const options = etcdOptionsOf({}, AGENT_CONNECTION_FLAGS, resolved);
            assert.deepEqual(options.endpoints, fleet.endpoints);
            if (fleet.tlsSecretName !== undefined) {
              assert.equal(options.tls?.ca.toString(), `PEM of ${ETCD_TLS_KEYS.ca}\n`);
              assert.equal(options.tls?.cert?.toString(), `PEM of ${ETCD_TLS_KEYS.cert}\n`);
              assert.equal(options.tls?.key?.toString(), `PEM of ${ETCD_TLS_KEYS.key}\n`);
            } else assert.equal(options.tls, undefined);
            assert.deepEqual(
              options.auth,
              fleet.auth && { user: fleet.auth.user, password: 'secret-from-kubelet' },
            );
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        });
      });

      it('probes /readyz and /healthz on loopback, where the agent listens', () => {
        assert.ok(['127.0.0.1', '0.0.0.0', '::'].includes(flags.listen.host), flags.listen.host);
        for (const [probe, path] of [
          [main.readinessProbe, '/readyz'],
          [main.livenessProbe, '/healthz'],
        ] as const) {
          assert.deepEqual(probe?.httpGet, {
            host: '127.0.0.1',
            path,
            port: flags.listen.port,
            scheme: 'HTTP',
          });
        }
        assert.ok(main.ports?.some((p) => p.containerPort === flags.listen.port));
      });

      it("hands the agent the values' Node.js options in NODE_OPTIONS, once", () => {
        const given = (main.env ?? []).filter((e) => e.name === 'NODE_OPTIONS');
        if (values.agent.nodeOptions === '') assert.deepEqual(given, []);
        else assert.deepEqual(given, [{ name: 'NODE_OPTIONS', value: values.agent.nodeOptions }]);
      });

      it('sets requests and limits on every container, the agent with headroom over its 150 MB target', () => {
        for (const c of allContainers(agent)) {
          for (const kind of ['cpu', 'memory'] as const) {
            const req = parseQuantity(String(c.resources?.requests?.[kind]), kind);
            const lim = parseQuantity(String(c.resources?.limits?.[kind]), kind);
            assert.ok(req !== undefined && lim !== undefined && req <= lim, `${c.name} ${kind}`);
          }
        }
        const limit = parseQuantity(String(main.resources?.limits?.memory), 'memory') ?? 0;
        assert.ok(limit > 150e6, `memory limit ${String(main.resources?.limits?.memory)}`);
      });

      it('stops gracefully, runs as critical, on every hypervisor', () => {
        assert.ok((pod.terminationGracePeriodSeconds ?? 0) >= 30);
        assert.equal(pod.priorityClassName, 'system-node-critical');
        assert.ok(
          pod.tolerations?.some((t) => t.operator === 'Exists' && t.key === undefined),
          'tolerates every taint',
        );
        assert.ok(
          Object.keys(pod.nodeSelector ?? {}).length > 0 || pod.affinity !== undefined,
          'a placement placeholder',
        );
      });
    });

    const examples = daemonSets.filter((d) => d.metadata?.name !== NAMES.agent);
    describe(
      'example service pods',
      { skip: examples.length === 0 ? 'examples are disabled in this overlay' : false },
      () => {
        it('attach to a service network of this overlay besides their Cilium interface', () => {
          for (const ds of examples) {
            const annotation = ds.spec?.template.metadata?.annotations?.[MULTUS_NETWORKS_ANNOTATION];
            assert.ok(annotation, `${ds.metadata?.name}: ${MULTUS_NETWORKS_ANNOTATION}`);
            const selections = JSON.parse(annotation) as {
              name: string;
              namespace: string;
              interface: string;
            }[];
            assert.equal(selections.length, 1);
            const [sel] = selections;
            assert.ok(
              nads.some((n) => nameOf(n) === sel?.name && (n.metadata as Obj).namespace === sel.namespace),
            );
            assert.notEqual(sel?.interface, 'eth0');
            const pod = ds.spec?.template.spec;
            assert.notEqual(
              pod?.hostNetwork,
              true,
              'they keep their own netns and primary (Cilium) interface',
            );
          }
        });

        it("run as non-root and never see the agent's privileged socket, only the service map", () => {
          for (const ds of examples) {
            const pod = ds.spec?.template.spec;
            for (const c of allContainers(ds)) {
              assert.equal(c.securityContext?.runAsNonRoot, true, `${c.name}: non-root`);
              assert.notEqual(c.securityContext?.runAsUser, 0, `${c.name}: not uid 0`);
              assert.deepEqual(c.securityContext?.capabilities?.drop, ['ALL']);
              assert.equal(c.securityContext?.capabilities?.add, undefined, `${c.name}: no capability`);
              for (const m of c.volumeMounts ?? []) {
                assert.equal(m.readOnly, true, `${c.name}: ${m.name} read-only`);
                assert.ok(
                  !isUnder(AGENT_SOCKET, m.mountPath),
                  `${c.name} mounts ${m.mountPath}, which holds ${AGENT_SOCKET}`,
                );
              }
              const env = c.env?.find((e) => e.name === 'VPPNET_SERVICE_MAP_SOCKET');
              if (env !== undefined)
                assert.ok(
                  (c.volumeMounts ?? []).some((m) => isUnder(env.value ?? '', m.mountPath)),
                  `${c.name}: the service map's socket is inside a mount`,
                );
            }
            for (const v of pod?.volumes ?? []) {
              const p = v.hostPath?.path;
              if (p === undefined) continue;
              assert.equal(p, HOST_PATHS.serviceMapDir, `${ds.metadata?.name}: host path ${p}`);
              assert.ok(!isUnder(AGENT_SOCKET, p));
              assert.ok(!isUnder(`${HOST_PATHS.runDir}/vhost/x.sock`, p), 'no VM socket in reach');
            }
            assert.ok(
              pod?.securityContext?.sysctls?.some(
                (x) => x.name === 'net.ipv4.ip_unprivileged_port_start' && x.value === '0',
              ),
              'binds 53, 67 and 80 without root',
            );
          }
        });

        it('one per hypervisor, never two with the same static address on one node', () => {
          for (const ds of examples) {
            assert.deepEqual(ds.spec?.updateStrategy?.rollingUpdate, { maxUnavailable: 1, maxSurge: 0 });
            assert.deepEqual(ds.spec?.template.spec?.nodeSelector, agent?.spec?.template.spec?.nodeSelector);
            for (const c of allContainers(ds)) {
              assert.ok(c.resources?.limits?.memory && c.resources.limits.cpu, `${c.name}: limits`);
              assert.equal(c.securityContext?.privileged, undefined);
            }
          }
        });
      },
    );
  });
}
