/**
 * bench/api's rows for VPP's own limit beside vppnet's figures: medians of alternated rounds in the
 * main table, each round and the best window of each in the comparison table.
 */
import { fmt, type Row } from '../support/report.js';

/** The main table's column with vppnet's rate divided by VPP's limit. */
export const RATIO_COLUMN = 'vppnet ÷ limit';

/** One timed run: `count` requests in `seconds`. */
export interface Timed {
  readonly count: number;
  readonly seconds: number;
  /** CPU time (user + system) the client process spent on the run, when measured. */
  readonly cpuSeconds?: number;
}

/** The main table's column with the client's CPU time per request (median of the rounds). */
export const CPU_COLUMN = 'CPU µs/req';

/** Median CPU microseconds per request over the rounds that measured it; `-` if none did. */
export function cpuPerRequestText(rounds: readonly Timed[] | undefined): string {
  const per = (rounds ?? []).flatMap((r) =>
    r.cpuSeconds === undefined ? [] : [(r.cpuSeconds * 1e6) / r.count],
  );
  return per.length === 0 ? '-' : fmt(median(per), 1);
}

export function rate(t: Timed): number {
  return t.count / t.seconds;
}

/** Median of a non-empty list; the mean of the middle two for an even count. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error('median of no values');
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** The run of median duration (odd counts: the median itself), whose latencies the table shows. */
export function medianRun<T extends Timed>(runs: readonly T[]): T {
  if (runs.length === 0) throw new Error('median of no runs');
  const s = [...runs].sort((a, b) => a.seconds - b.seconds);
  return s[(s.length - 1) >> 1] as T;
}

/** `0.62x`; `n/a` without a limit. */
export function ratioText(vppnetPerS: number, limitPerS: number | undefined): string {
  return limitPerS === undefined || !(limitPerS > 0) ? 'n/a' : `${fmt(vppnetPerS / limitPerS, 2)}x`;
}

export const LIMIT_LABEL = "  VPP's own limit (vppblast, C)";
export const FLOOR_LABEL = "  Node's own floor (net.Socket, no vppnet code)";

/**
 * The row under a vppnet row: the median of VPP's limit rounds in the same columns, or every
 * figure `n/a` when the limit could not be measured (the reason goes under the table).
 */
export function limitRow(like: Row, rounds: readonly Timed[] | undefined, label = LIMIT_LABEL): Row {
  const out: Record<string, string> = {};
  const run = rounds && rounds.length > 0 ? medianRun(rounds) : undefined;
  const perS = run && rounds ? median(rounds.map(rate)) : NaN;
  for (const col of Object.keys(like)) {
    if (col === 'benchmark') out[col] = label;
    else if (!run) out[col] = 'n/a';
    else if (col === 'count') out[col] = fmt(run.count);
    else if (col === 'seconds') out[col] = fmt(run.seconds, 2);
    else if (col === 'ops/s') out[col] = fmt(perS);
    else if (col === CPU_COLUMN) out[col] = cpuPerRequestText(rounds);
    else out[col] = '-';
  }
  return out;
}

/** One line of the comparison table: each alternated round of both, and the ratios. */
export function comparisonRow(
  benchmark: string,
  vppnet: readonly Timed[],
  limit: readonly Timed[] | undefined,
): Row {
  const ours = vppnet.map(rate);
  const theirs = limit?.map(rate);
  const list = (xs: readonly number[] | undefined): string => (xs ? xs.map((x) => fmt(x)).join(' ') : 'n/a');
  return {
    benchmark,
    'vppnet req/s by round': list(ours),
    'limit req/s by round': list(theirs),
    'median ÷ median': ratioText(median(ours), theirs && median(theirs)),
    'best ÷ best': ratioText(Math.max(...ours), theirs && Math.max(...theirs)),
  };
}
