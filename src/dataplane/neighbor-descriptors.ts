/**
 * Descriptors for how this node's neighbours learn its underlay MAC, and relearn it when it
 * changes (a VPP restart gives a memif a new MAC; a replaced NIC has one): the aging of VPP's own
 * IPv6 neighbour entries, and an unsolicited neighbour advertisement of the underlay address.
 * Facts from VPP 26.06's source in docs/underlay-neighbours.md.
 */
import { defineKind } from '../reconcile/kind.js';
import { keys } from './keys.js';
import { msg } from '../vpp/messages/index.js';
import type { DataplaneContext } from './context.js';
import { addressFamily, vppAddress } from './ip-values.js';

const LINK_UP = msg.if_status_flags_t.values.IF_STATUS_API_FLAG_LINK_UP;

/**
 * One family's neighbour database settings in VPP (ip_neighbor_config): global to the VPP process,
 * every neighbour of that family on every interface. IPv6: the underlay's peers and the VMs' IPv6
 * addresses; IPv4: the VMs' and the service bridge's pods. Both tables also take whatever a VM
 * makes VPP learn (docs/security.md, "A VM cannot fill VPP's neighbour tables for others").
 */
export interface IpNeighborConfigValue {
  readonly family: 4 | 6;
  /** Entries the database may hold; 0: no limit. */
  readonly maxNumber: number;
  /** Seconds after the last confirmation before an entry is probed (and, unanswered, removed); 0: never. */
  readonly maxAge: number;
  /** Whether a full database evicts its oldest dynamic entry for a new one (else the new one is refused). */
  readonly recycle: boolean;
}

/** ip_neighbor_db's initial values in ip_neighbor.c, the same for both families. */
export const VPP_DEFAULT_NEIGHBOR_CONFIG: Omit<IpNeighborConfigValue, 'family'> = {
  maxNumber: 50000,
  maxAge: 0,
  recycle: false,
};

async function setNeighborConfig(ctx: DataplaneContext, v: IpNeighborConfigValue): Promise<void> {
  await ctx.client.call(msg.ip_neighbor_config, {
    af: addressFamily(v.family),
    max_number: v.maxNumber,
    max_age: v.maxAge,
    recycle: v.recycle,
  });
}

export const ipNeighborConfigDescriptor = defineKind<IpNeighborConfigValue, DataplaneContext>({
  kind: 'ip-neighbor-config',
  messages: { required: [msg.ip_neighbor_config] },
  key: (v) => keys.ipNeighborConfig(v.family === 6),
  create: (ctx, { value }) => setNeighborConfig(ctx, value),
  update: (ctx, desired) => setNeighborConfig(ctx, desired.value),
  // Not vppnet's any more: what VPP starts with.
  delete: (ctx, { value }) =>
    setNeighborConfig(ctx, { ...VPP_DEFAULT_NEIGHBOR_CONFIG, family: value.family }),
});

/** One unsolicited neighbour advertisement of `address` out of `iface`, with the interface's MAC. */
export interface NeighborAnnouncementValue {
  readonly iface: string;
  readonly address: string;
}

/**
 * Sends the advertisement (arping plugin, is_garp: for IPv6, ip6_neighbor_advertise: to
 * all-nodes, override flag, the interface's MAC as target link-layer address). Peers that hold a
 * dynamic entry for the address replace its MAC; a static entry they keep.
 *
 * An advertisement sent while the link is down is lost, so then the op fails: the agent's retry
 * sends it once the link is up, and only a sent one is remembered as done.
 */
export const neighborAnnouncementDescriptor = defineKind<NeighborAnnouncementValue, DataplaneContext>({
  kind: 'neighbor-announcement',
  // The arping plugin is optional: without it the pass leaves announcements out (reconcile.ts).
  messages: { optional: [msg.sw_interface_dump, msg.arping] },
  key: (v) => keys.neighborAnnouncement(v.iface, v.address),
  async create(ctx, { value }) {
    const swIfIndex = ctx.interfaces.index(value.iface);
    const [now] = await ctx.client.dump(msg.sw_interface_dump, {
      sw_if_index: swIfIndex,
      name_filter_valid: false,
    });
    if (!now || (now.flags & LINK_UP) === 0) {
      throw new Error(
        `${value.iface}'s link is down: the neighbour advertisement of ${value.address} waits for it`,
      );
    }
    // One packet: with repeat > 1 VPP suspends its API process for `interval` between packets,
    // which would stall every API client. Neighbour aging covers a lost one.
    await ctx.client.call(msg.arping, {
      address: { af: addressFamily(6), un: { ip6: value.address } },
      sw_if_index: swIfIndex,
      is_garp: true,
      repeat: 1,
      interval: 0,
    });
  },
  // An advertisement cannot be taken back; the peers' entries age out once nobody answers.
  async delete() {},
});

/** A static neighbour: a VM's address on its port, with the VM's MAC. */
export interface StaticNeighborValue {
  readonly iface: string;
  readonly address: string;
  readonly mac: string;
}

async function setStaticNeighbor(
  ctx: DataplaneContext,
  v: StaticNeighborValue,
  isAdd: boolean,
): Promise<void> {
  await ctx.client.call(msg.ip_neighbor_add_del, {
    is_add: isAdd,
    neighbor: {
      sw_if_index: ctx.interfaces.index(v.iface),
      flags: msg.ip_neighbor_flags_t.values.IP_API_NEIGHBOR_FLAG_STATIC,
      mac_address: v.mac,
      ip_address: vppAddress(v.address),
    },
  });
}

/**
 * The mirror ND proxy answers for every address it has a route to, the VM's own included, so VPP
 * never learns the VM's MAC by asking (trap 6): each VM's IPv6 address gets a static entry.
 */
export const staticNeighborDescriptor = defineKind<StaticNeighborValue, DataplaneContext>({
  kind: 'static-neighbor',
  messages: { optional: [msg.ip_neighbor_add_del] },
  key: (v) => keys.staticNeighbor(v.iface, v.address),
  deps: (v) => [keys.interface(v.iface)],
  create: (ctx, { value }) => setStaticNeighbor(ctx, value, true),
  // Re-adding an entry for the same address replaces its MAC.
  update: (ctx, desired) => setStaticNeighbor(ctx, desired.value, true),
  async delete(ctx, { value }) {
    if (ctx.interfaces.has(value.iface)) await setStaticNeighbor(ctx, value, false);
  },
});
