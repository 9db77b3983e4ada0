/**
 * The SRv6 overlay as a domain (reconcile/domain.ts): its kinds, its part of the snapshot, and
 * what VPP holds of them. The steering entries are bulk kinds, read back apart (actualSteering)
 * and compared in columns (steering-resources.ts).
 */
import type { AgentConfig } from '../config/model.js';
import type { DataplaneContext } from '../dataplane/context.js';
import type { Domain } from '../reconcile/domain.js';
import type { Resource } from '../reconcile/resource.js';
import { actualSrv6, type SrGlobalsMemory } from './actual.js';
import {
  encapSourceDescriptor,
  hopLimitDescriptor,
  localSidDescriptor,
  policyDescriptor,
  steering6Descriptor,
  steeringDescriptor,
} from './descriptors.js';
import { readSrv6, SRV6_READS, type Srv6Scope, type Srv6Snapshot, type Srv6View } from './reading.js';
import { actualUnderlayNeighbours } from './underlay-neighbours.js';

export const srv6Domain = {
  name: 'srv6',
  kinds: [
    encapSourceDescriptor,
    hopLimitDescriptor,
    localSidDescriptor,
    policyDescriptor,
    steeringDescriptor,
    steering6Descriptor,
  ],
  reads: SRV6_READS,
  read: readSrv6,
  /** The overlay's objects but the steering entries, and the underlay's neighbour settings. */
  actual: (s: Srv6View, config: AgentConfig, memory: SrGlobalsMemory | undefined): Resource[] => [
    ...actualSrv6(s, config, memory),
    ...actualUnderlayNeighbours(s, memory),
  ],
} satisfies Domain<DataplaneContext, Srv6Snapshot, Srv6Scope>;
