/**
 * The desired state of a hypervisor for a config: the SRv6 overlay and the service bridge as
 * resources, and the steering entries as bulk kinds (reconcile/bulk.ts), one per address family.
 */
import type { AgentConfig } from '../config/model.js';
import { SteeringEntries } from '../srv6/steering-entries.js';
import { plan as makePlan } from '../reconcile/planner.js';
import type { Plan, Resource } from '../reconcile/resource.js';
import { desiredServices, type ServicesDesiredInput } from '../services/desired.js';
import { freshServiceAddresses } from '../services/runtime.js';
import { desiredSteering } from '../srv6/desired-steering.js';
import { configBsids, desiredOverlay } from '../srv6/overlay.js';
import { compareSteeringSides, type SteeringSides } from '../srv6/steering-resources.js';
import { hypervisorKinds } from './kinds.js';

/**
 * The desired state: resources, and the IPv4 and IPv6 steering entries as bulk kinds
 * (reconcile/bulk.ts).
 */
export interface DesiredState extends SteeringSides {
  readonly resources: Resource[];
  /** Remote SID → BSID of the desired policies, one per SID (the steering model's policies). */
  readonly bsids: ReadonlyMap<string, string>;
}

/**
 * The desired state for a config, given the BSIDs already in use and, for the service bridge,
 * the VMs' service addresses and the attached pods (by default: a fresh allocation, no pods).
 */
export function desiredState(
  config: AgentConfig,
  bsidsInVpp: ReadonlyMap<string, string>,
  services: ServicesDesiredInput = {
    addresses: freshServiceAddresses(config),
    pods: [],
  },
): DesiredState {
  return withServices(desiredOverlayState(config, bsidsInVpp), config, services);
}

/** The SRv6 overlay's part of the desired state: it needs only the BSIDs VPP has of the snapshot. */
export interface DesiredOverlayState extends SteeringSides {
  readonly resources: Resource[];
  readonly bsids: ReadonlyMap<string, string>;
}

export function desiredOverlayState(
  config: AgentConfig,
  bsidsInVpp: ReadonlyMap<string, string>,
): DesiredOverlayState {
  const bsids = configBsids(config, bsidsInVpp);
  return { resources: desiredOverlay(config, bsids), ...desiredSteering(config, bsids), bsids };
}

/** The whole desired state: the overlay's, then the service bridge's resources. */
export function withServices(
  overlay: DesiredOverlayState,
  config: AgentConfig,
  services: ServicesDesiredInput,
): DesiredState {
  return {
    resources: [...overlay.resources, ...desiredServices(config, services)],
    steering: overlay.steering,
    steering6: overlay.steering6,
    bsids: overlay.bsids,
  };
}

/**
 * What the agent would do to a VPP that has nothing of vppnet's yet. The interfaces vppnet only
 * configures (the underlay NIC) are assumed present, as on a real hypervisor.
 */
export function planFresh(config: AgentConfig): Plan {
  const desired = desiredState(config, new Map());
  return makePlan(
    desired.resources,
    desired.resources.filter((r) => r.external),
    hypervisorKinds,
    compareSteeringSides(desired, { steering: new SteeringEntries(), steering6: new SteeringEntries(1, 6) }),
  );
}
