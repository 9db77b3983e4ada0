/**
 * What the agent reports about itself (GET /status) and the readiness verdict derived from it
 * (GET /readyz). Plain JSON-able data, so the HTTP server needs nothing but a status snapshot.
 */
import type { ConfigProblem } from '../config/validate.js';
import type { Op } from '../reconcile/resource.js';
import type { ConnectionState } from '../vpp/client/connection-state.js';

/** Why a reconcile pass ran; a coalesced pass has several. */
export type ReconcileTrigger =
  | 'start'
  | 'vpp-connect'
  | 'vpp-reconnect'
  | 'config-change'
  | 'drift'
  | 'retry'
  | 'manual'
  /** Fleet mode: records changed in the datastore (remote routes alone: a delta pass). */
  | 'datastore';

export interface ConfigStatus {
  readonly path: string;
  /** Whether the file, as last read, is valid. */
  readonly valid: boolean;
  /** Every problem of the file as last read; empty when valid. */
  readonly problems: readonly ConfigProblem[];
  /** When the file was last read, valid or not (ISO 8601). */
  readonly checkedAt?: string;
  /** When the config in force was loaded; absent while no valid config was ever read. */
  readonly inForceSince?: string;
}

/** Fleet mode: the datastore the config is derived from. */
export interface DatastoreStatus {
  /** e.g. "etcd http://10.0.0.1:2379 /vppnet/v1/ node hv1". */
  readonly source: string;
  /** Every range of the node's scope has been listed at least once. */
  readonly synced: boolean;
  /** The store cannot be reached; the last good state stays in force. */
  readonly stale: boolean;
  readonly staleSince?: string;
  readonly lastError?: string;
  /** Values rejected since the agent started. */
  readonly rejectedTotal: number;
  /** The first few keys whose value is rejected now, with why (the last good value is in force). */
  readonly rejected: readonly { readonly key: string; readonly reason: string }[];
}

export interface OpFailureReport {
  readonly action: Op['action'];
  readonly kind: string;
  readonly key: string;
  readonly error: string;
}

export interface PendingReport {
  readonly key: string;
  readonly waitingFor: string;
}

/** A VM port left unprogrammed by the last pass, and the first reason why. */
export interface PortProblemReport {
  readonly port: string;
  readonly key: string;
  readonly problem: string;
}

/** A reconcile pass that ran. */
export interface ReconcileSummary {
  /** ok: converged; partial: some ops failed or were skipped, or resources wait; error: the pass itself failed. */
  readonly outcome: 'ok' | 'partial' | 'error';
  /** full (the default): VPP read and reconciled whole; routes: fleet mode's remote-route delta. */
  readonly kind?: 'full' | 'routes';
  readonly triggers: readonly ReconcileTrigger[];
  readonly startedAt: string;
  readonly durationMs: number;
  /** The VPP connection (1 = first handshake) the pass ran on. */
  readonly connection: number;
  readonly vppPid?: number;
  readonly planned: number;
  readonly applied: number;
  readonly failed: number;
  readonly skipped: number;
  /** Desired resources waiting for something vppnet does not create (the underlay NIC). */
  readonly pending: number;
  /** The first few failed ops with their errors. */
  readonly failures: readonly OpFailureReport[];
  /** The first few pending resources with what they wait for. */
  readonly waiting: readonly PendingReport[];
  /**
   * VM ports whose own resources failed, were skipped or wait (one entry per port). They leave the
   * node Ready: see port-scope.ts.
   */
  readonly brokenPorts: readonly PortProblemReport[];
  /** Failed, skipped and pending resources that are not one VM port's: these make the node unready. */
  readonly nodeProblems: number;
  /** Why the pass failed as a whole (outcome error). */
  readonly error?: string;
}

/** A requested pass that did not run: nothing to reconcile with or against yet. */
export interface SkippedPass {
  readonly outcome: 'skipped';
  readonly triggers: readonly ReconcileTrigger[];
  readonly reason: string;
}

export type PassResult = ReconcileSummary | SkippedPass;

/** Resources whose op failed, retried each on its own backoff (reconcile/failing-resources.ts). */
export interface FailingReport {
  readonly count: number;
  /** The first few, soonest retry first. */
  readonly resources: readonly FailingResourceReport[];
}

export interface FailingResourceReport {
  readonly key: string;
  readonly kind: string;
  readonly action: Op['action'];
  /** Failed attempts in a row: one that keeps growing is a resource VPP keeps refusing. */
  readonly attempts: number;
  readonly error: string;
  /** When the row of failures began. */
  readonly since: string;
  readonly retryAt: string;
}

export interface AgentStatus {
  readonly phase: 'created' | 'running' | 'stopping' | 'stopped';
  readonly config: ConfigStatus;
  /** Fleet mode only. */
  readonly datastore?: DatastoreStatus;
  readonly vpp: {
    readonly socket: string;
    readonly state: ConnectionState;
    /** VPP's process id from the last control_ping (each reconcile sends one); 0 before any. */
    readonly pid: number;
    /** Successful handshakes so far; each one is followed by a full resync. */
    readonly connections: number;
    readonly lastError?: string;
  };
  readonly reconciling: boolean;
  readonly lastReconcile?: ReconcileSummary;
  /** When the next retry is due: a failing resource's, or the pass backoff's after a failed pass. */
  readonly nextRetryAt?: string;
  /** Resources whose last op failed, each retried on its own backoff (absent: none). */
  readonly failing?: FailingReport;
  /** Objects vppnet owns in VPP as of the last pass, by kind. */
  readonly owned: Readonly<Record<string, number>>;
}

export interface Readiness {
  readonly ready: boolean;
  /** Why not, one sentence each; empty when ready. */
  readonly reasons: readonly string[];
  /** VM ports the node serves without (ready or not), one sentence each. */
  readonly brokenPorts: readonly string[];
}

/** Ready = a valid config, a connected VPP, and a successful reconcile on this connection. */
export function readinessOf(status: AgentStatus): Readiness {
  const reasons: string[] = [];
  if (status.phase === 'stopping' || status.phase === 'stopped') reasons.push('the agent is shutting down');
  else if (status.phase === 'created') reasons.push('the agent has not started');

  const { config } = status;
  if (!config.valid) {
    const problems = config.problems.map((p) => `${p.path}: ${p.message}`).join('; ');
    const inForce =
      config.inForceSince === undefined
        ? 'no valid config was loaded yet'
        : 'the last good config stays in force';
    reasons.push(
      config.checkedAt === undefined
        ? `config ${config.path} not read yet`
        : `config ${config.path} is invalid (${problems}); ${inForce}`,
    );
  }

  const store = status.datastore;
  if (store && !store.synced)
    reasons.push(`datastore ${store.source} not listed yet${store.lastError ? ` (${store.lastError})` : ''}`);
  else if (store?.stale)
    reasons.push(
      `datastore ${store.source} unreachable since ${store.staleSince ?? '?'} (${store.lastError ?? 'no answer'}); the last good state stays in force`,
    );

  const { vpp } = status;
  if (vpp.state !== 'ready') {
    reasons.push(
      `VPP at ${vpp.socket} is not connected (${vpp.state}${vpp.lastError ? `: ${vpp.lastError}` : ''})`,
    );
  }

  const last = status.lastReconcile;
  if (vpp.state === 'ready' && config.inForceSince !== undefined) {
    if (last === undefined || last.connection !== vpp.connections)
      reasons.push('VPP connected; the full resync has not finished yet');
    else if (last.outcome === 'error')
      reasons.push(`the last reconcile failed: ${last.error ?? 'unknown error'}`);
    else if (last.outcome === 'partial' && last.nodeProblems > 0)
      reasons.push(`the last reconcile was partial: ${describePartial(last)}`);
  }
  const brokenPorts =
    last !== undefined && last.connection === vpp.connections
      ? last.brokenPorts.map((p) => `port ${p.port}: ${p.key}: ${p.problem}`)
      : [];
  return { ready: reasons.length === 0, reasons, brokenPorts };
}

function describePartial(s: ReconcileSummary): string {
  const parts: string[] = [];
  if (s.failed > 0) {
    const first = s.failures[0];
    parts.push(
      `${s.failed} of ${s.planned} operations failed${first ? ` (first: ${first.action} ${first.key}: ${first.error})` : ''}`,
    );
  }
  if (s.skipped > 0) parts.push(`${s.skipped} skipped`);
  if (s.pending > 0) {
    const first = s.waiting[0];
    parts.push(
      `${s.pending} resources waiting${first ? ` (first: ${first.key} waits for ${first.waitingFor})` : ''}`,
    );
  }
  return parts.join(', ');
}
