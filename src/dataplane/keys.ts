/**
 * Resource keys: built only here, so every module spells a key the same way, and parsed back
 * only here. Interfaces are named logically: vppnet's own by their tag ("vppnet:vm:vm1"), others
 * (the underlay NIC) by their VPP name.
 */
export const TAG_PREFIX = 'vppnet:';

export const keys = {
  ipTable: (table: number, ip6 = false): string => `ip-table:${ip6 ? 'ip6' : 'ip4'}:${table}`,
  interface: (name: string): string => `interface:${name}`,
  hostVeth: (hostName: string): string => `host-veth:${hostName}`,
  adminUp: (iface: string): string => `admin-up:${iface}`,
  ifaceTable: (iface: string, ip6 = false): string => `iface-table:${ip6 ? 'ip6' : 'ip4'}:${iface}`,
  address: (iface: string, prefix: string): string => `address:${iface}:${prefix}`,
  unnumbered: (iface: string): string => `unnumbered:${iface}`,
  route: (table: number, prefix: string, ip6 = false): string =>
    `route:${ip6 ? 'ip6' : 'ip4'}:${table}:${prefix}`,
  proxyArp: (table: number, low: string, hi: string): string => `proxy-arp:${table}:${low}-${hi}`,
  proxyArpInterface: (iface: string): string => `proxy-arp-intf:${iface}`,
  sourceCheck: (iface: string, ip6 = false): string => `source-check:${ip6 ? 'ip6' : 'ip4'}:${iface}`,
  ipNeighborConfig: (ip6: boolean): string => `ip-neighbor-config:${ip6 ? 'ip6' : 'ip4'}`,
  neighborAnnouncement: (iface: string, address: string): string =>
    `neighbor-announcement:${iface}:${address}`,
  interfaceMtu: (iface: string): string => `interface-mtu:${iface}`,
  hostDirectory: (path: string): string => `host-directory:${path}`,
  socketAccess: (socket: string): string => `socket-access:${socket}`,
  srEncapSource: (): string => 'sr-encap-source',
  srHopLimit: (): string => 'sr-hop-limit',
  srLocalSid: (sid: string): string => `sr-localsid:${sid}`,
  srPolicy: (bsid: string): string => `sr-policy:${bsid}`,
  srSteering: (table: number, prefix: string, ip6 = false): string =>
    `${keys.srSteeringPrefix(ip6)}${table}:${prefix}`,
  /** What every srSteering key of a family starts with (the planner orders by it: bulk.ts). */
  srSteeringPrefix: (ip6 = false): string => (ip6 ? 'sr-steering:ip6:' : 'sr-steering:ip4:'),
  ip6Enable: (iface: string): string => `ip6-enable:${iface}`,
  ip6LinkLocal: (iface: string): string => `ip6-link-local:${iface}`,
  ip6RaPrefix: (iface: string, prefix: string): string => `ip6-ra-prefix:${iface}:${prefix}`,
  ip6RaConfig: (iface: string): string => `ip6-ra-config:${iface}`,
  ip6NdMirrorProxy: (iface: string): string => `ip6-nd-mirror-proxy:${iface}`,
  staticNeighbor: (iface: string, address: string): string => `static-neighbor:${iface}:${address}`,
  bridgeDomain: (bd: number): string => `bridge-domain:${bd}`,
  bridgePort: (iface: string): string => `bridge-port:${iface}`,
  acl: (tag: string): string => `acl:${tag}`,
  aclBinding: (iface: string): string => `acl-binding:${iface}`,
  macipAcl: (tag: string): string => `macip-acl:${tag}`,
  macipBinding: (iface: string): string => `macip-binding:${iface}`,
  l2FibEntry: (bd: number, mac: string): string => `l2fib:${bd}:${mac}`,
  bdIpMac: (bd: number, ip: string): string => `bd-ip-mac:${bd}:${ip}`,
  natPlugin: (): string => 'nat44-ei',
  natOutputInterface: (iface: string): string => `nat-ei-output:${iface}`,
  natStaticMapping: (vrf: number, local: string): string => `nat-ei-static:${vrf}:${local}`,
  natIdentityMapping: (vrf: number, address: string): string => `nat-ei-identity:${vrf}:${address}`,
  /** NAT44-ED, as vppnet used it before NAT44-EI: read back to be removed (nat-ed-descriptors.ts). */
  natEdOutputInterface: (iface: string): string => `nat-output:${iface}`,
  natEdStaticMapping: (vrf: number, local: string): string => `nat-static:${vrf}:${local}`,
  natEdIdentityMapping: (vrf: number, address: string): string => `nat-identity:${vrf}:${address}`,
  nat66Plugin: (): string => 'nat66',
  nat66Interface: (iface: string): string => `nat66-interface:${iface}`,
  nat66StaticMapping: (vrf: number, local: string): string => `nat66-static:${vrf}:${local}`,
  dhcpProxy: (rxVrf: number): string => `dhcp-proxy:${rxVrf}`,
  dhcpVss: (table: number): string => `dhcp-vss:${table}`,
  vmRateLimit: (port: string): string => `vm-rate-limit:${port}`,
  /** The service BVI's L2 policer-classify table: the VMs' IPv6 service traffic (one per node). */
  vmRateTable6: (): string => 'vm-rate-table6',
  aclSessionTimeouts: (): string => 'acl-session-timeouts',
} as const;

/** Tags vppnet gives its objects (interfaces, bridge domains, ACLs, NAT mappings). VPP keeps 63 bytes. */
export const tags = {
  vpcGateway: (vpc: string): string => `${TAG_PREFIX}gw:${vpc}`,
  /** A VM port's interface, and its NAT static mapping. */
  vmPort: (port: string): string => `${TAG_PREFIX}vm:${port}`,
  servicesBvi: (): string => `${TAG_PREFIX}services:bvi`,
  /** A VPC's services loopback (services.ip6): nat66's inside, in the VPC's IPv6 services table. */
  vpcServices6: (vpc: string): string => `${TAG_PREFIX}svc6:${vpc}`,
  servicesBridge: (): string => `${TAG_PREFIX}services`,
  podPort: (id: string): string => `${TAG_PREFIX}pod:${id}`,
  /** ACL on a pod port's output: what the pod may receive. */
  podAclOut: (): string => `${TAG_PREFIX}pod-out`,
  /**
   * The ACL every pod port had on its input before each pod got its own (podAclIn): a full pass
   * deletes it once no port uses it.
   */
  sharedPodAclIn: (): string => `${TAG_PREFIX}pod-in`,
  /** ACL on one pod port's input: what that pod may send, given its role and addresses. */
  podAclIn: (id: string): string => `${TAG_PREFIX}pod-in:${id}`,
  /** MACIP ACL on one pod port: the only MAC and IPv4 sources (ARP senders included) it may use. */
  podMacip: (id: string): string => `${TAG_PREFIX}pod-macip:${id}`,
  /** The policer of one VM port's traffic to the services (a policer's name: 63 bytes too). */
  vmRatePolicer: (port: string): string => `${TAG_PREFIX}vm-rate:${port}`,
  /** NAT identity mappings of the service bridge gateway. */
  natGateway: (): string => `${TAG_PREFIX}gw`,
} as const;

/** The port name in a VM port tag ("vppnet:vm:vm1" → "vm1"), else undefined. */
export function vmPortOfTag(tag: string): string | undefined {
  const prefix = tags.vmPort('');
  return tag.startsWith(prefix) && tag.length > prefix.length ? tag.slice(prefix.length) : undefined;
}

/** The port name in a VM rate policer's name, else undefined. */
export function vmPortOfRatePolicer(name: string): string | undefined {
  const prefix = tags.vmRatePolicer('');
  return name.startsWith(prefix) && name.length > prefix.length ? name.slice(prefix.length) : undefined;
}

/** The pod id in a pod port tag ("vppnet:pod:vpn…" → "vpn…"), else undefined. */
export function podOfTag(tag: string): string | undefined {
  const prefix = tags.podPort('');
  return tag.startsWith(prefix) && tag.length > prefix.length ? tag.slice(prefix.length) : undefined;
}

export const tableNames = {
  vpc: (vpc: string): string => `${TAG_PREFIX}vpc:${vpc}`,
  /** A VPC's IPv6 source table: only what its ports may send from (source validation). */
  vpcSources: (vpc: string): string => `${TAG_PREFIX}src6:${vpc}`,
  /** A VPC's IPv6 fabric table: what its End.DT6 SID decapsulates into. */
  vpcFabric: (vpc: string): string => `${TAG_PREFIX}fabric:${vpc}`,
  /** The uplink's IPv6 source table: the fleet's sources (the SRv6 ingress filter). */
  underlaySources: (): string => `${TAG_PREFIX}underlay-sources`,
  services: (): string => `${TAG_PREFIX}services`,
  /** A VPC's IPv6 services table (services.ip6): where nat66 translates its VMs' requests. */
  vpcServices6: (vpc: string): string => `${TAG_PREFIX}svc6:${vpc}`,
} as const;

export function isOwnedTag(tag: string): boolean {
  return tag.startsWith(TAG_PREFIX);
}
