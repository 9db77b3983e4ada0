/**
 * A domain's share of the reconciler (the dataplane, the SRv6 overlay, the service bridge) in one
 * place: its kinds, how it reads its part of VPP and the messages that read sends, and how that
 * reading becomes resources. src/hypervisor composes the domains: one kind registry (kinds.ts),
 * one snapshot with every part read concurrently (snapshot.ts), and the messages a VPP must have
 * at connect (required-messages.ts), derived from the kinds and the reads.
 */
import type { VppApi } from '../vpp/client/vpp-api.js';
import type { Descriptor, KindMessages } from './descriptor.js';
import type { Resource } from './resource.js';

export interface Domain<C, Part, Scope> {
  readonly name: string;
  /** Registered in this order (hypervisor/kinds.ts). */
  readonly kinds: readonly Descriptor<unknown, C>[];
  /** What `read` sends; its required messages are checked at connect as the kinds' are. */
  readonly reads: KindMessages;
  /** The domain's part of the snapshot; asks VPP for everything it can before its first await. */
  read(client: VppApi, scope: Scope): Promise<Part>;
  /** What VPP holds of the domain's kinds, from the snapshot (each domain takes its own facts). */
  readonly actual: (...args: never[]) => readonly Resource[];
}
