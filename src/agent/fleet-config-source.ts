/**
 * Fleet mode's config: derived from the datastore's records (FleetDesired, datastore-source.ts).
 * Without a valid node record (a missing record, an empty or wrong prefix) the last good config
 * stays in force: an empty store is no reason to flush a hypervisor. Records left out for their
 * problems are reported, the rest applies. Changes are gathered for a while before a pass, and
 * a pass whose changes are remote routes alone can be a route delta (planPass).
 */
import type { AgentConfig } from '../config/model.js';
import { systemTimers, type Timer, type Timers } from '../util/timers.js';
import type { OpenAuditReader } from './audit-reader.js';
import {
  NOT_STARTED_HANDLERS,
  type ConfigDatastore,
  type ConfigSource,
  type ConfigSourceHandlers,
  type SourcePassPlan,
} from './config-source.js';
import type { FleetDesired, FleetProblem } from './fleet-desired.js';
import { silentLogger, type AgentLogger } from './logger.js';
import { REPORTED_PER_PASS } from './pass-summary.js';
import type { ConfigStatus, DatastoreStatus, ReconcileTrigger } from './status.js';

/**
 * Changes gathered this long before a pass. bench/fleet's (c) (20 agents at 1,000 changes/s on
 * 2 cores) ran a delta pass per watch batch, ~46 a second per agent, ~1 ms each.
 */
export const DEFAULT_FLEET_BATCH_MS = 50;

export interface FleetConfigSourceOptions {
  /**
   * The desired state derived from the datastore (datastore-source.ts). The source starts and
   * stops it; a pass runs once it has listed its scope and the node has a record.
   */
  readonly fleet: FleetDesired;
  /**
   * Opens the drift check's reader of VPP's large dumps, a connection of its own
   * (socketAuditReaders in main.ts): fleet mode's drift check compares VPP with the records.
   */
  readonly openAuditReader: OpenAuditReader;
  /** How long datastore changes are gathered before a pass applies them. */
  readonly batchMs?: number;
  /** The batching's time (the agent's, where tests drive it); default the system's. */
  readonly timers?: Timers;
  /** Milliseconds since the epoch, for the status's timestamps. Default: `timers.now`. */
  readonly clock?: () => number;
  readonly logger?: AgentLogger;
}

export class FleetConfigSource implements ConfigSource {
  readonly description: string;
  readonly datastore: ConfigDatastore;
  readonly #fleet: FleetDesired;
  readonly #batchMs: number;
  readonly #timers: Timers;
  readonly #clock: () => number;
  readonly #logger: AgentLogger;
  #handlers = NOT_STARTED_HANDLERS;
  #config: AgentConfig | undefined;
  #status: ConfigStatus;
  #batchTimer: Timer | undefined;
  #waitingForSync = false;
  /** Nothing is read on request: the next pass derives the config. */
  readonly reads: Promise<unknown> = Promise.resolve();

  constructor(opts: FleetConfigSourceOptions) {
    const fleet = opts.fleet;
    this.#fleet = fleet;
    this.#batchMs = opts.batchMs ?? DEFAULT_FLEET_BATCH_MS;
    const timers = opts.timers ?? systemTimers;
    this.#timers = timers;
    this.#clock = opts.clock ?? (() => timers.now());
    this.#logger = opts.logger ?? silentLogger;
    this.description = fleet.description;
    this.datastore = {
      desired: fleet,
      openAuditReader: opts.openAuditReader,
      status: () => this.#datastoreStatus(),
      gauges: () => ({ ...fleet.health(), rejectedKeys: fleet.rejected().size, leftOut: fleet.leftOut() }),
    };
    this.#status = { path: this.description, valid: false, problems: [] };
  }

  get config(): AgentConfig | undefined {
    return this.#config;
  }

  get status(): ConfigStatus {
    return this.#status;
  }

  /** No waiting for the store: it may be down, and VPP keeps what it has meanwhile. */
  start(handlers: ConfigSourceHandlers): Promise<void> {
    this.#handlers = handlers;
    this.#fleet.start({
      onChange: () => this.#onChange(),
      onRejected: (key, reason) => this.#onRejected(key, reason),
    });
    this.#passWhenSynced();
    return Promise.resolve();
  }

  /** There is no file: the next pass derives the config from the datastore afresh. */
  reload(): Promise<ConfigStatus> {
    this.#handlers.changed('config-change');
    return Promise.resolve(this.#status);
  }

  recheck(): Promise<void> {
    return Promise.resolve();
  }

  stopWatching(): void {
    this.#batchTimer?.cancel();
    this.#batchTimer = undefined;
  }

  async stop(): Promise<void> {
    this.stopWatching();
    await this.#fleet.stop();
  }

  /**
   * Remote routes alone changed and a delta is possible: a route delta; otherwise the config is
   * derived afresh for a full pass. Until the scope is listed the last good config (if any) stays
   * in force: a VPP restart or the drift check still repairs VPP to it, and a datastore change
   * waits for the listing.
   */
  planPass(triggers: readonly ReconcileTrigger[], deltaPossible: boolean): SourcePassPlan {
    const fleet = this.#fleet;
    if (fleet.health().synced) {
      const changes = fleet.takeChanges();
      if (triggers.every((t) => t === 'datastore') && !changes.structural && deltaPossible) {
        // An endpoint the take left out (out of its lane, claiming a local address) changes no
        // route, but is a problem of the config as held: reported now, not at the next full pass.
        this.#report(fleet.problems(), { valid: true, derived: false });
        if (changes.routes.length === 0) return { kind: 'skip', reason: 'no change to apply' };
        return { kind: 'routes', routes: changes.routes };
      }
      this.#derive();
    } else if (triggers.every((t) => t === 'datastore')) {
      this.#passWhenSynced();
      return { kind: 'skip', reason: 'the datastore has not listed the node scope yet' };
    }
    return { kind: 'full' };
  }

  #datastoreStatus(): DatastoreStatus {
    const fleet = this.#fleet;
    const health = fleet.health();
    const rejected = [...fleet.rejected()];
    return {
      source: fleet.description,
      synced: health.synced,
      stale: health.stale,
      ...(health.staleSince === undefined ? {} : { staleSince: health.staleSince.toISOString() }),
      ...(health.lastError === undefined ? {} : { lastError: health.lastError }),
      rejectedTotal: fleet.rejectedTotal(),
      rejected: rejected.slice(0, REPORTED_PER_PASS).map(([key, reason]) => ({ key, reason })),
    };
  }

  #onChange(): void {
    if (!this.#handlers.running()) return;
    if (!this.#fleet.health().synced) return this.#passWhenSynced();
    // Changes arrive a watch batch at a time, many a second in a busy fleet; a pass per batch
    // costs more than its few operations. They are gathered for batchMs first.
    if (this.#batchTimer) return;
    this.#batchTimer = this.#timers.after(this.#batchMs, () => {
      this.#batchTimer = undefined;
      if (this.#handlers.running()) this.#handlers.changed('datastore');
    });
  }

  /**
   * A pass once the scope is listed: the source tells of a change once until it is taken, and a
   * change that arrived while a new VPC's ranges were being listed was not taken yet.
   */
  #passWhenSynced(): void {
    if (this.#waitingForSync) return;
    this.#waitingForSync = true;
    void this.#fleet.whenSynced().then(() => {
      this.#waitingForSync = false;
      if (this.#handlers.running()) this.#handlers.changed('datastore');
    });
  }

  #onRejected(key: string, reason: string): void {
    this.#handlers.rejected();
    this.#logger.error(
      { key, reason },
      `datastore value ${key} rejected (${reason}); its last good value stays in force`,
    );
  }

  /** The config from the datastore as it is now; the last good one stays without a valid node record. */
  #derive(): void {
    const { config, problems } = this.#fleet.derive();
    if (config) this.#config = config;
    this.#report(problems, { valid: config !== undefined, derived: true });
  }

  /**
   * The config status and its log line, from the datastore's problems as they are. `derived`: a
   * new config from a full derivation (in force from now on when valid); otherwise the held
   * config, whose problems a route delta updated.
   */
  #report(
    problems: readonly FleetProblem[],
    { valid, derived }: { readonly valid: boolean; readonly derived: boolean },
  ): void {
    const checkedAt = new Date(this.#clock()).toISOString();
    const reported = problems.map((p) => ({ path: `${p.key}: ${p.path}`, message: p.message }));
    const news = JSON.stringify(reported) !== JSON.stringify(this.#status.problems);
    const inForceSince = valid && derived ? checkedAt : this.#status.inForceSince;
    this.#status = {
      path: this.description,
      valid,
      problems: reported,
      checkedAt,
      ...(inForceSince === undefined ? {} : { inForceSince }),
    };
    if (news && reported.length > 0) {
      const keeping = valid
        ? 'those records are left out, the rest applies'
        : this.#config === undefined
          ? 'waiting for a valid node record'
          : 'the last good config stays in force';
      this.#logger.error(
        { datastore: this.description, problems: reported },
        `datastore records with problems (${reported.map((p) => `${p.path}: ${p.message}`).join('; ')}); ${keeping}`,
      );
    }
    this.#handlers.checked(this.#status);
  }
}
