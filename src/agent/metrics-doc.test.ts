import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Gauge } from 'prom-client';
import { AgentMetrics } from './metrics.js';
import {
  agentMetricInfos,
  documentedMetricNames,
  metricsTable,
  METRICS_BEGIN,
  METRICS_END,
  withMetricsTable,
} from './metrics-doc.js';

const DOC = fileURLToPath(new URL('../../../docs/operations.md', import.meta.url));

describe('the metrics reference in docs/operations.md', () => {
  it('lists exactly the metrics the agent registers (else: npm run docs:metrics)', () => {
    const doc = readFileSync(DOC, 'utf8');
    const infos = agentMetricInfos(new AgentMetrics().registry);
    assert.deepEqual(
      documentedMetricNames(doc),
      infos.map((m) => m.name),
    );
    assert.equal(withMetricsTable(doc, metricsTable(infos)), doc, 'types, labels and help as in the code');
  });

  it('a metric the document does not list is found', () => {
    const doc = readFileSync(DOC, 'utf8');
    const metrics = new AgentMetrics();
    new Gauge({ name: 'vppnet_not_documented', help: 'x', registers: [metrics.registry] });
    const names = agentMetricInfos(metrics.registry).map((m) => m.name);
    assert.ok(names.includes('vppnet_not_documented'));
    assert.notDeepEqual(documentedMetricNames(doc), names);
  });

  it('generates name, type, labels and help, and refuses a document without the markers', () => {
    const metrics = new AgentMetrics();
    const build = agentMetricInfos(metrics.registry).find((m) => m.name === 'vppnet_build_info');
    assert.deepEqual(build && { type: build.type, labels: build.labels }, {
      type: 'gauge',
      labels: ['version', 'vpp_api'],
    });
    assert.ok(!agentMetricInfos(metrics.registry).some((m) => m.name.startsWith('process_')));
    const doc = `a\n${METRICS_BEGIN}\nold\n${METRICS_END}\nb\n`;
    const table = metricsTable([{ name: 'vppnet_x', type: 'counter', labels: ['a'], help: 'p | q' }]);
    assert.match(table, /^\| `vppnet_x` \| counter \| `a` \| p \\\| q \|$/m);
    assert.deepEqual(documentedMetricNames(withMetricsTable(doc, table)), ['vppnet_x']);
    assert.throws(() => withMetricsTable('no markers', table), /has no <!-- metrics:begin -->/);
  });
});
