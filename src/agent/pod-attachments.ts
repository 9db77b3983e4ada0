/**
 * The agent's side of the service pods: the service bridge's runtime (attachments restored from
 * the state directory, the local API vppnet-cni calls, the read-only service map:
 * attachments/open-services.ts), a watch on the host's links that removes an attachment whose
 * pod's netns vanished without a DEL; and the log line per ADD/DEL. Opened once the config was
 * read, before VPP connects, so every full pass knows the pods from the start.
 */
import type { ServicesConfig } from '../config/model.js';
import type { HostLinks } from '../dataplane/context.js';
import { ATTACHMENT_CHANNEL, type AttachmentDiagnostic } from '../attachments/attachment-timing.js';
import { openServices, type OpenedServices } from '../attachments/open-services.js';
import { watchLinkDeletions, type LinkDeletionWatch } from '../netns/link-monitor.js';
import type { ManagedVppApi } from '../vpp/client/vpp-api.js';
import { errorMessage, type AgentLogger } from './logger.js';

export interface PodAttachmentsOptions {
  readonly client: ManagedVppApi;
  readonly host: HostLinks;
  /** The mark on the host links this agent makes. */
  readonly hostLinkOwner: string;
  readonly stateDir: string;
  /** The services section of the config in force. */
  readonly services: () => ServicesConfig | undefined;
  readonly podNetnsDirs?: readonly string[];
  /** Where the local API listens. */
  readonly agentSocketPath: string;
  /** Where the read-only service map listens; undefined: nowhere. */
  readonly serviceMapSocketPath?: string;
  readonly logger: AgentLogger;
  /** Whether the agent runs: a vanished link found while it stops is left to the next agent. */
  readonly running: () => boolean;
}

export class PodAttachments {
  readonly #opts: PodAttachmentsOptions;
  readonly #services: OpenedServices;
  readonly #linkWatch: LinkDeletionWatch;
  /** Prunes of vanished attachments, one after the other. */
  #pruning: Promise<void> = Promise.resolve();

  /** Restores the attachments, starts listening on the sockets and watching the host's links. */
  static async open(opts: PodAttachmentsOptions): Promise<PodAttachments> {
    const services = await openServices({
      client: opts.client,
      host: opts.host,
      hostLinkOwner: opts.hostLinkOwner,
      stateDir: opts.stateDir,
      services: opts.services,
      ...(opts.podNetnsDirs !== undefined && { podNetnsDirs: opts.podNetnsDirs }),
    });
    await services.localApi.listen(opts.agentSocketPath);
    opts.logger.info({ socket: opts.agentSocketPath }, 'local API listening');
    if (opts.serviceMapSocketPath !== undefined) {
      await services.serviceMapApi.listen(opts.serviceMapSocketPath);
      opts.logger.info({ socket: opts.serviceMapSocketPath }, 'service map listening');
    }
    return new PodAttachments(opts, services);
  }

  private constructor(opts: PodAttachmentsOptions, services: OpenedServices) {
    this.#opts = opts;
    this.#services = services;
    this.#linkWatch = watchLinkDeletions((name) => this.#onLinkDeleted(name), {
      onProblem: (message) => opts.logger.warn({}, message),
    });
  }

  /** What a full pass reconciles the service bridge with. */
  get runtime(): OpenedServices['runtime'] {
    return this.#services.runtime;
  }

  /** Stops watching links (first, so that nothing new is pruned while the agent stops). */
  stopWatching(): void {
    this.#linkWatch.close();
  }

  /**
   * No new attachments: the sockets close (their files are removed, the CNI plugin waits for the
   * next agent), and prunes under way end.
   */
  async close(): Promise<void> {
    this.#linkWatch.close();
    await this.#services.localApi.close();
    await this.#services.serviceMapApi.close();
    await this.#pruning;
  }

  /**
   * A link of an active attachment vanished without a DEL: its pod's netns is most likely gone.
   * Its VPP port is removed now rather than at the next drift check, since VPP keeps polling an
   * af_packet port whose host link is gone. A DEL's own link deletion is not active, so it is
   * ignored here.
   */
  #onLinkDeleted(name: string): void {
    const manager = this.#services.manager;
    const logger = this.#opts.logger;
    if (!manager.isActive(name) || !this.#opts.running()) return;
    logger.info({ link: name }, 'an attached pod link vanished; removing attachments whose netns is gone');
    this.#pruning = this.#pruning
      .then(() => manager.pruneVanished())
      .then((gone) => {
        if (gone.length > 0) logger.info({ attachments: gone }, 'removed attachments whose netns is gone');
      })
      .catch((err: unknown) =>
        logger.warn({ err: errorMessage(err) }, 'removing vanished attachments failed'),
      );
  }
}

/**
 * Logs one line per ADD/DEL, with where its time went: what an operator asks first about a slow
 * pod. Returns the unsubscribe.
 */
export function logAttachments(logger: AgentLogger): () => void {
  const onAttachment = (m: AttachmentDiagnostic): void => {
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
    if (m.outcome === 'ok') logger.info(fields, what);
    else logger.warn(fields, `${m.op} failed`);
  };
  ATTACHMENT_CHANNEL.subscribe(onAttachment);
  return () => ATTACHMENT_CHANNEL.unsubscribe(onAttachment);
}
