/**
 * Node records stay in their lane: no node's locator may overlap another node's locator or BSID
 * prefix (a remote SID inside this node's BSIDs would be steered into a local policy).
 * A node whose locator covers another's would make its agent take the other's SIDs and policies
 * for its own (ownership is read by prefix), and routes to either would be ambiguous.
 *
 * Which record is refused: the one whose prefix covers the other's (a wide prefix is what takes
 * another node's SIDs; the narrower one is that node's own), both when the two are equal, as the
 * agent cannot tell which is right. This agent's own node is never refused here (its record is
 * what it is; a newcomer must not unseat it): the other one is. Each refusal names both keys.
 * So one hostile record covering the fleet loses its own routes only; one copying a node's
 * prefix exactly takes that node's routes down with its own until it is removed.
 *
 * One sweep over the sorted prefixes, O(n log n): prefixes are nested or disjoint, so the open
 * ones form a stack and everything on it encloses the next prefix. 10k nodes are 20k prefixes.
 * Equal BSID prefixes (a fleet may give every node the same one) are one entry of that stack: a
 * BSID prefix never meets another, so a node's BSID prefix passes the others' at once instead of
 * one by one (10k nodes sharing one: 50M comparisons, 330 ms of every node batch, before).
 */
import { ip6ToBigInt } from '../net/ip.js';
import type { KeySchema } from './keys.js';
import type { NodeRecord } from './records.js';

interface Span {
  readonly start: bigint;
  readonly end: bigint;
  readonly len: number;
  readonly node: string;
  readonly what: string;
  readonly bsid: boolean;
}

/** Node name → why its record is refused. Empty when no prefixes overlap. */
export type RefusedNodes = ReadonlyMap<string, string>;

export const NO_REFUSED_NODES: RefusedNodes = new Map();

function span(
  node: string,
  what: 'locator' | 'BSID prefix',
  p: { readonly address: string; readonly len: number },
): Span {
  const start = ip6ToBigInt(p.address) & ~((1n << BigInt(128 - p.len)) - 1n);
  return {
    start,
    end: start + (1n << BigInt(128 - p.len)) - 1n,
    len: p.len,
    node,
    what: `${what} ${p.address}/${p.len}`,
    bsid: what === 'BSID prefix',
  };
}

export function refusedNodes(
  schema: KeySchema,
  nodes: ReadonlyMap<string, NodeRecord>,
  self: string,
): RefusedNodes {
  const spans: Span[] = [];
  for (const n of nodes.values()) {
    spans.push(span(n.name, 'locator', n.locator), span(n.name, 'BSID prefix', n.bsidPrefix));
  }
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
  /** Open prefixes, outermost first; equal BSID prefixes share an entry, in the order sorted. */
  const open: Span[][] = [];
  for (const s of spans) {
    while (open.length > 0 && ((open[open.length - 1] as Span[])[0] as Span).end < s.start) open.pop();
    for (const group of open) {
      // Binding SIDs are local to their node's VPP and never routed between nodes: two nodes may
      // use the same BSID prefix (bench/fleet's nodes all do). A locator may meet neither.
      if (s.bsid && (group[0] as Span).bsid) continue;
      for (const outer of group) {
        if (outer.node === s.node) continue;
        if (outer.start === s.start && outer.len === s.len) {
          const outcome =
            s.node === self || outer.node === self ? 'this node keeps its own' : 'both records are refused';
          refuse(outer, s, 'is also', outcome);
          refuse(s, outer, 'is also', outcome);
        } else if (outer.node === self) refuse(s, outer, 'lies inside', 'this node keeps its own');
        else refuse(outer, s, 'covers', "a prefix covering another node's is refused");
      }
    }
    const top = open[open.length - 1];
    const first = top?.[0];
    if (top && first && s.bsid && first.bsid && first.start === s.start && first.len === s.len) top.push(s);
    else open.push([s]);
  }
  return refused;
}

/** Whether two refusal maps say the same (a node batch changes the config only if not). */
export function sameRefusals(a: RefusedNodes, b: RefusedNodes): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}
