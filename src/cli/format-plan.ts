/** Human-readable rendering of a plan, as `vppnet plan` prints it. */
import { stableJson } from '../reconcile/descriptor.js';
import type { Plan } from '../reconcile/resource.js';

export function formatPlan(plan: Plan, opts: { verbose?: boolean } = {}): string {
  const lines: string[] = [];
  // A loop, not Math.max(...keys): a spread passes every key as an argument, and a plan of 130k
  // routes is more arguments than V8's stack holds.
  let width = 4;
  for (const op of plan.ops) width = Math.max(width, op.resource.key.length);
  plan.ops.forEach((op, i) => {
    const n = String(i + 1).padStart(String(plan.ops.length).length);
    lines.push(`${n}  ${op.action.padEnd(6)}  ${op.resource.key.padEnd(width)}  (${op.reason})`);
    if (opts.verbose) lines.push(`      ${stableJson(op.resource.value)}`);
  });
  if (plan.pending.length) {
    lines.push('', `pending (${plan.pending.length}):`);
    for (const p of plan.pending) lines.push(`  ${p.resource.key}: waiting for ${p.waitingFor}`);
  }
  const counts = { create: 0, update: 0, delete: 0 };
  for (const op of plan.ops) counts[op.action]++;
  const count = (a: keyof typeof counts): number => counts[a];
  lines.push(
    '',
    `${plan.ops.length} operations: ${count('create')} create, ${count('update')} update, ${count('delete')} delete; ${plan.unchanged} unchanged, ${plan.pending.length} pending`,
  );
  return lines.join('\n');
}

export function planToJson(plan: Plan): unknown {
  return {
    ops: plan.ops.map((o) => ({
      action: o.action,
      kind: o.resource.kind,
      key: o.resource.key,
      level: o.level,
      reason: o.reason,
      value: o.resource.value,
    })),
    pending: plan.pending.map((p) => ({ key: p.resource.key, waitingFor: p.waitingFor })),
    unchanged: plan.unchanged,
  };
}
