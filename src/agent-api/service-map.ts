/**
 * The service map as GET /v1/service-map answers it: which VM stands behind which service address.
 * Metadata and DHCP services see a VM's service address as the source of its packets and look the
 * caller up here. The agent builds it (src/services/service-map.ts).
 */
export interface ServiceMapEntry {
  /**
   * The VM's IPv4 service address. A VM of an IPv6-only VPC has one too, reserved for it and used
   * by nothing: its host number is the VM's identity, which its IPv6 service address shares.
   */
  readonly serviceAddress: string;
  /** With services.ip6, for a VM with an IPv6 address: what the pods see over IPv6. */
  readonly serviceAddress6?: string;
  readonly vpc: string;
  readonly vpcId: number;
  readonly port: string;
  /** The VM's IPv4 address; absent for a VM of an IPv6-only VPC. */
  readonly vmIp?: string;
  readonly vmIp6?: string;
  readonly mac: string;
  /** The VM's MTU (its VPC's): the DHCP server hands it out as option 26, interface-mtu. */
  readonly mtu: number;
  /**
   * The circuit-id VPP's DHCP relay writes for this VM: sub-option 1 of the option 82 it appends,
   * 4 bytes in network order (VPP's index of the VM's port; it changes when VPP restarts). VPP
   * appends its option 82 last, after whatever the VM put in its request, so a DHCP server takes the
   * last option 82 only and looks its circuit-id up here; an earlier one is the VM's own words.
   * Absent until the agent has seen the port in VPP.
   */
  readonly dhcpCircuitId?: number;
}
