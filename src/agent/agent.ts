/**
 * vppnet-agent's runtime: keeps one hypervisor's VPP programmed from the config file.
 *
 * - The config file is watched; an invalid file is reported (log, metric, readiness) while the
 *   last good config stays in force, because tearing down a working dataplane over a typo would
 *   turn a config mistake into an outage.
 * - The VPP client connects in the background and reconnects by itself; every handshake, first or
 *   after a VPP restart, is followed by a full resync: a reconcile pass always reads VPP first.
 * - Passes never overlap; requests during a pass fold into one follow-up (CoalescingRunner). A
 *   periodic drift check reconciles what something else changed in VPP, and a pass with failures
 *   is retried with exponential backoff.
 * - stop() never deletes anything: it lets the running pass finish its current batch, closes the
 *   VPP session politely and leaves the dataplane programmed, so restarting or upgrading the agent
 *   does not interrupt traffic.
 */
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import v8 from 'node:v8';
import { loadConfigFile } from '../config/load.js';
import type { AgentConfig } from '../config/model.js';
import { ConfigError, type ConfigProblem } from '../config/validate.js';
import type { HostLinks } from '../dataplane/context.js';
import { readDropCounts } from '../dataplane/drop-counters.js';
import { readPolicerCounts } from '../dataplane/policer-counters.js';
import { readNatSessionsPerPort } from '../dataplane/nat-users.js';
import type { ConnectionState } from '../vpp/client/connection-state.js';
import type { ManagedVppApi, VppApi, VppClientEvents } from '../vpp/client/vpp-api.js';
import { DEFAULT_SOCKET_PATH, VppClient } from '../vpp/client/vpp-client.js';
import { hostLinkOwner } from '../netns/link-owner.js';
import { watchLinkDeletions, type LinkDeletionWatch } from '../netns/link-monitor.js';
import { ATTACHMENT_CHANNEL, type AttachmentDiagnostic } from '../attachments/attachment-timing.js';
import { openServices, type OpenedServices } from '../attachments/open-services.js';
import type { Resource } from '../reconcile/resource.js';
import { backoffDelayMs } from '../util/backoff.js';
import { nextTurn } from '../util/next-turn.js';
import { systemTimers, type Timer, type Timers } from '../util/timers.js';
import { CoalescingRunner } from './coalescing-runner.js';
import { ConfigFileWatcher } from './config-watcher.js';
import { linuxHostLinks } from './host-links.js';
import type { FleetDesired, FleetProblem } from './fleet-desired.js';
import type { ExecutionResult } from '../reconcile/executor.js';
import type { Plan } from '../reconcile/resource.js';
import {
  reconcileRouteChanges,
  type RemoteRouteChange,
  type SteeringModel,
} from '../hypervisor/route-delta.js';
import { auditSteering } from '../hypervisor/steering-audit.js';
import { policyDescriptor, steering6Descriptor, steeringDescriptor } from '../srv6/descriptors.js';
import { errorMessage, silentLogger, type AgentLogger } from './logger.js';
import { AgentMetrics } from './metrics.js';
import { portScope, type PortOf } from './port-scope.js';
import { reconcile, REQUIRED_MESSAGES, type ReconcileOptions, type ReconcileOutcome } from './reconciler.js';
import { SR_GLOBALS_FILE, SrGlobalsFileStore } from './sr-globals-file-store.js';
import { VPP_API_RELEASE, VPPNET_VERSION } from '../util/version.js';
import {
  readinessOf,
  type AgentStatus,
  type ConfigStatus,
  type DatastoreStatus,
  type PassResult,
  type PortProblemReport,
  type Readiness,
  type ReconcileSummary,
  type ReconcileTrigger,
  type SkippedPass,
} from './status.js';

export type ReconcileFn = (config: AgentConfig, opts: ReconcileOptions) => Promise<ReconcileOutcome>;

export const DEFAULT_DRIFT_INTERVAL_MS = 60_000;
/**
 * Fleet mode: changes gathered this long before a pass. bench/fleet's (c) (20 agents at 1,000
 * changes/s on 2 cores) ran a delta pass per watch batch, ~46 a second per agent, ~1 ms each.
 */
export const DEFAULT_FLEET_BATCH_MS = 50;
const POLICY_KIND = policyDescriptor.kind;
/**
 * Fleet mode's drift check gives way to passes (the route deltas above all): between two of its
 * slices, and between two socket reads of its dumps, it waits for the pass in progress — but no
 * longer than this, so that a node whose passes run back to back still gets its check done.
 */
const DRIFT_CHECK_YIELD_MAX_MS = 250;
/**
 * The deadline of each of the drift check's dumps: read at the pace the passes leave, 100k
 * steering details may take far longer than an ordinary request may.
 */
const DRIFT_CHECK_DUMP_TIMEOUT_MS = 180_000;
/** In a drift check's touched keys: a route delta failed, what it changed is unknown. */
const UNKNOWN_TOUCH = '(unknown)';
const STEERING_KIND = steeringDescriptor.kind;
const STEERING6_KIND = steering6Descriptor.kind;
export const DEFAULT_CONFIG_DEBOUNCE_MS = 250;
export const DEFAULT_RETRY_INITIAL_MS = 1_000;
export const DEFAULT_RETRY_MAX_MS = 60_000;

/** Failed ops and waiting resources listed in status and readiness; the log has all of them. */
const REPORTED_PER_PASS = 5;

export interface AgentOptions {
  /** File mode: the config file, watched. Exactly one of configPath and fleet. */
  readonly configPath?: string;
  /**
   * Fleet mode: the desired state derived from the datastore (datastore-source.ts). The agent
   * starts and stops it; a pass runs once it has listed its scope and the node has a record.
   */
  readonly fleet?: FleetDesired;
  /** Fleet mode: how long datastore changes are gathered before a pass applies them. */
  readonly fleetBatchMs?: number;
  /** Where the agent keeps state across restarts (the SRv6 globals file). */
  readonly stateDir: string;
  readonly vppSocketPath?: string;
  readonly logger?: AgentLogger;
  /** Period of the drift check (re-read the config, reconcile); 0 disables it. */
  readonly driftIntervalMs?: number;
  /** Quiet time after a change in the config's directory before re-reading the file. */
  readonly configDebounceMs?: number;
  /** Delay before retrying a pass with failures, doubling per failed pass up to retryMaxMs. */
  readonly retryInitialMs?: number;
  readonly retryMaxMs?: number;
  /** The reconcile pass; tests inject a fake. */
  readonly reconcileFn?: ReconcileFn;
  readonly hostLinks?: HostLinks;
  /** A client to use instead of creating one for vppSocketPath; the agent starts and closes it. */
  readonly client?: ManagedVppApi;
  /**
   * Where the local API (vppnet-cni's attachments, the service map) listens; undefined: no local
   * API and no pod attachments (tests of the SRv6 side alone).
   */
  readonly agentSocketPath?: string;
  /** Where the read-only service map listens for the service pods; undefined: nowhere. */
  readonly serviceMapSocketPath?: string;
  /** Where the container runtime pins pods' network namespaces; default /run/netns, /var/run/netns. */
  readonly podNetnsDirs?: readonly string[];
  /** Milliseconds since the epoch, for timestamps and durations. Default: `timers.now`. */
  readonly clock?: () => number;
  /** The drift check's, the retry's and the config debounce's time; tests drive it. */
  readonly timers?: Timers;
}

export interface AgentEvents {
  /** The config file was read, valid or not. */
  config: (status: ConfigStatus) => void;
  /** A reconcile pass finished. */
  reconcile: (summary: ReconcileSummary) => void;
  /**
   * The VPP client gave up for good (e.g. VPP lacks required messages): the agent cannot do its
   * job until restarted, so the executable exits non-zero and Kubernetes shows CrashLoopBackOff.
   */
  fatal: (reason: string) => void;
  /**
   * Fleet mode: a drift check read VPP and compared it with the records without holding route
   * deltas back; `differences` is what it found that no delta explains (0: nothing to repair, no
   * full pass).
   */
  driftCheck: (result: { readonly differences: number }) => void;
}

export class Agent {
  /** The agent's metrics registry, for the HTTP server. */
  readonly metrics = new AgentMetrics();
  /** The config file, or in fleet mode the datastore source's description. */
  readonly #configPath: string;
  readonly #fleet: FleetDesired | undefined;
  /**
   * Fleet mode: what VPP holds of policies and steering, as the last converged full pass left it
   * plus the route deltas since; without one, a route change runs a full pass.
   */
  #steering: SteeringModel | undefined;
  /** The VM ports the last full pass left broken: a route delta touches no port. */
  #brokenPorts: ReconcileSummary['brokenPorts'] = [];
  #waitingForSync = false;
  readonly #fleetBatchMs: number;
  #fleetBatchTimer: Timer | undefined;
  readonly #socketPath: string;
  /** The client came from the caller (tests): no second connection is opened for the drift check. */
  readonly #injectedClient: boolean;
  readonly #logger: AgentLogger;
  readonly #driftIntervalMs: number;
  readonly #retryInitialMs: number;
  readonly #retryMaxMs: number;
  readonly #reconcileFn: ReconcileFn;
  /** The mark on the host links this agent makes (one agent per VPP). */
  readonly #hostLinkOwner: string;
  readonly #hostLinks: HostLinks;
  readonly #clock: () => number;
  readonly #timers: Timers;
  readonly #client: ManagedVppApi;
  readonly #globals: SrGlobalsFileStore;
  readonly #stateDir: string;
  readonly #agentSocketPath: string | undefined;
  readonly #serviceMapSocketPath: string | undefined;
  readonly #podNetnsDirs: readonly string[] | undefined;
  /** Pod links deleted in the host netns (ip monitor), while the local API runs. */
  #linkWatch: LinkDeletionWatch | undefined;
  /** Prunes of vanished attachments, one after the other. */
  #pruning: Promise<void> = Promise.resolve();
  /** The service bridge's runtime (addresses, attachments, lock), once started. */
  #services: OpenedServices | undefined;
  readonly #watcher: ConfigFileWatcher | undefined;
  readonly #runner: CoalescingRunner<ReconcileTrigger, PassResult>;
  readonly #events = new EventEmitter();

  #phase: AgentStatus['phase'] = 'created';
  #stopping: Promise<void> | undefined;

  /** The last good config: what the agent reconciles to, whatever the file says now. */
  #config: AgentConfig | undefined;
  /** Its canonical JSON, to tell a real change from a rewrite with equal content. */
  #configKey: string | undefined;
  #configStatus: ConfigStatus;
  /** Config reads run one after another, so an older read never overwrites a newer one. */
  #configReads: Promise<unknown> = Promise.resolve();

  /** Successful VPP handshakes so far; a pass records the one it ran on. */
  #connections = 0;
  /** Full passes run so far (a fleet drift check that overlaps one has nothing to decide). */
  #fullPasses = 0;
  /** While a fleet drift check reads VPP: the keys route deltas changed meanwhile. */
  #driftTouched: Set<string> | undefined;
  /** Route delta passes started so far, and the last one finished. */
  #routePassesStarted = 0;
  #routePassesFinished = 0;
  #vppLastError: string | undefined;

  #lastReconcile: ReconcileSummary | undefined;
  #owned: ReadonlyMap<string, number> = new Map();
  #driftTimer: Timer | undefined;
  /** The drift check under way, if any: stop() waits for it to end. */
  #driftInFlight: Promise<void> | undefined;
  #retryTimer: Timer | undefined;
  #retryAttempt = 0;
  #nextRetryAt: number | undefined;

  constructor(opts: AgentOptions) {
    if ((opts.configPath === undefined) === (opts.fleet === undefined))
      throw new Error('Agent: give exactly one of configPath (file mode) and fleet (fleet mode)');
    this.#fleet = opts.fleet;
    this.#fleetBatchMs = opts.fleetBatchMs ?? DEFAULT_FLEET_BATCH_MS;
    this.#configPath = opts.configPath ?? (opts.fleet as FleetDesired).description;
    this.#socketPath = opts.vppSocketPath ?? DEFAULT_SOCKET_PATH;
    this.#logger = opts.logger ?? silentLogger;
    this.#driftIntervalMs = opts.driftIntervalMs ?? DEFAULT_DRIFT_INTERVAL_MS;
    this.#retryInitialMs = opts.retryInitialMs ?? DEFAULT_RETRY_INITIAL_MS;
    this.#retryMaxMs = opts.retryMaxMs ?? DEFAULT_RETRY_MAX_MS;
    this.#reconcileFn = opts.reconcileFn ?? reconcile;
    this.#hostLinkOwner = hostLinkOwner(this.#socketPath);
    this.#hostLinks = opts.hostLinks ?? linuxHostLinks(this.#hostLinkOwner);
    this.#timers = opts.timers ?? systemTimers;
    const timers = this.#timers;
    this.#clock = opts.clock ?? (() => timers.now());
    this.#injectedClient = opts.client !== undefined;
    this.#client =
      opts.client ??
      new VppClient({
        socketPath: this.#socketPath,
        clientName: 'vppnet-agent',
        requiredMessages: REQUIRED_MESSAGES,
        // Never queue while disconnected: a queued op would reach the next VPP process with the
        // interface indexes of the last one. Fail it; the resync after the reconnect redoes it.
        offlineQueue: false,
      });
    this.#globals = new SrGlobalsFileStore(join(opts.stateDir, SR_GLOBALS_FILE), this.#logger);
    this.#stateDir = opts.stateDir;
    this.#agentSocketPath = opts.agentSocketPath;
    this.#serviceMapSocketPath = opts.serviceMapSocketPath;
    this.#podNetnsDirs = opts.podNetnsDirs;
    this.#watcher =
      opts.configPath === undefined
        ? undefined
        : new ConfigFileWatcher({
            path: opts.configPath,
            debounceMs: opts.configDebounceMs ?? DEFAULT_CONFIG_DEBOUNCE_MS,
            timers: this.#timers,
            onChange: () => void this.reloadConfig(),
            onError: (message) =>
              this.#logger.warn(
                { path: this.#configPath },
                `${message}; the config is re-read on each drift check instead`,
              ),
          });
    if (this.#fleet) {
      const fleet = this.#fleet;
      this.metrics.watchDatastore(() => ({
        ...fleet.health(),
        rejectedKeys: fleet.rejected().size,
        leftOut: fleet.leftOut(),
      }));
    }
    this.#runner = new CoalescingRunner((triggers) => this.#pass(triggers));
    this.metrics.watchReadiness(() => this.readiness().ready);
    this.metrics.watchDrops(() =>
      this.#client.state === 'ready' ? readDropCounts(this.#client) : Promise.resolve(undefined),
    );
    this.metrics.watchPolicers(() =>
      this.#client.state === 'ready' ? readPolicerCounts(this.#client) : Promise.resolve(undefined),
    );
    this.metrics.watchNatSessions(() => {
      const config = this.#config;
      return this.#client.state === 'ready' && config
        ? readNatSessionsPerPort(this.#client, config)
        : Promise.resolve(undefined);
    });
    this.#configStatus = { path: this.#configPath, valid: false, problems: [] };
  }

  // -------------------------------------------------------------------------------------------
  // Lifecycle

  /**
   * Reads the config, starts watching it and starts connecting to VPP in the background.
   * Resolves once the config was read (valid or not); VPP may come much later.
   */
  async start(): Promise<void> {
    if (this.#phase !== 'created') throw new Error(`Agent.start() called in phase ${this.#phase}`);
    this.#phase = 'running';
    this.metrics.listen();
    ATTACHMENT_CHANNEL.subscribe(this.#onAttachment);
    this.#client.on('state', this.#onVppState);
    this.#client.on('ready', this.#onVppReady);
    this.#client.on('error', this.#onVppError);
    this.metrics.setConnectionState(this.#client.state);
    this.#logger.info(
      {
        // Which release is running, for whoever reads the log of a node behaving differently.
        version: VPPNET_VERSION,
        vppApi: VPP_API_RELEASE,
        ...(this.#fleet ? { datastore: this.#configPath } : { config: this.#configPath }),
        vppSocket: this.#socketPath,
        stateFile: this.#globals.path,
        driftIntervalMs: this.#driftIntervalMs,
        ...memoryFields(),
      },
      'vppnet-agent starting',
    );
    if (this.#fleet) {
      // No waiting for the store: it may be down, and VPP keeps what it has meanwhile.
      this.#fleet.start({
        onChange: () => this.#onFleetChange(),
        onRejected: (key, reason) => this.#onFleetRejected(key, reason),
      });
      this.#passWhenSynced(this.#fleet);
    } else {
      this.#watcher?.ensureWatching();
      await this.reloadConfig();
    }
    if (this.#phase !== 'running') return;
    if (this.#agentSocketPath !== undefined) {
      // Pods attach through this socket; their records are restored from the state dir first,
      // so every full reconcile knows them from the start.
      this.#services = await openServices({
        client: this.#client,
        host: this.#hostLinks,
        hostLinkOwner: this.#hostLinkOwner,
        stateDir: this.#stateDir,
        services: () => this.#config?.services,
        ...(this.#podNetnsDirs !== undefined && { podNetnsDirs: this.#podNetnsDirs }),
      });
      await this.#services.localApi.listen(this.#agentSocketPath);
      this.#logger.info({ socket: this.#agentSocketPath }, 'local API listening');
      if (this.#serviceMapSocketPath !== undefined) {
        await this.#services.serviceMapApi.listen(this.#serviceMapSocketPath);
        this.#logger.info({ socket: this.#serviceMapSocketPath }, 'service map listening');
      }
      this.#linkWatch = watchLinkDeletions((name) => this.#onLinkDeleted(name), {
        onProblem: (message) => this.#logger.warn({}, message),
      });
    }
    this.#client.start();
    if (this.#client.state === 'ready') {
      // An injected client that was connected already: its handshake's event is gone.
      this.#connections++;
      this.#kick('start');
    }
    this.#armDriftCheck();
  }

  /**
   * Shuts down without touching the dataplane: stops watching and timers, lets a running pass
   * finish its current batch, then ends the VPP session. Safe to call more than once.
   */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    this.#phase = 'stopping';
    this.#logger.info(
      { reconciling: this.#runner.busy },
      'vppnet-agent stopping; the dataplane stays programmed',
    );
    this.#watcher?.close();
    this.#linkWatch?.close();
    this.#clearTimers();
    // A drift check under way ends at its next turn; its reads must not outlive the connection.
    await this.#driftInFlight;
    // No new attachments; the socket file is removed, the CNI plugin waits for the next agent.
    await this.#services?.localApi.close();
    await this.#services?.serviceMapApi.close();
    await this.#runner.close();
    await this.#pruning;
    await this.#configReads;
    await this.#fleet?.stop();
    await this.#client.close();
    this.#client.off('state', this.#onVppState);
    this.#client.off('ready', this.#onVppReady);
    this.#client.off('error', this.#onVppError);
    this.metrics.setConnectionState(this.#client.state);
    this.metrics.close();
    ATTACHMENT_CHANNEL.unsubscribe(this.#onAttachment);
    this.#phase = 'stopped';
    this.#logger.info({}, 'vppnet-agent stopped');
  }

  // -------------------------------------------------------------------------------------------
  // Requests and waiting (for main.ts and tests)

  /** Asks for a pass and resolves with it; one already running is finished first. */
  reconcileNow(): Promise<PassResult> {
    return this.#requestPass('manual');
  }

  /**
   * Re-reads the config file now (the watcher and SIGHUP call this). A valid, changed config
   * triggers a pass; an invalid one is reported and the last good one stays in force.
   */
  reloadConfig(): Promise<ConfigStatus> {
    if (this.#fleet) {
      // Fleet mode has no file: the next pass derives the config from the datastore afresh.
      this.#kick('config-change');
      return Promise.resolve(this.#configStatus);
    }
    const read = this.#configReads.then(() => this.#readConfig());
    this.#configReads = read.catch(() => undefined);
    return read;
  }

  /** Resolves when no config read and no pass is running or queued. */
  async whenIdle(): Promise<void> {
    for (;;) {
      const reads = this.#configReads;
      await reads;
      await this.#runner.whenIdle();
      if (reads === this.#configReads && !this.#runner.busy) return;
    }
  }

  on<E extends keyof AgentEvents>(event: E, listener: AgentEvents[E]): this {
    this.#events.on(event, listener);
    return this;
  }

  off<E extends keyof AgentEvents>(event: E, listener: AgentEvents[E]): this {
    this.#events.off(event, listener);
    return this;
  }

  // -------------------------------------------------------------------------------------------
  // Status

  status(): AgentStatus {
    const owned = [...this.#owned].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return {
      phase: this.#phase,
      config: this.#configStatus,
      ...(this.#fleet ? { datastore: this.#datastoreStatus(this.#fleet) } : {}),
      vpp: {
        socket: this.#socketPath,
        state: this.#client.state,
        pid: this.#client.vppPid,
        connections: this.#connections,
        ...(this.#vppLastError === undefined ? {} : { lastError: this.#vppLastError }),
      },
      reconciling: this.#runner.busy,
      ...(this.#lastReconcile === undefined ? {} : { lastReconcile: this.#lastReconcile }),
      ...(this.#nextRetryAt === undefined ? {} : { nextRetryAt: new Date(this.#nextRetryAt).toISOString() }),
      owned: Object.fromEntries(owned),
    };
  }

  readiness(): Readiness {
    return readinessOf(this.status());
  }

  // -------------------------------------------------------------------------------------------
  // Config

  async #readConfig(): Promise<ConfigStatus> {
    const checkedAt = new Date(this.#clock()).toISOString();
    const inForceSince = this.#configStatus.inForceSince;
    let config: AgentConfig;
    try {
      config = await loadConfigFile(this.#configPath);
    } catch (err) {
      const problems: readonly ConfigProblem[] =
        err instanceof ConfigError ? err.problems : [{ path: '(file)', message: errorMessage(err) }];
      const news =
        this.#configStatus.valid || JSON.stringify(problems) !== JSON.stringify(this.#configStatus.problems);
      this.#configStatus = {
        path: this.#configPath,
        valid: false,
        problems,
        checkedAt,
        ...(inForceSince === undefined ? {} : { inForceSince }),
      };
      this.metrics.setConfigValid(false);
      // The same problems again (drift check re-reads) are not news; a changed set is.
      if (news) {
        const keeping =
          this.#config === undefined ? 'waiting for a valid config' : 'the last good config stays in force';
        this.#logger.error(
          { path: this.#configPath, problems, lastGoodInForce: this.#config !== undefined },
          `config ${this.#configPath} is invalid (${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}); ${keeping}`,
        );
      }
      this.#events.emit('config', this.#configStatus);
      return this.#configStatus;
    }

    const key = JSON.stringify(config);
    const changed = key !== this.#configKey;
    const wasInvalid = this.#configStatus.checkedAt !== undefined && !this.#configStatus.valid;
    const first = this.#config === undefined;
    if (changed) {
      this.#config = config;
      this.#configKey = key;
    }
    this.#configStatus = {
      path: this.#configPath,
      valid: true,
      problems: [],
      checkedAt,
      inForceSince: changed || inForceSince === undefined ? checkedAt : inForceSince,
    };
    this.metrics.setConfigValid(true);
    if (changed) {
      this.#logger.info(
        {
          path: this.#configPath,
          node: config.node.name,
          vpcs: config.vpcs.length,
          ports: config.ports.length,
        },
        first ? 'config loaded' : 'config changed; reconciling',
      );
      this.#kick('config-change');
    } else if (wasInvalid) {
      this.#logger.info({ path: this.#configPath }, 'config is valid again and equal to the config in force');
    }
    this.#events.emit('config', this.#configStatus);
    return this.#configStatus;
  }

  // -------------------------------------------------------------------------------------------
  // Reconcile passes

  #requestPass(trigger: ReconcileTrigger): Promise<PassResult> {
    return this.#runner
      .request(trigger)
      .then(
        (result): PassResult =>
          result ?? { outcome: 'skipped', triggers: [trigger], reason: 'the agent is stopping' },
      );
  }

  /** Requests a pass nobody waits for. */
  #kick(trigger: ReconcileTrigger): void {
    this.#requestPass(trigger).catch((err: unknown) =>
      this.#logger.error({ trigger, err: errorMessage(err) }, 'reconcile pass crashed (a bug)'),
    );
  }

  async #pass(triggerSet: ReadonlySet<ReconcileTrigger>): Promise<PassResult> {
    const triggers = [...triggerSet];
    const skip = (reason: string): SkippedPass => {
      this.#logger.debug({ triggers, reason }, 'reconcile skipped');
      return { outcome: 'skipped', triggers, reason };
    };
    if (this.#phase !== 'running') return skip('the agent is stopping');
    if (this.#fleet) {
      if (this.#fleet.health().synced) {
        // Remote routes alone changed, and VPP's steering is known: a delta, no dump.
        const changes = this.#fleet.takeChanges();
        const model = this.#steering;
        const config = this.#config;
        if (
          triggers.every((t) => t === 'datastore') &&
          !changes.structural &&
          model?.valid === true &&
          config !== undefined &&
          this.#client.state === 'ready'
        ) {
          // An endpoint the take left out (out of its lane, claiming a local address) changes no
          // route, but is a problem of the config as held: reported now, not at the next full pass.
          this.#reportFleetProblems(this.#fleet.problems(), { valid: true, derived: false });
          if (changes.routes.length === 0) return skip('no change to apply');
          return this.#routePass(config, model, changes.routes, triggers);
        }
        this.#deriveFleetConfig(this.#fleet);
      }
      // Until the scope is listed the last good config (if any) stays in force: a VPP restart or
      // the drift check still repairs VPP to it, and a datastore change waits for the listing.
      else if (triggers.every((t) => t === 'datastore')) {
        this.#passWhenSynced(this.#fleet);
        return skip('the datastore has not listed the node scope yet');
      }
    }
    const config = this.#config;
    if (config === undefined) return skip('no valid config loaded yet');
    if (this.#client.state !== 'ready') return skip(`VPP is not connected (${this.#client.state})`);

    const connection = this.#connections;
    const startedAt = this.#clock();
    let summary: ReconcileSummary;
    try {
      const outcome = await this.#reconcileFn(config, {
        ...this.#reconcileOptions(),
        // Stop between batches on shutdown, and when the connection the snapshot came from is gone:
        // the rest of the plan was made for a VPP process that may no longer exist.
        shouldStop: () =>
          this.#phase !== 'running' || this.#client.state !== 'ready' || this.#connections !== connection,
      });
      summary = this.#summarize(
        outcome.plan,
        outcome.result,
        outcome.snapshot.vppPid,
        triggers,
        startedAt,
        connection,
        portScope(config),
      );
      this.#steering = outcome.steering;
      this.#fullPasses++;
      this.#brokenPorts = summary.brokenPorts;
      this.#owned = outcome.owned;
      this.metrics.setOwned(outcome.owned);
      this.#logOpProblems(outcome);
    } catch (err) {
      this.#steering = undefined;
      summary = this.#failedPass(err, triggers, startedAt, connection, []);
    }
    return this.#finishPass(summary);
  }

  /**
   * A delta pass: the remote routes that changed, applied to the steering model without reading
   * VPP (route-delta.ts). Anything wrong with the model drops it, and the retry is a full pass.
   */
  async #routePass(
    config: AgentConfig,
    model: SteeringModel,
    routes: readonly RemoteRouteChange[],
    triggers: ReconcileTrigger[],
  ): Promise<PassResult> {
    const connection = this.#connections;
    const startedAt = this.#clock();
    const pass = ++this.#routePassesStarted;
    let summary: ReconcileSummary;
    try {
      const outcome = await reconcileRouteChanges(config, model, routes, {
        client: this.#client,
        shouldStop: () =>
          this.#phase !== 'running' || this.#client.state !== 'ready' || this.#connections !== connection,
      });
      if (!outcome.modelValid) this.#steering = undefined;
      for (const op of outcome.plan.ops) this.#driftTouched?.add(op.key);
      const summarized = this.#summarize(
        outcome.plan,
        outcome.result,
        model.basis.vppPid,
        triggers,
        startedAt,
        connection,
        () => undefined,
      );
      summary = { ...summarized, kind: 'routes', brokenPorts: this.#brokenPorts };
      const owned = new Map(this.#owned);
      for (const [kind, n] of [
        [POLICY_KIND, model.policyCount],
        [STEERING_KIND, model.size - model.size6],
        [STEERING6_KIND, model.size6],
      ] as const)
        if (n > 0) owned.set(kind, n);
        else owned.delete(kind);
      this.#owned = owned;
      this.metrics.setOwned(owned);
      this.#logOpProblems(outcome);
    } catch (err) {
      // A RouteChangeError (a change the source should never have given) or a model that does
      // not fit this VPP or config: nothing was done; the retry is a full pass from the records.
      this.#steering = undefined;
      summary = {
        ...this.#failedPass(err, triggers, startedAt, connection, this.#brokenPorts),
        kind: 'routes',
      };
      // What it did is unknown: a drift check running now must not trust its own comparison.
      this.#driftTouched?.add(UNKNOWN_TOUCH);
    }
    this.#routePassesFinished = pass;
    return this.#finishPass(summary);
  }

  /** What every pass, full or plan-only, reconciles with: VPP, the host, the state, the pods. */
  #reconcileOptions(): ReconcileOptions {
    return {
      client: this.#client,
      host: this.#hostLinks,
      globals: this.#globals,
      ...(this.#services ? { services: this.#services.runtime } : {}),
    };
  }

  #failedPass(
    err: unknown,
    triggers: ReconcileTrigger[],
    startedAt: number,
    connection: number,
    brokenPorts: ReconcileSummary['brokenPorts'],
  ): ReconcileSummary {
    return {
      outcome: 'error',
      triggers,
      startedAt: new Date(startedAt).toISOString(),
      durationMs: this.#clock() - startedAt,
      connection,
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

  #finishPass(summary: ReconcileSummary): ReconcileSummary {
    this.#lastReconcile = summary;
    this.metrics.observeReconcile(summary);
    this.#logSummary(summary);
    this.#scheduleRetry(summary);
    this.#events.emit('reconcile', summary);
    return summary;
  }

  #summarize(
    plan: Plan,
    executed: ExecutionResult | undefined,
    vppPid: number,
    triggers: ReconcileTrigger[],
    startedAt: number,
    connection: number,
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
    for (const { op, error } of result.failed)
      note(op.resource, `${op.action} failed: ${errorMessage(error)}`);
    for (const { op, reason } of result.skipped) note(op.resource, `${op.action} skipped: ${reason}`);
    for (const p of pending) note(p.resource, `waiting for ${p.waitingFor}`);
    return {
      outcome: converged ? 'ok' : 'partial',
      triggers,
      startedAt: new Date(startedAt).toISOString(),
      durationMs: this.#clock() - startedAt,
      connection,
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

  #logOpProblems(outcome: {
    readonly result?: ExecutionResult | undefined;
    readonly warnings?: readonly string[];
  }): void {
    for (const { op, error } of outcome.result?.failed ?? []) {
      this.#logger.error(
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
    for (const warning of outcome.warnings ?? []) this.#logger.warn({ warning }, warning);
    for (const { op, reason } of outcome.result?.skipped ?? []) {
      this.#logger.debug(
        { action: op.action, kind: op.resource.kind, key: op.resource.key, reason },
        `${op.action} ${op.resource.key} skipped`,
      );
    }
  }

  #logSummary(s: ReconcileSummary): void {
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
    if (s.outcome === 'error') this.#logger.error(fields, `reconcile failed: ${s.error ?? ''}`);
    else if (s.outcome === 'partial') this.#logger.warn(fields, 'reconcile partial');
    // Route deltas come many a second in a busy fleet, and a drift check that found nothing is
    // the steady state: keep both out of the info log.
    else if (s.kind === 'routes') this.#logger.debug(fields, 'route changes applied');
    else if (s.planned === 0 && s.triggers.every((t) => t === 'drift'))
      this.#logger.debug(fields, 'reconcile finished: in sync');
    else this.#logger.info(fields, 'reconcile finished');
  }

  #scheduleRetry(summary: ReconcileSummary): void {
    if (this.#phase !== 'running') return;
    this.#retryTimer?.cancel();
    this.#retryTimer = undefined;
    this.#nextRetryAt = undefined;
    if (summary.outcome === 'ok') {
      this.#retryAttempt = 0;
      return;
    }
    const delayMs = backoffDelayMs(
      { initialMs: this.#retryInitialMs, maxMs: this.#retryMaxMs },
      this.#retryAttempt,
    );
    this.#retryAttempt++;
    this.#nextRetryAt = this.#clock() + delayMs;
    this.#retryTimer = this.#timers.after(delayMs, () => {
      this.#retryTimer = undefined;
      this.#nextRetryAt = undefined;
      this.#kick('retry');
    });
    this.#logger.info({ delayMs, attempt: this.#retryAttempt }, 'reconcile will be retried');
  }

  #armDriftCheck(): void {
    if (this.#driftIntervalMs <= 0 || this.#phase !== 'running') return;
    this.#driftTimer = this.#timers.after(this.#driftIntervalMs, () => {
      this.#driftTimer = undefined;
      const check = this.#driftCheck().catch((err: unknown) => {
        if (this.#phase === 'running')
          this.#logger.warn({ err: errorMessage(err) }, 'drift check failed; retried at the next one');
      });
      const tracked = check.finally(() => {
        if (this.#driftInFlight === tracked) this.#driftInFlight = undefined;
      });
      this.#driftInFlight = tracked;
    });
  }

  async #driftCheck(): Promise<void> {
    // Also a safety net for the watch: events can be lost (some filesystems, a replaced directory).
    if (this.#fleet) {
      await this.#fleetDriftCheck(this.#fleet);
      this.#armDriftCheck();
      return;
    }
    this.#watcher?.ensureWatching();
    await this.reloadConfig();
    this.#kick('drift');
    this.#armDriftCheck();
  }

  /**
   * Fleet mode's drift check, beside the route deltas rather than in their queue: a full pass
   * over 100k steering entries took seconds, and so did deriving the whole config and planning
   * it without applying — one thread's work in chunks long enough to hold every delta back
   * (bench/fleet's (c) p99). So the remote routes are checked in slices, in two halves that
   * together say whether VPP holds what the records say: the routes handed over against the
   * records (FleetDesired.audit: what differs goes out as route changes), and VPP's policies and
   * steering against the steering model as the dumps stream in (steering-audit.ts). Everything
   * else is a plan-only pass without SR policies and steering. What differs that a delta did not
   * touch meanwhile is drift, and only then does a full pass repair it. Without a steering model,
   * a listed scope or a VPP connection, or on any doubt, the full pass runs as before.
   */
  async #fleetDriftCheck(fleet: FleetDesired): Promise<void> {
    const config = this.#config;
    const model = this.#steering;
    if (
      !fleet.health().synced ||
      config === undefined ||
      this.#client.state !== 'ready' ||
      model?.valid !== true
    ) {
      this.#kick('drift');
      return;
    }
    const touched = new Set<string>();
    this.#driftTouched = touched;
    const startedAt = this.#clock();
    /** Milliseconds of each part, for the log: where a slow check spent its time. */
    const phases: { routes?: number; plan?: number; steering?: number } = {};
    const fullPasses = this.#fullPasses;
    const connection = this.#connections;
    let differences: { readonly key: string; readonly what: string }[];
    try {
      const missed = await fleet.audit(() => this.#driftCheckTurn());
      phases.routes = this.#clock() - startedAt;
      if (missed.length > 0)
        this.#logger.warn(
          { routes: missed.length, first: missed[0] },
          'drift check: routes differed from the records (a missed change); applying them',
        );
      const readAt = this.#clock();
      const timed = async <T>(part: 'plan' | 'steering', work: Promise<T>): Promise<T> => {
        const value = await work;
        phases[part] = this.#clock() - readAt;
        return value;
      };
      await this.#driftCheckTurn();
      const [outcome, steering] = await Promise.all([
        timed(
          'plan',
          this.#reconcileFn(config, { ...this.#reconcileOptions(), planOnly: true, leaveSteering: true }),
        ),
        timed(
          'steering',
          this.#withAuditReader(model.basis.vppPid, (reader) =>
            auditSteering(reader, model, () => this.#driftCheckTurn()),
          ),
        ),
      ]);
      differences = [
        ...outcome.plan.ops.map((op) => ({ key: op.key, what: op.action })),
        ...steering.differences,
      ];
      // A route pass still in flight may have changed what was just read: wait for it,
      // collecting what it touches.
      if (this.#routePassesFinished < this.#routePassesStarted)
        await this.#nextRoutePass(this.#routePassesStarted, 5_000);
    } catch (err) {
      if (this.#phase !== 'running') return;
      this.#logger.warn({ err: errorMessage(err) }, 'drift check failed; a full pass instead');
      this.#kick('drift');
      return;
    } finally {
      this.#driftTouched = undefined;
    }
    if (touched.has(UNKNOWN_TOUCH)) {
      this.#kick('drift');
      return;
    }
    // A full pass, a new VPP or a dropped model meanwhile: that pass is the check, or comes next.
    if (this.#fullPasses !== fullPasses || this.#connections !== connection || this.#steering !== model)
      return;
    const drifted = differences.filter((d) => !touched.has(d.key));
    this.#events.emit('driftCheck', { differences: drifted.length });
    const durationMs = this.#clock() - startedAt;
    if (drifted.length === 0) {
      this.#logger.debug(
        { touchedByDeltas: touched.size, durationMs, phases },
        'drift check: VPP matches the records',
      );
      return;
    }
    const first = drifted[0];
    this.#logger.info(
      { differences: drifted.length, first: first && `${first.what} ${first.key}`, durationMs, phases },
      'drift check: VPP differs from the records; full pass',
    );
    this.#kick('drift');
  }

  /**
   * Runs the drift check's large dumps on a connection of their own: on the agent's one, every
   * route delta sent while 100k steering details stream in would be answered only after them (VPP
   * answers a connection in order). A VPP other than the model's is an error (the caller's full
   * pass follows). With an injected client (tests) there is no socket to open: that client reads.
   */
  async #withAuditReader<T>(vppPid: number, read: (reader: VppApi) => Promise<T>): Promise<T> {
    if (this.#injectedClient) return read(this.#client);
    const reader = new VppClient({
      socketPath: this.#socketPath,
      clientName: 'vppnet-agent-drift-check',
      offlineQueue: false,
      healthCheckIntervalMs: 0,
      retryStrategy: () => null,
      // Its 100k details are decoded and compared as they come, at the pace passes leave — and
      // one socket read per turn of the event loop even when no pass runs: libuv reads a socket
      // up to 32 times in a row, and ~2 MB of details compared in one go held back the timer of
      // the next pass (bench/fleet (c): passes of 100 changes stalled ~0.7 s during the check).
      readGate: () => this.#driftCheckTurn(),
      requestTimeoutMs: DRIFT_CHECK_DUMP_TIMEOUT_MS,
    });
    try {
      await reader.connect();
      await reader.ping();
      if (reader.vppPid !== vppPid)
        throw new Error(`VPP restarted (pid ${vppPid} → ${reader.vppPid}) under the drift check`);
      return await read(reader);
    } finally {
      await reader.close();
    }
  }

  /**
   * The drift check's turn to go on: the next turn of the event loop when no pass is in progress
   * or queued, else the end of the passes or DRIFT_CHECK_YIELD_MAX_MS, whichever comes first.
   * On a saturated node (bench/fleet's (c): 20 agents and their VPPs on 2 cores) the check's
   * reads and comparisons took the CPU from the route deltas, which then queued for seconds.
   */
  #driftCheckTurn(): Promise<void> {
    // A stopping agent ends the check at its next turn rather than reading on.
    if (this.#phase !== 'running') return Promise.reject(new Error('the agent is stopping'));
    return this.#runner.giveWay(DRIFT_CHECK_YIELD_MAX_MS, this.#timers) ?? nextTurn();
  }

  /** Resolves once route pass number `pass` (or a later one) has finished, or after `timeoutMs`. */
  #nextRoutePass(pass: number, timeoutMs: number): Promise<void> {
    if (this.#routePassesFinished >= pass) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        timer.cancel();
        this.#events.off('reconcile', onPass);
        resolve();
      };
      const onPass = (): void => {
        if (this.#routePassesFinished >= pass || this.#phase !== 'running') done();
      };
      const timer = this.#timers.after(timeoutMs, done);
      this.#events.on('reconcile', onPass);
    });
  }

  #clearTimers(): void {
    this.#fleetBatchTimer?.cancel();
    this.#fleetBatchTimer = undefined;
    this.#driftTimer?.cancel();
    this.#retryTimer?.cancel();
    this.#driftTimer = undefined;
    this.#retryTimer = undefined;
    this.#nextRetryAt = undefined;
  }

  // -------------------------------------------------------------------------------------------
  // Fleet mode

  #onFleetChange(): void {
    const fleet = this.#fleet;
    if (this.#phase !== 'running' || !fleet) return;
    if (!fleet.health().synced) return this.#passWhenSynced(fleet);
    // Changes arrive a watch batch at a time, many a second in a busy fleet; a pass per batch
    // costs more than its few operations. They are gathered for fleetBatchMs first.
    if (this.#fleetBatchTimer) return;
    this.#fleetBatchTimer = this.#timers.after(this.#fleetBatchMs, () => {
      this.#fleetBatchTimer = undefined;
      if (this.#phase === 'running') this.#kick('datastore');
    });
  }

  /**
   * A pass once the scope is listed: the source tells of a change once until it is taken, and a
   * change that arrived while a new VPC's ranges were being listed was not taken yet.
   */
  #passWhenSynced(fleet: FleetDesired): void {
    if (this.#waitingForSync) return;
    this.#waitingForSync = true;
    void fleet.whenSynced().then(() => {
      this.#waitingForSync = false;
      if (this.#phase === 'running') this.#kick('datastore');
    });
  }

  #onFleetRejected(key: string, reason: string): void {
    this.metrics.countDatastoreRejection();
    this.#logger.error(
      { key, reason },
      `datastore value ${key} rejected (${reason}); its last good value stays in force`,
    );
  }

  /**
   * The config from the datastore as it is now. Without a valid node record (a missing record, an
   * empty or wrong prefix) the last good config stays in force: an empty store is no reason to
   * flush a hypervisor. Records left out for their problems are reported, the rest applies.
   */
  #deriveFleetConfig(fleet: FleetDesired): void {
    const { config, problems } = fleet.derive();
    if (config) this.#config = config;
    this.#reportFleetProblems(problems, { valid: config !== undefined, derived: true });
  }

  /**
   * The config status, its metric and its log line, from the datastore's problems as they are.
   * `derived`: a new config from a full derivation (in force from now on when valid); otherwise
   * the held config, whose problems a route delta updated.
   */
  #reportFleetProblems(
    problems: readonly FleetProblem[],
    { valid, derived }: { readonly valid: boolean; readonly derived: boolean },
  ): void {
    const checkedAt = new Date(this.#clock()).toISOString();
    const reported = problems.map((p) => ({ path: `${p.key}: ${p.path}`, message: p.message }));
    const news = JSON.stringify(reported) !== JSON.stringify(this.#configStatus.problems);
    const inForceSince = valid && derived ? checkedAt : this.#configStatus.inForceSince;
    this.#configStatus = {
      path: this.#configPath,
      valid,
      problems: reported,
      checkedAt,
      ...(inForceSince === undefined ? {} : { inForceSince }),
    };
    this.metrics.setConfigValid(valid);
    if (news && reported.length > 0) {
      const keeping = valid
        ? 'those records are left out, the rest applies'
        : this.#config === undefined
          ? 'waiting for a valid node record'
          : 'the last good config stays in force';
      this.#logger.error(
        { datastore: this.#configPath, problems: reported },
        `datastore records with problems (${reported.map((p) => `${p.path}: ${p.message}`).join('; ')}); ${keeping}`,
      );
    }
    this.#events.emit('config', this.#configStatus);
  }

  #datastoreStatus(fleet: FleetDesired): DatastoreStatus {
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

  // -------------------------------------------------------------------------------------------
  // VPP connection

  /**
   * A link of an active attachment vanished without a DEL: its pod's netns is most likely gone.
   * Its VPP port is removed now rather than at the next drift check, since VPP keeps polling an
   * af_packet port whose host link is gone. A DEL's own link deletion is not active, so it is
   * ignored here.
   */
  #onLinkDeleted(name: string): void {
    const manager = this.#services?.manager;
    if (!manager?.isActive(name) || this.#phase !== 'running') return;
    this.#logger.info(
      { link: name },
      'an attached pod link vanished; removing attachments whose netns is gone',
    );
    this.#pruning = this.#pruning
      .then(() => manager.pruneVanished())
      .then((gone) => {
        if (gone.length > 0)
          this.#logger.info({ attachments: gone }, 'removed attachments whose netns is gone');
      })
      .catch((err: unknown) =>
        this.#logger.warn({ err: errorMessage(err) }, 'removing vanished attachments failed'),
      );
  }

  /** One line per ADD/DEL, with where its time went: what an operator asks first about a slow pod. */
  readonly #onAttachment = (m: AttachmentDiagnostic): void => {
    const phasesMs = Object.fromEntries(
      Object.entries(m.phasesMs).map(([p, ms]) => [p, Math.round(ms * 10) / 10]),
    );
    const fields = {
      op: m.op,
      attachment: m.id,
      outcome: m.outcome,
      ms: Math.round(m.durationMs * 10) / 10,
      phasesMs,
    };
    const what = m.op === 'attach' ? 'pod attached' : 'pod detached';
    if (m.outcome === 'ok') this.#logger.info(fields, what);
    else this.#logger.warn(fields, `${m.op} failed`);
  };

  readonly #onVppState: VppClientEvents['state'] = (to: ConnectionState, from: ConnectionState) => {
    this.metrics.setConnectionState(to);
    // While VPP is down the client cycles connecting <-> reconnecting every few seconds; only
    // gaining or losing the connection and the client's end are news.
    const news = to === 'ready' || from === 'ready' || from === 'idle' || to === 'closed';
    const fields = { from, to, socket: this.#socketPath };
    if (news) this.#logger.info(fields, `VPP connection ${from} -> ${to}`);
    else this.#logger.debug(fields, `VPP connection ${from} -> ${to}`);
    if (to === 'closed' && this.#phase === 'running') {
      this.#logger.error(
        { socket: this.#socketPath, err: this.#vppLastError },
        'the VPP client stopped reconnecting; the agent cannot program VPP until it is restarted',
      );
      this.#events.emit('fatal', `VPP client closed: ${this.#vppLastError ?? 'gave up reconnecting'}`);
    }
  };

  readonly #onVppReady: VppClientEvents['ready'] = ({ reconnect }) => {
    this.#connections++;
    this.#vppLastError = undefined;
    this.#logger.info(
      { socket: this.#socketPath, connection: this.#connections },
      reconnect ? 'VPP reconnected; full resync (VPP may have restarted)' : 'VPP connected',
    );
    this.#kick(reconnect ? 'vpp-reconnect' : 'vpp-connect');
  };

  readonly #onVppError: VppClientEvents['error'] = (err: Error) => {
    // While VPP is down the client retries every few seconds: say it once, not every time.
    const repeated = err.message === this.#vppLastError;
    this.#vppLastError = err.message;
    const fields = { socket: this.#socketPath, err: err.message };
    if (repeated) this.#logger.debug(fields, 'VPP connection failed again');
    else this.#logger.warn(fields, 'VPP connection failed; retrying');
  };
}

/**
 * The memory the agent runs under: Node sizes V8's heap from the cgroup limit it starts in (the
 * DaemonSet's limits.memory); without one the heap may grow to a quarter of the machine's memory
 * and RSS with it, garbage and all (see bench/README.md, bench/reconcile).
 */
function memoryFields(): { memoryLimitMiB: number | null; heapLimitMiB: number } {
  const MiB = 1024 * 1024;
  const constrained = process.constrainedMemory?.() ?? 0;
  // cgroup v1 reports "no limit" as a near-2^64 number, v2 and no cgroup as 0.
  const limited = constrained > 0 && constrained < Number.MAX_SAFE_INTEGER;
  return {
    memoryLimitMiB: limited ? Math.round(constrained / MiB) : null,
    heapLimitMiB: Math.round(v8.getHeapStatistics().heap_size_limit / MiB),
  };
}
