/**
 * `metrics.serviceMonitor` / `metrics.prometheusRule`: off, the manifests keep the metrics on the
 * node's loopback (nothing more is rendered); on, the agent also listens on its node's IP for
 * /metrics alone, and a headless Service, a ServiceMonitor and a PrometheusRule are rendered that
 * select it. The agent's own flag parser reads the rendered arguments.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { IDaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { Service, type IService } from 'kubernetes-models/v1/Service';
import { parse, parseAllDocuments } from 'yaml';
import { parseAgentFlags } from '../../src/agent/agent-flags.js';
import { ALERT_RULES_FILE, VALUES_DIR } from '../../deploy/render/overlays.js';
import type { PrometheusRule, ServiceMonitor } from '../../deploy/render/metrics-objects.js';
import { renderFiles, renderManifests, type ManifestObject } from '../../deploy/render/render.js';
import { mergeValues, parseValues, parseValuesYaml, ValuesError } from '../../deploy/render/values.js';

const BASE = parseValuesYaml(readFileSync(join(VALUES_DIR, 'default.yaml'), 'utf8'), 'default.yaml');
const ALERT_RULES = parse(readFileSync(ALERT_RULES_FILE, 'utf8')) as { groups: unknown[] };

function render(metrics: Record<string, unknown> | undefined) {
  const values = parseValues(metrics ? mergeValues(BASE, { metrics }) : BASE, 'test');
  const source = { valuesFiles: 'test', alertRules: ALERT_RULES };
  const objects = renderManifests(values, source).flatMap((f) =>
    f.docs.map((d) => ({ file: f.name, object: d.object })),
  );
  return { objects, files: renderFiles(values, source) };
}

function only<T extends ManifestObject>(objects: { object: ManifestObject }[], kind: string): T {
  const found = objects.filter((o) => o.object.kind === kind);
  assert.equal(found.length, 1, kind);
  return found[0]?.object as T;
}

/** The agent's arguments with the kubelet's $(VAR) expansion done for one node. */
function agentFlags(ds: IDaemonSet, env: Record<string, string>) {
  const container = ds.spec?.template.spec?.containers[0];
  const args = (container?.args ?? []).map((a) =>
    a.replace(/\$\(([A-Z_]+)\)/g, (_, n: string) => env[n] ?? ''),
  );
  const flags = parseAgentFlags(args, {});
  assert.ok(flags !== 'help' && flags !== 'version');
  return flags;
}

describe('deploy values metrics.serviceMonitor / metrics.prometheusRule', () => {
  it('off by default: metrics on loopback only, no Service, ServiceMonitor or PrometheusRule', () => {
    const { objects, files } = render(undefined);
    assert.equal(files.has('60-agent-metrics.yaml'), false);
    const ds = only<IDaemonSet>(objects, 'DaemonSet');
    const container = ds.spec?.template.spec?.containers[0];
    assert.equal(container?.args?.includes('--metrics-listen'), false);
    assert.equal(
      container?.env?.some((e) => e.name === 'HOST_IP'),
      false,
    );
    assert.deepEqual(
      container?.ports?.map((p) => p.containerPort),
      [9464],
    );
    assert.equal(agentFlags(ds, { NODE_NAME: 'hv1' })?.metricsListen, undefined);
  });

  it("on: the agent serves /metrics on its node's IP, behind a headless Service and a ServiceMonitor", () => {
    const { objects, files } = render({ serviceMonitor: true });
    assert.ok(files.has('60-agent-metrics.yaml'));
    const ds = only<IDaemonSet>(objects, 'DaemonSet');
    const container = ds.spec?.template.spec?.containers[0];
    assert.deepEqual(container?.env?.find((e) => e.name === 'HOST_IP')?.valueFrom, {
      fieldRef: { fieldPath: 'status.hostIP' },
    });
    for (const [hostIP, host] of [
      ['10.1.2.3', '10.1.2.3'],
      ['2001:db8::5', '2001:db8::5'],
    ])
      assert.deepEqual(agentFlags(ds, { NODE_NAME: 'hv1', HOST_IP: hostIP ?? '' })?.metricsListen, {
        host,
        port: 9465,
      });
    // Probes and the main listener stay on loopback.
    assert.equal(container?.readinessProbe?.httpGet?.host, '127.0.0.1');
    assert.deepEqual(agentFlags(ds, { NODE_NAME: 'hv1', HOST_IP: '10.1.2.3' })?.listen, {
      host: '127.0.0.1',
      port: 9464,
    });

    const service = only<IService>(objects, 'Service');
    assert.doesNotThrow(() => new Service(service).validate());
    assert.equal(service.spec?.clusterIP, 'None');
    const podLabels = ds.spec?.template.metadata?.labels ?? {};
    for (const [k, v] of Object.entries(service.spec?.selector ?? {})) assert.equal(podLabels[k], v, k);
    const port = service.spec?.ports?.[0];
    const containerPort = container?.ports?.find((p) => p.containerPort === 9465);
    assert.ok(containerPort, 'the container declares the port');
    assert.equal(port?.targetPort, 9465);

    const monitor = only<ServiceMonitor>(objects, 'ServiceMonitor');
    assert.equal(monitor.apiVersion, 'monitoring.coreos.com/v1');
    for (const [k, v] of Object.entries(monitor.spec.selector.matchLabels))
      assert.equal(service.metadata?.labels?.[k], v, `the ServiceMonitor selects the Service: ${k}`);
    assert.deepEqual(monitor.spec.namespaceSelector.matchNames, [service.metadata?.namespace]);
    assert.equal(monitor.spec.endpoints[0]?.port, port?.name);
    assert.equal(monitor.spec.endpoints[0]?.path, '/metrics');
    assert.equal(
      objects.some((o) => o.object.kind === 'PrometheusRule'),
      false,
    );

    // The file as written parses back to the same objects.
    const text = files.get('60-agent-metrics.yaml') ?? '';
    assert.deepEqual(
      parseAllDocuments(text).map((d) => (d.toJS() as { kind: string }).kind),
      ['Service', 'ServiceMonitor'],
    );
  });

  it('prometheusRule: the alert rules file as a PrometheusRule', () => {
    const { objects } = render({ prometheusRule: true });
    const rule = only<PrometheusRule>(objects, 'PrometheusRule');
    assert.deepEqual(rule.spec.groups, ALERT_RULES.groups);
    assert.equal(
      objects.some((o) => o.object.kind === 'ServiceMonitor'),
      false,
    );
  });

  it("refuses a metrics port equal to agent.listen's, and a bad interval", () => {
    assert.throws(
      () => render({ serviceMonitor: true, port: 9464, interval: 'often' }),
      (err: unknown) =>
        err instanceof ValuesError &&
        err.problems.some((p) => p.path === 'metrics.port' && /agent\.listen's port 9464/.test(p.message)) &&
        err.problems.some((p) => p.path === 'metrics.interval'),
    );
  });
});
