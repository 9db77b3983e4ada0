/**
 * The committed manifests (deploy/manifests/<overlay>/), read back from disk as a cluster would get
 * them: one Namespace, every object against the Kubernetes API schemas (kubernetes-models' bundled
 * JSON schemas, offline), and no Kubernetes API access granted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IDaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import type { IServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { NAD_KIND } from '../../deploy/render/contract.js';
import { overlayNames } from '../../deploy/render/overlays.js';
import { type Obj, SCHEMAS, kindOf, nameOf, byKind, overlayManifests } from './testing/manifests.js';

for (const overlay of overlayNames()) {
  describe(`deploy/manifests/${overlay}`, () => {
    const { docs, namespaces, namespace, daemonSets, agent } = overlayManifests(overlay);

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
  });
}
