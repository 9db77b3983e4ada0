/**
 * The agent's periodic drift check: every interval, find what something other than the agent
 * changed and repair it. File mode re-reads the file (its watch may have lost events) and runs a
 * full pass. Fleet mode compares VPP with the records without a full pass when it can tell
 * (fleet-drift-check.ts: a steering model, a listed scope and a VPP connection), and runs a full
 * pass on any doubt and on drift. One check at a time; the next is armed when one ends.
 */
import type { AgentConfig } from '../config/model.js';
import type { SteeringModel } from '../hypervisor/route-delta.js';
import type { Timer, Timers } from '../util/timers.js';
import type { FleetDesired } from './fleet-desired.js';
import type { FleetDriftCheck } from './fleet-drift-check.js';
import { errorMessage, type AgentLogger } from './logger.js';

/** What a fleet drift check reads of the agent when it starts, and checks again as it goes. */
export interface DriftCheckState {
  readonly config: AgentConfig | undefined;
  readonly vppReady: boolean;
  readonly steering: SteeringModel | undefined;
  readonly fullPasses: number;
  readonly connection: number;
  /** A pass is running or queued. */
  readonly reconciling: boolean;
}

export interface DriftScheduleOptions {
  /** 0 disables the check. */
  readonly intervalMs: number;
  readonly timers: Timers;
  readonly logger: AgentLogger;
  readonly running: () => boolean;
  /** Asks for a full pass because of drift (or doubt). */
  readonly requestPass: () => void;
  /** File mode: re-reads the source before the pass. */
  readonly recheckSource: () => Promise<void>;
  /** Fleet mode: the datastore, its check, and the agent's state the check depends on. */
  readonly fleet?: {
    readonly desired: FleetDesired;
    readonly check: FleetDriftCheck;
    readonly state: () => DriftCheckState;
    /** A check compared VPP with the records (the agent's `driftCheck` event). */
    readonly compared: (differences: number) => void;
  };
}

export class DriftSchedule {
  readonly #opts: DriftScheduleOptions;
  #timer: Timer | undefined;
  /** The check under way, if any: stop() waits for it to end. */
  #inFlight: Promise<void> | undefined;

  constructor(opts: DriftScheduleOptions) {
    this.#opts = opts;
  }

  /** Arms the next check, one interval from now. */
  arm(): void {
    if (this.#opts.intervalMs <= 0 || !this.#opts.running()) return;
    this.#timer = this.#opts.timers.after(this.#opts.intervalMs, () => {
      this.#timer = undefined;
      const check = this.#check().catch((err: unknown) => {
        if (this.#opts.running())
          this.#opts.logger.warn({ err: errorMessage(err) }, 'drift check failed; retried at the next one');
      });
      const tracked = check.finally(() => {
        if (this.#inFlight === tracked) this.#inFlight = undefined;
      });
      this.#inFlight = tracked;
    });
  }

  /** Disarms the next check and waits for one under way (it ends at its next turn). */
  async stop(): Promise<void> {
    this.#timer?.cancel();
    this.#timer = undefined;
    await this.#inFlight;
  }

  async #check(): Promise<void> {
    const fleet = this.#opts.fleet;
    try {
      if (fleet) await this.#checkFleet(fleet);
      else {
        // The file's watch may have lost events: the drift check re-reads it, then reconciles.
        await this.#opts.recheckSource();
        this.#opts.requestPass();
      }
    } finally {
      // A check that failed is retried at the next one, not never.
      this.arm();
    }
  }

  async #checkFleet(fleet: NonNullable<DriftScheduleOptions['fleet']>): Promise<void> {
    const start = fleet.state();
    const model = start.steering;
    // No model yet (the first pass of the start, or after a failed one) while a pass runs or is
    // queued: that full pass is the check, and a second one asked for now would only repeat it.
    if (model?.valid !== true && start.reconciling) return;
    if (
      !fleet.desired.health().synced ||
      start.config === undefined ||
      !start.vppReady ||
      model?.valid !== true
    ) {
      this.#opts.requestPass();
      return;
    }
    // A full pass, a new VPP or a dropped model meanwhile: that pass is the check, or comes next.
    const verdict = await fleet.check.run(start.config, model, () => {
      const now = fleet.state();
      return (
        now.fullPasses !== start.fullPasses || now.connection !== start.connection || now.steering !== model
      );
    });
    if (verdict.kind === 'none') return;
    if (verdict.kind === 'compared') {
      fleet.compared(verdict.differences);
      if (verdict.differences === 0) return;
    }
    this.#opts.requestPass();
  }
}
