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
  const deleteOps: Op[] = [];
  const applyOps: Op[] = [];
  for (const s of sets) {
    const { deletes, applies } = s.ops(found, wanted);
    for (const op of deletes) deleteOps.push(op);
    for (const op of applies) applyOps.push(op);
  }
  sortOps(deleteOps, -1);
  sortOps(applyOps, 1);

  const pending = sets.flatMap((s) => s.pending);
  const unchangedByKind = new Map<string, number>();
  for (const s of sets) s.countUnchanged(unchangedByKind);
  let unchanged = 0;
  for (const n of unchangedByKind.values()) unchanged += n;
  for (const op of applyOps) deleteOps.push(op);
  return { ops: deleteOps, pending, unchanged, unchangedByKind };
}

/** Step 1's rules: a resource waits when a dependency cannot be met, and so do its dependents. */
function dependencyVerdicts(
  want: ReadonlyMap<string, Resource>,
  actualByKey: ReadonlyMap<string, Resource>,
): DependencyVerdicts {
  const verdict = new Map<string, string | null>(); // key → why it is blocked, null when it is not
  const inProgress = new Set<string>();
  const blockedReason = (r: Resource): string | undefined => {
    const known = verdict.get(r.key);
    if (known !== undefined) return known ?? undefined;
    if (inProgress.has(r.key)) return `dependency cycle through ${r.key}`;
    inProgress.add(r.key);
    let why: string | undefined;
    if (r.external) {
      const found = actualByKey.get(r.key);
      if (!found) why = `${r.key} does not exist in VPP (vppnet never creates it)`;
      else if (found.unusable !== undefined) why = `${r.key} ${found.unusable}`;
    } else {
      why = blockedBy(r.deps);
    }
    inProgress.delete(r.key);
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

/**
 * Sorts ops in place by level (ascending for 1, descending for -1), then by key in plain
 * code-unit order (deterministic, and much faster than localeCompare on 100k keys). Each op's
 * key is read once: a bulk member's op builds it on each read rather than hold it (bulk-set.ts).
 */
function sortOps(ops: Op[], levelOrder: 1 | -1): void {
  const keys = ops.map((op) => flat(op.key));
  const order = Array.from(ops.keys());
  order.sort((i, j) => {
    const a = keys[i] as string;
    const b = keys[j] as string;
    return levelOrder * ((ops[i] as Op).level - (ops[j] as Op).level) || (a < b ? -1 : a > b ? 1 : 0);
  });
  const sorted = order.map((i) => ops[i] as Op);
  for (let i = 0; i < sorted.length; i++) ops[i] = sorted[i] as Op;
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
