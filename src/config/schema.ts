/**
 * The agent config's fields, described once. validate.ts takes each mapping's allowed fields from
 * here, and the configuration reference in the README is generated from it
 * (`vppnet config-reference`), so the documentation cannot list a field the agent rejects or miss
 * one it accepts.
 */
import { UNDERLAY_NEIGHBOR_DEFAULTS } from './defaults.js';
import { MIN_TENANT_MTU, NODE_DEFAULTS, SERVICE_DEFAULTS, SRV6_ENCAP_OVERHEAD } from './defaults.js';
import { MAX_IP6_LOCATOR_LEN, VPC_DEFAULTS } from './defaults.js';
import { SERVICE_IP6_DEFAULTS } from './defaults.js';

export interface FieldDoc {
  /** Dotted path; `[]` marks list items, e.g. `vpcs[].subnets`. */
  readonly path: string;
  readonly type: string;
  readonly required: boolean;
  readonly default?: string;
  readonly description: string;
}

export const CONFIG_FIELDS: readonly FieldDoc[] = [
  { path: 'node', type: 'mapping', required: true, description: 'This hypervisor.' },
  {
    path: 'node.name',
    type: 'node name',
    required: true,
    description:
      "The Kubernetes node's name (lowercase RFC 1123: letters, digits, `-` and `.`, up to 253), for logs and status; in fleet mode, the name of its node record.",
  },
  { path: 'node.underlay', type: 'mapping', required: true, description: 'The IPv6 underlay uplink.' },
  {
    path: 'node.underlay.interface',
    type: 'string',
    required: true,
    description:
      'An existing VPP interface (a DPDK NIC, memif or af_packet): configured, never created or deleted.',
  },
  {
    path: 'node.underlay.address',
    type: 'IPv6 prefix',
    required: true,
    description: "This node's underlay address with its prefix length, e.g. 2001:db8::1/64.",
  },
  {
    path: 'node.underlay.gateway',
    type: 'IPv6 address',
    required: true,
    description: 'Next hop of the IPv6 default route (table 0), on the underlay subnet.',
  },
  {
    path: 'node.underlay.neighborMaxAgeSeconds',
    type: 'integer 0-86400',
    required: false,
    default: String(UNDERLAY_NEIGHBOR_DEFAULTS.maxAgeSeconds),
    description:
      "Age after which VPP re-probes an IPv6 neighbour entry and, unanswered three times, removes it: a peer whose MAC changed is relearned at the latest then (vppnet also advertises this node's MAC whenever it changed). 0: entries never age, VPP's default. Applies to all of VPP's IPv6 neighbours.",
  },
  {
    path: 'node.underlay.mtu',
    type: 'integer 1280-9216',
    required: false,
    default: String(NODE_DEFAULTS.underlayMtu),
    description: `The IPv6 MTU of the underlay network between hypervisors (every path, not just this NIC). SRv6 adds ${SRV6_ENCAP_OVERHEAD} bytes, so VPCs get this minus ${SRV6_ENCAP_OVERHEAD} unless they set less.`,
  },
  {
    path: 'node.vhostUser',
    type: 'mapping',
    required: false,
    description:
      "Defaults for the vhost-user sockets VPP serves to the VMs' QEMU; a port's `attach` may override `uid`, `gid` and `mode`.",
  },
  {
    path: 'node.vhostUser.uid',
    type: 'integer 0-4294967294',
    required: false,
    default: "VPP's (root)",
    description:
      "Owner of each socket, set after VPP creates it and again whenever VPP re-creates it. Numeric: the agent does not see the host's user names (`id -u libvirt-qemu`).",
  },
  {
    path: 'node.vhostUser.gid',
    type: 'integer 0-4294967294',
    required: false,
    default: "VPP's (root)",
    description:
      "Group of each socket, e.g. the gid of libvirt's `kvm` group (`getent group kvm`), so a QEMU that does not run as root can connect.",
  },
  {
    path: 'node.vhostUser.mode',
    type: 'octal string',
    required: false,
    default: `'${NODE_DEFAULTS.vhostSocketMode}'`,
    description:
      "Permission bits of each socket, quoted (YAML reads 0660 unquoted as decimal 660). Connecting needs write permission. At most '0660': whoever may connect while the VM's QEMU is away becomes the VM's frontend.",
  },
  {
    path: 'node.vhostUser.directory',
    type: 'absolute path',
    required: false,
    default: NODE_DEFAULTS.vhostSocketDirectory,
    description:
      "The directory every port's vhost-user socket must lie in (subdirectories allowed). VPP removes whatever is at a socket's path before it binds, so no other file may be named; mount it into VPP and the agent at the same path.",
  },
  {
    path: 'node.vhostUser.directoryMode',
    type: 'octal string',
    required: false,
    default: `'${NODE_DEFAULTS.vhostDirectoryMode}'`,
    description:
      'Permission bits of the socket directories vppnet creates (owned by root, with `gid` as group when set); existing directories are left as they are.',
  },
  { path: 'node.srv6', type: 'mapping', required: true, description: 'SRv6 settings.' },
  {
    path: 'node.srv6.locator',
    type: 'IPv6 prefix',
    required: true,
    description: `This node's SID block, routed to it by the underlay (≤ /112; ≤ /${MAX_IP6_LOCATOR_LEN} when a VPC has an IPv6 subnet, for the End.DT6 SIDs). Must not contain the underlay address.`,
  },
  {
    path: 'node.srv6.encapSource',
    type: 'IPv6 address',
    required: false,
    default: 'the underlay address',
    description: 'Outer source of encapsulated packets.',
  },
  {
    path: 'node.srv6.hopLimit',
    type: 'integer 1-255',
    required: false,
    default: '64',
    description: 'Outer hop limit.',
  },
  {
    path: 'node.srv6.bsidPrefix',
    type: 'IPv6 prefix',
    required: false,
    default: 'locator with 0xff in its last 16 prefix bits, 16 bits longer (fc00:1::/48 → fc00:1:ff::/64)',
    description: "Binding SIDs of vppnet's policies come from here; must not overlap the locator.",
  },
  {
    path: 'node.srv6.allowedSources',
    type: 'list of IPv6 prefixes',
    required: false,
    default:
      "file mode: the underlay address's prefix; fleet mode: every node record's encapSource, aggregated",
    description:
      "The SRv6 ingress filter: IPv6 packets arriving on the underlay interface are accepted only from these sources (the hypervisors' underlay prefixes and encapSource) and link-local ones, whatever their destination (a SID, a BSID, the node's address), and dropped and counted otherwise; multicast (neighbour discovery) always passes. At least one prefix; ['::/0'] turns the filter off.",
  },
  {
    path: 'vpcs',
    type: 'list',
    required: false,
    default: '[]',
    description: 'The VPCs with VMs or routes on this node.',
  },
  {
    path: 'vpcs[].name',
    type: 'name',
    required: true,
    description: 'Unique; used in VPP tags and table names.',
  },
  { path: 'vpcs[].id', type: 'integer 1-16777215', required: true, description: 'Unique VPC id.' },
  {
    path: 'vpcs[].table',
    type: 'integer',
    required: false,
    default: 'the id',
    description:
      "The VPC's VRF in VPP (not the services table), the same id for its IPv4 and IPv6 tables (VPP keeps them apart).",
  },
  {
    path: 'vpcs[].sid',
    type: 'IPv6 address',
    required: false,
    default: 'locator + id',
    description: "This node's End.DT4 SID for the VPC, inside the locator.",
  },
  {
    path: 'vpcs[].sid6',
    type: 'IPv6 address',
    required: false,
    default: 'locator + 2^24 + id',
    description:
      "With an IPv6 subnet: this node's End.DT6 SID for the VPC, inside the locator, distinct from every End.DT4 SID.",
  },
  {
    path: 'vpcs[].subnets',
    type: 'list of IPv4 and IPv6 prefixes',
    required: true,
    description:
      "The VPC's subnets, at least one (VPCs may overlap each other): IPv4 prefixes up to /30, IPv6 ones each exactly a /64. A VPC may be IPv6-only.",
  },
  {
    path: 'vpcs[].gateway',
    type: 'IPv4 address',
    required: false,
    description:
      "The VMs' IPv4 gateway, a host address in one of the IPv4 subnets: required with an IPv4 subnet, refused without one.",
  },
  {
    path: 'vpcs[].gatewayLinkLocal',
    type: 'IPv6 address',
    required: false,
    default: VPC_DEFAULTS.gatewayLinkLocal,
    description:
      "With an IPv6 subnet: the link-local address (fe80::/10) of the VMs' IPv6 gateway, the source of router advertisements; VMs route via it.",
  },
  {
    path: 'vpcs[].mtu',
    type: 'integer',
    required: false,
    default: `node.underlay.mtu − ${SRV6_ENCAP_OVERHEAD}`,
    description: `The VMs' MTU, ${MIN_TENANT_MTU} up to node.underlay.mtu − ${SRV6_ENCAP_OVERHEAD}: set on their ports in VPP (larger packets towards a VM are fragmented or answered with ICMP) and given to the DHCP server in the service map (option 26).`,
  },
  { path: 'ports', type: 'list', required: false, default: '[]', description: "This node's VM ports." },
  { path: 'ports[].name', type: 'name', required: true, description: 'Unique port name.' },
  { path: 'ports[].vpc', type: 'name', required: true, description: 'The VPC the VM is in.' },
  { path: 'ports[].mac', type: 'MAC address', required: true, description: "The VM's (unicast) MAC." },
  {
    path: 'ports[].ip',
    type: 'IPv4 address',
    required: false,
    description:
      "The VM's IPv4 address, a host address of an IPv4 subnet of its VPC, not the gateway: required when the VPC has an IPv4 subnet, refused otherwise.",
  },
  {
    path: 'ports[].ip6',
    type: 'IPv6 address',
    required: false,
    default: 'the EUI-64 of mac in the first IPv6 subnet, as SLAAC forms it',
    description:
      "With an IPv6 subnet: the VM's IPv6 address, inside one of the VPC's IPv6 subnets (not its ::0), unique in the VPC. The VM must use this address: SLAAC guests with privacy or stable-privacy addresses need it configured statically.",
  },
  {
    path: 'ports[].sourceCheck',
    type: 'boolean',
    required: false,
    default: 'true',
    description:
      "Source validation: VPP drops (and counts) every packet from the VM whose source is not the port's `ip`, `ip6`, the EUI-64 link-local of `mac`, an unspecified address to a broadcast or multicast destination (DHCP, DAD) or inside `allowedPrefixes`. `false` lets the VM send as any address in its VPC's tables, other VMs' included: only for appliances whose tenant accepts that risk.",
  },
  {
    path: 'ports[].allowedPrefixes',
    type: 'list of IPv4 and IPv6 prefixes',
    required: false,
    default: '[]',
    description:
      "Networks behind the VM (NAT instance, VPN gateway, router): routed to the port in its VPC's tables on this node and accepted as its sources. Each of a family the VPC has, network form, unique in the VPC, not inside 169.254.0.0/16, fe80::/10, loopback, multicast or the node's underlay, locator or BSID prefix, and not a VPC subnet, the gateway or another port's address (a covering prefix such as 0.0.0.0/0 is allowed: the more specific routes still win). Other nodes reach them through endpoints naming this node.",
  },
  {
    path: 'ports[].attach',
    type: 'mapping',
    required: true,
    description:
      'How VPP reaches the VM, by `type`: `vhost-user` (`socket`: absolute path, VPP is the server), `veth` (`netns`, `ifname`: a veth pair into a network namespace, VPP side by af_packet — tests and demos), `tap` (`netns`, `ifname`; needs /dev/vhost-net) or `interface` (`name`: an existing VPP interface).',
  },
  {
    path: 'ports[].attach.type',
    type: 'vhost-user | veth | tap | interface',
    required: true,
    description: 'See attach.',
  },
  {
    path: 'ports[].attach.socket',
    type: 'path',
    required: false,
    description:
      "vhost-user only: VPP's socket for the VM's QEMU (`reconnect` on the QEMU side); its directory is created when missing (node.vhostUser.directoryMode).",
  },
  {
    path: 'ports[].attach.uid',
    type: 'integer',
    required: false,
    default: 'node.vhostUser.uid',
    description: "vhost-user only: the socket's owner.",
  },
  {
    path: 'ports[].attach.gid',
    type: 'integer',
    required: false,
    default: 'node.vhostUser.gid',
    description: "vhost-user only: the socket's group.",
  },
  {
    path: 'ports[].attach.mode',
    type: 'octal string',
    required: false,
    default: 'node.vhostUser.mode',
    description: "vhost-user only: the socket's permission bits, at most '0660'.",
  },
  {
    path: 'ports[].attach.netns',
    type: 'string',
    required: false,
    description: 'veth and tap: the namespace name (under /run/netns) or path.',
  },
  {
    path: 'ports[].attach.ifname',
    type: 'interface name',
    required: false,
    default: 'eth0',
    description: 'veth and tap: the interface name inside the namespace.',
  },
  {
    path: 'ports[].attach.name',
    type: 'string',
    required: false,
    description: 'interface only: the VPP interface name.',
  },
  {
    path: 'remoteRoutes',
    type: 'list',
    required: false,
    default: '[]',
    description: 'Prefixes of VPCs that live on other hypervisors.',
  },
  { path: 'remoteRoutes[].vpc', type: 'name', required: true, description: 'The VPC.' },
  {
    path: 'remoteRoutes[].prefix',
    type: 'IPv4 or IPv6 prefix',
    required: true,
    description:
      'The remote prefix (unique per VPC), of a family the VPC has a subnet of; an IPv6 one may not overlap the underlay prefix, the locator or the BSID prefix.',
  },
  {
    path: 'remoteRoutes[].sid',
    type: 'IPv6 address',
    required: true,
    description:
      "The remote node's End.DT4 SID for this VPC for an IPv4 prefix, its End.DT6 SID for an IPv6 one (outside this node's locator).",
  },
  {
    path: 'services',
    type: 'mapping',
    required: false,
    description: 'The service bridge (DHCP, DNS-proxy, metadata pods); absent: no service bridge.',
  },
  {
    path: 'services.table',
    type: 'integer',
    required: false,
    default: String(SERVICE_DEFAULTS.table),
    description: 'IPv4 table of the service bridge.',
  },
  {
    path: 'services.bridgeDomain',
    type: 'integer',
    required: false,
    default: String(SERVICE_DEFAULTS.bridgeDomain),
    description: 'VPP bridge domain id.',
  },
  {
    path: 'services.gateway',
    type: 'IPv4 prefix',
    required: false,
    default: SERVICE_DEFAULTS.gateway,
    description: "The bridge's gateway (BVI) address and length; pods route 169.252.252.0/24 via it.",
  },
  {
    path: 'services.vmAddressRange',
    type: 'IPv4 prefix',
    required: false,
    default: SERVICE_DEFAULTS.vmAddressRange,
    description: 'Per-VM service addresses (what services see as the source); a /24 serves ~250 VMs.',
  },
  {
    path: 'services.metadataAddress',
    type: 'IPv4 address',
    required: false,
    default: SERVICE_DEFAULTS.metadataAddress,
    description: "The metadata pod's address, reachable from every VPC.",
  },
  {
    path: 'services.dnsAddress',
    type: 'IPv4 address',
    required: false,
    description: "The DNS-proxy pod's address, reachable from every VPC.",
  },
  {
    path: 'services.dhcpServer',
    type: 'IPv4 address',
    required: false,
    description: "The DHCP pod's address; set: DHCP from VMs is relayed there with option 82.",
  },
  {
    path: 'services.networks',
    type: 'mapping',
    required: false,
    description:
      "The CNI network (the NetworkAttachmentDefinition config's `name`) of each service pod. Set, an attachment of one of these networks may hold only its own service's address and no other network may attach to the bridge; unset, any network may hold any free host address of the bridge (see docs/security.md).",
  },
  {
    path: 'services.networks.metadata',
    type: 'CNI network name',
    required: false,
    description: "The metadata pod's network: it may hold services.metadataAddress.",
  },
  {
    path: 'services.networks.dns',
    type: 'CNI network name',
    required: false,
    description: "The DNS-proxy pod's network: it may hold services.dnsAddress.",
  },
  {
    path: 'services.networks.dhcp',
    type: 'CNI network name',
    required: false,
    description:
      "The DHCP pod's network: it may hold services.dhcpServer, and only its port may send DHCP server replies.",
  },
  {
    path: 'services.addressHoldSeconds',
    type: 'integer 0-86400',
    required: false,
    default: String(SERVICE_DEFAULTS.addressHoldSeconds),
    description: 'How long a freed VM service address is held back before another VM gets it.',
  },
  {
    path: 'services.ip6',
    type: 'mapping',
    required: false,
    description:
      "Metadata and DNS over IPv6 with per-VM identity (nat66; docs/dual-stack.md); present (even `{}`): on, for every VM with an IPv6 address. The bridge's IPv6 side is in IPv6 table 0, so its prefixes may not overlap the underlay, the locator, the BSID prefix or node.srv6.allowedSources. Needs VPP's nat66 plugin.",
  },
  {
    path: 'services.ip6.gateway',
    type: 'IPv6 prefix /48-/126',
    required: false,
    default: SERVICE_IP6_DEFAULTS.gateway,
    description:
      "The bridge's IPv6 gateway (BVI) address and length; pods route services.ip6.vmAddressRange via it.",
  },
  {
    path: 'services.ip6.vmAddressRange',
    type: 'IPv6 prefix',
    required: false,
    default: SERVICE_IP6_DEFAULTS.vmAddressRange,
    description:
      "Per-VM IPv6 service addresses (what the pods see as the source): a VM's has the host number of its IPv4 one in services.vmAddressRange, so the range holds at least as many.",
  },
  {
    path: 'services.ip6.metadataAddress',
    type: 'IPv6 address',
    required: false,
    default: SERVICE_IP6_DEFAULTS.metadataAddress,
    description:
      "The metadata pod's IPv6 address (inside services.ip6.gateway), reachable from every IPv6 VPC.",
  },
  {
    path: 'services.ip6.dnsAddress',
    type: 'IPv6 address',
    required: false,
    default: `${SERVICE_IP6_DEFAULTS.dnsAddress} when services.dnsAddress is set`,
    description: "The DNS-proxy pod's IPv6 address (inside services.ip6.gateway).",
  },
  {
    path: 'services.vmLimits',
    type: 'mapping',
    required: false,
    description:
      'What one VM may take of the service plane, so that no VM starves the others (see docs/security.md).',
  },
  {
    path: 'services.vmLimits.rateKbps',
    type: 'integer 0-10000000',
    required: false,
    default: String(SERVICE_DEFAULTS.vmRateKbps),
    description:
      "A VM's traffic to the metadata, DNS and DHCP addresses, in kbit/s of IP packets (VPP's policer on the VM's port; excess dropped and counted); 0: not policed.",
  },
  {
    path: 'services.vmLimits.burstBytes',
    type: 'integer 1500-16777216',
    required: false,
    default: String(SERVICE_DEFAULTS.vmBurstBytes),
    description: 'The bytes a VM may send to the services at once above the rate.',
  },
  {
    path: 'services.vmLimits.natSessions',
    type: 'integer 16-65536',
    required: false,
    default: String(SERVICE_DEFAULTS.vmNatSessions),
    description:
      "NAT sessions (DNS queries, metadata connections) one VM may hold at once; a new one beyond that reuses the VM's own oldest.",
  },
  {
    path: 'services.vmLimits.udpSessionIdleSeconds',
    type: 'integer 5-600',
    required: false,
    default: String(SERVICE_DEFAULTS.udpSessionIdleSeconds),
    description:
      "How long an idle UDP flow to a pod keeps its session in the pods' reflexive ACL (VPP's acl plugin, node-wide): with each VM's rate policed, one VM's sessions are at most its packet rate times this, so a flood cannot fill the plugin's table (500,000) for the others.",
  },
];

/** The field names allowed directly under `path` (e.g. 'node.underlay' → interface, address, gateway). */
export function fieldsUnder(path: string): string[] {
  // Asked once per list item (100k remote routes): computed once per path.
  let fields = fieldsByPath.get(path);
  if (fields === undefined) {
    const prefix = path === '' ? '' : `${path}.`;
    fields = CONFIG_FIELDS.filter(
      (f) => f.path.startsWith(prefix) && !f.path.slice(prefix.length).includes('.'),
    ).map((f) => f.path.slice(prefix.length).replace(/\[\]$/, ''));
    fieldsByPath.set(path, fields);
  }
  return fields;
}

const fieldsByPath = new Map<string, string[]>();

/** The reference as Markdown (README "Configuration reference"). */
export function configReferenceMarkdown(): string {
  const rows = CONFIG_FIELDS.map(
    (f) =>
      `| \`${f.path}\` | ${f.type} | ${f.required ? 'yes' : f.default !== undefined ? `no (default: ${f.default})` : 'no'} | ${f.description} |`,
  );
  return ['| field | type | required | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
