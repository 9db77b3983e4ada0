/** One item of `ports`: a VM's port, and how VPP reaches the VM (`attach`, one of four types). */
import { Type, type Static } from '../typebox.js';
import { MAX_ALLOWED_PREFIXES } from '../defaults.js';
import { absolutePath, formatted, name, unixId, vppInterface } from './fields.js';

const closed = { additionalProperties: false } as const;

export const VhostUserAttachSchema = Type.Object(
  {
    type: Type.Literal('vhost-user'),
    socket: absolutePath('file', {
      description:
        "vhost-user only: VPP's socket for the VM's QEMU (`reconnect` on the QEMU side); its directory is created when missing (node.vhostUser.directoryMode).",
    }),
    uid: Type.Optional(
      unixId({ defaultText: 'node.vhostUser.uid', description: "vhost-user only: the socket's owner." }),
    ),
    gid: Type.Optional(
      unixId({ defaultText: 'node.vhostUser.gid', description: "vhost-user only: the socket's group." }),
    ),
    mode: Type.Optional(
      formatted('octal-mode', {
        defaultText: 'node.vhostUser.mode',
        description: "vhost-user only: the socket's permission bits, at most '0660'.",
      }),
    ),
  },
  closed,
);

const netnsAttach = <T extends 'veth' | 'tap'>(type: T) =>
  Type.Object(
    {
      type: Type.Literal(type),
      netns: Type.String({
        pattern: '^[A-Za-z0-9_.-]{1,64}$',
        docType: 'string',
        errorMessage: 'must name a network namespace',
        description: 'veth and tap: the namespace name (under /run/netns) or path.',
      }),
      ifname: Type.Optional(
        formatted('link-name', {
          default: 'eth0',
          description: 'veth and tap: the interface name inside the namespace.',
        }),
      ),
    },
    closed,
  );

export const VethAttachSchema = netnsAttach('veth');
export const TapAttachSchema = netnsAttach('tap');

export const InterfaceAttachSchema = Type.Object(
  {
    type: Type.Literal('interface'),
    name: vppInterface({ description: 'interface only: the VPP interface name.' }),
  },
  closed,
);

/** By `type`; the check pass picks the variant by it, so a wrong field is named in its variant. */
export const AttachSchema = Type.Union(
  [VhostUserAttachSchema, VethAttachSchema, TapAttachSchema, InterfaceAttachSchema],
  {
    docType: 'mapping',
    requiredMessage: 'is required (type: vhost-user, veth, tap or interface)',
    description:
      'How VPP reaches the VM, by `type`: `vhost-user` (`socket`: absolute path, VPP is the server), `veth` (`netns`, `ifname`: a veth pair into a network namespace, VPP side by af_packet — tests and demos), `tap` (`netns`, `ifname`; needs /dev/vhost-net) or `interface` (`name`: an existing VPP interface).',
  },
);

export const PortSchema = Type.Object(
  {
    name: name({ description: 'Unique port name.' }),
    vpc: name({ description: 'The VPC the VM is in.' }),
    mac: formatted('mac', { description: "The VM's (unicast) MAC." }),
    ip: Type.Optional(
      formatted('ip4', {
        description:
          "The VM's IPv4 address, a host address of an IPv4 subnet of its VPC, not the gateway: required when the VPC has an IPv4 subnet, refused otherwise.",
      }),
    ),
    ip6: Type.Optional(
      formatted('ip6', {
        defaultText: 'the EUI-64 of mac in the first IPv6 subnet, as SLAAC forms it',
        description:
          "With an IPv6 subnet: the VM's IPv6 address, inside one of the VPC's IPv6 subnets (not its ::0), unique in the VPC. The VM must use this address: SLAAC guests with privacy or stable-privacy addresses need it configured statically.",
      }),
    ),
    sourceCheck: Type.Optional(
      Type.Boolean({
        default: true,
        errorMessage: 'must be true or false',
        description:
          "Source validation: VPP drops (and counts) every packet from the VM whose source is not the port's `ip`, `ip6`, the EUI-64 link-local of `mac`, an unspecified address to a broadcast or multicast destination (DHCP, DAD) or inside `allowedPrefixes`. `false` lets the VM send as any address in its VPC's tables, other VMs' included: only for appliances whose tenant accepts that risk.",
      }),
    ),
    allowedPrefixes: Type.Optional(
      Type.Array(formatted('ip-network'), {
        docType: 'list of IPv4 and IPv6 prefixes',
        default: [],
        maxItems: MAX_ALLOWED_PREFIXES,
        description: `Networks behind the VM (NAT instance, VPN gateway, router), at most ${MAX_ALLOWED_PREFIXES}: routed to the port in its VPC's tables on this node and accepted as its sources. Each of a family the VPC has, network form, unique in the VPC, not inside 169.254.0.0/16, fe80::/10, loopback, multicast or the node's underlay, locator or BSID prefix, and not a VPC subnet, the gateway or another port's address (a covering prefix such as 0.0.0.0/0 is allowed: the more specific routes still win). Other nodes reach them through endpoints naming this node.`,
      }),
    ),
    attach: AttachSchema,
  },
  closed,
);

export type PortInput = Static<typeof PortSchema>;
export type AttachInput = Static<typeof AttachSchema>;
