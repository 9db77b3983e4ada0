/**
 * Planning is a pure function: (desired, found in VPP, descriptors) → ordered operations. Nothing
 * here talks to VPP, so `vppnet plan` prints exactly what an apply would do. Bulk kinds (bulk.ts)
 * come as comparisons of their two sides and follow the same rules, member by member.
 */
import type { BulkComparison } from './bulk.js';
import { BulkPlan } from './bulk-plan.js';
import type { Descriptor } from './descriptor.js';
import type { Op, PendingResource, Plan, Resource } from './resource.js';

export function plan(
  desired: readonly Resource[],
  actual: readonly Resource[],
  descriptors: ReadonlyMap<string, Descriptor>,
  bulk: readonly BulkComparison[] = [],
): Plan {
  const want = new Map<string, Resource>();
  for (const r of desired) {
    if (want.has(r.key)) throw new Error(`duplicate desired resource key ${r.key}`);
    want.set(r.key, r);
  }
  const have = new Map<string, Resource>();
  for (const r of actual) have.set(r.key, r);

  const descriptorOf = (r: { readonly kind: string }): Descriptor => {
    const d = descriptors.get(r.kind);
    if (!d) throw new Error(`no descriptor for kind ${r.kind}`);
    return d;
  };
  const bulkPlans = bulk.map((c) => new BulkPlan(c));

  // 1. Resources whose dependencies cannot be met stay pending, and so do their dependents.
  const pending = new Map<string, PendingResource>();
  const verdict = new Map<string, string | null>(); // key → why it is blocked, null when it is not
  const inProgress = new Set<string>();
  const blockedReason = (r: Resource): string | undefined => {
    const known = verdict.get(r.key);
    if (known !== undefined) return known ?? undefined;
    if (inProgress.has(r.key)) return `dependency cycle through ${r.key}`;
    inProgress.add(r.key);
    let why: string | undefined;
    if (r.external) {
      if (!have.has(r.key)) why = `${r.key} does not exist in VPP (vppnet never creates it)`;
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
        if (have.has(dep)) continue; // something VPP already has and vppnet does not manage
        return `${dep}: not part of the desired state`;
      }
      const depWhy = blockedReason(d);
      if (depWhy !== undefined) return d.external ? depWhy : `${dep}, itself waiting for ${depWhy}`;
    }
    return undefined;
  };
  for (const r of want.values()) {
    const why = blockedReason(r);
    if (why !== undefined) pending.set(r.key, { resource: r, waitingFor: why });
  }

  // 2. Classify: create, recreate (not equivalent and no in-place update), update, unchanged.
  const creates = new Set<string>();
  const updates = new Set<string>();
  const deletes = new Set<string>();
  const unchanged = new Set<string>();
  const reasons = new Map<string, string>();
  for (const r of want.values()) {
    if (r.external || pending.has(r.key)) continue;
    const found = have.get(r.key);
    const d = descriptorOf(r);
    if (!found) {
      creates.add(r.key);
      reasons.set(r.key, 'missing in VPP');
    } else if (d.equivalent(r.value, found.value)) {
      unchanged.add(r.key);
    } else if (d.update) {
      updates.add(r.key);
      reasons.set(r.key, 'differs from VPP');
    } else {
      deletes.add(r.key);
      creates.add(r.key);
      reasons.set(r.key, 'differs from VPP; recreated');
    }
  }
  for (const r of have.values()) {
    if (!want.has(r.key) && !r.external) {
      deletes.add(r.key);
      reasons.set(r.key, 'not in the desired state');
    }
  }
  for (const b of bulkPlans) b.classify(blockedBy, descriptorOf(b).update !== undefined);

  // 3. Deleting an object takes its dependents with it in VPP (an interface's addresses, a
  //    policy's steering): delete those explicitly first, and recreate the ones still desired.
  const dependents = new Map<string, string[]>();
  for (const r of have.values()) {
    for (const dep of r.deps) {
      const list = dependents.get(dep) ?? [];
      list.push(r.key);
      dependents.set(dep, list);
    }
  }
  const queue = [...deletes];
  while (queue.length) {
    const key = queue.pop() as string;
    for (const b of bulkPlans) b.cascade(key);
    for (const child of dependents.get(key) ?? []) {
      if (deletes.has(child)) continue;
      deletes.add(child);
      queue.push(child);
      if (want.has(child) && !pending.has(child)) {
        creates.add(child);
        updates.delete(child);
        unchanged.delete(child);
        reasons.set(child, `recreated with ${key}`);
      } else {
        reasons.set(child, `removed with ${key}`);
      }
    }
  }

  // 4. Levels: depth in the dependency graph of the state each phase works on.
  const levelIn = (graph: ReadonlyMap<string, Resource>): { of: (key: string) => number; above: (deps: readonly string[]) => number } => {
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
    // A bulk member is a leaf: its level is the one above its group's dependencies.
    return { of: (key) => level(key, new Set()), above: (deps) => above(deps, new Set()) };
  };
  const haveLevels = levelIn(have);
  const wantLevels = levelIn(want);
  const haveLevel = haveLevels.of;
  const wantLevel = wantLevels.of;

  const deleteOps: Op[] = [...deletes].map((key) => ({
    action: 'delete',
    resource: have.get(key) as Resource,
    level: haveLevel(key),
    reason: reasons.get(key) ?? '',
  }));
  const bulkApplyOps: Op[][] = [];
  for (const b of bulkPlans) {
    const { deletes: bulkDeletes, applies } = b.ops(haveLevels.above, wantLevels.above);
    for (const op of bulkDeletes) deleteOps.push(op);
    bulkApplyOps.push(applies);
  }
  sortOps(deleteOps, -1);

  const applyOps: Op[] = [];
  for (const key of creates) {
    applyOps.push({ action: 'create', resource: want.get(key) as Resource, level: wantLevel(key), reason: reasons.get(key) ?? '' });
  }
  for (const key of updates) {
    applyOps.push({
      action: 'update',
      resource: want.get(key) as Resource,
      previous: have.get(key) as Resource,
      level: wantLevel(key),
      reason: reasons.get(key) ?? '',
    });
  }
  for (const ops of bulkApplyOps) for (const op of ops) applyOps.push(op);
  sortOps(applyOps, 1);

  const allPending = [...pending.values()];
  let allUnchanged = unchanged.size;
  for (const b of bulkPlans) {
    for (const p of b.pending) allPending.push(p);
    allUnchanged += b.unchanged;
  }
  for (const op of applyOps) deleteOps.push(op);
  return { ops: deleteOps, pending: allPending, unchanged: allUnchanged };
}

/**
 * Sorts ops in place by level (ascending for 1, descending for -1), then by key in plain
 * code-unit order (deterministic, and much faster than localeCompare on 100k keys). Each key is
 * read once: a bulk member's op builds its Resource on every access.
 */
function sortOps(ops: Op[], levelOrder: 1 | -1): void {
  const keys = ops.map((op) => op.resource.key);
  const order = Array.from(ops.keys()).sort((i, j) => {
    const a = ops[i] as Op;
    const b = ops[j] as Op;
    const ka = keys[i] as string;
    const kb = keys[j] as string;
    return levelOrder * (a.level - b.level) || (ka < kb ? -1 : ka > kb ? 1 : 0);
  });
  const sorted = order.map((i) => ops[i] as Op);
  for (let i = 0; i < sorted.length; i++) ops[i] = sorted[i] as Op;
}
