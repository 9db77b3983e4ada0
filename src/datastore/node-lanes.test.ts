/**
 * refusedNodes' sweep against the plain one it replaced (every open prefix its own stack entry):
 * the same refusals, with the same reasons, for random fleets whose prefixes cover, equal and
 * share each other, BSID prefixes shared by many nodes included.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ip6ToBigInt } from '../net/ip.js';
import { KeySchema } from './keys.js';
import { refusedNodes } from './node-lanes.js';
import { parseRecord, type NodeRecord } from './records.js';

const schema = new KeySchema();

function maybeNodeRecord(
  name: string,
  n: number,
  locator: string,
  bsidPrefix: string,
): NodeRecord | undefined {
  const r = parseRecord(
    schema,
    schema.node(name),
    JSON.stringify({
      underlay: {
        interface: 'memif1/0',
        address: `2001:db8::${n.toString(16)}/64`,
        gateway: '2001:db8::ffff',
      },
      srv6: { locator, bsidPrefix },
    }),
  );
  return Array.isArray(r) ? undefined : (r as NodeRecord);
}

function nodeRecord(name: string, n: number, locator: string, bsidPrefix: string): NodeRecord {
  const r = maybeNodeRecord(name, n, locator, bsidPrefix);
  if (!r) throw new Error(`${name}: ${locator} and ${bsidPrefix} make no valid node record`);
  return r;
}

/** The sweep as it was: one stack entry per open prefix. */
function refusedBySpan(nodes: ReadonlyMap<string, NodeRecord>, self: string): Map<string, string> {
  type Span = { start: bigint; end: bigint; len: number; node: string; what: string; bsid: boolean };
  const span = (node: string, what: string, p: { address: string; len: number }): Span => {
    const start = ip6ToBigInt(p.address) & ~((1n << BigInt(128 - p.len)) - 1n);
    const end = start + (1n << BigInt(128 - p.len)) - 1n;
    return {
      start,
      end,
      len: p.len,
      node,
      what: `${what} ${p.address}/${p.len}`,
      bsid: what === 'BSID prefix',
    };
  };
  const spans: Span[] = [];
  for (const n of nodes.values())
    spans.push(span(n.name, 'locator', n.locator), span(n.name, 'BSID prefix', n.bsidPrefix));
  spans.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.len - b.len));
  const refused = new Map<string, string>();
  const refuse = (victim: Span, other: Span, how: string, outcome: string): void => {
    if (victim.node === self || refused.has(victim.node)) return;
    const whose = other.node === self ? "this node's" : `node ${other.node}'s`;
    refused.set(
      victim.node,
      `its ${victim.what} ${how} ${whose} ${other.what} (${schema.node(other.node)}): ${outcome}`,
    );
  };
  const open: Span[] = [];
  for (const s of spans) {
    while (open.length > 0 && (open[open.length - 1] as Span).end < s.start) open.pop();
    for (const outer of open) {
      if (outer.node === s.node || (outer.bsid && s.bsid)) continue;
      if (outer.start === s.start && outer.len === s.len) {
        const outcome =
          s.node === self || outer.node === self ? 'this node keeps its own' : 'both records are refused';
        refuse(outer, s, 'is also', outcome);
        refuse(s, outer, 'is also', outcome);
      } else if (outer.node === self) refuse(s, outer, 'lies inside', 'this node keeps its own');
      else refuse(outer, s, 'covers', "a prefix covering another node's is refused");
    }
    open.push(s);
  }
  return refused;
}

/** A small deterministic generator (no dependency), so that a failure can be replayed. */
function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

// Prefixes that nest, equal and miss each other: locators and BSID prefixes are drawn from both.
const PREFIXES = [
  'fc00::/16',
  'fc00:100::/40',
  'fc00:100::/48',
  'fc00:101::/48',
  'fc00:105:1::/64',
  'fc00:1ff::/48',
  'fd00:b51d::/48',
  'fd00:b51d::/64',
  'fd00:b51e::/64',
];

test('the grouped sweep refuses exactly what one entry per prefix did, with the same reasons', () => {
  let conflicts = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const next = random(seed);
    const pick = (list: readonly string[]): string => list[Math.floor(next() * list.length)] as string;
    const count = 2 + Math.floor(next() * 40);
    // Mostly distinct locators and one shared BSID prefix, as a fleet has them; now and then a
    // locator or BSID prefix drawn from the nesting ones.
    const nodes = new Map<string, NodeRecord>();
    for (let n = 0; n < count; n++) {
      const name = `hv${n}`;
      // A record whose own locator and BSID prefix overlap is refused on its own: draw again.
      for (;;) {
        const locator = next() < 0.6 ? `fc00:${(0x100 + n).toString(16)}::/48` : pick(PREFIXES);
        const bsid = next() < 0.6 ? 'fd00:b51d::/64' : pick(PREFIXES);
        const r = maybeNodeRecord(name, n + 1, locator, bsid);
        if (r) {
          nodes.set(name, r);
          break;
        }
      }
    }
    const self = `hv${Math.floor(next() * count)}`;
    const want = [...refusedBySpan(nodes, self)];
    assert.deepEqual([...refusedNodes(schema, nodes, self)], want, `seed ${seed}`);
    if (want.length > 0) conflicts++;
  }
  assert.ok(conflicts > 100, `only ${conflicts} of 300 fleets had a conflict: the test would prove little`);
});

test('many nodes sharing one BSID prefix, and a locator inside it: every one of them is refused', () => {
  const nodes = new Map<string, NodeRecord>();
  for (let n = 0; n < 2000; n++)
    nodes.set(
      `hv${n}`,
      nodeRecord(`hv${n}`, n + 1, `fc00:${(0x100 + n).toString(16)}::/48`, 'fd00:b51d::/64'),
    );
  assert.equal(refusedNodes(schema, nodes, 'hv0').size, 0);
  nodes.set('hvx', nodeRecord('hvx', 9999, 'fd00:b51d::/80', 'fd00:b51e::/64'));
  const refused = refusedNodes(schema, nodes, 'hv0');
  // hv0 is this node: it keeps its own and the newcomer inside its BSID prefix is refused.
  assert.equal(refused.size, 2000);
  assert.ok(!refused.has('hv0'));
  assert.match(refused.get('hvx') ?? '', /locator fd00:b51d::\/80 lies inside this node's BSID prefix/);
  assert.match(refused.get('hv1') ?? '', /BSID prefix fd00:b51d::\/64 covers node hvx's locator/);
});
