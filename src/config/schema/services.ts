/** The `services` section: the service bridge (DHCP, DNS-proxy, metadata pods). */
import { Type, type Static } from '../typebox.js';
import { SERVICE_DEFAULTS, SERVICE_IP6_DEFAULTS } from '../defaults.js';
import { cniNetworkName, formatted, integer } from './fields.js';

const closed = { additionalProperties: false } as const;

export const ServiceNetworksSchema = Type.Object(
  {
    metadata: Type.Optional(
      cniNetworkName({ description: "The metadata pod's network: it may hold services.metadataAddress." }),
    ),
    dns: Type.Optional(
      cniNetworkName({ description: "The DNS-proxy pod's network: it may hold services.dnsAddress." }),
    ),
    dhcp: Type.Optional(
      cniNetworkName({
        description:
          "The DHCP pod's network: it may hold services.dhcpServer, and only its port may send DHCP server replies.",
      }),
    ),
  },
  {
    ...closed,
    description:
      "The CNI network (the NetworkAttachmentDefinition config's `name`) of each service pod. Set, an attachment of one of these networks may hold only its own service's address and no other network may attach to the bridge; unset, any network may hold any free host address of the bridge (see docs/security.md).",
  },
);

export const ServicesIp6Schema = Type.Object(
  {
    gateway: Type.Optional(
      formatted('ip6-prefix', {
        docType: 'IPv6 prefix /48-/126',
        default: SERVICE_IP6_DEFAULTS.gateway,
        description:
          "The bridge's IPv6 gateway (BVI) address and length; pods route services.ip6.vmAddressRange via it.",
      }),
    ),
    vmAddressRange: Type.Optional(
      formatted('ip6-network', {
        default: SERVICE_IP6_DEFAULTS.vmAddressRange,
        description:
          "Per-VM IPv6 service addresses (what the pods see as the source): a VM's has the host number of its IPv4 one in services.vmAddressRange, so the range holds at least as many.",
      }),
    ),
    metadataAddress: Type.Optional(
      formatted('ip6', {
        default: SERVICE_IP6_DEFAULTS.metadataAddress,
        description:
          "The metadata pod's IPv6 address (inside services.ip6.gateway), reachable from every IPv6 VPC.",
      }),
    ),
    dnsAddress: Type.Optional(
      formatted('ip6', {
        defaultText: `${SERVICE_IP6_DEFAULTS.dnsAddress} when services.dnsAddress is set`,
        description: "The DNS-proxy pod's IPv6 address (inside services.ip6.gateway).",
      }),
    ),
  },
  {
    ...closed,
    description:
      "Metadata and DNS over IPv6 with per-VM identity (nat66; docs/dual-stack.md); present (even `{}`): on, for every VM with an IPv6 address. The bridge's IPv6 side is in IPv6 table 0, so its prefixes may not overlap the underlay, the locator, the BSID prefix or node.srv6.allowedSources. Needs VPP's nat66 plugin.",
  },
);

export const VmLimitsSchema = Type.Object(
  {
    rateKbps: Type.Optional(
      integer(0, 10_000_000, {
        default: SERVICE_DEFAULTS.vmRateKbps,
        description:
          "A VM's traffic to the metadata, DNS and DHCP addresses, in kbit/s of IP packets (VPP's policer on the VM's port; excess dropped and counted); 0: not policed.",
      }),
    ),
    // Below one full-size packet a VM could not send one at all.
    burstBytes: Type.Optional(
      integer(1500, 16 << 20, {
        default: SERVICE_DEFAULTS.vmBurstBytes,
        description: 'The bytes a VM may send to the services at once above the rate.',
      }),
    ),
    natSessions: Type.Optional(
      integer(16, 65536, {
        default: SERVICE_DEFAULTS.vmNatSessions,
        description:
          "NAT sessions (DNS queries, metadata connections) one VM may hold at once; a new one beyond that reuses the VM's own oldest.",
      }),
    ),
    udpSessionIdleSeconds: Type.Optional(
      integer(5, 600, {
        default: SERVICE_DEFAULTS.udpSessionIdleSeconds,
        description:
          "How long an idle UDP flow to a pod keeps its session in the pods' reflexive ACL (VPP's acl plugin, node-wide): with each VM's rate policed, one VM's sessions are at most its packet rate times this, so a flood cannot fill the plugin's table (500,000) for the others.",
      }),
    ),
  },
  {
    ...closed,
    description:
      'What one VM may take of the service plane, so that no VM starves the others (see docs/security.md).',
  },
);

export const ServicesSchema = Type.Object(
  {
    table: Type.Optional(
      integer(1, 0xfffffffe, {
        default: SERVICE_DEFAULTS.table,
        description: 'IPv4 table of the service bridge.',
      }),
    ),
    bridgeDomain: Type.Optional(
      integer(1, 0xffffff, { default: SERVICE_DEFAULTS.bridgeDomain, description: 'VPP bridge domain id.' }),
    ),
    gateway: Type.Optional(
      formatted('ip4-prefix', {
        default: SERVICE_DEFAULTS.gateway,
        description: "The bridge's gateway (BVI) address and length; pods route 169.252.252.0/24 via it.",
      }),
    ),
    vmAddressRange: Type.Optional(
      formatted('ip4-network', {
        default: SERVICE_DEFAULTS.vmAddressRange,
        description: 'Per-VM service addresses (what services see as the source); a /24 serves ~250 VMs.',
      }),
    ),
    metadataAddress: Type.Optional(
      formatted('ip4', {
        default: SERVICE_DEFAULTS.metadataAddress,
        description: "The metadata pod's address, reachable from every VPC.",
      }),
    ),
    dnsAddress: Type.Optional(
      formatted('ip4', { description: "The DNS-proxy pod's address, reachable from every VPC." }),
    ),
    dhcpServer: Type.Optional(
      formatted('ip4', {
        description: "The DHCP pod's address; set: DHCP from VMs is relayed there with option 82.",
      }),
    ),
    networks: Type.Optional(ServiceNetworksSchema),
    addressHoldSeconds: Type.Optional(
      integer(0, 86400, {
        default: SERVICE_DEFAULTS.addressHoldSeconds,
        description: 'How long a freed VM service address is held back before another VM gets it.',
      }),
    ),
    ip6: Type.Optional(ServicesIp6Schema),
    vmLimits: Type.Optional(VmLimitsSchema),
  },
  {
    ...closed,
    description: 'The service bridge (DHCP, DNS-proxy, metadata pods); absent: no service bridge.',
  },
);

export type ServicesInput = Static<typeof ServicesSchema>;
export type ServicesIp6Input = Static<typeof ServicesIp6Schema>;
export type VmLimitsInput = Static<typeof VmLimitsSchema>;
export type ServiceNetworksInput = Static<typeof ServiceNetworksSchema>;
