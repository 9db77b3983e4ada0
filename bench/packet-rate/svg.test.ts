import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chartOf, type RunMeta } from './report.js';
import { escapeXml, LAYOUT, niceScale, renderBarChart, type BarChart } from './svg.js';
import { measurement as m } from './testing/measurements.js';

interface Element {
  readonly name: string;
  readonly attrs: Record<string, string>;
  readonly children: Element[];
  text: string;
}

/**
 * A strict well-formedness check of the subset of XML the writer emits: one prolog, one root,
 * balanced tags, quoted attributes without duplicates, no raw '<' or stray '&' in text or values.
 */
function parseXml(doc: string): Element {
  let i = 0;
  const fail = (why: string): never =>
    assert.fail(`not well-formed at ${i}: ${why}: …${doc.slice(i, i + 40)}`);
  const checkText = (t: string): string => {
    if (/&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);)/i.test(t)) fail(`bare & in ${JSON.stringify(t)}`);
    if (t.includes('<')) fail('< in text');
    return t
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&');
  };
  if (!doc.startsWith('<?xml version="1.0" encoding="UTF-8"?>')) fail('no XML declaration');
  i = doc.indexOf('?>') + 2;
  const stack: Element[] = [];
  let root: Element | undefined;
  while (i < doc.length) {
    const lt = doc.indexOf('<', i);
    const text = doc.slice(i, lt === -1 ? doc.length : lt);
    if (stack.length === 0 && text.trim() !== '') fail('text outside the root');
    if (stack.length > 0) stack[stack.length - 1]!.text += checkText(text);
    if (lt === -1) break;
    i = lt;
    const gt = doc.indexOf('>', i);
    if (gt === -1) fail('unterminated tag');
    const tag = doc.slice(i + 1, gt);
    if (tag.startsWith('/')) {
      const open = stack.pop();
      if (!open || open.name !== tag.slice(1)) fail(`</${tag.slice(1)}> closes ${open?.name ?? 'nothing'}`);
    } else {
      const selfClosing = tag.endsWith('/');
      const body = selfClosing ? tag.slice(0, -1) : tag;
      const m = /^([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"]*")*)\s*$/.exec(body);
      if (!m) fail(`bad tag <${tag}>`);
      const attrs: Record<string, string> = {};
      for (const a of m![2]!.matchAll(/([\w:-]+)="([^"]*)"/g)) {
        if (a[1]! in attrs) fail(`duplicate attribute ${a[1]}`);
        attrs[a[1]!] = checkText(a[2]!);
      }
      const el: Element = { name: m![1]!, attrs, children: [], text: '' };
      if (stack.length > 0) stack[stack.length - 1]!.children.push(el);
      else if (root) fail('second root element');
      else root = el;
      if (!selfClosing) stack.push(el);
    }
    i = gt + 1;
  }
  if (stack.length > 0) fail(`unclosed <${stack[stack.length - 1]!.name}>`);
  if (!root) fail('no root');
  return root!;
}

function all(el: Element, pred: (e: Element) => boolean): Element[] {
  return [...(pred(el) ? [el] : []), ...el.children.flatMap((c) => all(c, pred))];
}

const chart: BarChart = {
  title: 'Mpps <per> path & "more"',
  subtitle: "VPP 26.06, 1 worker, CPU 'x'",
  yLabel: 'Mpps',
  series: [
    { key: 'vppnet', label: 'vppnet', color: '#1f77b4' },
    { key: 'hand', label: 'hand', color: '#ff7f0e' },
    { key: 'baseline', label: 'baseline', color: '#7f7f7f' },
  ],
  panels: [
    {
      title: '64 B frames',
      groups: [
        { label: 'vm-to-remote', values: { vppnet: 9.1, hand: 9.3 } },
        { label: 'remote-to-vm', values: { vppnet: 8.7, hand: 8.6 } },
        { label: 'vm-to-metadata', values: { vppnet: 5, hand: 5.1 } },
        { label: 'vm-to-vm', values: { vppnet: 9.88, hand: 9.85 } },
        { label: 'baseline', values: { baseline: 9.9 } },
      ],
    },
    {
      title: 'IMIX',
      groups: [
        { label: 'vm-to-remote', values: { vppnet: 8.2, hand: undefined } },
        { label: 'baseline', values: { baseline: 8.9 } },
      ],
    },
  ],
};

describe('renderBarChart', () => {
  it('is a well-formed SVG document with escaped text', () => {
    const root = parseXml(renderBarChart(chart));
    assert.equal(root.name, 'svg');
    assert.equal(root.attrs.xmlns, 'http://www.w3.org/2000/svg');
    assert.equal(root.children.find((c) => c.name === 'title')!.text, 'Mpps <per> path & "more"');
    assert.ok(all(root, (e) => e.name === 'text').some((t) => t.text === "VPP 26.06, 1 worker, CPU 'x'"));
  });

  it('draws one bar per value, none for a missing one', () => {
    const bars = all(parseXml(renderBarChart(chart)), (e) => e.name === 'rect' && e.attrs.class === 'bar');
    assert.equal(bars.length, 4 * 2 + 1 + 1 + 1);
    assert.deepEqual(
      bars.map((b) => `${b.attrs['data-series']}=${b.attrs['data-value']}`),
      [
        'vppnet=9.1',
        'hand=9.3',
        'vppnet=8.7',
        'hand=8.6',
        'vppnet=5',
        'hand=5.1',
        'vppnet=9.88',
        'hand=9.85',
        'baseline=9.9',
        'vppnet=8.2',
        'baseline=8.9',
      ],
    );
  });

  it('scales bars on one axis shared by the panels, from a common baseline', () => {
    const root = parseXml(renderBarChart(chart));
    const { top } = niceScale(9.9);
    assert.equal(top, 10);
    const floor = LAYOUT.top + LAYOUT.plotHeight;
    for (const b of all(root, (e) => e.name === 'rect' && e.attrs.class === 'bar')) {
      const v = Number(b.attrs['data-value']);
      const h = Number(b.attrs.height);
      assert.ok(Math.abs(h - (v / top) * LAYOUT.plotHeight) < 0.01, `bar ${v}: height ${h}`);
      assert.ok(Math.abs(Number(b.attrs.y) + h - floor) < 0.02, 'bars stand on the axis');
    }
    const ticks = all(root, (e) => e.name === 'text' && e.attrs.class === 'tick').map((t) => t.text);
    assert.deepEqual(ticks, ['0', '2', '4', '6', '8', '10']);
    // Bars of one group sit side by side inside the panel.
    const bars = all(root, (e) => e.name === 'rect' && e.attrs.class === 'bar');
    const [a, b] = [bars[0]!, bars[1]!];
    assert.ok(Number(b.attrs.x) >= Number(a.attrs.x) + Number(a.attrs.width));
    assert.ok(
      Number(bars[9]!.attrs.x) >= LAYOUT.left + LAYOUT.panelWidth,
      'the second panel starts after the first',
    );
  });

  it('nice scales', () => {
    assert.deepEqual(niceScale(0), { top: 1, step: 0.2 });
    assert.deepEqual(niceScale(13.4), { top: 15, step: 5 });
    assert.deepEqual(niceScale(12), { top: 12.5, step: 2.5 });
    assert.deepEqual(niceScale(0.42), { top: 0.5, step: 0.1 });
    assert.deepEqual(niceScale(100), { top: 100, step: 20 });
    assert.equal(escapeXml(`<a href="x">&'</a>`), '&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;');
  });
});

describe('chartOf', () => {
  const meta: RunMeta = {
    mode: 'pg',
    vppVersion: '26.06-release',
    vppBanner: '',
    workers: 1,
    cpuModel: 'Xeon & co',
    ghz: 2.2,
    durationSeconds: 10,
    warmupSeconds: 2,
    flows: 256,
    date: '2026-07-01T00:00:00Z',
    node: 'v20',
  };

  it('groups vppnet, hand and baseline per path and frame size into a well-formed chart', () => {
    const ms = [
      m('vm-to-remote', 'vppnet', '64B', 9),
      m('vm-to-remote', 'hand', '64B', 9.2),
      m('baseline', 'baseline', '64B', 10),
      m('vm-to-remote', 'vppnet', 'IMIX', 7),
      m('vm-to-remote', 'hand', 'IMIX', 7.1),
      m('baseline', 'baseline', 'IMIX', 8),
    ];
    const c = chartOf(ms, meta);
    assert.deepEqual(
      c.panels.map((p) => p.title),
      ['64 B frames', 'IMIX'],
    );
    assert.deepEqual(c.panels[0]!.groups, [
      { label: 'vm-to-remote', values: { vppnet: 9, hand: 9.2 } },
      { label: 'baseline', values: { baseline: 10 } },
    ]);
    const bars = all(parseXml(renderBarChart(c)), (e) => e.name === 'rect' && e.attrs.class === 'bar');
    assert.equal(bars.length, 6);
  });

  it('a fourth series, hand+checks: its bars, and a legend whose entries all lie inside one panel', () => {
    const ms = [
      m('vm-to-vm', 'vppnet', '64B', 9),
      m('vm-to-vm', 'hand', '64B', 10),
      m('vm-to-vm', 'hand-checks', '64B', 8.9),
      m('baseline', 'baseline', '64B', 11),
    ];
    const c = chartOf(ms, meta);
    assert.deepEqual(c.panels[0]!.groups[0], {
      label: 'vm-to-vm',
      values: { vppnet: 9, hand: 10, 'hand-checks': 8.9 },
    });
    const root = parseXml(renderBarChart(c));
    const width = Number(root.attrs.width);
    const swatches = all(
      root,
      (e) => e.name === 'rect' && e.attrs.class === undefined && e.attrs.width === '12',
    );
    assert.equal(swatches.length, 4);
    for (const s of swatches)
      assert.ok(
        Number(s.attrs.x) + LAYOUT.legendStep <= width - LAYOUT.right,
        `legend entry at x=${s.attrs.x}`,
      );
    assert.equal(new Set(swatches.map((s) => s.attrs.y)).size, 2, 'two rows');
    assert.ok(
      swatches.every((s) => Number(s.attrs.y) + 12 < LAYOUT.top - 18),
      'above the panel titles',
    );
  });
});
