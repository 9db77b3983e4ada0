/**
 * Planning is a pure function: (desired, actual, kinds) → ordered operations. Nothing here
 * talks to VPP, so `vppnet plan` prints exactly what an apply would do. The planner runs four
 * steps over kind sets (kind-set.ts): the plain resources, which make up the dependency graph,
 * and each bulk kind (bulk.ts), whose members are leaves of it.
 */
import type { BulkComparison } from './bulk.js';
import { BulkKindSet } from './bulk-set.js';
import type { Descriptor } from './descriptor.js';
import type { DependencyVerdicts, KindSet, Levels } from './kind-set.js';
import { PlainKindSet } from './plain-set.js';
import type { KindLookup } from './registry.js';
import type { Op, Plan, Resource } from './resource.js';

export function plan(
  desired: readonly Resource[],
  actual: readonly Resource[],
  kinds: KindLookup,
  bulk: readonly BulkComparison[] = [],
): Plan {
  const want = new Map<string, Resource>();
  for (const r of desired) {
    if (want.has(r.key)) throw new Error(`duplicate desired resource key ${r.key}`);
    want.set(r.key, r);
  }
  const actualByKey = new Map<string, Resource>();
  for (const r of actual) actualByKey.set(r.key, r);

  const descriptorOf = (r: { readonly kind: string }): Descriptor => {
    const d = kinds.get(r.kind);
    if (!d) throw new Error(`no descriptor for kind ${r.kind}`);
    return d;
  };
  const sets: KindSet[] = [
    new PlainKindSet(want, actualByKey, descriptorOf),
    ...bulk.map((c) => new BulkKindSet(c, descriptorOf(c.desired))),
  ];

  // 1 and 2. Pending (waiting for a dependency), then what each desired member needs.
  const verdicts = dependencyVerdicts(want, actualByKey);
  const deleted: string[] = [];
  for (const s of sets) for (const key of s.classify(verdicts)) deleted.push(key);

  // 3. Deleting an object takes its dependents with it in VPP (an interface's addresses, a
  //    policy's steering): delete those explicitly first, and recreate the ones still desired.
  const queue = deleted;
  while (queue.length) {
    const key = queue.pop() as string;
    for (const s of sets) for (const child of s.cascade(key)) queue.push(child);
  }

  // 4. Levels: depth in the dependency graph of the state each phase works on.
  const found = levelsIn(actualByKey);
  const wanted = levelsIn(want);
  const loose = { deletes: [] as Op[], applies: [] as Op[] };
  const deleteRuns: OpRun[] = [];
  const applyRuns: OpRun[] = [];
  for (const s of sets) {
    const { deletes, applies, keyPrefix } = s.ops(found, wanted);
    if (keyPrefix !== undefined) {
      if (deletes.length) deleteRuns.push({ ops: deletes, keyPrefix });
      if (applies.length) applyRuns.push({ ops: applies, keyPrefix });
      continue;
    }
    appendTo(loose.deletes, deletes);
    appendTo(loose.applies, applies);
  }
  const ops = inPlanOrder(loose.deletes, deleteRuns, -1);
  appendTo(ops, inPlanOrder(loose.applies, applyRuns, 1));

  const pending = sets.flatMap((s) => s.pending);
  const unchangedByKind = new Map<string, number>();
  for (const s of sets) s.countUnchanged(unchangedByKind);
  let unchanged = 0;
  for (const n of unchangedByKind.values()) unchanged += n;
  return { ops, pending, unchanged, unchangedByKind };
}

/** Indexed: for-of over 100k ops makes an iterator result each in code V8 has not optimized. */
function appendTo(to: Op[], from: readonly Op[]): void {
  for (let i = 0; i < from.length; i++) to.push(from[i] as Op);
}

const IN_PROGRESS = Symbol('in progress');

/** Step 1's rules: a resource waits when a dependency cannot be met, and so do its dependents. */
function dependencyVerdicts(
  want: ReadonlyMap<string, Resource>,
  actualByKey: ReadonlyMap<string, Resource>,
): DependencyVerdicts {
  // key → why it is blocked, null when it is not, IN_PROGRESS while its dependencies are looked at
  // (one map rather than a set beside it: a set entry added and deleted per resource churned it).
  const verdict = new Map<string, string | null | typeof IN_PROGRESS>();
  const blockedReason = (r: Resource): string | undefined => {
    // Nothing to wait for and nothing to remember: most of a node's resources, asked about once
    // each and again by each of their dependents.
    if (r.deps.length === 0 && !r.external) return undefined;
    const known = verdict.get(r.key);
    if (known === IN_PROGRESS) return `dependency cycle through ${r.key}`;
    if (known !== undefined) return known ?? undefined;
    verdict.set(r.key, IN_PROGRESS);
    let why: string | undefined;
    if (r.external) {
      const found = actualByKey.get(r.key);
      if (!found) why = `${r.key} does not exist in VPP (vppnet never creates it)`;
      else if (found.unusable !== undefined) why = `${r.key} ${found.unusable}`;
    } else {
      why = blockedBy(r.deps);
    }
    verdict.set(r.key, why ?? null);
    return why;
  };
  const blockedBy = (deps: readonly string[]): string | undefined => {
    for (const dep of deps) {
      const d = want.get(dep);
      if (!d) {
        if (actualByKey.has(dep)) continue; // something VPP already has and vppnet does not manage
        return `${dep}: not part of the desired state`;
      }
      const depWhy = blockedReason(d);
      if (depWhy !== undefined) return d.external ? depWhy : `${dep}, itself waiting for ${depWhy}`;
    }
    return undefined;
  };
  return { blockedReason, blockedBy };
}

function levelsIn(graph: ReadonlyMap<string, Resource>): Levels {
  const memo = new Map<string, number>();
  const level = (key: string, stack: Set<string>): number => {
    const m = memo.get(key);
    if (m !== undefined) return m;
    const r = graph.get(key);
    if (!r || stack.has(key)) return 0;
    stack.add(key);
    const l = above(r.deps, stack);
    stack.delete(key);
    memo.set(key, l);
    return l;
  };
  const above = (deps: readonly string[], stack: Set<string>): number => {
    let l = 0;
    for (const d of deps) if (graph.has(d)) l = Math.max(l, level(d, stack) + 1);
    return l;
  };
  return { of: (key) => level(key, new Set()), above: (deps) => above(deps, new Set()) };
}

/** Ops already in plan order among themselves, whose keys all start with `keyPrefix` (KindSetOps). */
interface OpRun {
  readonly ops: readonly Op[];
  readonly keyPrefix: string;
}

/**
 * Ops by level (ascending for 1, descending for -1), then by key in plain code-unit order
 * (deterministic, and much faster than localeCompare on 100k keys): the loose ops sorted, each of
 * `runs` (already in that order) merged in. A run's key is read only where its prefix cannot
 * decide: a key that does not start with a prefix sorts before all keys with it exactly when it
 * sorts before the prefix itself. A loose op's key is read once (a bulk member's op builds it on
 * each read).
 */
function inPlanOrder(loose: readonly Op[], runs: readonly OpRun[], levelOrder: 1 | -1): Op[] {
  const looseKeys = loose.map((op) => flat(op.key));
  const order = Array.from(loose.keys());
  order.sort((i, j) => {
    const a = looseKeys[i] as string;
    const b = looseKeys[j] as string;
    return levelOrder * ((loose[i] as Op).level - (loose[j] as Op).level) || (a < b ? -1 : a > b ? 1 : 0);
  });
  const sorted = order.map((i) => loose[i] as Op);
  if (runs.length === 0) return sorted;
  const sortedKeys = order.map((i) => looseKeys[i] as string);
  // A k-way merge over the loose ops and the runs (a bulk kind per address family: k ≤ 3).
  const heads = [
    { ops: sorted as readonly Op[], keys: sortedKeys as readonly string[] | undefined, prefix: '', at: 0 },
    ...runs.map((r) => ({ ops: r.ops, keys: undefined, prefix: r.keyPrefix, at: 0 })),
  ].filter((h) => h.ops.length > 0);
  type Head = (typeof heads)[number];
  const keyOf = (h: Head): string => (h.keys ? (h.keys[h.at] as string) : (h.ops[h.at] as Op).key);
  const before = (a: Head, b: Head): boolean => {
    const level = levelOrder * ((a.ops[a.at] as Op).level - (b.ops[b.at] as Op).level);
    if (level !== 0) return level < 0;
    // A head without keys (a run) against another: decided by its prefix unless the other key
    // (or prefix) starts with it.
    const ka = a.keys ? keyOf(a) : a.prefix;
    const kb = b.keys ? keyOf(b) : b.prefix;
    if ((a.keys || !kb.startsWith(ka)) && (b.keys || !ka.startsWith(kb))) return ka < kb;
    return keyOf(a) < keyOf(b);
  };
  const out: Op[] = [];
  while (heads.length > 1) {
    let min = 0;
    for (let h = 1; h < heads.length; h++) if (before(heads[h] as Head, heads[min] as Head)) min = h;
    const head = heads[min] as Head;
    out.push(head.ops[head.at++] as Op);
    if (head.at === head.ops.length) heads.splice(min, 1);
  }
  const last = heads[0];
  if (last) for (let i = last.at; i < last.ops.length; i++) out.push(last.ops[i] as Op);
  return out;
}

/**
 * The string with its characters in one piece. A key built by a template literal is a rope of
 * its parts (~230 bytes for a steering key), which the sort's first comparison flattens anyway;
 * reading a character flattens it now, so that the parts die young instead of 100k ropes living
 * through the sort (~95 bytes each then): a cold start's plan of 100k steering entries was the
 * agent's peak heap (bench/results/2026-12-07-fleet-memory-2.md).
 */
function flat(s: string): string {
  s.charCodeAt(0);
  return s;
}
