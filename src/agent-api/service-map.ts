/**
 * The service map as GET /v1/service-map answers it: which VM stands behind which service address.
 * Metadata and DHCP services see a VM's service address as the source of its packets and look the
 * caller up here. The agent builds it (src/services/service-map.ts).
 */
export interface ServiceMapEntry {
  readonly serviceAddress: string;
  readonly vpc: string;
  readonly vpcId: number;
  readonly port: string;
  readonly vmIp: string;
  readonly mac: string;
  /** The VM's MTU (its VPC's): the DHCP server hands it out as option 26, interface-mtu. */
  readonly mtu: number;
}
