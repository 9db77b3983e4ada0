/**
 * One consistent read of everything vppnet may own in VPP: the domains' parts (dataplane, SRv6
 * overlay, service bridge), asked for at once on the one connection so VPP never waits for the
 * client between them, then a ping. Both the actual state and the runtime contexts of a pass come
 * from it; nothing else reads VPP during a reconcile.
 */
import {
  emptyDataplaneSnapshot,
  type DataplaneSnapshot,
  type NeighborDetails,
} from '../dataplane/snapshot.js';
import { emptyServicesSnapshot, type ServicesSnapshot } from '../services/reading.js';
import { emptySrv6Snapshot, type Srv6Snapshot } from '../srv6/reading.js';
import type { VppApi } from '../vpp/client/vpp-api.js';
import { dataplaneDomain } from '../dataplane/domain.js';
import { servicesDomain } from '../services/domain.js';
import { srv6Domain } from '../srv6/domain.js';

export interface VppSnapshot extends DataplaneSnapshot, Srv6Snapshot, ServicesSnapshot {
  readonly vppPid: number;
}

export interface SnapshotScope {
  /** VPP names of interfaces vppnet configures without owning (the underlay NIC). */
  readonly externalInterfaces: readonly string[];
  /** Tables whose routes are read even though vppnet does not own them (e.g. IPv6 table 0). */
  readonly sharedTables: readonly { readonly id: number; readonly ip6: boolean }[];
  /** Whether the services plugins (l2, acl, nat, dhcp) are read. */
  readonly services: boolean;
  /** Whether SR policies and steering entries are read (default true; Srv6Scope.steering). */
  readonly steering?: boolean;
}

export interface SnapshotHooks {
  /** Srv6Scope.onPolicies: the policies as soon as they are in. Must not throw. */
  readonly onPolicies?: (policies: VppSnapshot['policies']) => void;
}

export async function loadSnapshot(
  client: VppApi,
  scope: SnapshotScope,
  hooks: SnapshotHooks = {},
): Promise<VppSnapshot> {
  let firstAnswersIn: () => void = () => undefined;
  const afterFirstAnswers = new Promise<void>((resolve) => (firstAnswersIn = resolve));
  // The services' dumps of every neighbour (the pods' guards) serve the dataplane's ports too:
  // one dump a family and snapshot instead of one more per port. The services ask for them as
  // their read starts; the ports' facts are read once earlier answers are in.
  const neighbors: Partial<Record<4 | 6, Promise<readonly NeighborDetails[]>>> = {};
  const [dataplane, srv6, services] = await Promise.all([
    dataplaneDomain.read(client, {
      externalInterfaces: scope.externalInterfaces,
      sharedTables: scope.sharedTables,
      onFirstAnswers: () => firstAnswersIn(),
      neighbors: (family) => neighbors[family],
    }),
    srv6Domain.read(client, {
      afterFirstAnswers,
      ...(scope.steering !== undefined && { steering: scope.steering }),
      ...(hooks.onPolicies && { onPolicies: hooks.onPolicies }),
    }),
    servicesDomain.read(client, {
      services: scope.services,
      onNeighbors: (family, dump) => {
        neighbors[family] = dump;
      },
    }),
  ]);
  await client.ping();
  return { vppPid: client.vppPid, ...dataplane, ...srv6, ...services };
}

/** A snapshot of a VPP with nothing in it: the base for partial snapshots and tests. */
export function emptySnapshot(): VppSnapshot {
  return { vppPid: 0, ...emptyDataplaneSnapshot(), ...emptySrv6Snapshot(), ...emptyServicesSnapshot() };
}
