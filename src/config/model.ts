/**
 * The agent's desired state for one hypervisor, after validation and defaults. Produced only by
 * validate.ts from the YAML file; everything downstream can trust it. Not the file's shape: that
 * is the schema's (schema.ts, ConfigInput, with its Static<> types per section); this is what the
 * check pass makes of it (prefixes parsed, modes as numbers, SIDs and tables defaulted from other
 * fields, one attachment's access merged with the node's defaults).
 */

export interface NodeConfig {
  readonly name: string;
  readonly underlay: {
    /** An existing VPP interface (DPDK NIC, memif, af_packet): configured, never created. */
    readonly interface: string;
    /** This hypervisor's underlay IPv6 address with its prefix length. */
    readonly address: string;
    readonly prefixLength: number;
    /** Next hop of the IPv6 default route in table 0. */
    readonly gateway: string;
    /**
     * Seconds after which VPP re-probes an IPv6 neighbour entry (and removes it unanswered), so
     * a peer whose MAC changed is relearned; 0: entries never age (VPP's default).
     */
    readonly neighborMaxAgeSeconds: number;
    /**
     * The IPv6 MTU of the underlay network between hypervisors. Tenant packets grow by 40 bytes
     * (the outer IPv6 header, one SID, no SRH), so a VPC's MTU is at most this minus 40.
     */
    readonly mtu: number;
  };
  /** Defaults for vhost-user sockets; a port's own settings win. */
  readonly vhostUser: VhostUserDefaults;
  readonly srv6: {
    readonly locator: { readonly address: string; readonly len: number };
    readonly encapSource: string;
    readonly hopLimit: number;
    /** Binding SIDs of vppnet's policies are allocated from here. */
    readonly bsidPrefix: { readonly address: string; readonly len: number };
    /**
     * The only underlay sources, besides link-local ones, whose IPv6 packets VPP accepts on the
     * uplink (the SRv6 ingress filter): the fleet's underlay prefixes and encapsulation sources.
     */
    readonly allowedSources: readonly { readonly address: string; readonly len: number }[];
  };
}

export interface VpcConfig {
  readonly name: string;
  readonly id: number;
  /** VPP table (VRF) id, the same for the VPC's IPv4 and IPv6 tables. */
  readonly table: number;
  /** This hypervisor's End.DT4 SID for the VPC. */
  readonly sid: string;
  /** IPv4 subnets; empty for an IPv6-only VPC. */
  readonly subnets: readonly { readonly address: string; readonly len: number }[];
  /** The VMs' IPv4 gateway; undefined exactly when the VPC has no IPv4 subnet. */
  readonly gateway: string | undefined;
  /**
   * IPv6 subnets, each a /64 (docs/dual-stack.md). VPP's IPv6 table ids are a name space of their
   * own, so the VPC's IPv6 VRF uses the same `table` id.
   */
  readonly subnets6: readonly { readonly address: string; readonly len: number }[];
  /**
   * This hypervisor's End.DT6 SID for the VPC: locator + 2^24 + the VPC's SID index by default
   * (distinct from the DT4 one: End.DT4 drops inner IPv6). Undefined when the VPC has no IPv6
   * subnet.
   */
  readonly sid6: string | undefined;
  /** The link-local address VM ports answer RS with and VMs route via (default fe80::1). */
  readonly gatewayLinkLocal: string;
  /** The VMs' MTU: set on their ports in VPP and handed to them by DHCP (the service map). */
  readonly mtu: number;
}

/**
 * Who may connect to a vhost-user socket. VPP creates it as root with its umask; a QEMU that does
 * not run as root (libvirt's default) needs the socket's group or owner. Numeric ids only: the
 * agent runs in a container whose /etc/passwd and /etc/group are not the host's.
 */
export interface SocketAccess {
  /** Owner uid; undefined: leave VPP's (root). */
  readonly uid: number | undefined;
  /** Group gid; undefined: leave VPP's (root). */
  readonly gid: number | undefined;
  /** Permission bits, e.g. 0o660. */
  readonly mode: number;
}

export interface VhostUserDefaults extends SocketAccess {
  /**
   * Every port's socket lies inside it: VPP unlinks a socket's path before it binds, so a port
   * naming any other file would have VPP delete it.
   */
  readonly directory: string;
  /** Mode of the socket directories vppnet creates (existing ones are left as they are). */
  readonly directoryMode: number;
}

export type PortAttachment =
  /** Production: VPP serves a vhost-user socket the VM's QEMU connects to. */
  | { readonly type: 'vhost-user'; readonly socket: string; readonly access: SocketAccess }
  /** Tests and demos: a veth pair into a network namespace, VPP side taken with af_packet. */
  | { readonly type: 'veth'; readonly netns: string; readonly ifname: string }
  /** A VPP tap into a network namespace (needs /dev/vhost-net). */
  | { readonly type: 'tap'; readonly netns: string; readonly ifname: string }
  /** An interface that already exists in VPP, by its VPP name. */
  | { readonly type: 'interface'; readonly name: string };

export interface PortConfig {
  readonly name: string;
  readonly vpc: string;
  /** The VM's MAC. */
  readonly mac: string;
  /** The VM's IPv4 address; undefined exactly when its VPC has no IPv4 subnet. */
  readonly ip: string | undefined;
  /**
   * The VM's IPv6 address when its VPC has an IPv6 subnet: by default the EUI-64 of `mac` in the
   * first one, which is what SLAAC gives a guest (docs/dual-stack.md).
   */
  readonly ip6: string | undefined;
  readonly attach: PortAttachment;
  /**
   * Whether VPP drops what the VM sends from a source that is not its own (uRPF, strict, per
   * family the port has): on by default; off only for a port whose VM forwards for others and
   * whose tenant accepts that it can then send as anyone (docs/source-validation.md).
   */
  readonly sourceCheck: boolean;
  /**
   * Networks behind the VM (an appliance: NAT instance, VPN gateway, router): routed to the port on
   * this node and accepted as its sources. Endpoints for them name this node, as for any address.
   */
  readonly allowedPrefixes: readonly AllowedPrefix[];
}

/** A prefix a port may send from, besides its own addresses. */
export interface AllowedPrefix {
  readonly address: string;
  readonly len: number;
  readonly family: 4 | 6;
}

export interface RemoteRouteConfig {
  readonly vpc: string;
  /** IPv4 or IPv6, as `family` says. */
  readonly prefix: { readonly address: string; readonly len: number };
  readonly family: 4 | 6;
  /** The remote hypervisor's End.DT4 SID for this VPC (End.DT6 for an IPv6 prefix). */
  readonly sid: string;
}

export interface ServicesConfig {
  /** IPv4 table of the service bridge. */
  readonly table: number;
  readonly bridgeDomain: number;
  /** The bridge's gateway (BVI) address and prefix length. */
  readonly gateway: { readonly address: string; readonly len: number };
  /** Per-VM service addresses are taken from here. */
  readonly vmAddressRange: { readonly address: string; readonly len: number };
  readonly metadataAddress: string;
  readonly dnsAddress: string | undefined;
  readonly dhcpServer: string | undefined;
  /** Seconds a freed VM service address is held back before reuse. */
  readonly addressHoldSeconds: number;
  /**
   * The CNI network (NetworkAttachmentDefinition config `name`) of each service pod. Set, an
   * attachment of one of these networks may hold only its service's address, and no other network
   * may attach; unset, any network may hold any free host address of the bridge.
   */
  readonly networks: ServiceNetworks | undefined;
  /** What one VM may take of the services, so that no VM starves the others (docs/security.md). */
  readonly vmLimits: ServiceVmLimits;
  /** Metadata and DNS over IPv6 (nat66, docs/dual-stack.md); undefined: IPv4 only. */
  readonly ip6: ServicesIp6Config | undefined;
}

/**
 * The service bridge's IPv6 side. A VM's IPv6 service address has the same host number in
 * `vmAddressRange` as its IPv4 one in the IPv4 range: one identity, one hold, one book.
 */
export interface ServicesIp6Config {
  /** The BVI's IPv6 address and prefix length (in IPv6 table 0: nat66 needs its outside there). */
  readonly gateway: { readonly address: string; readonly len: number };
  readonly vmAddressRange: { readonly address: string; readonly len: number };
  readonly metadataAddress: string;
  readonly dnsAddress: string | undefined;
}

/** Per-VM bounds on the service plane. */
export interface ServiceVmLimits {
  /** Rate of a VM's packets to the service addresses, in kbit/s of IP bytes; 0: unpoliced. */
  readonly rateKbps: number;
  /** Bytes a VM may send above the rate at once (the policer's committed burst). */
  readonly burstBytes: number;
  /** NAT sessions one VM may hold; its oldest is reused for a new one beyond that. */
  readonly natSessions: number;
  /** Seconds an idle UDP flow to a pod keeps its session in the pods' reflexive ACL. */
  readonly udpSessionIdleSeconds: number;
}

/** The CNI network name per service; a service left out has no pod network. */
export interface ServiceNetworks {
  readonly metadata: string | undefined;
  readonly dns: string | undefined;
  readonly dhcp: string | undefined;
}

export interface AgentConfig {
  readonly node: NodeConfig;
  readonly vpcs: readonly VpcConfig[];
  readonly ports: readonly PortConfig[];
  readonly remoteRoutes: readonly RemoteRouteConfig[];
  readonly services: ServicesConfig | undefined;
}
