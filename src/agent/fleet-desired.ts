/**
 * Fleet mode's desired state as the agent sees it: a source that derives this node's whole config
 * from the datastore, and says between two passes what changed, so that a change of remote routes
 * alone is applied as a delta (no dump, O(1) VPP operations per route) while anything else runs a
 * full pass. src/agent/datastore-source.ts opens the etcd one; tests may pass their own.
 */
import type { AgentConfig } from '../config/model.js';
import type { FleetChanges } from '../datastore/fleet-source.js';
import type { ViewHealth } from '../datastore/view.js';

export interface FleetProblem {
  readonly key: string;
  readonly path: string;
  readonly message: string;
}

export interface FleetDesiredHandlers {
  /** The source changed (called once per batch of changes). */
  onChange(): void;
  /** A value was rejected; the last good value stays. */
  onRejected(key: string, reason: string): void;
}

export interface FleetDesired {
  /** For logs and status, e.g. "etcd http://10.0.0.1:2379 /vppnet/v1/ node hv1". */
  readonly description: string;
  start(handlers: FleetDesiredHandlers): void;
  /** Stops watching and closes the store connection. */
  stop(): Promise<void>;
  /** Whether the source has listed its scope and still reaches the store. */
  health(): ViewHealth;
  /** Resolves once every range of the current scope is listed (at once if it is). */
  whenSynced(): Promise<void>;
  /** Values rejected since the source started. */
  rejectedTotal(): number;
  /** Keys whose current value is rejected, with why (their last good value is in force). */
  rejected(): ReadonlyMap<string, string>;
  /**
   * Valid records the config as held leaves out for a rule across records (a route out of its
   * lane, a local address claimed from elsewhere, a node with overlapping prefixes, ...).
   */
  leftOut(): number;
  /**
   * The problems of the config as held: the last derive()'s, with those of the endpoints taken
   * since (a route delta reports an endpoint it leaves out without a derivation).
   */
  problems(): readonly FleetProblem[];
  /** The whole config (undefined without a valid node record); pending changes are in it. */
  derive(): { readonly config: AgentConfig | undefined; readonly problems: readonly FleetProblem[] };
  /** What changed since the last take or derive(), and forgets it. */
  takeChanges(): FleetChanges;
  /**
   * The drift check of the remote routes the source has handed over against the records, in
   * slices, awaiting `yieldNow` between them (default: the next turn of the event loop): what
   * differs is marked for the next take (onChange is called). Returns those keys.
   */
  audit(yieldNow?: () => Promise<void>): Promise<readonly string[]>;
}
