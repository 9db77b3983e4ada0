/**
 * The agent's two kinds of pass, and what they leave for the next one. A full pass reads VPP,
 * plans and executes (hypervisor/reconcile.ts); fleet mode's route delta applies changed remote
 * routes to the steering model without reading VPP (route-delta.ts). Each is summed up for
 * status, metrics and the log (pass-summary.ts), and leaves: the steering model a delta can build
 * on, the VM ports left broken, the objects owned, and the resources failing with their own
 * retries (reconcile/failing-resources.ts). When a pass runs, and which, is the agent's
 * (agent.ts); this module runs it.
 */
import type { AgentConfig } from '../config/model.js';
import {
  reconcileRouteChanges,
  type RemoteRouteChange,
  type SteeringModel,
} from '../hypervisor/route-delta.js';
import { FailingResources } from '../reconcile/failing-resources.js';
import { policyDescriptor, steering6Descriptor, steeringDescriptor } from '../srv6/descriptors.js';
import type { Backoff } from '../util/backoff.js';
import type { Timers } from '../util/timers.js';
import type { ManagedVppApi } from '../vpp/client/vpp-api.js';
import type { AgentLogger } from './logger.js';
import type { AgentMetrics } from './metrics.js';
import { logOpProblems } from './pass-log.js';
import { summarize, summarizeFailure } from './pass-summary.js';
import { portScope } from './port-scope.js';
import type { ReconcileOptions } from './reconciler.js';
import type { ReconcileOutcome } from '../hypervisor/reconcile.js';
import type { ReconcileSummary, ReconcileTrigger } from './status.js';

export type ReconcileFn = (config: AgentConfig, opts: ReconcileOptions) => Promise<ReconcileOutcome>;

const STEERING_KINDS = [policyDescriptor.kind, steeringDescriptor.kind, steering6Descriptor.kind] as const;

/** Why and on which VPP connection a pass runs, and when it must stop between batches. */
export interface PassRequest {
  readonly triggers: readonly ReconcileTrigger[];
  /** The VPP connection (1 = first handshake) the pass runs on. */
  readonly connection: number;
  readonly shouldStop: () => boolean;
}

export interface ReconcilePassesOptions {
  readonly client: ManagedVppApi;
  readonly reconcileFn: ReconcileFn;
  /** What every pass, full or plan-only, reconciles with: VPP, the host, the state, the pods. */
  readonly reconcileOptions: () => ReconcileOptions;
  /** Each failing resource's retry delays. */
  readonly backoff: Backoff;
  readonly timers: Timers;
  /** Milliseconds since the epoch. */
  readonly clock: () => number;
  readonly logger: AgentLogger;
  readonly metrics: AgentMetrics;
  /** Fleet mode: what a route delta did (its ops' keys), or undefined when that is unknown. */
  readonly onRouteDelta?: (keys: readonly string[] | undefined) => void;
}

export class ReconcilePasses {
  readonly #opts: ReconcilePassesOptions;
  /** Resources whose op failed, each retried on its own backoff. */
  readonly failing: FailingResources;
  /**
   * Fleet mode: what VPP holds of policies and steering, as the last converged full pass left it
   * plus the route deltas since; without one, a route change runs a full pass.
   */
  #steering: SteeringModel | undefined;
  /** The VM ports the last full pass left broken: a route delta touches no port. */
  #brokenPorts: ReconcileSummary['brokenPorts'] = [];
  #owned: ReadonlyMap<string, number> = new Map();
  #fullPasses = 0;
  #routePassesStarted = 0;
  #routePassesFinished = 0;
  /** Who waits for route passes to finish (the drift check gives way to them). */
  readonly #routePassWaiters = new Set<() => void>();

  constructor(opts: ReconcilePassesOptions) {
    this.#opts = opts;
    this.failing = new FailingResources({ backoff: opts.backoff, clock: opts.clock });
  }

  get steering(): SteeringModel | undefined {
    return this.#steering;
  }

  /** Objects vppnet owns in VPP as of the last pass, by kind. */
  get owned(): ReadonlyMap<string, number> {
    return this.#owned;
  }

  /** Full passes run so far (a fleet drift check that overlaps one has nothing to decide). */
  get fullPasses(): number {
    return this.#fullPasses;
  }

  /** A new VPP connection: perhaps another process, so what failed on the last one is tried afresh. */
  newConnection(): void {
    this.failing.clear();
  }

  async full(config: AgentConfig, run: PassRequest): Promise<ReconcileSummary> {
    const startedAt = this.#opts.clock();
    try {
      const hold = this.failing.holdForPass();
      const outcome = await this.#opts.reconcileFn(config, {
        ...this.#opts.reconcileOptions(),
        shouldStop: run.shouldStop,
        ...(hold ? { hold } : {}),
      });
      if (outcome.result) this.failing.record(outcome.plan, outcome.result, true);
      const summary = summarize(
        outcome.plan,
        outcome.result,
        outcome.snapshot.vppPid,
        this.#passRun(run, startedAt),
        portScope(config),
      );
      this.#steering = outcome.steering;
      this.#fullPasses++;
      this.#brokenPorts = summary.brokenPorts;
      this.#setOwned(outcome.owned);
      logOpProblems(this.#opts.logger, outcome);
      return summary;
    } catch (err) {
      this.#steering = undefined;
      return summarizeFailure(err, this.#passRun(run, startedAt), []);
    }
  }

  /**
   * A delta pass: the remote routes that changed, applied to the steering model without reading
   * VPP (route-delta.ts). Anything wrong with the model drops it, and the retry is a full pass.
   */
  async routes(
    config: AgentConfig,
    model: SteeringModel,
    routes: readonly RemoteRouteChange[],
    run: PassRequest,
  ): Promise<ReconcileSummary> {
    const startedAt = this.#opts.clock();
    const pass = ++this.#routePassesStarted;
    try {
      const outcome = await reconcileRouteChanges(config, model, routes, {
        client: this.#opts.client,
        shouldStop: run.shouldStop,
      });
      if (!outcome.modelValid) this.#steering = undefined;
      this.failing.record(outcome.plan, outcome.result, false);
      this.#opts.onRouteDelta?.(outcome.plan.ops.map((op) => op.key));
      const summarized = summarize(
        outcome.plan,
        outcome.result,
        model.basis.vppPid,
        this.#passRun(run, startedAt),
        () => undefined,
      );
      const owned = new Map(this.#owned);
      const counts = [model.policyCount, model.size - model.size6, model.size6];
      STEERING_KINDS.forEach((kind, i) => {
        const n = counts[i] as number;
        if (n > 0) owned.set(kind, n);
        else owned.delete(kind);
      });
      this.#setOwned(owned);
      logOpProblems(this.#opts.logger, outcome);
      return { ...summarized, kind: 'routes', brokenPorts: this.#brokenPorts };
    } catch (err) {
      // A RouteChangeError (a change the source should never have given) or a model that does
      // not fit this VPP or config: nothing was done; the retry is a full pass from the records.
      this.#steering = undefined;
      // What it did is unknown: a drift check running now must not trust its own comparison.
      this.#opts.onRouteDelta?.(undefined);
      return { ...summarizeFailure(err, this.#passRun(run, startedAt), this.#brokenPorts), kind: 'routes' };
    } finally {
      this.#routePassesFinished = pass;
      for (const wake of this.#routePassWaiters) wake();
    }
  }

  /**
   * Resolves once the route passes started so far have finished, or after `timeoutMs`, or at
   * once when none is under way.
   */
  routePassesDone(timeoutMs: number): Promise<void> {
    const pass = this.#routePassesStarted;
    if (this.#routePassesFinished >= pass) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        timer.cancel();
        this.#routePassWaiters.delete(wake);
        resolve();
      };
      const wake = (): void => {
        if (this.#routePassesFinished >= pass) done();
      };
      const timer = this.#opts.timers.after(timeoutMs, done);
      this.#routePassWaiters.add(wake);
    });
  }

  #setOwned(owned: ReadonlyMap<string, number>): void {
    this.#owned = owned;
    this.#opts.metrics.setOwned(owned);
  }

  #passRun(run: PassRequest, startedAt: number) {
    return {
      triggers: run.triggers,
      startedAt,
      finishedAt: this.#opts.clock(),
      connection: run.connection,
    };
  }
}
