/** Defaults of the service bridge, shared by validation and the configuration reference. */
export const SERVICE_DEFAULTS = {
  table: 4000,
  bridgeDomain: 100,
  gateway: '169.254.169.1/24',
  vmAddressRange: '169.252.252.0/24',
  metadataAddress: '169.254.169.254',
  addressHoldSeconds: 300,
} as const;

/**
 * Aging of VPP's IPv6 neighbour entries (docs/underlay-neighbours.md): an underlay peer whose MAC
 * changed and whose advertisement was lost is relearned after at most this, plus a second's probe.
 */
export const UNDERLAY_NEIGHBOR_DEFAULTS = { maxAgeSeconds: 30 } as const;

/**
 * Bytes H.Encaps adds to a tenant packet: the outer IPv6 header, with the one SID as its
 * destination and no SRH (vpp-srv6.md). A VPC's MTU is the underlay's minus this.
 */
export const SRV6_ENCAP_OVERHEAD = 40;

export const NODE_DEFAULTS = {
  /** Ethernet's: the MTU every underlay carries unless the operator says otherwise. */
  underlayMtu: 1500,
  /** Read and write for the owner and the group: what a connecting QEMU needs, nobody else. */
  vhostSocketMode: '0660',
  /** Searchable by all, so a QEMU reaches the socket whatever its user; writable by root only. */
  vhostDirectoryMode: '0755',
} as const;

/** The smallest IPv4 MTU every host must accept (RFC 791); a VPC's MTU may not go below it. */
export const MIN_TENANT_MTU = 576;
