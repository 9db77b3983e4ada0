/**
 * How this node's underlay peers (the gateway, other hypervisors on the segment) keep a correct
 * neighbour entry for it. VPP's neighbour entries never age by default, so a peer keeps the MAC it
 * first learned; after this node's underlay MAC changes (a VPP restart gives a memif a new one, a
 * replaced NIC has one) the peer sends to the old MAC and this node drops every packet as
 * "l3 mac mismatch". Two things fix it (docs/underlay-neighbours.md has what each does in VPP):
 *
 * - neighbour aging on this VPP, so it re-probes its own peers' entries (and learns theirs anew);
 * - an unsolicited neighbour advertisement of the underlay address once it is programmed, sent
 *   again whenever the VPP process or the uplink's MAC changed: peers replace the MAC at once.
 *
 * An advertisement leaves no trace VPP can report, so what was sent is remembered per VPP process
 * (with the SRv6 globals, persisted by the agent): an agent restart sends nothing, a new VPP
 * process or a new MAC sends again.
 */
import type { AgentConfig } from '../config/model.js';
import { keys } from '../dataplane/keys.js';
import {
  ipNeighborConfigDescriptor,
  neighborAnnouncementDescriptor,
} from '../dataplane/neighbor-descriptors.js';
import type { Srv6View } from './reading.js';
import type { Resource } from '../reconcile/resource.js';

/** The advertisement last sent on a VPP process: of which address, out of which interface, with which MAC. */
export interface UnderlayAnnouncementMemory {
  readonly iface: string;
  readonly address: string;
  readonly mac: string;
}

/**
 * VPP's default limit, far above the neighbours of any underlay segment or hypervisor; kept so
 * that vppnet changes only what it needs to.
 */
export const NEIGHBOR_MAX_NUMBER = 50000;

/**
 * A full table evicts its oldest dynamic entry for a new one rather than refusing it (VPP's
 * default). A VM can fill either table: VPP learns the sender of every ARP request it answers on
 * a VM port and of every solicitation the port's mirror ND proxy sees (arp.c,
 * ip6_nd_mirror_proxy.c), 50,000 addresses in a few seconds. Refused, the next underlay peer, pod
 * or VM would stay unreachable for as long as VPP runs; recycled, it is learned when it answers.
 * The VMs' and pods' own entries are static (overlay.ts, pod-port.ts): never evicted.
 */
export const NEIGHBOR_RECYCLE = true;

export function desiredUnderlayNeighbours(config: AgentConfig): Resource[] {
  const { interface: uplink, address, prefixLength, neighborMaxAgeSeconds } = config.node.underlay;
  // Both families alike: IPv4's dynamic entries are what VMs made VPP learn (every VM and pod has
  // a static one), and aging removes those that no one answers for.
  const neighborConfigs = ([4, 6] as const).map((family) =>
    ipNeighborConfigDescriptor.resource({
      family,
      maxNumber: NEIGHBOR_MAX_NUMBER,
      maxAge: neighborMaxAgeSeconds,
      recycle: NEIGHBOR_RECYCLE,
    }),
  );
  // After the address (the advertisement's source and target) and admin-up (else VPP drops it).
  // Only the desired one waits for them: what VPP has is a memory, which nothing takes along.
  const announcement = neighborAnnouncementDescriptor.resource(
    { iface: uplink, address },
    {
      after: [
        keys.interface(uplink),
        keys.adminUp(uplink),
        keys.address(uplink, `${address}/${prefixLength}`),
      ],
    },
  );
  return [...neighborConfigs, announcement];
}

/**
 * What VPP has: its neighbour settings as it reports them, and the advertisement remembered for
 * this very VPP process, as long as the interface still has the MAC it was sent with.
 */
export function actualUnderlayNeighbours(
  s: Srv6View,
  announced:
    { readonly vppPid: number; readonly underlayAnnouncement?: UnderlayAnnouncementMemory } | undefined,
): Resource[] {
  const out: Resource[] = [];
  for (const c of s.neighborConfigs) out.push(ipNeighborConfigDescriptor.resource(c));
  const a = announced && announced.vppPid === s.vppPid ? announced.underlayAnnouncement : undefined;
  if (a && sameMac(uplinkMac(s, a.iface), a.mac)) {
    out.push(neighborAnnouncementDescriptor.resource({ iface: a.iface, address: a.address }));
  }
  return out;
}

/** The MAC an interface vppnet configures has in the snapshot, if VPP has it. */
export function uplinkMac(s: Srv6View, iface: string): string | undefined {
  return s.interfaceFacts.get(iface)?.details.l2_address;
}

function sameMac(a: string | undefined, b: string): boolean {
  return a !== undefined && a.toLowerCase() === b.toLowerCase();
}

/** Said on every pass by a node whose VPP cannot send the advertisement. */
export const NO_ARPING_WARNING =
  "VPP has no arping plugin: this node's underlay MAC is not advertised, so after it changes peers relearn it only by their neighbour aging (node.underlay.neighborMaxAgeSeconds on theirs)";

/** The desired resources without the advertisement (for a VPP without the arping plugin). */
export function withoutAnnouncements(resources: readonly Resource[]): Resource[] {
  return resources.filter((r) => !neighborAnnouncementDescriptor.is(r));
}

/**
 * After a pass: the advertisement to remember for this VPP process, i.e. the desired one if it is
 * in place (sent now, or before with the same MAC), with the MAC VPP showed; undefined otherwise.
 */
export function announcementInPlace(
  s: Srv6View,
  desired: readonly Resource[],
  notInPlace: (key: string) => boolean,
): UnderlayAnnouncementMemory | undefined {
  const r = desired.find((d) => neighborAnnouncementDescriptor.is(d));
  if (!r || notInPlace(r.key)) return undefined;
  const mac = uplinkMac(s, r.value.iface);
  return mac === undefined ? undefined : { iface: r.value.iface, address: r.value.address, mac };
}
