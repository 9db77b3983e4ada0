/**
 * Runs a plan. Ops of one phase and dependency level are independent, so they are issued
 * together (pipelined over the one VPP connection) within a bounded window; levels run in order.
 * Best effort: a failed op is recorded, ops that depend on it are skipped with the reason, and
 * everything else still runs, so one bad object does not hold the rest of the node hostage.
 */
import diagnostics from 'node:diagnostics_channel';
import type { KindLookup } from './registry.js';
import type { Op, Plan } from './resource.js';

export interface OpFailure {
  readonly op: Op;
  readonly error: Error;
}

export interface OpSkip {
  readonly op: Op;
  readonly reason: string;
}

export interface ExecutionResult {
  readonly applied: number;
  readonly failed: readonly OpFailure[];
  readonly skipped: readonly OpSkip[];
}

export interface ExecuteOptions {
  /** Ops in flight at once; VPP answers in order, so a deep pipeline costs nothing but memory. */
  readonly window?: number;
  /** Stops before the next batch when it returns true (shutdown, lost connection). */
  readonly shouldStop?: () => boolean;
}

/** What `vppnet:plan:op` publishes per finished op. */
export interface OpDiagnostic {
  readonly action: Op['action'];
  readonly kind: string;
  readonly key: string;
  readonly outcome: 'ok' | 'failed';
  readonly durationMs: number;
}

const opChannel = diagnostics.channel('vppnet:plan:op');

export async function execute<C>(
  plan: Plan,
  kinds: KindLookup<C>,
  ctx: C,
  opts: ExecuteOptions = {},
): Promise<ExecutionResult> {
  const window = opts.window ?? 2048;
  const failed: OpFailure[] = [];
  const skipped: OpSkip[] = [];
  let applied = 0;
  /** Keys whose op failed or was skipped, per phase. */
  const brokenCreates = new Set<string>();
  const brokenDeletes = new Set<string>();

  // For each deleted key, the deleted keys that depend on it.
  const deleteDependents = new Map<string, string[]>();
  for (const op of plan.ops) {
    if (op.action !== 'delete') continue;
    const { key } = op;
    for (const dep of op.resource.deps) {
      const list = deleteDependents.get(dep) ?? [];
      list.push(key);
      deleteDependents.set(dep, list);
    }
  }

  const batches: Op[][] = [];
  for (const op of plan.ops) {
    const last = batches[batches.length - 1];
    const first = last?.[0];
    if (first && (first.action === 'delete') === (op.action === 'delete') && first.level === op.level)
      last.push(op);
    else batches.push([op]);
  }

  const runOne = async (op: Op): Promise<void> => {
    const resource = op.resource;
    const d = kinds.get(op.kind);
    if (!d) throw new Error(`no descriptor for kind ${op.kind}`);
    const started = Date.now();
    let outcome: OpDiagnostic['outcome'] = 'ok';
    try {
      if (op.action === 'create') await d.create(ctx, resource);
      else if (op.action === 'delete') await d.delete(ctx, resource);
      else if (d.update && op.previous) await d.update(ctx, resource, op.previous);
      applied++;
    } catch (err) {
      outcome = 'failed';
      failed.push({ op, error: err as Error });
      (op.action === 'delete' ? brokenDeletes : brokenCreates).add(op.key);
    } finally {
      if (opChannel.hasSubscribers) {
        const diag: OpDiagnostic = {
          action: op.action,
          kind: op.kind,
          key: op.key,
          outcome,
          durationMs: Date.now() - started,
        };
        opChannel.publish(diag);
      }
    }
  };

  for (const batch of batches) {
    if (opts.shouldStop?.()) {
      for (const op of batch) skipped.push({ op, reason: 'stopped' });
      continue;
    }
    const runnable: Op[] = [];
    for (const op of batch) {
      const broken = op.action === 'delete' ? brokenDeletes : brokenCreates;
      if (broken.size === 0) {
        runnable.push(op);
        continue;
      }
      const { key } = op;
      if (op.action === 'delete') {
        // Something that still depends on this object could not be deleted: keep this one too.
        const blocker = deleteDependents.get(key)?.find((k) => brokenDeletes.has(k));
        if (blocker) {
          skipped.push({ op, reason: `kept: deleting ${blocker} failed` });
          brokenDeletes.add(key);
          continue;
        }
      } else {
        const blocker = op.resource.deps.find((k) => brokenCreates.has(k));
        if (blocker) {
          skipped.push({ op, reason: `waiting for ${blocker}, which failed` });
          brokenCreates.add(key);
          continue;
        }
      }
      runnable.push(op);
    }
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < runnable.length) await runOne(runnable[next++] as Op);
    };
    await Promise.all(Array.from({ length: Math.min(window, runnable.length) }, worker));
  }
  return { applied, failed, skipped };
}
