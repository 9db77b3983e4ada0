/**
 * What a reconcile pass did, as status, metrics and the log report it: a pure function of the
 * pass's plan and execution result, so the report can be tested without an agent, a VPP or a clock.
 */
import type { ExecutionResult } from '../reconcile/executor.js';
import type { FailingResources } from '../reconcile/failing-resources.js';
import type { Plan, Resource } from '../reconcile/resource.js';
import { errorMessage } from './logger.js';
import type { PortOf } from './port-scope.js';
import type { FailingReport, PortProblemReport, ReconcileSummary, ReconcileTrigger } from './status.js';

/** Failed ops, waiting resources and rejected records listed in status; the log has all of them. */
export const REPORTED_PER_PASS = 5;

/** When and on which VPP connection a pass ran, and why. */
export interface PassRun {
  readonly triggers: readonly ReconcileTrigger[];
  /** Milliseconds since the epoch. */
  readonly startedAt: number;
  readonly finishedAt: number;
  /** The VPP connection (1 = first handshake) the pass ran on. */
  readonly connection: number;
}

/**
 * The summary of a pass that planned and (unless plan-only) executed. Each problem is charged to
 * the VM port `portOf` says it belongs to (its first problem is reported), or else to the node.
 */
export function summarize(
  plan: Plan,
  executed: ExecutionResult | undefined,
  vppPid: number,
  run: PassRun,
  portOf: PortOf,
): ReconcileSummary {
  const result = executed ?? { applied: 0, failed: [], skipped: [] };
  const { pending } = plan;
  const converged = result.failed.length === 0 && result.skipped.length === 0 && pending.length === 0;
  // Per VM port its first problem; everything else counts against the node.
  const brokenPorts = new Map<string, PortProblemReport>();
  let nodeProblems = 0;
  const note = (resource: Resource, problem: string): void => {
    const port = portOf(resource);
    if (port === undefined) nodeProblems++;
    else if (!brokenPorts.has(port)) brokenPorts.set(port, { port, key: resource.key, problem });
  };
  for (const { op, error } of result.failed) note(op.resource, `${op.action} failed: ${errorMessage(error)}`);
  for (const { op, reason } of result.skipped) note(op.resource, `${op.action} skipped: ${reason}`);
  for (const p of pending) note(p.resource, `waiting for ${p.waitingFor}`);
  return {
    outcome: converged ? 'ok' : 'partial',
    triggers: run.triggers,
    startedAt: new Date(run.startedAt).toISOString(),
    durationMs: run.finishedAt - run.startedAt,
    connection: run.connection,
    vppPid,
    planned: plan.ops.length,
    applied: result.applied,
    failed: result.failed.length,
    skipped: result.skipped.length,
    pending: pending.length,
    failures: result.failed.slice(0, REPORTED_PER_PASS).map(({ op, error }) => ({
      action: op.action,
      kind: op.resource.kind,
      key: op.resource.key,
      error: errorMessage(error),
    })),
    waiting: pending
      .slice(0, REPORTED_PER_PASS)
      .map((p) => ({ key: p.resource.key, waitingFor: p.waitingFor })),
    brokenPorts: [...brokenPorts.values()].sort((a, b) => a.port.localeCompare(b.port)),
    nodeProblems,
  };
}

/**
 * The summary of a pass that threw before it could report ops: one node problem, and the VM ports
 * broken before it (`brokenPorts`) still broken, since nothing is known to have repaired them.
 */
export function summarizeFailure(
  err: unknown,
  run: PassRun,
  brokenPorts: ReconcileSummary['brokenPorts'],
): ReconcileSummary {
  return {
    outcome: 'error',
    triggers: run.triggers,
    startedAt: new Date(run.startedAt).toISOString(),
    durationMs: run.finishedAt - run.startedAt,
    connection: run.connection,
    planned: 0,
    applied: 0,
    failed: 0,
    skipped: 0,
    pending: 0,
    failures: [],
    waiting: [],
    brokenPorts,
    nodeProblems: 1,
    error: errorMessage(err),
  };
}

/** The failing resources as status lists them: how many, and the soonest retries first. */
export function failingReport(failing: FailingResources): FailingReport {
  return {
    count: failing.size,
    resources: failing
      .list()
      .slice(0, REPORTED_PER_PASS)
      .map((r) => ({
        key: r.key,
        kind: r.kind,
        action: r.action,
        attempts: r.attempts,
        error: r.error,
        since: new Date(r.since).toISOString(),
        retryAt: new Date(r.retryAt).toISOString(),
      })),
  };
}
