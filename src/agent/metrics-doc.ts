/**
 * The metrics reference in docs/operations.md, generated from the agent's own registry so that
 * the document cannot list a metric the agent does not export or miss one it does. The table
 * sits between two markers; metrics-doc.test.ts fails when it differs from what the registry
 * gives, and metrics-doc-main.ts rewrites it (`npm run docs:metrics`).
 */
import type { Registry } from 'prom-client';

export const METRICS_BEGIN = '<!-- metrics:begin -->';
export const METRICS_END = '<!-- metrics:end -->';

export interface MetricInfo {
  readonly name: string;
  readonly type: string;
  readonly labels: readonly string[];
  readonly help: string;
}

/**
 * The agent's own metrics (`vppnet_*`), by name. prom-client's default process and Node.js
 * metrics (`process_*`, `nodejs_*`) are left out: they are prom-client's, documented there.
 */
export function agentMetricInfos(registry: Registry): MetricInfo[] {
  return registry
    .getMetricsAsArray()
    .filter((m) => m.name.startsWith('vppnet_'))
    .map((m) => ({
      name: m.name,
      type: String(m.type),
      // Not in prom-client's types, but set on every metric from its labelNames option.
      labels: [...((m as { labelNames?: readonly string[] }).labelNames ?? [])],
      help: m.help,
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** The Markdown table, one metric a row. */
export function metricsTable(infos: readonly MetricInfo[]): string {
  const rows = infos.map(
    (m) =>
      `| \`${m.name}\` | ${m.type} | ${m.labels.length > 0 ? m.labels.map((l) => `\`${l}\``).join(', ') : '—'} | ${cell(m.help)} |`,
  );
  return ['| metric | type | labels | meaning |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** `doc` with the text between the markers replaced by `table`; throws when a marker is missing. */
export function withMetricsTable(doc: string, table: string): string {
  const begin = doc.indexOf(METRICS_BEGIN);
  const end = doc.indexOf(METRICS_END);
  if (begin < 0 || end < begin)
    throw new Error(`the document has no ${METRICS_BEGIN} … ${METRICS_END} section`);
  return `${doc.slice(0, begin + METRICS_BEGIN.length)}\n\n${table}\n\n${doc.slice(end)}`;
}

/** The metric names listed between the markers (first column), in document order. */
export function documentedMetricNames(doc: string): string[] {
  const begin = doc.indexOf(METRICS_BEGIN);
  const end = doc.indexOf(METRICS_END);
  if (begin < 0 || end < begin) return [];
  return [...doc.slice(begin, end).matchAll(/^\| `([a-z0-9_]+)` \|/gm)].map((m) => m[1] ?? '');
}
