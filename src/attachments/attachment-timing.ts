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
import diagnostics from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';

export const ATTACHMENT_CHANNEL = 'vppnet:attachment';

export type AttachmentPhase = 'queue' | 'netns' | 'vpp_lock' | 'vpp' | 'record';

export interface AttachmentDiagnostic {
  readonly op: 'attach' | 'detach';
  readonly id: string;
  /** 'ok', or the CNI error code of the answer. */
  readonly outcome: 'ok' | number;
  readonly durationMs: number;
  readonly phasesMs: Readonly<Partial<Record<AttachmentPhase, number>>>;
}

const channel = diagnostics.channel(ATTACHMENT_CHANNEL);

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
    const now = performance.now();
    this.#phasesMs[this.#phase] = (this.#phasesMs[this.#phase] ?? 0) + (now - this.#phaseStarted);
    this.#phase = phase;
    this.#phaseStarted = now;
  }

  /** Ends the call and publishes it (only when someone listens). */
  finish(outcome: AttachmentDiagnostic['outcome']): void {
    this.enter(this.#phase);
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
}
