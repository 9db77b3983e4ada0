/**
 * The committed manifests' example service pods: attached to a service network of their overlay.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AGENT_SOCKET, HOST_PATHS, MULTUS_NETWORKS_ANNOTATION, NAMES } from '../../deploy/render/contract.js';
import { overlayNames } from '../../deploy/render/overlays.js';
import { type Obj, nameOf, allContainers, isUnder, overlayManifests } from './testing/manifests.js';

for (const overlay of overlayNames()) {
  describe(`deploy/manifests/${overlay}`, () => {
    const { daemonSets, agent, nads } = overlayManifests(overlay);

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
