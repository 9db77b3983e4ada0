/**
 * A grouped bar chart as a standalone SVG document, no dependencies: one panel per frame size,
 * one group per path, one bar per series (vppnet, hand-configured, baseline) that has a value.
 * All panels share one y scale so that bars compare across panels.
 */

export interface ChartSeries {
  readonly key: string;
  readonly label: string;
  readonly color: string;
}

export interface ChartGroup {
  readonly label: string;
  /** Series key → value; a series without a value in a group gets no bar there. */
  readonly values: Readonly<Record<string, number | undefined>>;
}

export interface ChartPanel {
  readonly title: string;
  readonly groups: readonly ChartGroup[];
}

export interface BarChart {
  readonly title: string;
  readonly subtitle?: string;
  readonly yLabel: string;
  readonly series: readonly ChartSeries[];
  readonly panels: readonly ChartPanel[];
}

export const LAYOUT = {
  panelWidth: 520,
  plotHeight: 300,
  top: 100,
  left: 64,
  right: 24,
  bottom: 40,
  groupGap: 18,
  barGap: 3,
  /** Width of one legend entry (swatch and label); entries wrap to a second row past the chart's width. */
  legendStep: 170,
  legendRow: 16,
} as const;

export function escapeXml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** A 1-2-2.5-5 step and the axis top for values up to `max`, about `count` intervals. */
export function niceScale(max: number, count = 5): { readonly top: number; readonly step: number } {
  if (!(max > 0) || !Number.isFinite(max)) return { top: 1, step: 0.2 };
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  return { top: Math.ceil(max / step - 1e-9) * step, step };
}

function num(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0+$/, '').replace(/\.$/, '');
}

function label(v: number): string {
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
}

export function renderBarChart(chart: BarChart): string {
  const L = LAYOUT;
  const values = chart.panels
    .flatMap((p) => p.groups.flatMap((g) => Object.values(g.values)))
    .filter((v): v is number => v !== undefined && Number.isFinite(v));
  const { top, step } = niceScale(Math.max(0, ...values));
  const width = L.left + chart.panels.length * L.panelWidth + L.right;
  const height = L.top + L.plotHeight + L.bottom;
  const y = (v: number): number => L.top + L.plotHeight - (v / top) * L.plotHeight;
  const out: string[] = [];
  out.push('<?xml version="1.0" encoding="UTF-8"?>');
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
  );
  out.push(`<title>${escapeXml(chart.title)}</title>`);
  out.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`);
  out.push(`<text x="${L.left}" y="24" font-size="16" font-weight="bold">${escapeXml(chart.title)}</text>`);
  if (chart.subtitle)
    out.push(`<text x="${L.left}" y="44" fill="#555555">${escapeXml(chart.subtitle)}</text>`);

  // Legend: as many entries a row as fit (one panel holds three, not four).
  const perRow = Math.max(1, Math.floor((width - L.left - L.right) / L.legendStep));
  chart.series.forEach((s, i) => {
    const x = L.left + (i % perRow) * L.legendStep;
    const y = 52 + Math.floor(i / perRow) * L.legendRow;
    out.push(`<rect x="${x}" y="${y}" width="12" height="12" fill="${escapeXml(s.color)}"/>`);
    out.push(`<text x="${x + 18}" y="${y + 10}">${escapeXml(s.label)}</text>`);
  });

  // Y axis: grid lines and ticks, shared by the panels.
  out.push(`<g class="y-axis">`);
  for (let v = 0; v <= top + step / 2; v += step) {
    const yy = num(y(v));
    out.push(`<line x1="${L.left}" y1="${yy}" x2="${width - L.right}" y2="${yy}" stroke="#dddddd"/>`);
    out.push(
      `<text class="tick" x="${L.left - 6}" y="${num(y(v) + 4)}" text-anchor="end">${num(Number(v.toFixed(6)))}</text>`,
    );
  }
  out.push(
    `<text x="16" y="${L.top + L.plotHeight / 2}" transform="rotate(-90 16 ${L.top + L.plotHeight / 2})" text-anchor="middle">${escapeXml(chart.yLabel)}</text>`,
  );
  out.push(`</g>`);

  chart.panels.forEach((panel, pi) => {
    const x0 = L.left + pi * L.panelWidth;
    out.push(`<g class="panel">`);
    out.push(
      `<text x="${x0 + L.panelWidth / 2}" y="${L.top - 6}" text-anchor="middle" font-weight="bold">${escapeXml(panel.title)}</text>`,
    );
    out.push(
      `<line x1="${x0}" y1="${L.top + L.plotHeight}" x2="${x0 + L.panelWidth}" y2="${L.top + L.plotHeight}" stroke="#333333"/>`,
    );
    const n = Math.max(1, panel.groups.length);
    const groupWidth = (L.panelWidth - L.groupGap * (n + 1)) / n;
    panel.groups.forEach((g, gi) => {
      const present = chart.series.filter(
        (s) => g.values[s.key] !== undefined && Number.isFinite(g.values[s.key]),
      );
      const gx = x0 + L.groupGap + gi * (groupWidth + L.groupGap);
      const barWidth =
        present.length > 0 ? (groupWidth - L.barGap * (present.length - 1)) / present.length : groupWidth;
      present.forEach((s, si) => {
        const v = g.values[s.key] as number;
        const bx = gx + si * (barWidth + L.barGap);
        const by = y(v);
        const bh = L.top + L.plotHeight - by;
        out.push(
          `<rect class="bar" data-series="${escapeXml(s.key)}" data-value="${v}" x="${num(bx)}" y="${num(by)}" width="${num(barWidth)}" height="${num(bh)}" fill="${escapeXml(s.color)}"><title>${escapeXml(`${g.label} — ${s.label}: ${label(v)}`)}</title></rect>`,
        );
        out.push(
          `<text x="${num(bx + barWidth / 2)}" y="${num(by - 3)}" text-anchor="middle" font-size="10">${label(v)}</text>`,
        );
      });
      out.push(
        `<text x="${num(gx + groupWidth / 2)}" y="${L.top + L.plotHeight + 16}" text-anchor="middle" font-size="11">${escapeXml(g.label)}</text>`,
      );
    });
    out.push(`</g>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
