/**
 * What a full reconcile needs of the service bridge beyond the config: the per-VM address keeper,
 * the attached pods and the lock shared with the attachment manager. The agent builds one per VPP
 * client and passes it to every reconcile.
 */
import type { AgentConfig } from '../config/model.js';
import { allocateServiceAddresses, EMPTY_BOOK } from './address-allocator.js';
import type { DataplaneLock } from './async-lock.js';
import type { PodAttachmentSource } from './attachment-manager.js';
import type { ServiceAddresses } from './service-addresses.js';

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
    requests: config.ports.map((p) => ({ port: p.name, vpc: p.vpc, ip: p.ip })),
    range: config.services.vmAddressRange,
    holdMs: 0,
    now: 0,
  }).addresses;
}
