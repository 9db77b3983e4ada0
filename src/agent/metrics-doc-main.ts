/**
 * `npm run docs:metrics`: rewrites the metrics reference in docs/operations.md from the agent's
 * registry; `--check` only compares (exit 1 when the document is out of date).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AgentMetrics } from './metrics.js';
import { agentMetricInfos, metricsTable, withMetricsTable } from './metrics-doc.js';

/** From dist/src/agent/ to the repository's docs/. */
const DOC = fileURLToPath(new URL('../../../docs/operations.md', import.meta.url));

const metrics = new AgentMetrics();
const current = readFileSync(DOC, 'utf8');
const wanted = withMetricsTable(current, metricsTable(agentMetricInfos(metrics.registry)));
if (process.argv.includes('--check')) {
  if (wanted !== current) {
    process.stderr.write(`${DOC}: the metrics reference is out of date; run npm run docs:metrics\n`);
    process.exitCode = 1;
  }
} else if (wanted !== current) {
  writeFileSync(DOC, wanted);
  process.stdout.write(`${DOC}: metrics reference updated\n`);
}
