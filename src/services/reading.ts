/**
 * The service bridge's part of the VPP snapshot (hypervisor/snapshot.ts composes the domains'
 * parts): bridge domains, ACLs, DHCP proxies, the pods' guards, rate limits and NAT. Read only
 * when asked (`services`), each plugin only where this VPP has it.
 */
import type { DataplaneSnapshot } from '../dataplane/snapshot.js';
import { NO_NAT, readNat, type NatReading } from './nat-reading.js';
import {
  NO_POLICER_CLASSIFY,
  readPolicerClassify,
  type PolicerClassifyReading,
} from './policer-classify-reading.js';
import type { KindMessages } from '../reconcile/descriptor.js';
import type { Message } from '../vpp/codec/schema.js';
import type { VppApi } from '../vpp/client/vpp-api.js';
import { msg } from '../vpp/messages/index.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';

const STATIC_NEIGHBOR = msg.ip_neighbor_flags_t.values.IP_API_NEIGHBOR_FLAG_STATIC;

export interface ServicesSnapshot extends PodGuards {
  readonly bridgeDomains: readonly Message<typeof msg.bridge_domain_details>[];
  readonly acls: readonly Message<typeof msg.acl_details>[];
  readonly aclBindings: readonly Message<typeof msg.acl_interface_list_details>[];
  /** NAT44-EI's state (the service bridge's) and NAT44-ED's (earlier versions'). */
  readonly nat: NatReading;
  readonly dhcpProxies: readonly Message<typeof msg.dhcp_proxy_details>[];
  /** IPv4 policer classification: the services' per-VM rate limits. */
  readonly policerClassify: PolicerClassifyReading;
}

/** What the service bridge's read-back sees: its part, the dataplane's, and which VPP process it is. */
export interface ServicesView extends DataplaneSnapshot, ServicesSnapshot {
  readonly vppPid: number;
}

export interface ServicesScope {
  /** Whether the services plugins (l2, acl, nat, dhcp) are read. */
  readonly services: boolean;
  /**
   * Given the dump of every interface's neighbours of each family as soon as it is asked for,
   * when the pods' guards are read (DataplaneScope.neighbors: the ports' neighbours come from it).
   */
  readonly onNeighbors?: (
    family: 4 | 6,
    dump: Promise<readonly Message<typeof msg.ip_neighbor_details>[]>,
  ) => void;
}

/** What keeps each service pod to itself (services/pod-port.ts), as VPP has it. */
export interface PodGuards {
  readonly macipAcls: readonly Message<typeof msg.macip_acl_details>[];
  /** MACIP ACL index per sw_if_index (NO_INDEX: none), as macip_acl_interface_get lists them. */
  readonly macipBindings: readonly number[];
  /** Every bridge domain's L2 FIB entries (learned ones included). */
  readonly l2Fib: readonly Message<typeof msg.l2_fib_table_details>[];
  /** Every bridge domain's IP-to-MAC (ARP termination) entries. */
  readonly bdIpMacs: readonly Message<typeof msg.bd_ip_mac_details>[];
  /** Static neighbours of every interface, both families (the service BVI's, one per pod address). */
  readonly bviNeighborCandidates: readonly Message<typeof msg.ip_neighbor_details>[];
}

export const NO_POD_GUARDS: PodGuards = {
  macipAcls: [],
  macipBindings: [],
  l2Fib: [],
  bdIpMacs: [],
  bviNeighborCandidates: [],
};

type MacipDetails = Message<typeof msg.macip_acl_details>;
type L2FibDetails = Message<typeof msg.l2_fib_table_details>;
type BdIpMacDetails = Message<typeof msg.bd_ip_mac_details>;
const none = <T>(): Promise<T[]> => Promise.resolve([]);

/** The pods' guards, each part only where this VPP has its plugin: one read for every caller. */
export async function readPodGuards(
  client: VppApi,
  onNeighbors?: ServicesScope['onNeighbors'],
): Promise<PodGuards> {
  const reads = [
    client.supports(msg.macip_acl_dump)
      ? client.dump(msg.macip_acl_dump, { acl_index: NO_INDEX })
      : none<MacipDetails>(),
    client.supports(msg.macip_acl_interface_get)
      ? client.call(msg.macip_acl_interface_get, {}).then((r) => r.acls.slice(0, r.count))
      : Promise.resolve([] as number[]),
    client.supports(msg.l2_fib_table_dump)
      ? client.dump(msg.l2_fib_table_dump, { bd_id: NO_INDEX })
      : none<L2FibDetails>(),
    client.supports(msg.bd_ip_mac_dump)
      ? client.dump(msg.bd_ip_mac_dump, { bd_id: NO_INDEX })
      : none<BdIpMacDetails>(),
    client.dump(msg.ip_neighbor_dump, { sw_if_index: NO_INDEX, af: msg.address_family_t.values.ADDRESS_IP4 }),
    client.dump(msg.ip_neighbor_dump, { sw_if_index: NO_INDEX, af: msg.address_family_t.values.ADDRESS_IP6 }),
  ] as const;
  onNeighbors?.(4, reads[4]);
  onNeighbors?.(6, reads[5]);
  const [macipAcls, macipBindings, l2Fib, bdIpMacs, neighbors4, neighbors6] = await Promise.all(reads);
  const bviNeighborCandidates = [...neighbors4, ...neighbors6].filter(
    (n) => (n.neighbor.flags & STATIC_NEIGHBOR) !== 0,
  );
  return { macipAcls, macipBindings, l2Fib, bdIpMacs, bviNeighborCandidates };
}

/** The messages readServices sends (domain.ts): none checked at connect, a node may have no services. */
export const SERVICES_READS: KindMessages = {
  optional: [
    msg.bridge_domain_dump,
    msg.acl_dump,
    msg.acl_interface_list_dump,
    msg.dhcp_proxy_dump,
    msg.macip_acl_dump,
    msg.macip_acl_interface_get,
    msg.l2_fib_table_dump,
    msg.bd_ip_mac_dump,
    msg.ip_neighbor_dump,
    // policer-classify-reading.ts
    msg.policer_classify_dump,
    msg.classify_table_info,
    msg.classify_session_dump,
    msg.policer_dump_v2,
    // nat-reading.ts
    msg.nat44_ei_show_running_config,
    msg.nat44_ei_output_interface_get,
    msg.nat44_ei_static_mapping_dump,
    msg.nat44_ei_identity_mapping_dump,
    msg.nat44_ed_output_interface_get,
    msg.nat44_static_mapping_dump,
    msg.nat44_identity_mapping_dump,
    msg.nat66_interface_dump,
    msg.nat66_static_mapping_dump,
  ],
};

const optionalDump = <T>(supported: boolean, run: () => Promise<T[]>): Promise<T[]> =>
  supported ? run() : Promise.resolve([]);

export async function readServices(client: VppApi, scope: ServicesScope): Promise<ServicesSnapshot> {
  const svc = scope.services;
  const [[bridgeDomains, acls, aclBindings, dhcpProxies], podGuards, policerClassify, nat] =
    await Promise.all([
      Promise.all([
        optionalDump(svc, () =>
          client.dump(msg.bridge_domain_dump, { bd_id: NO_INDEX, sw_if_index: NO_INDEX }),
        ),
        optionalDump(svc && client.supports(msg.acl_dump), () =>
          client.dump(msg.acl_dump, { acl_index: NO_INDEX }),
        ),
        optionalDump(svc && client.supports(msg.acl_interface_list_dump), () =>
          client.dump(msg.acl_interface_list_dump, { sw_if_index: NO_INDEX }),
        ),
        optionalDump(svc && client.supports(msg.dhcp_proxy_dump), () =>
          client.dump(msg.dhcp_proxy_dump, { is_ip6: false }),
        ),
      ]),
      svc ? readPodGuards(client, scope.onNeighbors) : Promise.resolve(NO_POD_GUARDS),
      svc ? readPolicerClassify(client) : Promise.resolve(NO_POLICER_CLASSIFY),
      svc ? readNat(client) : Promise.resolve(NO_NAT),
    ]);
  return { bridgeDomains, acls, aclBindings, ...podGuards, nat, dhcpProxies, policerClassify };
}

/** The service bridge's part of a VPP with nothing in it: the base for partial snapshots and tests. */
export function emptyServicesSnapshot(): ServicesSnapshot {
  return {
    bridgeDomains: [],
    acls: [],
    aclBindings: [],
    ...NO_POD_GUARDS,
    nat: NO_NAT,
    dhcpProxies: [],
    policerClassify: NO_POLICER_CLASSIFY,
  };
}
