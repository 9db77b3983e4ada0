/** One item of `vpcs`: a VPC with VMs or routes on this node. */
import { Type, type Static } from '../typebox.js';
import {
  MAX_UNDERLAY_MTU,
  MAX_VPC_SUBNETS,
  MIN_TENANT_MTU,
  SRV6_ENCAP_OVERHEAD,
  VPC_DEFAULTS,
} from '../defaults.js';
import { formatted, integer, name } from './fields.js';

export const VpcSchema = Type.Object(
  {
    name: name({ description: 'Unique; used in VPP tags and table names.' }),
    id: integer(1, 0xffffff, { description: 'Unique VPC id.' }),
    table: Type.Optional(
      integer(1, 0xfffffffe, {
        defaultText: 'the id',
        description:
          "The VPC's VRF in VPP (not the services table), the same id for its IPv4 and IPv6 tables (VPP keeps them apart).",
      }),
    ),
    sid: Type.Optional(
      formatted('ip6', {
        defaultText: 'locator + id',
        description: "This node's End.DT4 SID for the VPC, inside the locator.",
      }),
    ),
    sid6: Type.Optional(
      formatted('ip6', {
        defaultText: 'locator + 2^24 + id',
        description:
          "With an IPv6 subnet: this node's End.DT6 SID for the VPC, inside the locator, distinct from every End.DT4 SID.",
      }),
    ),
    subnets: Type.Array(formatted('ip-network'), {
      minItems: 1,
      minItemsMessage: 'needs at least one subnet',
      maxItems: MAX_VPC_SUBNETS,
      docType: 'list of IPv4 and IPv6 prefixes',
      description: `The VPC's subnets, at least one and at most ${MAX_VPC_SUBNETS} (VPCs may overlap each other): IPv4 prefixes up to /30, IPv6 ones each exactly a /64. A VPC may be IPv6-only.`,
    }),
    gateway: Type.Optional(
      formatted('ip4', {
        description:
          "The VMs' IPv4 gateway, a host address in one of the IPv4 subnets: required with an IPv4 subnet, refused without one.",
      }),
    ),
    gatewayLinkLocal: Type.Optional(
      formatted('ip6', {
        default: VPC_DEFAULTS.gatewayLinkLocal,
        description:
          "With an IPv6 subnet: the link-local address (fe80::/10) of the VMs' IPv6 gateway, the source of router advertisements; VMs route via it.",
      }),
    ),
    mtu: Type.Optional(
      // At most the largest underlay's (node.underlay.mtu's maximum) minus the encapsulation;
      // the node's own underlay bounds it further (check pass).
      integer(MIN_TENANT_MTU, MAX_UNDERLAY_MTU - SRV6_ENCAP_OVERHEAD, {
        defaultText: `node.underlay.mtu − ${SRV6_ENCAP_OVERHEAD}`,
        description: `The VMs' MTU, ${MIN_TENANT_MTU} up to node.underlay.mtu − ${SRV6_ENCAP_OVERHEAD}: set on their ports in VPP (larger packets towards a VM are fragmented or answered with ICMP) and given to the DHCP server in the service map (option 26).`,
      }),
    ),
  },
  { additionalProperties: false },
);

export type VpcInput = Static<typeof VpcSchema>;
