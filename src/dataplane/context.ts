/**
 * What descriptors get to act with: the VPP client, the interface registry of this VPP process,
 * and the host-side operations for links VPP takes over (veth pairs into network namespaces).
 */
import type { VppClient } from '../vpp/client/vpp-client.js';
import type { InterfaceRegistry } from './interface-registry.js';

export interface HostLinks {
  /** Creates a veth pair whose peer sits in `netns` as `ifname` with `mac`; idempotent for an equal pair. */
  createVeth(spec: { hostName: string; netns: string; ifname: string; mac: string; mtu?: number }): Promise<void>;
  /** Deletes the host end (the peer goes with it); absent is fine. */
  deleteVeth(hostName: string): Promise<void>;
  /** Host ends of veth pairs vppnet created (by name prefix), with their peers' netns when known. */
  listVeths(prefix: string): Promise<readonly string[]>;
}

export interface DataplaneContext {
  readonly client: VppClient;
  readonly interfaces: InterfaceRegistry;
  readonly host: HostLinks;
}

/** sw_if_index meaning "none" in VPP's API. */
export const NO_INTERFACE = 0xffffffff;
