/** Tables, JSON and the chart of a packet-rate run (pure: figures in, rows and documents out). */
import { fmt, type Row } from '../support/report.js';
import { compare, pathOnlyMppsPerCore, TOLERANCE, type Comparison, type PathFigures } from './metrics.js';
import type { BarChart } from './svg.js';
import {
  CONFIG_KINDS,
  CONFIG_LABEL,
  PATH_IDS,
  PATH_TITLES,
  toleranceOf,
  type ConfigKind,
  type PathId,
} from './paths.js';

export interface Measurement {
  readonly path: PathId;
  readonly config: ConfigKind;
  /** Size class label: "64B", "IMIX". */
  readonly size: string;
  readonly ingress: string;
  readonly egress: string;
  readonly streams: readonly string[];
  /** Of the reported run (--pick). */
  readonly figures: PathFigures;
  /** Mpps of every run, in order. */
  readonly runsMpps: readonly number[];
}

/** A path of one configuration that could not be measured, and why (e.g. vppnet lacks its kinds). */
export interface NotMeasured {
  readonly path: PathId;
  readonly config: ConfigKind;
  readonly reason: string;
}

export interface RunMeta {
  readonly mode: 'pg' | 'nic';
  readonly vppVersion: string;
  readonly vppBanner: string;
  readonly workers: number;
  readonly cpuModel: string | undefined;
  readonly ghz: number | undefined;
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly flows: number;
  readonly date: string;
  readonly node: string;
}

/**
 * What vppnet is compared with: the hand configuration as it was before the source checks (what
 * `--strict` judges: the checks' cost included), or the same hand paths with the same checks
 * (whether vppnet programs the same datapath as well as an expert would).
 */
export type Reference = 'hand' | 'hand-checks';

export interface ComparisonRow extends Comparison {
  readonly path: PathId;
  readonly size: string;
  /** The configuration vppnet is compared with. */
  readonly against: Reference;
  readonly vppnetMpps: number;
  /** The Mpps of the configuration named by `against`. */
  readonly handMpps: number;
  /** The path's target: vppnet at least (1 - tolerance) of the reference configuration's Mpps. */
  readonly tolerance: number;
}

export function comparisons(ms: readonly Measurement[], against: Reference = 'hand'): ComparisonRow[] {
  const out: ComparisonRow[] = [];
  for (const m of ms) {
    if (m.config !== 'vppnet') continue;
    const hand = ms.find((h) => h.config === against && h.path === m.path && h.size === m.size);
    if (!hand) continue;
    out.push({
      path: m.path,
      size: m.size,
      against,
      vppnetMpps: m.figures.mpps,
      handMpps: hand.figures.mpps,
      tolerance: toleranceOf(m.path),
      ...compare(m.figures, hand.figures, toleranceOf(m.path)),
    });
  }
  return out;
}

type RowKey = Pick<Measurement, 'path' | 'size' | 'config'>;

function order(a: RowKey, b: RowKey): number {
  return (
    PATH_IDS.indexOf(a.path) - PATH_IDS.indexOf(b.path) ||
    a.size.localeCompare(b.size) ||
    CONFIG_KINDS.indexOf(a.config) - CONFIG_KINDS.indexOf(b.config)
  );
}

/** The sizes a not-measured path would have had: those its other configuration was measured at. */
function placeholders(ms: readonly Measurement[], notMeasured: readonly NotMeasured[]): RowKey[] {
  return notMeasured.flatMap((n) =>
    [...new Set(ms.filter((m) => m.path === n.path).map((m) => m.size))].map((size) => ({
      path: n.path,
      config: n.config,
      size,
    })),
  );
}

/**
 * One row per path, size and configuration. `vs hand`: the row's Mpps over the hand
 * configuration's (vppnet's, and hand+checks': the checks' cost by hand); `vs hand+checks`, when
 * that configuration was measured: vppnet's over it.
 */
export function resultRows(
  ms: readonly Measurement[],
  meta: RunMeta,
  notMeasured: readonly NotMeasured[] = [],
): Row[] {
  const withChecks = ms.some((m) => m.config === 'hand-checks');
  const cores = Math.max(1, meta.workers);
  const ratio = (m: RowKey & { figures: PathFigures }, against: Reference): string => {
    const ref = ms.find((x) => x.config === against && x.path === m.path && x.size === m.size);
    return ref ? `${fmt((100 * m.figures.mpps) / ref.figures.mpps, 1)} %` : '';
  };
  const entries: (RowKey & { figures?: PathFigures })[] = [...ms, ...placeholders(ms, notMeasured)];
  return entries.sort(order).map((m) => {
    const f = m.figures;
    const row = {
      path: m.path,
      frames: m.size,
      config: CONFIG_LABEL[m.config],
    };
    if (f === undefined)
      return {
        ...row,
        Mpps: '-',
        'Mpps/core': '-',
        'path clk/pkt': '-',
        'graph clk/pkt': '-',
        'path-only Mpps/core': '-',
        'drop %': '-',
        'vs hand': 'not measured',
        ...(withChecks ? { 'vs hand+checks': 'not measured' } : {}),
      };
    const measured = { ...m, figures: f };
    return {
      ...row,
      Mpps: fmt(f.mpps, 2),
      'Mpps/core': fmt(f.mpps / cores, 2),
      'path clk/pkt': fmt(f.pathClocksPerPacket, 1),
      'graph clk/pkt': fmt(f.graphClocksPerPacket, 1),
      'path-only Mpps/core': fmt(pathOnlyMppsPerCore(f, meta.ghz), 1),
      'drop %': fmt(f.received > 0 ? (100 * f.dropped) / f.received : NaN, 2),
      'vs hand': m.config === 'vppnet' || m.config === 'hand-checks' ? ratio(measured, 'hand') : '',
      ...(withChecks
        ? { 'vs hand+checks': m.config === 'vppnet' ? ratio(measured, 'hand-checks') : '' }
        : {}),
    };
  });
}

/**
 * vppnet against a hand configuration (`against`: the one before the checks, or the one with the
 * same checks), for the paths whose target is `tolerance` (the IPv4 paths 10 %, the IPv6 ones
 * 5 %); a vppnet path that was not measured reads "NO: not measured".
 */
export function verdictRows(
  ms: readonly Measurement[],
  tolerance = TOLERANCE,
  notMeasured: readonly NotMeasured[] = [],
  against: Reference = 'hand',
): Row[] {
  const within = `within ${Math.round(tolerance * 100)} %`;
  const refMpps = `${against === 'hand' ? 'hand' : CONFIG_LABEL[against]} Mpps`;
  const measured = comparisons(ms, against)
    .filter((c) => c.tolerance === tolerance)
    .map((c) => ({
      key: { path: c.path, size: c.size, config: 'vppnet' as const },
      row: {
        path: c.path,
        frames: c.size,
        'vppnet Mpps': fmt(c.vppnetMpps, 2),
        [refMpps]: fmt(c.handMpps, 2),
        'Mpps ratio': fmt(c.mppsRatio, 3),
        'clocks ratio': fmt(c.clocksRatio, 3),
        [within]: c.withinTolerance ? 'yes' : 'NO',
      },
    }));
  const missing = placeholders(
    ms.filter((m) => m.config === against),
    notMeasured.filter((n) => n.config === 'vppnet' && toleranceOf(n.path) === tolerance),
  ).map((key) => {
    const ref = ms.find((m) => m.config === against && m.path === key.path && m.size === key.size);
    return {
      key,
      row: {
        path: key.path,
        frames: key.size,
        'vppnet Mpps': '-',
        [refMpps]: ref ? fmt(ref.figures.mpps, 2) : '-',
        'Mpps ratio': '-',
        'clocks ratio': '-',
        [within]: 'NO: not measured',
      },
    };
  });
  const bySize = (a: RowKey, b: RowKey): number =>
    a.size.localeCompare(b.size) || PATH_IDS.indexOf(a.path) - PATH_IDS.indexOf(b.path);
  return missing.length === 0
    ? measured.map((r) => r.row)
    : [...measured, ...missing].sort((a, b) => bySize(a.key, b.key)).map((r) => r.row);
}

/**
 * A node's name with the interface it belongs to replaced by its role, so that the two
 * configurations' rows line up: "pg12-tx" → "<out>-tx", a loopback's (the BVI's) → "<bvi>-output".
 */
export function nodeRole(name: string, m: Pick<Measurement, 'egress'>): string {
  if (name.startsWith(`${m.egress}-`)) return `<out>-${name.slice(m.egress.length + 1)}`;
  const loop = /^loop\d+-(.*)$/.exec(name);
  return loop ? `<bvi>-${loop[1]}` : name;
}

/**
 * Per-node clocks per packet of one path and size, the configurations side by side (nodes of both
 * by name; a node only one of them uses shows '-' in the other's column).
 */
export function breakdownRows(ms: readonly Measurement[]): Row[] {
  const cols = [...ms].sort(order);
  const names: string[] = [];
  for (const m of cols)
    for (const n of m.figures.nodes)
      if (!names.includes(nodeRole(n.name, m))) names.push(nodeRole(n.name, m));
  const rows: Row[] = names.map((name) => {
    const row: Record<string, string> = { node: name };
    for (const m of cols) {
      const n = m.figures.nodes.find((x) => nodeRole(x.name, m) === name);
      row[`${CONFIG_LABEL[m.config]} clk/pkt`] = n ? fmt(n.clocksPerPacket, 1) : '-';
      row[`${CONFIG_LABEL[m.config]} vec/call`] = n ? fmt(n.vectorsPerCall, 1) : '-';
    }
    return row;
  });
  const total: Record<string, string> = { node: 'graph total' };
  for (const m of cols) {
    total[`${CONFIG_LABEL[m.config]} clk/pkt`] = fmt(m.figures.graphClocksPerPacket, 1);
    total[`${CONFIG_LABEL[m.config]} vec/call`] = '';
  }
  return [...rows, total];
}

export const SERIES = [
  { key: 'vppnet', label: 'vppnet (reconciler)', color: '#1f77b4' },
  { key: 'hand', label: 'hand-configured (CLI)', color: '#ff7f0e' },
  { key: 'hand-checks', label: 'hand + source checks', color: '#2ca02c' },
  { key: 'baseline', label: 'baseline: IPv4 table 0', color: '#7f7f7f' },
] as const;

export function chartOf(ms: readonly Measurement[], meta: RunMeta): BarChart {
  const sizes = [...new Set(ms.map((m) => m.size))];
  const paths = PATH_IDS.filter((p) => ms.some((m) => m.path === p));
  return {
    title: 'vppnet datapaths: Mpps per path',
    subtitle:
      `VPP ${meta.vppVersion}, ${meta.workers === 0 ? 'no workers (main thread)' : `${meta.workers} worker${meta.workers > 1 ? 's' : ''}`}, ` +
      `${meta.mode === 'pg' ? 'packet generator' : 'NICs'}${meta.cpuModel ? `, ${meta.cpuModel}` : ''}, ${meta.date.slice(0, 10)}`,
    yLabel: 'Mpps',
    series: SERIES,
    panels: sizes.map((size) => ({
      title: size === '64B' ? '64 B frames' : size,
      groups: paths.map((path) => {
        const values: Record<string, number | undefined> = {};
        for (const m of ms) if (m.path === path && m.size === size) values[m.config] = m.figures.mpps;
        return { label: path, values };
      }),
    })),
  };
}

export interface ReportJson {
  readonly meta: RunMeta;
  readonly measurements: readonly Measurement[];
  readonly notMeasured: readonly NotMeasured[];
  /** vppnet vs hand (what --strict judges: the source checks' cost included). */
  readonly comparisons: readonly ComparisonRow[];
  /** vppnet vs hand+checks (the same paths by hand with the same source checks). */
  readonly comparisonsWithChecks: readonly ComparisonRow[];
  readonly pathTitles: Readonly<Record<PathId, string>>;
}

export function reportJson(
  ms: readonly Measurement[],
  meta: RunMeta,
  notMeasured: readonly NotMeasured[] = [],
): ReportJson {
  return {
    meta,
    measurements: ms,
    notMeasured,
    comparisons: comparisons(ms),
    comparisonsWithChecks: comparisons(ms, 'hand-checks'),
    pathTitles: PATH_TITLES,
  };
}
