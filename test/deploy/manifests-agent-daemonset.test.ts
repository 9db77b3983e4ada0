/**
 * The committed manifests' agent DaemonSet: its rollout, the CNI install, privileges, host mounts,
 * the flags and environment the agent's own parser reads (file and fleet mode), probes, resources.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { AGENT_CONNECTION_FLAGS, etcdOptionsOf } from '../../src/datastore/connection-settings.js';
import {
  AGENT_SOCKET,
  DATASTORE_FLAG,
  ETCD_TLS_KEYS,
  ETCD_TLS_MOUNT_DIR,
  FLEET_ENV,
  HOST_PATHS,
  IMAGE,
} from '../../deploy/render/contract.js';
import { overlayNames } from '../../deploy/render/overlays.js';
import { parseQuantity } from '../../deploy/render/quantity.js';
import {
  allContainers,
  strings,
  hasKey,
  agentFlagsOf,
  isUnder,
  parentDir,
  overlayManifests,
} from './testing/manifests.js';

for (const overlay of overlayNames()) {
  describe(`deploy/manifests/${overlay}`, () => {
    const { values, fleet, agent, configMap } = overlayManifests(overlay);

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
  });
}
