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
import type { AgentConfig } from '../config/model.js';
import type { HostLinks } from '../dataplane/context.js';
import { readDropCounts } from '../dataplane/drop-counters.js';
import { readPolicerCounts } from '../dataplane/policer-counters.js';
import { readNatSessionsPerPort } from '../dataplane/nat-users.js';
import type { ConnectionState } from '../vpp/client/connection-state.js';
import type { ManagedVppApi, VppClientEvents } from '../vpp/client/vpp-api.js';
import { DEFAULT_SOCKET_PATH } from '../vpp/client/vpp-client.js';
import { hostLinkOwner } from '../netns/link-owner.js';
import { watchLinkDeletions, type LinkDeletionWatch } from '../netns/link-monitor.js';
import { ATTACHMENT_CHANNEL, type AttachmentDiagnostic } from '../attachments/attachment-timing.js';
import { openServices, type OpenedServices } from '../attachments/open-services.js';
import { nextTurn } from '../util/next-turn.js';
import { systemTimers, type Timer, type Timers } from '../util/timers.js';
import type { OpenAuditReader } from './audit-reader.js';
import { CoalescingRunner } from './coalescing-runner.js';
import type { ConfigSource } from './config-source.js';
import { FileConfigSource } from './file-config-source.js';
import { FleetConfigSource } from './fleet-config-source.js';
import { linuxHostLinks } from './host-links.js';
import type { FleetDesired } from './fleet-desired.js';
import { FleetDriftCheck } from './fleet-drift-check.js';
import {
  reconcileRouteChanges,
  type RemoteRouteChange,
  type SteeringModel,
} from '../hypervisor/route-delta.js';
import { policyDescriptor, steering6Descriptor, steeringDescriptor } from '../srv6/descriptors.js';
import { errorMessage, silentLogger, type AgentLogger } from './logger.js';
import { logOpProblems, logPassSummary } from './pass-log.js';
import { failingReport, summarize, summarizeFailure } from './pass-summary.js';
import { FailingResources } from '../reconcile/failing-resources.js';
import { DEFAULT_RETRY_INITIAL_MS, DEFAULT_RETRY_MAX_MS, RetrySchedule } from './retry-schedule.js';
import { AgentMetrics } from './metrics.js';
import { portScope } from './port-scope.js';
import { reconcile, type ReconcileOptions, type ReconcileOutcome } from './reconciler.js';
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

export type ReconcileFn = (config: AgentConfig, opts: ReconcileOptions) => Promise<ReconcileOutcome>;

export const DEFAULT_DRIFT_INTERVAL_MS = 60_000;
const POLICY_KIND = policyDescriptor.kind;
/**
 * Fleet mode's drift check gives way to passes (the route deltas above all): between two of its
 * slices, and between two socket reads of its dumps, it waits for the pass in progress — but no
 * longer than this, so that a node whose passes run back to back still gets its check done.
 */
const DRIFT_CHECK_YIELD_MAX_MS = 250;
const STEERING_KIND = steeringDescriptor.kind;
const STEERING6_KIND = steering6Descriptor.kind;

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
  /** The socket `client` talks to: for status, logs and the mark on the host links it makes. */
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
  /** The VPP session (agentVppClient in main.ts); the agent starts and closes it. */
  readonly client: ManagedVppApi;
  /**
   * Fleet mode (required there): opens the drift check's reader of VPP's large dumps, a
   * connection of its own (socketAuditReaders in main.ts).
   */
  readonly openAuditReader?: OpenAuditReader;
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
  /** The config file, or in fleet mode the datastore; its config is what the agent reconciles to. */
  readonly #source: ConfigSource;
  /** Fleet mode: the same source, whose passes can be route deltas. */
  readonly #fleetSource: FleetConfigSource | undefined;
  /**
   * Fleet mode: what VPP holds of policies and steering, as the last converged full pass left it
   * plus the route deltas since; without one, a route change runs a full pass.
   */
  #steering: SteeringModel | undefined;
  /** The VM ports the last full pass left broken: a route delta touches no port. */
  #brokenPorts: ReconcileSummary['brokenPorts'] = [];
  readonly #socketPath: string;
  readonly #logger: AgentLogger;
  readonly #driftIntervalMs: number;
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
  readonly #runner: CoalescingRunner<ReconcileTrigger, PassResult>;
  readonly #events = new EventEmitter();

  #phase: AgentStatus['phase'] = 'created';
  #stopping: Promise<void> | undefined;

  /** Successful VPP handshakes so far; a pass records the one it ran on. */
  #connections = 0;
  /** Full passes run so far (a fleet drift check that overlaps one has nothing to decide). */
  #fullPasses = 0;
  /** Fleet mode's drift check (file mode's re-reads the file and runs a full pass). */
  readonly #fleetDriftCheck: FleetDriftCheck | undefined;
  /** Route delta passes started so far, and the last one finished. */
  #routePassesStarted = 0;
  #routePassesFinished = 0;
  #vppLastError: string | undefined;

  #lastReconcile: ReconcileSummary | undefined;
  #owned: ReadonlyMap<string, number> = new Map();
  #driftTimer: Timer | undefined;
  /** The drift check under way, if any: stop() waits for it to end. */
  #driftInFlight: Promise<void> | undefined;
  readonly #retry: RetrySchedule;
  /** Resources whose op failed, each retried on its own backoff. */
  readonly #failing: FailingResources;

  constructor(opts: AgentOptions) {
    if ((opts.configPath === undefined) === (opts.fleet === undefined))
      throw new Error('Agent: give exactly one of configPath (file mode) and fleet (fleet mode)');
    const openAuditReader = opts.openAuditReader;
    if (opts.fleet && openAuditReader === undefined)
      throw new Error('Agent: fleet mode needs openAuditReader (its drift check reads VPP on its own)');
    this.#socketPath = opts.vppSocketPath ?? DEFAULT_SOCKET_PATH;
    this.#logger = opts.logger ?? silentLogger;
    this.#driftIntervalMs = opts.driftIntervalMs ?? DEFAULT_DRIFT_INTERVAL_MS;
    this.#reconcileFn = opts.reconcileFn ?? reconcile;
    this.#hostLinkOwner = hostLinkOwner(this.#socketPath);
    this.#hostLinks = opts.hostLinks ?? linuxHostLinks(this.#hostLinkOwner);
    this.#timers = opts.timers ?? systemTimers;
    const timers = this.#timers;
    this.#clock = opts.clock ?? (() => timers.now());
    const backoff = {
      initialMs: opts.retryInitialMs ?? DEFAULT_RETRY_INITIAL_MS,
      maxMs: opts.retryMaxMs ?? DEFAULT_RETRY_MAX_MS,
    };
    this.#failing = new FailingResources({ backoff, clock: this.#clock });
    this.#retry = new RetrySchedule({
      backoff,
      timers: this.#timers,
      clock: this.#clock,
      logger: this.#logger,
      retry: () => this.#kick('retry'),
    });
    this.#client = opts.client;
    this.#globals = new SrGlobalsFileStore(join(opts.stateDir, SR_GLOBALS_FILE), this.#logger);
    this.#stateDir = opts.stateDir;
    this.#agentSocketPath = opts.agentSocketPath;
    this.#serviceMapSocketPath = opts.serviceMapSocketPath;
    this.#podNetnsDirs = opts.podNetnsDirs;
    this.#fleetSource =
      opts.fleet &&
      new FleetConfigSource({
        fleet: opts.fleet,
        ...(opts.fleetBatchMs === undefined ? {} : { batchMs: opts.fleetBatchMs }),
        timers: this.#timers,
        clock: this.#clock,
        logger: this.#logger,
        onRejected: () => this.metrics.countDatastoreRejection(),
      });
    this.#source =
      this.#fleetSource ??
      new FileConfigSource({
        path: opts.configPath as string,
        ...(opts.configDebounceMs === undefined ? {} : { debounceMs: opts.configDebounceMs }),
        timers: this.#timers,
        clock: this.#clock,
        logger: this.#logger,
      });
    if (opts.fleet) {
      const fleet = opts.fleet;
      this.metrics.watchDatastore(() => ({
        ...fleet.health(),
        rejectedKeys: fleet.rejected().size,
        leftOut: fleet.leftOut(),
      }));
    }
    this.#fleetDriftCheck =
      opts.fleet &&
      new FleetDriftCheck({
        fleet: opts.fleet,
        openAuditReader: openAuditReader as OpenAuditReader,
        planWithoutSteering: async (config) => {
          const options = { ...this.#reconcileOptions(), planOnly: true, leaveSteering: true };
          return (await this.#reconcileFn(config, options)).plan;
        },
        turn: () => this.#driftCheckTurn(),
        routePassesDone: (timeoutMs) =>
          this.#routePassesFinished < this.#routePassesStarted
            ? this.#nextRoutePass(this.#routePassesStarted, timeoutMs)
            : Promise.resolve(),
        running: () => this.#phase === 'running',
        clock: this.#clock,
        logger: this.#logger,
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
        ...(this.#fleetSource
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
      running: () => this.#phase === 'running',
    });
    if (this.#phase !== 'running') return;
    if (this.#agentSocketPath !== undefined) {
      // Pods attach through this socket; their records are restored from the state dir first,
      // so every full reconcile knows them from the start.
      this.#services = await openServices({
        client: this.#client,
        host: this.#hostLinks,
        hostLinkOwner: this.#hostLinkOwner,
        stateDir: this.#stateDir,
        services: () => this.#source.config?.services,
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
      this.#failing.clear();
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
    this.#source.stopWatching();
    this.#linkWatch?.close();
    this.#clearTimers();
    // A drift check under way ends at its next turn; its reads must not outlive the connection.
    await this.#driftInFlight;
    // No new attachments; the socket file is removed, the CNI plugin waits for the next agent.
    await this.#services?.localApi.close();
    await this.#services?.serviceMapApi.close();
    await this.#runner.close();
    await this.#pruning;
    await this.#source.stop();
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
    const owned = [...this.#owned].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return {
      phase: this.#phase,
      config: this.#source.status,
      ...(this.#fleetSource ? { datastore: this.#fleetSource.datastoreStatus() } : {}),
      vpp: {
        socket: this.#socketPath,
        state: this.#client.state,
        pid: this.#client.vppPid,
        connections: this.#connections,
        ...(this.#vppLastError === undefined ? {} : { lastError: this.#vppLastError }),
      },
      reconciling: this.#runner.busy,
      ...(this.#lastReconcile === undefined ? {} : { lastReconcile: this.#lastReconcile }),
      ...(nextRetryAt === undefined ? {} : { nextRetryAt: new Date(nextRetryAt).toISOString() }),
      ...(this.#failing.size ? { failing: failingReport(this.#failing) } : {}),
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
    if (this.#fleetSource) {
      const model = this.#steering;
      const config = this.#source.config;
      const plan = this.#fleetSource.planPass(
        triggers,
        model?.valid === true && config !== undefined && this.#client.state === 'ready',
      );
      if (plan.kind === 'skip') return skip(plan.reason);
      if (plan.kind === 'routes' && model && config)
        return this.#routePass(config, model, plan.routes, triggers);
    }
    const config = this.#source.config;
    if (config === undefined) return skip('no valid config loaded yet');
    if (this.#client.state !== 'ready') return skip(`VPP is not connected (${this.#client.state})`);

    const connection = this.#connections;
    const startedAt = this.#clock();
    let summary: ReconcileSummary;
    try {
      const hold = this.#failing.holdForPass();
      const outcome = await this.#reconcileFn(config, {
        ...this.#reconcileOptions(),
        shouldStop: this.#stopsOnShutdownOrReconnect(connection),
        ...(hold ? { hold } : {}),
      });
      if (outcome.result) this.#failing.record(outcome.plan, outcome.result, true);
      summary = summarize(
        outcome.plan,
        outcome.result,
        outcome.snapshot.vppPid,
        { triggers, startedAt, finishedAt: this.#clock(), connection },
        portScope(config),
      );
      this.#steering = outcome.steering;
      this.#fullPasses++;
      this.#brokenPorts = summary.brokenPorts;
      this.#owned = outcome.owned;
      this.metrics.setOwned(outcome.owned);
      logOpProblems(this.#logger, outcome);
    } catch (err) {
      this.#steering = undefined;
      summary = summarizeFailure(err, { triggers, startedAt, finishedAt: this.#clock(), connection }, []);
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
        shouldStop: this.#stopsOnShutdownOrReconnect(connection),
      });
      if (!outcome.modelValid) this.#steering = undefined;
      this.#failing.record(outcome.plan, outcome.result, false);
      this.#fleetDriftCheck?.noteDelta(outcome.plan.ops.map((op) => op.key));
      const summarized = summarize(
        outcome.plan,
        outcome.result,
        model.basis.vppPid,
        { triggers, startedAt, finishedAt: this.#clock(), connection },
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
      logOpProblems(this.#logger, outcome);
    } catch (err) {
      // A RouteChangeError (a change the source should never have given) or a model that does
      // not fit this VPP or config: nothing was done; the retry is a full pass from the records.
      this.#steering = undefined;
      summary = {
        ...summarizeFailure(
          err,
          { triggers, startedAt, finishedAt: this.#clock(), connection },
          this.#brokenPorts,
        ),
        kind: 'routes',
      };
      // What it did is unknown: a drift check running now must not trust its own comparison.
      this.#fleetDriftCheck?.noteUnknownDelta();
    }
    this.#routePassesFinished = pass;
    return this.#finishPass(summary);
  }

  /**
   * A pass's `shouldStop`: stop between batches on shutdown, and when the connection the pass
   * started on is gone: the rest of its plan was made for a VPP process that may no longer exist.
   */
  #stopsOnShutdownOrReconnect(connection: number): () => boolean {
    return () =>
      this.#phase !== 'running' || this.#client.state !== 'ready' || this.#connections !== connection;
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

  #finishPass(summary: ReconcileSummary): ReconcileSummary {
    this.#lastReconcile = summary;
    this.metrics.observeReconcile(summary);
    logPassSummary(this.#logger, summary);
    this.metrics.setFailing(this.#failing.countByKind());
    if (this.#phase === 'running')
      this.#retry.afterPass({
        passRetry:
          summary.outcome === 'error' ||
          summary.pending > 0 ||
          this.#failing.untracked > 0 ||
          // Skips with no failing resource behind them: a stop, or a dependency cycle.
          (summary.skipped > 0 && this.#failing.size === 0),
        resourceRetryAt: this.#failing.nextRetryAt(),
      });
    this.#events.emit('reconcile', summary);
    return summary;
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
    if (this.#fleetSource && this.#fleetDriftCheck) {
      await this.#checkFleetDrift(this.#fleetSource.fleet, this.#fleetDriftCheck);
      this.#armDriftCheck();
      return;
    }
    // The file's watch may have lost events: the drift check re-reads it, then reconciles.
    await this.#source.recheck();
    this.#kick('drift');
    this.#armDriftCheck();
  }

  /**
   * Fleet mode's drift check (fleet-drift-check.ts) when it can tell: with a steering model, a
   * listed scope and a VPP connection. Otherwise, on any doubt and on drift, a full pass.
   */
  async #checkFleetDrift(fleet: FleetDesired, check: FleetDriftCheck): Promise<void> {
    const config = this.#source.config;
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
    const fullPasses = this.#fullPasses;
    const connection = this.#connections;
    // A full pass, a new VPP or a dropped model meanwhile: that pass is the check, or comes next.
    const verdict = await check.run(
      config,
      model,
      () => this.#fullPasses !== fullPasses || this.#connections !== connection || this.#steering !== model,
    );
    if (verdict.kind === 'none') return;
    if (verdict.kind === 'compared') {
      this.#events.emit('driftCheck', { differences: verdict.differences });
      if (verdict.differences === 0) return;
    }
    this.#kick('drift');
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
    this.#driftTimer?.cancel();
    this.#retry.cancel();
    this.#driftTimer = undefined;
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
    // Perhaps another VPP process: what failed on the last one is tried afresh.
    this.#failing.clear();
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
