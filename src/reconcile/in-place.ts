/**
 * What a plan leaves in place, per kind, for metrics and status: the desired resources it found
 * unchanged, and those whose create or update ran without any op on their key failing or being
 * skipped. Pending and external resources never count. Read from the plan's ops, so a bulk kind
 * counts as any other without building its members' Resources.
 */
import type { ExecutionResult } from './executor.js';
import type { Op, Plan } from './resource.js';

export function inPlaceByKind(plan: Plan, result: ExecutionResult): Map<string, number> {
  const notDone = new Set<string>();
  // A key belongs to one kind: only ops of a kind with an op not done are asked for their key,
  // which a bulk member's op builds on each read (100k steering ops from empty, all done).
  const kindsNotDone = new Set<string>();
  for (const { op } of [...result.failed, ...result.skipped]) {
    notDone.add(op.key);
    kindsNotDone.add(op.kind);
  }
  const counts = new Map(plan.unchangedByKind);
  const ops = plan.ops;
  // Indexed: for-of over 100k ops makes an iterator result each in code V8 has not optimized.
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i] as Op;
    if (op.action === 'delete') continue;
    const kind = op.kind;
    if (kindsNotDone.size !== 0 && kindsNotDone.has(kind) && notDone.has(op.key)) continue;
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return counts;
}
