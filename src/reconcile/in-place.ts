/**
 * What a plan leaves in place, per kind, for metrics and status: the desired resources it found
 * unchanged, and those whose create or update ran without any op on their key failing or being
 * skipped. Pending and external resources never count. Read from the plan's ops, so a bulk kind
 * counts as any other without building its members' Resources.
 */
import type { ExecutionResult } from './executor.js';
import type { Plan } from './resource.js';

export function inPlaceByKind(plan: Plan, result: ExecutionResult): Map<string, number> {
  const notDone = new Set<string>();
  for (const f of result.failed) notDone.add(f.op.key);
  for (const s of result.skipped) notDone.add(s.op.key);
  const counts = new Map(plan.unchangedByKind);
  for (const op of plan.ops) {
    if (op.action === 'delete' || notDone.has(op.key)) continue;
    counts.set(op.kind, (counts.get(op.kind) ?? 0) + 1);
  }
  return counts;
}
