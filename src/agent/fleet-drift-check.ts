/**
 * Fleet mode's drift check, beside the route deltas rather than in their queue: a full pass
 * over 100k steering entries took seconds, and so did deriving the whole config and planning
 * it without applying — one thread's work in chunks long enough to hold every delta back
 * (bench/fleet's (c) p99). So the remote routes are checked in slices, in two halves that
 * together say whether VPP holds what the records say: the routes handed over against the
 * records (FleetDesired.audit: what differs goes out as route changes), and VPP's policies and
 * steering against the steering model as the dumps stream in (steering-audit.ts), on a reader
 * of its own (audit-reader.ts). Everything else is a plan-only pass without SR policies and
 * steering. What differs that a delta did not touch meanwhile is drift, and only then does the
 * agent run a full pass to repair it; on any doubt it runs one too.
 */
import type { AgentConfig } from '../config/model.js';
import type { SteeringModel } from '../hypervisor/route-delta.js';
import { auditSteering } from '../hypervisor/steering-audit.js';
import type { Plan } from '../reconcile/resource.js';
import type { OpenAuditReader } from './audit-reader.js';
import type { FleetDesired } from './fleet-desired.js';
import { errorMessage, type AgentLogger } from './logger.js';

/** How long the check waits for a route pass still in flight once it has read everything. */
const ROUTE_PASS_WAIT_MS = 5_000;

export interface FleetDriftCheckOptions {
  readonly fleet: FleetDesired;
  readonly openAuditReader: OpenAuditReader;
  /** A plan-only pass over `config` that leaves SR policies and steering out. */
  readonly planWithoutSteering: (config: AgentConfig) => Promise<Plan>;
  /**
   * The check's turn to go on: it gives way to passes between its slices and socket reads.
   * Rejects when the agent is stopping, which ends the check.
   */
  readonly turn: () => Promise<void>;
  /** Resolves once the route passes started so far have finished, or after `timeoutMs`. */
  readonly routePassesDone: (timeoutMs: number) => Promise<void>;
  /** Whether the agent still runs: a check that fails while it stops has nothing to say. */
  readonly running: () => boolean;
  readonly clock: () => number;
  readonly logger: AgentLogger;
}

/**
 * compared: VPP was read and compared, `differences` is what no route delta explains (0: nothing
 * to repair); full-pass: the check could not tell, a full pass decides; none: nothing to do (the
 * agent stops, or a full pass or a new VPP overtook the check, so that pass is the check).
 */
export type DriftCheckVerdict =
  | { readonly kind: 'compared'; readonly differences: number }
  | { readonly kind: 'full-pass' }
  | { readonly kind: 'none' };

/** In the touched keys: a route delta failed, what it changed is unknown. */
const UNKNOWN_TOUCH = '(unknown)';

export class FleetDriftCheck {
  readonly #opts: FleetDriftCheckOptions;
  /** While a check reads VPP: the keys route deltas changed meanwhile. */
  #touched: Set<string> | undefined;

  constructor(opts: FleetDriftCheckOptions) {
    this.#opts = opts;
  }

  /** A route delta changed these keys: while a check runs, differences there are no drift. */
  noteDelta(keys: Iterable<string>): void {
    const touched = this.#touched;
    if (touched) for (const key of keys) touched.add(key);
  }

  /** A route delta failed: what it changed is unknown, a check running now cannot trust itself. */
  noteUnknownDelta(): void {
    this.#touched?.add(UNKNOWN_TOUCH);
  }

  /**
   * Checks VPP against `config` and the steering `model` (a valid one, on a connected VPP with
   * the scope listed). `overtaken` says, once the check has read everything, whether a full
   * pass, a new VPP or a dropped model came meanwhile.
   */
  async run(config: AgentConfig, model: SteeringModel, overtaken: () => boolean): Promise<DriftCheckVerdict> {
    const { fleet, clock, logger, turn } = this.#opts;
    const touched = new Set<string>();
    this.#touched = touched;
    const startedAt = clock();
    /** Milliseconds of each part, for the log: where a slow check spent its time. */
    const phases: { routes?: number; plan?: number; steering?: number } = {};
    let differences: { readonly key: string; readonly what: string }[];
    try {
      const missed = await fleet.audit(turn);
      phases.routes = clock() - startedAt;
      if (missed.length > 0)
        logger.warn(
          { routes: missed.length, first: missed[0] },
          'drift check: routes differed from the records (a missed change); applying them',
        );
      const readAt = clock();
      const timed = async <T>(part: 'plan' | 'steering', work: Promise<T>): Promise<T> => {
        const value = await work;
        phases[part] = clock() - readAt;
        return value;
      };
      await turn();
      const [plan, steering] = await Promise.all([
        timed('plan', this.#opts.planWithoutSteering(config)),
        timed('steering', this.#auditSteering(model)),
      ]);
      differences = [...plan.ops.map((op) => ({ key: op.key, what: op.action })), ...steering.differences];
      // A route pass still in flight may have changed what was just read: wait for it,
      // collecting what it touches.
      await this.#opts.routePassesDone(ROUTE_PASS_WAIT_MS);
    } catch (err) {
      if (!this.#opts.running()) return { kind: 'none' };
      logger.warn({ err: errorMessage(err) }, 'drift check failed; a full pass instead');
      return { kind: 'full-pass' };
    } finally {
      this.#touched = undefined;
    }
    if (touched.has(UNKNOWN_TOUCH)) return { kind: 'full-pass' };
    if (overtaken()) return { kind: 'none' };
    const drifted = differences.filter((d) => !touched.has(d.key));
    const durationMs = clock() - startedAt;
    if (drifted.length === 0) {
      logger.debug(
        { touchedByDeltas: touched.size, durationMs, phases },
        'drift check: VPP matches the records',
      );
      return { kind: 'compared', differences: 0 };
    }
    const first = drifted[0];
    logger.info(
      { differences: drifted.length, first: first && `${first.what} ${first.key}`, durationMs, phases },
      'drift check: VPP differs from the records; full pass',
    );
    return { kind: 'compared', differences: drifted.length };
  }

  /** VPP's policies and steering against the model, read on a reader of the check's own. */
  async #auditSteering(model: SteeringModel): ReturnType<typeof auditSteering> {
    const vppPid = model.basis.vppPid;
    const reader = await this.#opts.openAuditReader(this.#opts.turn);
    try {
      // A VPP other than the model's is an error: the agent's full pass follows.
      if (reader.api.vppPid !== vppPid)
        throw new Error(`VPP restarted (pid ${vppPid} → ${reader.api.vppPid}) under the drift check`);
      return await auditSteering(reader.api, model, this.#opts.turn);
    } finally {
      await reader.close();
    }
  }
}
