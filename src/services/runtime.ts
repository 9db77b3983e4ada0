/**
 * What a full reconcile needs of the service bridge beyond the config: the per-VM address keeper,
 * the attached pods and the lock shared with the attachment manager. The agent's runtime
 * (src/attachments) implements these and builds one per VPP client; every reconcile reads it.
 */
import type { AgentConfig } from '../config/model.js';
import { allocateServiceAddresses, EMPTY_BOOK, serviceAddressRequests } from './address-allocator.js';
import type { PodPortSpec } from './pod-port.js';
import type { ServiceAddresses } from './service-addresses.js';

/**
 * One per VPP client: a full reconcile and a pod's own apply each read VPP, plan and execute while
 * holding it, so neither plans from a state the other is changing (AsyncLock in src/attachments).
 */
export interface DataplaneLock {
  /** Runs `fn` once every earlier caller is done; a failure does not block later callers. */
  run<T>(fn: () => Promise<T>): Promise<T>;
}

/** What the full reconcile needs from the attachments (AttachmentManager in src/attachments). */
export interface PodAttachmentSource {
  /** Drops attachments whose netns is gone; call without holding the dataplane lock. */
  forgetVanished(): Promise<readonly string[]>;
  /** The pod ports that should exist now (recorded attachments). */
  desiredPods(): PodPortSpec[];
  /**
   * Pods an ADD or DEL is working on right now: a full reconcile leaves their objects alone (the
   * call in progress creates or removes them, and undoes its own work if it fails).
   */
  podsInProgress(): string[];
}

export interface ServicesRuntime {
  readonly addresses: ServiceAddresses;
  /** Without it, pods' ports and host links are neither created nor deleted. */
  readonly attachments?: PodAttachmentSource;
  /** Held from reading VPP to the end of executing, like the attachment manager's pod applies. */
  readonly lock?: DataplaneLock;
}

/** Addresses a VPP with nothing of vppnet's would get (for `vppnet plan`). */
export function freshServiceAddresses(config: AgentConfig): ReadonlyMap<string, string> {
  if (!config.services) return new Map();
  return allocateServiceAddresses({
    book: EMPTY_BOOK,
    requests: serviceAddressRequests(config),
    range: config.services.vmAddressRange,
    holdMs: 0,
    now: 0,
  }).addresses;
}
