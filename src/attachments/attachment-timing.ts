/**
 * Where the time of a CNI ADD or DEL goes inside the agent, published on a diagnostics channel (as
 * the executor publishes operations): the agent's metrics turn it into histograms and its log into
 * one line per call, and neither the attachment manager nor its tests need to know about either.
 *
 * Phases of an ADD: `queue` (waiting for another call on the same pod), `netns` (veth pair or tap
 * configuration through `ip`), `vpp_lock` (waiting for the dataplane lock a full reconcile or another
 * pod holds), `vpp` (dumps, plan and requests), `record` (the attachment file). A phase the call did
 * not reach is absent.
 */
import { typedChannel } from '../util/typed-channel.js';
import { performance } from 'node:perf_hooks';

export const ATTACHMENT_CHANNEL = typedChannel<AttachmentDiagnostic>('vppnet:attachment');

/**
 * Each phase a call enters, as it enters it: lets a test wait for "every ADD now waits for the
 * dataplane lock" (pods waiting for VPP are served in one lock turn, so the lock itself sees one
 * waiter for all of them) instead of sleeping until they probably do.
 */
export const ATTACHMENT_PHASE_CHANNEL = typedChannel<AttachmentPhaseEntry>('vppnet:attachment:phase');

export type AttachmentPhase = 'queue' | 'netns' | 'vpp_lock' | 'vpp' | 'record';

export interface AttachmentPhaseEntry {
  readonly op: 'attach' | 'detach';
  readonly id: string;
  readonly phase: AttachmentPhase;
  /** performance.now() when the phase began: the same clock as the call's phasesMs. */
  readonly at: number;
}

export interface AttachmentDiagnostic {
  readonly op: 'attach' | 'detach';
  readonly id: string;
  /** 'ok', or the CNI error code of the answer. */
  readonly outcome: 'ok' | number;
  readonly durationMs: number;
  readonly phasesMs: Readonly<Partial<Record<AttachmentPhase, number>>>;
}

const channel = ATTACHMENT_CHANNEL;
const phaseChannel = ATTACHMENT_PHASE_CHANNEL;

/** Splits one call's time into phases: each `enter` ends the phase before it. */
export class AttachmentTimer {
  readonly #op: AttachmentDiagnostic['op'];
  readonly #id: string;
  readonly #started = performance.now();
  readonly #phasesMs: Partial<Record<AttachmentPhase, number>> = {};
  #phase: AttachmentPhase = 'queue';
  #phaseStarted = this.#started;

  constructor(op: AttachmentDiagnostic['op'], id: string) {
    this.#op = op;
    this.#id = id;
  }

  enter(phase: AttachmentPhase): void {
    const now = this.#endPhase();
    this.#phase = phase;
    if (phaseChannel.hasSubscribers) {
      const entry: AttachmentPhaseEntry = { op: this.#op, id: this.#id, phase, at: now };
      phaseChannel.publish(entry);
    }
  }

  /** Ends the call and publishes it (only when someone listens). */
  finish(outcome: AttachmentDiagnostic['outcome']): void {
    this.#endPhase();
    if (!channel.hasSubscribers) return;
    const message: AttachmentDiagnostic = {
      op: this.#op,
      id: this.#id,
      outcome,
      durationMs: performance.now() - this.#started,
      phasesMs: this.#phasesMs,
    };
    channel.publish(message);
  }

  /** Adds the current phase's time so far to its total and starts it afresh; returns now. */
  #endPhase(): number {
    const now = performance.now();
    this.#phasesMs[this.#phase] = (this.#phasesMs[this.#phase] ?? 0) + (now - this.#phaseStarted);
    this.#phaseStarted = now;
    return now;
  }
}
