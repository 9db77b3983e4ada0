/** The `node` section: this hypervisor, its underlay uplink, vhost-user defaults and SRv6. */
import { Type, type Static } from '../typebox.js';
import {
  MAX_IP6_LOCATOR_LEN,
  MAX_UNDERLAY_MTU,
  MIN_UNDERLAY_MTU,
  NODE_DEFAULTS,
  SRV6_DEFAULTS,
  SRV6_ENCAP_OVERHEAD,
  UNDERLAY_NEIGHBOR_DEFAULTS,
} from '../defaults.js';
import { absolutePath, formatted, integer, nodeName, unixId, vppInterface } from './fields.js';

const closed = { additionalProperties: false } as const;

export const UnderlaySchema = Type.Object(
  {
    interface: vppInterface({
      description:
        'An existing VPP interface (a DPDK NIC, memif or af_packet): configured, never created or deleted.',
    }),
    address: formatted('ip6-prefix', {
      description: "This node's underlay address with its prefix length, e.g. 2001:db8::1/64.",
    }),
    gateway: formatted('ip6', {
      description: 'Next hop of the IPv6 default route (table 0), on the underlay subnet.',
    }),
    neighborMaxAgeSeconds: Type.Optional(
      integer(0, 86400, {
        default: UNDERLAY_NEIGHBOR_DEFAULTS.maxAgeSeconds,
        description:
          "Age after which VPP re-probes a neighbour entry it learned and, unanswered three times, removes it: a peer whose MAC changed is relearned at the latest then (vppnet also advertises this node's MAC whenever it changed), and what a VM made VPP learn goes. 0: entries never age, VPP's default. Applies to all of VPP's learned IPv4 and IPv6 neighbours (VMs and pods are static entries).",
      }),
    ),
    mtu: Type.Optional(
      integer(MIN_UNDERLAY_MTU, MAX_UNDERLAY_MTU, {
        default: NODE_DEFAULTS.underlayMtu,
        description: `The IPv6 MTU of the underlay network between hypervisors (every path, not just this NIC). SRv6 adds ${SRV6_ENCAP_OVERHEAD} bytes, so VPCs get this minus ${SRV6_ENCAP_OVERHEAD} unless they set less.`,
      }),
    ),
  },
  { ...closed, description: 'The IPv6 underlay uplink.', requiredMessage: 'is required' },
);

export const VhostUserSchema = Type.Object(
  {
    uid: Type.Optional(
      unixId({
        defaultText: "VPP's (root)",
        description:
          "Owner of each socket, set after VPP creates it and again whenever VPP re-creates it. Numeric: the agent does not see the host's user names (`id -u libvirt-qemu`).",
      }),
    ),
    gid: Type.Optional(
      unixId({
        defaultText: "VPP's (root)",
        description:
          "Group of each socket, e.g. the gid of libvirt's `kvm` group (`getent group kvm`), so a QEMU that does not run as root can connect.",
      }),
    ),
    mode: Type.Optional(
      formatted('octal-mode', {
        default: NODE_DEFAULTS.vhostSocketMode,
        description:
          "Permission bits of each socket, quoted (YAML reads 0660 unquoted as decimal 660). Connecting needs write permission. At most '0660': whoever may connect while the VM's QEMU is away becomes the VM's frontend.",
      }),
    ),
    directory: Type.Optional(
      absolutePath('directory', {
        default: NODE_DEFAULTS.vhostSocketDirectory,
        description:
          "The directory every port's vhost-user socket must lie in (subdirectories allowed). VPP removes whatever is at a socket's path before it binds, so no other file may be named; mount it into VPP and the agent at the same path.",
      }),
    ),
    directoryMode: Type.Optional(
      formatted('octal-mode', {
        default: NODE_DEFAULTS.vhostDirectoryMode,
        description:
          'Permission bits of the socket directories vppnet creates (owned by root, with `gid` as group when set); existing directories are left as they are.',
      }),
    ),
  },
  {
    ...closed,
    description:
      "Defaults for the vhost-user sockets VPP serves to the VMs' QEMU; a port's `attach` may override `uid`, `gid` and `mode`.",
  },
);

export const Srv6Schema = Type.Object(
  {
    locator: formatted('ip6-prefix', {
      description: `This node's SID block, routed to it by the underlay (≤ /112; ≤ /${MAX_IP6_LOCATOR_LEN} when a VPC has an IPv6 subnet, for the End.DT6 SIDs). Must not contain the underlay address.`,
    }),
    encapSource: Type.Optional(
      formatted('ip6', {
        defaultText: 'the underlay address',
        description: 'Outer source of encapsulated packets.',
      }),
    ),
    hopLimit: Type.Optional(
      integer(1, 255, { default: SRV6_DEFAULTS.hopLimit, description: 'Outer hop limit.' }),
    ),
    bsidPrefix: Type.Optional(
      formatted('ip6-prefix', {
        defaultText:
          'locator with 0xff in its last 16 prefix bits, 16 bits longer (fc00:1::/48 → fc00:1:ff::/64)',
        description: "Binding SIDs of vppnet's policies come from here; must not overlap the locator.",
      }),
    ),
    allowedSources: Type.Optional(
      Type.Array(formatted('ip6-network'), {
        minItems: 1,
        minItemsMessage: "must list at least one prefix (['::/0'] accepts every source)",
        docType: 'list of IPv6 prefixes',
        defaultText:
          "file mode: the underlay address's prefix; fleet mode: every node record's underlay prefix, and its encapSource when outside it, aggregated",
        description:
          "The SRv6 ingress filter: IPv6 packets arriving on the underlay interface are accepted only from these sources (the hypervisors' underlay prefixes and encapSource) and link-local ones, whatever their destination (a SID, a BSID, the node's address), and dropped and counted otherwise; multicast (neighbour discovery) always passes. At least one prefix; ['::/0'] turns the filter off.",
      }),
    ),
  },
  { ...closed, description: 'SRv6 settings.', requiredMessage: 'is required' },
);

export const NodeSchema = Type.Object(
  {
    name: nodeName({
      description:
        "The Kubernetes node's name (lowercase RFC 1123: letters, digits, `-` and `.`, up to 253), for logs and status; in fleet mode, the name of its node record.",
    }),
    underlay: UnderlaySchema,
    vhostUser: Type.Optional(VhostUserSchema),
    srv6: Srv6Schema,
  },
  { ...closed, description: 'This hypervisor.', requiredMessage: 'is required' },
);

export type NodeInput = Static<typeof NodeSchema>;
export type VhostUserInput = Static<typeof VhostUserSchema>;
