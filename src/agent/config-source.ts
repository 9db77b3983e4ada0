/**
 * Where the agent's config comes from: the config file (file-config-source.ts) or, in fleet mode,
 * the datastore's records (fleet-config-source.ts). main.ts builds one and hands it to the agent.
 * Each holds the last good config, which stays in force whatever the source says now, reports its
 * status, and tells the agent when a pass should follow. The agent reconciles to `config` and does
 * not care which source it has; what only the datastore has comes as `datastore`.
 */
import type { AgentConfig } from '../config/model.js';
import type { RemoteRouteChange } from '../hypervisor/route-delta.js';
import type { OpenAuditReader } from './audit-reader.js';
import type { FleetDesired } from './fleet-desired.js';
import type { DatastoreGauges } from './metrics.js';
import type { ConfigStatus, DatastoreStatus, ReconcileTrigger } from './status.js';

export interface ConfigSourceHandlers {
  /** The config may have changed: a pass should follow. */
  readonly changed: (trigger: ReconcileTrigger) => void;
  /** The source was read, valid or not. */
  readonly checked: (status: ConfigStatus) => void;
  /** A datastore record was rejected (for its metric); the file has no records to reject. */
  readonly rejected: () => void;
  /** Whether the agent runs: a source asks for no pass before or after. */
  readonly running: () => boolean;
}

/** A source's handlers before start(): reads update its status and ask for nothing. */
export const NOT_STARTED_HANDLERS: ConfigSourceHandlers = {
  changed: () => undefined,
  checked: () => undefined,
  rejected: () => undefined,
  running: () => false,
};

/** What a pass does with the source (ConfigSource.planPass). */
export type SourcePassPlan =
  /** Read the config as it is now (the datastore: derive it afresh) and run a full pass. */
  | { readonly kind: 'full' }
  /** Apply these remote route changes to the steering model (a delta pass, no dump). */
  | { readonly kind: 'routes'; readonly routes: readonly RemoteRouteChange[] }
  | { readonly kind: 'skip'; readonly reason: string };

/** Fleet mode's datastore behind the config: what the drift check, the status and the metrics read. */
export interface ConfigDatastore {
  /** The records the drift check compares VPP with. */
  readonly desired: FleetDesired;
  /** Opens the drift check's reader of VPP's large dumps, a connection of its own. */
  readonly openAuditReader: OpenAuditReader;
  /** The datastore's part of the agent's status. */
  status(): DatastoreStatus;
  /** The datastore gauges, read at each scrape (staleness has no event). */
  gauges(): DatastoreGauges;
}

export interface ConfigSource {
  /** The config file, or the datastore's description. */
  readonly description: string;
  /** The last good config: what the agent reconciles to; undefined until one was read. */
  readonly config: AgentConfig | undefined;
  readonly status: ConfigStatus;
  /** Fleet mode: the datastore the config is derived from; undefined for the file. */
  readonly datastore: ConfigDatastore | undefined;
  /** Starts watching; resolves once the source was read if it can be at once (the file). */
  start(handlers: ConfigSourceHandlers): Promise<void>;
  /** Reads the source again now (the watcher, SIGHUP, the drift check). */
  reload(): Promise<ConfigStatus>;
  /**
   * The drift check's look at the source: the file is re-read (its watch may have lost events);
   * fleet mode's drift check is FleetDriftCheck, so its source does nothing here.
   */
  recheck(): Promise<void>;
  /**
   * What a pass with these triggers does. `deltaPossible`: the agent holds a valid steering model
   * of a connected VPP, and a config. Only a source that tells which remote routes changed (the
   * datastore) plans route deltas; the file's passes are all full.
   */
  planPass(triggers: readonly ReconcileTrigger[], deltaPossible: boolean): SourcePassPlan;
  /** Settles when the reads started so far have ended; each new read gives a new promise. */
  readonly reads: Promise<unknown>;
  /** Stops watching and its timers, at once: no change is news any more. */
  stopWatching(): void;
  /** Waits for reads under way and lets go of the source. */
  stop(): Promise<void>;
}
