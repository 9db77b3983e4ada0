/**
 * What the log says about a reconcile pass, and at which level: every failed op and warning, one
 * line per pass. The levels are the policy: the steady state (route deltas, a drift check that
 * found nothing) stays out of the info log, since it comes many times a second in a busy fleet.
 */
import type { ExecutionResult } from '../reconcile/executor.js';
import { errorMessage, type AgentLogger } from './logger.js';
import type { ReconcileSummary } from './status.js';

/** Each failed op (error), warning (warn) and skipped op (debug) of a pass. */
export function logOpProblems(
  logger: AgentLogger,
  outcome: { readonly result?: ExecutionResult | undefined; readonly warnings?: readonly string[] },
): void {
  for (const { op, error } of outcome.result?.failed ?? []) {
    logger.error(
      {
        action: op.action,
        kind: op.resource.kind,
        key: op.resource.key,
        reason: op.reason,
        err: errorMessage(error),
      },
      `${op.action} ${op.resource.key} failed: ${errorMessage(error)}`,
    );
  }
  for (const warning of outcome.warnings ?? []) logger.warn({ warning }, warning);
  for (const { op, reason } of outcome.result?.skipped ?? []) {
    logger.debug(
      { action: op.action, kind: op.resource.kind, key: op.resource.key, reason },
      `${op.action} ${op.resource.key} skipped`,
    );
  }
}

/** The one line a finished pass logs. */
export function logPassSummary(logger: AgentLogger, s: ReconcileSummary): void {
  const fields = {
    outcome: s.outcome,
    ...(s.kind ? { kind: s.kind } : {}),
    triggers: s.triggers,
    durationMs: s.durationMs,
    planned: s.planned,
    applied: s.applied,
    failed: s.failed,
    skipped: s.skipped,
    pending: s.pending,
    vppPid: s.vppPid,
    connection: s.connection,
    ...(s.waiting.length ? { waiting: s.waiting } : {}),
    ...(s.error === undefined ? {} : { err: s.error }),
  };
  if (s.outcome === 'error') logger.error(fields, `reconcile failed: ${s.error ?? ''}`);
  else if (s.outcome === 'partial') logger.warn(fields, 'reconcile partial');
  // Route deltas come many a second in a busy fleet, and a drift check that found nothing is
  // the steady state: keep both out of the info log.
  else if (s.kind === 'routes') logger.debug(fields, 'route changes applied');
  else if (s.planned === 0 && s.triggers.every((t) => t === 'drift'))
    logger.debug(fields, 'reconcile finished: in sync');
  else logger.info(fields, 'reconcile finished');
}
