/** Human-readable rendering of a plan, as `vppnet plan` prints it. */
import { stableJson } from '../reconcile/descriptor.js';
import type { Plan } from '../reconcile/resource.js';

export function formatPlan(plan: Plan, opts: { verbose?: boolean } = {}): string {
  const lines: string[] = [];
  const width = Math.max(4, ...plan.ops.map((o) => o.resource.key.length));
  plan.ops.forEach((op, i) => {
    const n = String(i + 1).padStart(String(plan.ops.length).length);
    lines.push(`${n}  ${op.action.padEnd(6)}  ${op.resource.key.padEnd(width)}  (${op.reason})`);
    if (opts.verbose) lines.push(`      ${stableJson(op.resource.value)}`);
  });
  if (plan.pending.length) {
    lines.push('', `pending (${plan.pending.length}):`);
    for (const p of plan.pending) lines.push(`  ${p.resource.key}: waiting for ${p.waitingFor}`);
  }
  const count = (a: string): number => plan.ops.filter((o) => o.action === a).length;
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
