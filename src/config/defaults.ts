/** Defaults of the service bridge, shared by validation and the configuration reference. */
export const SERVICE_DEFAULTS = {
  table: 4000,
  bridgeDomain: 100,
  gateway: '169.254.169.1/24',
  vmAddressRange: '169.252.252.0/24',
  metadataAddress: '169.254.169.254',
  addressHoldSeconds: 300,
  /**
   * About 1,500 DNS queries a second, or many metadata requests: far above what a VM's boot or
   * its SDKs ask, low enough that one VM cannot take a pod's CPU (AWS allows 1,024 packets a
   * second per interface to its DNS and metadata services).
   */
  vmRateKbps: 1000,
  /** A burst of ~800 DNS queries (a VM's boot fetching everything at once passes). */
  vmBurstBytes: 65536,
  /** NAT sessions per VM: concurrent DNS queries and metadata connections of a busy VM. */
  vmNatSessions: 256,
  /** A DNS answer comes back within seconds (VPP's own default is 600). */
  udpSessionIdleSeconds: 30,
} as const;

/** services.ip6, in the style of AWS's fd00:ec2::254 (metadata) and fd00:ec2::253 (DNS). */
export const SERVICE_IP6_DEFAULTS = {
  gateway: 'fd00:ec2::1/64',
  vmAddressRange: 'fd00:ec2:0:ff::/64',
  metadataAddress: 'fd00:ec2::254',
  /** Used when services.dnsAddress (IPv4) is set. */
  dnsAddress: 'fd00:ec2::253',
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
  /** The only directory VM sockets may be in: VPP replaces whatever is at a socket's path. */
  vhostSocketDirectory: '/run/vppnet/vhost',
  /** Searchable by all, so a QEMU reaches the socket whatever its user; writable by root only. */
  vhostDirectoryMode: '0755',
} as const;

/** SRv6 encapsulation: the outer hop limit, Linux's default for IPv6. */
export const SRV6_DEFAULTS = { hopLimit: 64 } as const;

/** The underlay's MTU bounds: IPv6's minimum link MTU (RFC 8200), and jumbo frames. */
export const MIN_UNDERLAY_MTU = 1280;
export const MAX_UNDERLAY_MTU = 9216;

/** The smallest IPv4 MTU every host must accept (RFC 791); a VPC's MTU may not go below it. */
export const MIN_TENANT_MTU = 576;

/** Defaults of a VPC's IPv6 side (docs/dual-stack.md). */
export const VPC_DEFAULTS = {
  /** The VMs' IPv6 gateway: fixed, so static guests can route via it and it survives a new port MAC. */
  gatewayLinkLocal: 'fe80::1',
} as const;

/**
 * End.DT6 SIDs are the locator + this + the VPC's SID index; End.DT4's are the locator + the
 * index (≤ 2^24 − 1), so the two never meet. End.DT4 drops inner IPv6: a VPC needs both.
 */
export const DT6_SID_OFFSET = 1n << 24n;
/** The longest locator that holds End.DT6 SIDs: 2^24 + a 24-bit index needs 25 bits. */
export const MAX_IP6_LOCATOR_LEN = 103;

/**
 * IPv6 source tables: VPC v's is this + v.id, holding only what each of its ports may send from,
 * and the uplink's is this + 0 (docs/source-validation.md). vppnet's own: a VPC or the services
 * may not use these table ids.
 */
export const SOURCE_TABLE_BASE = 0xc0000000;
export const SOURCE_TABLE_LAST = SOURCE_TABLE_BASE + 0xffffff;

/**
 * Fabric tables: VPC v's IPv6 one is this + v.id. Its End.DT6 SID decapsulates into it, and it
 * leads only to this node's VM ports (srv6/overlay.ts fabricRoutes, which says why IPv4 has none).
 */
export const FABRIC_TABLE_BASE = 0xc1000000;

/**
 * IPv6 services tables (services.ip6): VPC v's is this + v.id. Its services loopback is in it:
 * nat66 translates there, away from the VM ports (services/ip6-services.ts says why).
 */
export const SERVICES6_TABLE_BASE = 0xc2000000;
/** The last of the table ids vppnet keeps for itself (source, fabric and IPv6 services tables). */
export const RESERVED_TABLE_LAST = SERVICES6_TABLE_BASE + 0xffffff;

/** The fabric table of the VPC with this id. */
export function fabricTableOf(vpcId: number): number {
  return FABRIC_TABLE_BASE + vpcId;
}

/** The IPv6 services table of the VPC with this id. */
export function services6TableOf(vpcId: number): number {
  return SERVICES6_TABLE_BASE + vpcId;
}

/** The uplink's source table (the SRv6 ingress filter): the fleet's sources only. */
export const UNDERLAY_SOURCE_TABLE = SOURCE_TABLE_BASE;

/** The IPv6 source table of the VPC with this id. */
export function sourceTableOf(vpcId: number): number {
  return SOURCE_TABLE_BASE + vpcId;
}

/**
 * The longest lists one VPC or port may write. A record or file is untrusted and the check pass
 * compares a VPC's subnets pairwise (20,000 subnets took 24 s, once per derivation), each allowed
 * prefix against them, and makes VPP routes of each: far above what a VPC (AWS: 5 CIDR blocks,
 * 50 at most) or an appliance behind one port needs, low enough that one record cannot stall the
 * agent or fill VPP's FIB.
 */
export const MAX_VPC_SUBNETS = 256;
export const MAX_ALLOWED_PREFIXES = 1024;
