/**
 * vppnet-agent's runtime: keeps one hypervisor's VPP programmed from the config file.
 *
 * - The config file is watched; an invalid file is reported (log, metric, readiness) while the
 *   last good config stays in force, because tearing down a working dataplane over a typo would
 *   turn a config mistake into an outage.
 * - The VPP client connects in the background and reconnects by itself; every handshake, first or
 *   after a VPP restart, is followed by a full resync: a reconcile pass always reads VPP first.
 * - Passes never overlap; requests during a pass fold into one follow-up (CoalescingRunner). A
 *   periodic drift check reconciles what something else changed in VPP; failed operations are
 *   retried per resource, and a pass that failed as a whole with exponential backoff.
 * - stop() never deletes anything: it lets the running pass finish its current batch, closes the
 *   VPP session politely and leaves the dataplane programmed, so restarting or upgrading the agent
 *   does not interrupt traffic.
 *
 * The Agent holds the lifecycle and decides when a pass runs and which; the parts are beside it:
 * the config source (config-source.ts), the passes and what they leave (reconcile-passes.ts), the
 * retries (retry-schedule.ts, reconcile/failing-resources.ts), the drift check
 * (drift-schedule.ts), the service pods (pod-attachments.ts), and what is logged
 * (pass-log.ts, vpp-connection-log.ts) and measured (metrics.ts).
 */
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import type { HostLinks } from '../dataplane/context.js';
import { readDropCounts } from '../dataplane/drop-counters.js';
import { readPolicerCounts } from '../dataplane/policer-counters.js';
import { readNatSessionsPerPort } from '../dataplane/nat-users.js';
import type { ConnectionState } from '../vpp/client/connection-state.js';
import type { ManagedVppApi, VppClientEvents } from '../vpp/client/vpp-api.js';
import { DEFAULT_SOCKET_PATH } from '../vpp/client/vpp-client.js';
import { hostLinkOwner } from '../netns/link-owner.js';
import { nextTurn } from '../util/next-turn.js';
import { systemTimers, type Timers } from '../util/timers.js';
import { CoalescingRunner } from './coalescing-runner.js';
import type { ConfigSource } from './config-source.js';
import { linuxHostLinks } from './host-links.js';
import { FleetDriftCheck } from './fleet-drift-check.js';
import { DriftSchedule } from './drift-schedule.js';
import { errorMessage, silentLogger, type AgentLogger } from './logger.js';
import { logPassSummary } from './pass-log.js';
import { logAttachments, PodAttachments } from './pod-attachments.js';
import { VppConnectionLog } from './vpp-connection-log.js';
import { memoryFields } from './memory-fields.js';
import { failingReport } from './pass-summary.js';
import { ReconcilePasses, type PassRequest, type ReconcileFn } from './reconcile-passes.js';
import { DEFAULT_RETRY_INITIAL_MS, DEFAULT_RETRY_MAX_MS, RetrySchedule } from './retry-schedule.js';
import { AgentMetrics } from './metrics.js';
import { reconcile, type ReconcileOptions } from './reconciler.js';
import { SR_GLOBALS_FILE, SrGlobalsFileStore } from './sr-globals-file-store.js';
import { VPP_API_RELEASE, VPPNET_VERSION } from '../util/version.js';
import {
  readinessOf,
  type AgentStatus,
  type ConfigStatus,
  type PassResult,
  type Readiness,
  type ReconcileSummary,
  type ReconcileTrigger,
  type SkippedPass,
} from './status.js';

export const DEFAULT_DRIFT_INTERVAL_MS = 60_000;
/**
 * Fleet mode's drift check gives way to passes (the route deltas above all): between two of its
 * slices, and between two socket reads of its dumps, it waits for the pass in progress — but no
 * longer than this, so that a node whose passes run back to back still gets its check done.
 */
const DRIFT_CHECK_YIELD_MAX_MS = 250;

export interface AgentOptions {
  /**
   * The config file (FileConfigSource) or the datastore (FleetConfigSource), built in main.ts;
   * the agent starts and stops it. Its timers should be the agent's.
   */
  readonly source: ConfigSource;
  /** Where the agent keeps state across restarts (the SRv6 globals file). */
  readonly stateDir: string;
  /** The socket `client` talks to: for status, logs and the mark on the host links it makes. */
  readonly vppSocketPath?: string;
  readonly logger?: AgentLogger;
  /** Period of the drift check (re-read the config, reconcile); 0 disables it. */
  readonly driftIntervalMs?: number;
  /** Delay before retrying a pass with failures, doubling per failed pass up to retryMaxMs. */
  readonly retryInitialMs?: number;
  readonly retryMaxMs?: number;
  /** The reconcile pass; tests inject a fake. */
  readonly reconcileFn?: ReconcileFn;
  readonly hostLinks?: HostLinks;
  /** The VPP session (agentVppClient in main.ts); the agent starts and closes it. */
  readonly client: ManagedVppApi;
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
  /** The drift check's and the retry's time; tests drive it. */
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
  /** The config file, or in fleet mode the datastore; its config is what the agent reconciles to. */
  readonly #source: ConfigSource;
  /** The full and route passes, and what they leave for the next one. */
  readonly #passes: ReconcilePasses;
  readonly #drift: DriftSchedule;
  readonly #socketPath: string;
  readonly #logger: AgentLogger;
  readonly #driftIntervalMs: number;
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
  /** The service pods' attachments and the local API, once started (with agentSocketPath). */
  #pods: PodAttachments | undefined;
  #unlogAttachments: (() => void) | undefined;
  readonly #runner: CoalescingRunner<ReconcileTrigger, PassResult>;
  readonly #events = new EventEmitter();

  #phase: AgentStatus['phase'] = 'created';
  #stopping: Promise<void> | undefined;

  /** Successful VPP handshakes so far; a pass records the one it ran on. */
  #connections = 0;
  readonly #vppLog: VppConnectionLog;

  #lastReconcile: ReconcileSummary | undefined;
  readonly #retry: RetrySchedule;

  constructor(opts: AgentOptions) {
    this.#source = opts.source;
    this.#socketPath = opts.vppSocketPath ?? DEFAULT_SOCKET_PATH;
    this.#logger = opts.logger ?? silentLogger;
    this.#driftIntervalMs = opts.driftIntervalMs ?? DEFAULT_DRIFT_INTERVAL_MS;
    this.#hostLinkOwner = hostLinkOwner(this.#socketPath);
    this.#hostLinks = opts.hostLinks ?? linuxHostLinks(this.#hostLinkOwner);
    this.#timers = opts.timers ?? systemTimers;
    const timers = this.#timers;
    this.#clock = opts.clock ?? (() => timers.now());
    const backoff = {
      initialMs: opts.retryInitialMs ?? DEFAULT_RETRY_INITIAL_MS,
      maxMs: opts.retryMaxMs ?? DEFAULT_RETRY_MAX_MS,
    };
    this.#retry = new RetrySchedule({
      backoff,
      timers: this.#timers,
      clock: this.#clock,
      logger: this.#logger,
      retry: () => this.#kick('retry'),
    });
    this.#client = opts.client;
    this.#vppLog = new VppConnectionLog({
      client: this.#client,
      socketPath: this.#socketPath,
      logger: this.#logger,
      connections: () => this.#connections,
      running: () => this.#phase === 'running',
    });
    this.#globals = new SrGlobalsFileStore(join(opts.stateDir, SR_GLOBALS_FILE), this.#logger);
    this.#stateDir = opts.stateDir;
    this.#agentSocketPath = opts.agentSocketPath;
    this.#serviceMapSocketPath = opts.serviceMapSocketPath;
    this.#podNetnsDirs = opts.podNetnsDirs;
    // Fleet mode: the datastore, whose gauges are scraped and whose records the drift check reads.
    const datastore = this.#source.datastore;
    if (datastore) this.metrics.watchDatastore(() => datastore.gauges());
    const reconcileFn = opts.reconcileFn ?? reconcile;
    const fleetDriftCheck =
      datastore &&
      new FleetDriftCheck({
        fleet: datastore.desired,
        openAuditReader: datastore.openAuditReader,
        planWithoutSteering: async (config) => {
          const options = { ...this.#reconcileOptions(), planOnly: true, leaveSteering: true };
          return (await reconcileFn(config, options)).plan;
        },
        turn: () => this.#driftCheckTurn(),
        routePassesDone: (timeoutMs) => this.#passes.routePassesDone(timeoutMs),
        running: () => this.#phase === 'running',
        clock: this.#clock,
        logger: this.#logger,
      });
    this.#passes = new ReconcilePasses({
      client: this.#client,
      reconcileFn,
      reconcileOptions: () => this.#reconcileOptions(),
      backoff,
      timers: this.#timers,
      clock: this.#clock,
      logger: this.#logger,
      metrics: this.metrics,
      ...(fleetDriftCheck && {
        onRouteDelta: (keys: readonly string[] | undefined) =>
          keys ? fleetDriftCheck.noteDelta(keys) : fleetDriftCheck.noteUnknownDelta(),
      }),
    });
    this.#drift = new DriftSchedule({
      intervalMs: this.#driftIntervalMs,
      timers: this.#timers,
      logger: this.#logger,
      running: () => this.#phase === 'running',
      requestPass: () => this.#kick('drift'),
      recheckSource: () => this.#source.recheck(),
      ...(datastore &&
        fleetDriftCheck && {
          fleet: {
            desired: datastore.desired,
            check: fleetDriftCheck,
            state: () => ({
              config: this.#source.config,
              vppReady: this.#client.state === 'ready',
              steering: this.#passes.steering,
              fullPasses: this.#passes.fullPasses,
              connection: this.#connections,
              reconciling: this.#runner.busy,
            }),
            compared: (differences: number) => this.#events.emit('driftCheck', { differences }),
          },
        }),
    });
    this.#runner = new CoalescingRunner((triggers) => this.#pass(triggers));
    this.metrics.watchReadiness(() => this.readiness().ready);
    this.metrics.watchDrops(() =>
      this.#client.state === 'ready' ? readDropCounts(this.#client) : Promise.resolve(undefined),
    );
    this.metrics.watchPolicers(() =>
      this.#client.state === 'ready' ? readPolicerCounts(this.#client) : Promise.resolve(undefined),
    );
    this.metrics.watchNatSessions(() => {
      const config = this.#source.config;
      return this.#client.state === 'ready' && config
        ? readNatSessionsPerPort(this.#client, config)
        : Promise.resolve(undefined);
    });
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
    this.#unlogAttachments = logAttachments(this.#logger);
    this.#client.on('state', this.#onVppState);
    this.#client.on('ready', this.#onVppReady);
    this.#vppLog.attach();
    this.metrics.setConnectionState(this.#client.state);
    this.#logger.info(
      {
        // Which release is running, for whoever reads the log of a node behaving differently.
        version: VPPNET_VERSION,
        vppApi: VPP_API_RELEASE,
        ...(this.#source.datastore
          ? { datastore: this.#source.description }
          : { config: this.#source.description }),
        vppSocket: this.#socketPath,
        stateFile: this.#globals.path,
        driftIntervalMs: this.#driftIntervalMs,
        ...memoryFields(),
      },
      'vppnet-agent starting',
    );
    await this.#source.start({
      changed: (trigger) => this.#kick(trigger),
      checked: (status) => {
        this.metrics.setConfigValid(status.valid);
        this.#events.emit('config', status);
      },
      rejected: () => this.metrics.countDatastoreRejection(),
      running: () => this.#phase === 'running',
    });
    if (this.#phase !== 'running') return;
    if (this.#agentSocketPath !== undefined)
      // Pods attach through this socket; their records are restored from the state dir first,
      // so every full reconcile knows them from the start.
      this.#pods = await PodAttachments.open({
        client: this.#client,
        host: this.#hostLinks,
        hostLinkOwner: this.#hostLinkOwner,
        stateDir: this.#stateDir,
        services: () => this.#source.config?.services,
        ...(this.#podNetnsDirs !== undefined && { podNetnsDirs: this.#podNetnsDirs }),
        agentSocketPath: this.#agentSocketPath,
        ...(this.#serviceMapSocketPath !== undefined && { serviceMapSocketPath: this.#serviceMapSocketPath }),
        logger: this.#logger,
        running: () => this.#phase === 'running',
      });
    this.#client.start();
    if (this.#client.state === 'ready') {
      // An injected client that was connected already: its handshake's event is gone.
      this.#connections++;
      this.#passes.newConnection();
      this.#kick('start');
    }
    this.#drift.arm();
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
    this.#source.stopWatching();
    this.#pods?.stopWatching();
    this.#retry.cancel();
    // A drift check under way ends at its next turn; its reads must not outlive the connection.
    await this.#drift.stop();
    // No new attachments; the socket file is removed, the CNI plugin waits for the next agent.
    await this.#pods?.close();
    await this.#runner.close();
    await this.#source.stop();
    await this.#client.close();
    this.#client.off('state', this.#onVppState);
    this.#client.off('ready', this.#onVppReady);
    this.#vppLog.detach();
    this.metrics.setConnectionState(this.#client.state);
    this.metrics.close();
    this.#unlogAttachments?.();
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
    return this.#source.reload();
  }

  /** Resolves when no config read and no pass is running or queued. */
  async whenIdle(): Promise<void> {
    for (;;) {
      const reads = this.#source.reads;
      await reads;
      await this.#runner.whenIdle();
      if (reads === this.#source.reads && !this.#runner.busy) return;
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
    const nextRetryAt = this.#retry.nextRetryAt;
    const owned = [...this.#passes.owned].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return {
      phase: this.#phase,
      config: this.#source.status,
      ...(this.#source.datastore ? { datastore: this.#source.datastore.status() } : {}),
      vpp: {
        socket: this.#socketPath,
        state: this.#client.state,
        pid: this.#client.vppPid,
        connections: this.#connections,
        ...(this.#vppLog.lastError === undefined ? {} : { lastError: this.#vppLog.lastError }),
      },
      reconciling: this.#runner.busy,
      ...(this.#lastReconcile === undefined ? {} : { lastReconcile: this.#lastReconcile }),
      ...(nextRetryAt === undefined ? {} : { nextRetryAt: new Date(nextRetryAt).toISOString() }),
      ...(this.#passes.failing.size ? { failing: failingReport(this.#passes.failing) } : {}),
      owned: Object.fromEntries(owned),
    };
  }

  readiness(): Readiness {
    return readinessOf(this.status());
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
    const model = this.#passes.steering;
    const held = this.#source.config;
    const plan = this.#source.planPass(
      triggers,
      model?.valid === true && held !== undefined && this.#client.state === 'ready',
    );
    if (plan.kind === 'skip') return skip(plan.reason);
    if (plan.kind === 'routes' && model && held)
      return this.#finishPass(
        await this.#passes.routes(held, model, plan.routes, this.#passRequest(triggers)),
      );
    // A full pass: planning it may have read the source again (the datastore derives afresh).
    const config = this.#source.config;
    if (config === undefined) return skip('no valid config loaded yet');
    if (this.#client.state !== 'ready') return skip(`VPP is not connected (${this.#client.state})`);
    return this.#finishPass(await this.#passes.full(config, this.#passRequest(triggers)));
  }

  /**
   * A pass's connection, and its `shouldStop`: stop between batches on shutdown, and when the
   * connection the pass started on is gone: the rest of its plan was made for a VPP process that
   * may no longer exist.
   */
  #passRequest(triggers: readonly ReconcileTrigger[]): PassRequest {
    const connection = this.#connections;
    return {
      triggers,
      connection,
      shouldStop: () =>
        this.#phase !== 'running' || this.#client.state !== 'ready' || this.#connections !== connection,
    };
  }

  /** What every pass, full or plan-only, reconciles with: VPP, the host, the state, the pods. */
  #reconcileOptions(): ReconcileOptions {
    return {
      client: this.#client,
      host: this.#hostLinks,
      globals: this.#globals,
      ...(this.#pods ? { services: this.#pods.runtime } : {}),
    };
  }

  #finishPass(summary: ReconcileSummary): ReconcileSummary {
    this.#lastReconcile = summary;
    this.metrics.observeReconcile(summary);
    logPassSummary(this.#logger, summary);
    const failing = this.#passes.failing;
    this.metrics.setFailing(failing.countByKind());
    if (this.#phase === 'running')
      this.#retry.afterPass({
        passRetry:
          summary.outcome === 'error' ||
          summary.pending > 0 ||
          failing.untracked > 0 ||
          // Skips with no failing resource behind them: a stop, or a dependency cycle.
          (summary.skipped > 0 && failing.size === 0),
        resourceRetryAt: failing.nextRetryAt(),
      });
    this.#events.emit('reconcile', summary);
    return summary;
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

  // -------------------------------------------------------------------------------------------
  // VPP connection

  readonly #onVppState: VppClientEvents['state'] = (to: ConnectionState) => {
    this.metrics.setConnectionState(to);
    if (to === 'closed' && this.#phase === 'running')
      this.#events.emit('fatal', `VPP client closed: ${this.#vppLog.lastError ?? 'gave up reconnecting'}`);
  };

  readonly #onVppReady: VppClientEvents['ready'] = ({ reconnect }) => {
    this.#connections++;
    this.#passes.newConnection();
    this.#kick(reconnect ? 'vpp-reconnect' : 'vpp-connect');
  };
}
