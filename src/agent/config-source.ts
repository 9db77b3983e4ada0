/**
 * Where the agent's config comes from: the config file (file-config-source.ts) or, in fleet mode,
 * the datastore's records (fleet-config-source.ts). Each holds the last good config, which stays
 * in force whatever the source says now, reports its status, and tells the agent when a pass
 * should follow. The agent reconciles to `config` and does not care which source it has.
 */
import type { AgentConfig } from '../config/model.js';
import type { ConfigStatus, ReconcileTrigger } from './status.js';

export interface ConfigSourceHandlers {
  /** The config may have changed: a pass should follow. */
  readonly changed: (trigger: ReconcileTrigger) => void;
  /** The source was read, valid or not. */
  readonly checked: (status: ConfigStatus) => void;
  /** Whether the agent runs: a source asks for no pass before or after. */
  readonly running: () => boolean;
}

/** A source's handlers before start(): reads update its status and ask for nothing. */
export const NOT_STARTED_HANDLERS: ConfigSourceHandlers = {
  changed: () => undefined,
  checked: () => undefined,
  running: () => false,
};

export interface ConfigSource {
  /** The config file, or the datastore's description. */
  readonly description: string;
  /** The last good config: what the agent reconciles to; undefined until one was read. */
  readonly config: AgentConfig | undefined;
  readonly status: ConfigStatus;
  /** Starts watching; resolves once the source was read if it can be at once (the file). */
  start(handlers: ConfigSourceHandlers): Promise<void>;
  /** Reads the source again now (the watcher, SIGHUP, the drift check). */
  reload(): Promise<ConfigStatus>;
  /**
   * The drift check's look at the source: the file is re-read (its watch may have lost events);
   * fleet mode's drift check is FleetDriftCheck, so its source does nothing here.
   */
  recheck(): Promise<void>;
  /** Settles when the reads started so far have ended; each new read gives a new promise. */
  readonly reads: Promise<unknown>;
  /** Stops watching and its timers, at once: no change is news any more. */
  stopWatching(): void;
  /** Waits for reads under way and lets go of the source. */
  stop(): Promise<void>;
}
