/**
 * deploy/monitoring/: the alert rules and the Grafana dashboard query only metrics the agent
 * really exports (its registry, prom-client's process and Node.js metrics included), every panel
 * has a query, and every alert points at a section of docs/operations.md that exists.
 * `promtool check rules` (.ci/run) checks the rules file's PromQL and shape besides.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { REPO_ROOT } from '../../deploy/render/overlays.js';
import { AgentMetrics } from '../../src/agent/metrics.js';

const MONITORING = join(REPO_ROOT, 'deploy', 'monitoring');
const OPERATIONS_MD = readFileSync(join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');

/** Metric name → type, as the agent registers them. */
const REGISTERED = new Map(
  new AgentMetrics().registry.getMetricsAsArray().map((m) => [m.name, String(m.type)] as const),
);

/** Names in a PromQL expression that look like the agent's or prom-client's metrics. */
function metricNamesIn(expr: string): string[] {
  return [...expr.matchAll(/\b(?:vppnet|process|nodejs)_[a-z0-9_]+/g)].map((m) => m[0]);
}

/** Whether `name` is a series the agent exports: a metric, or a histogram's _bucket/_sum/_count. */
function isExported(name: string): boolean {
  if (REGISTERED.has(name)) return true;
  const m = /^(.*)_(bucket|sum|count)$/.exec(name);
  const type = m ? REGISTERED.get(m[1] ?? '') : undefined;
  return type === 'histogram' || (type === 'summary' && m?.[2] !== 'bucket');
}

function unknownIn(expr: string): string[] {
  return metricNamesIn(expr).filter((n) => !isExported(n));
}

/** GitHub's anchors of the document's headings. */
const ANCHORS = new Set(
  [...OPERATIONS_MD.matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
    (m[1] ?? '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-'),
  ),
);

interface Rule {
  alert?: string;
  expr?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

describe('deploy/monitoring', () => {
  it('the metric check tells an unknown name apart', () => {
    assert.deepEqual(unknownIn('vppnet_ready == 0'), []);
    assert.deepEqual(unknownIn('rate(vppnet_reconcile_duration_seconds_bucket[5m])'), []);
    assert.deepEqual(unknownIn('vppnet_ready_bucket + vppnet_not_a_metric'), [
      'vppnet_ready_bucket',
      'vppnet_not_a_metric',
    ]);
  });

  const rules = parse(readFileSync(join(MONITORING, 'vppnet-alerts.yaml'), 'utf8')) as {
    groups: { name: string; rules: Rule[] }[];
  };
  const alerts = rules.groups.flatMap((g) => g.rules);

  it('alert rules: every metric in an expression is one the agent exports', () => {
    assert.ok(alerts.length > 0);
    for (const rule of alerts) {
      assert.ok(
        rule.expr !== undefined && metricNamesIn(rule.expr).length > 0,
        `${rule.alert}: a vppnet expression`,
      );
      assert.deepEqual(unknownIn(rule.expr), [], String(rule.alert));
    }
  });

  it('alert rules: the conditions the operations guide lists, each with a severity and a runbook section', () => {
    const names = alerts.map((r) => r.alert);
    for (const wanted of [
      'VppnetAgentNotReady',
      'VppnetVppDisconnected',
      'VppnetDatastoreStale',
      'VppnetDatastoreRecordsRejected',
      'VppnetDatastoreRecordsLeftOut',
      'VppnetReconcileFailing',
      'VppnetDriftFound',
      'VppnetVmPortsBroken',
    ])
      assert.ok(names.includes(wanted), wanted);
    for (const rule of alerts) {
      assert.match(rule.labels?.severity ?? '', /^(critical|warning|info)$/, String(rule.alert));
      assert.ok(rule.annotations?.summary, `${rule.alert}: summary`);
      const runbook = /^docs\/operations\.md#(.+)$/.exec(rule.annotations?.runbook ?? '');
      assert.ok(runbook, `${rule.alert}: runbook docs/operations.md#…`);
      assert.ok(ANCHORS.has(runbook[1] ?? ''), `${rule.alert}: docs/operations.md has #${runbook[1]}`);
    }
  });

  const dashboard = JSON.parse(readFileSync(join(MONITORING, 'vppnet-dashboard.json'), 'utf8')) as {
    uid: string;
    panels: { id: number; title: string; targets?: { expr?: string }[] }[];
    templating: { list: { name: string; query?: unknown }[] };
  };

  it('dashboard: every panel has a query, and every query names only exported metrics', () => {
    assert.ok(dashboard.panels.length > 0);
    assert.equal(new Set(dashboard.panels.map((p) => p.id)).size, dashboard.panels.length, 'unique ids');
    for (const panel of dashboard.panels) {
      const targets = panel.targets ?? [];
      assert.ok(targets.length > 0, `${panel.title}: at least one query`);
      for (const t of targets) {
        assert.ok(t.expr !== undefined && metricNamesIn(t.expr).length > 0, `${panel.title}: ${t.expr}`);
        assert.deepEqual(unknownIn(t.expr), [], panel.title);
      }
    }
    for (const v of dashboard.templating.list)
      assert.deepEqual(unknownIn(JSON.stringify(v.query ?? '')), [], `variable ${v.name}`);
  });

  it('dashboard: shows the state the alerts are about', () => {
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? '')).join('\n');
    for (const metric of [
      'vppnet_ready',
      'vppnet_vpp_connection_state',
      'vppnet_vm_ports_broken',
      'vppnet_datastore_stale',
      'vppnet_datastore_rejected_keys',
      'vppnet_reconcile_total',
      'vppnet_drift_detected_total',
    ])
      assert.ok(metricNamesIn(exprs).includes(metric), metric);
  });
});
