/** Table printing, percentiles and RSS sampling shared by the benchmarks. */

export interface Row {
  readonly [column: string]: string | number;
}

export function percentile(sortedMs: readonly number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  const i = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return sortedMs[i] as number;
}

export function fmt(n: number, digits = 0): string {
  if (!Number.isFinite(n)) return '-';
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function printTable(
  title: string,
  rows: readonly Row[],
  out: NodeJS.WritableStream = process.stdout,
): void {
  const first = rows[0];
  if (!first) return;
  const cols = Object.keys(first);
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number)))
      .join('  ');
  out.write(`\n${title}\n`);
  out.write(`${line(cols)}\n`);
  out.write(`${line(widths.map((w) => '-'.repeat(w)))}\n`);
  for (const r of rows) out.write(`${line(cols.map((c) => String(r[c])))}\n`);
}

/** Peak RSS of this process so far, in MiB (from the kernel's high-water mark). */
export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

export function rssMiB(): number {
  return process.memoryUsage().rss / (1024 * 1024);
}
