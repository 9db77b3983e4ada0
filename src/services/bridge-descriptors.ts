/**
 * The service bridge: an L2 bridge domain and its members (the BVI loopback and the pods' ports).
 * VPP refuses to delete a bridge domain that still has members (BD_IN_USE), so members depend on
 * their bridge domain and the planner removes them first.
 */
import { defineKind } from '../reconcile/kind.js';
import { keys } from '../dataplane/keys.js';
import { msg } from '../vpp/messages/index.js';
import type { ServicesContext } from './context.js';

export interface BridgeDomainValue {
  readonly bd: number;
  readonly flood: boolean;
  readonly uuFlood: boolean;
  readonly forward: boolean;
  readonly learn: boolean;
  readonly arpTerm: boolean;
  readonly arpUfwd: boolean;
  /** Minutes; 0 = MAC entries never age. */
  readonly macAge: number;
  readonly tag: string;
}

export const bridgeDomainDescriptor = defineKind<BridgeDomainValue, ServicesContext>({
  kind: 'bridge-domain',
  // The service bridge's kinds are checked per operation: a node without services does not need them.
  messages: { optional: [msg.bridge_domain_add_del_v2, msg.bridge_flags] },
  key: (v) => keys.bridgeDomain(v.bd),
  async create(ctx, { value: v }) {
    await ctx.client.call(msg.bridge_domain_add_del_v2, {
      bd_id: v.bd,
      flood: v.flood,
      uu_flood: v.uuFlood,
      forward: v.forward,
      learn: v.learn,
      arp_term: v.arpTerm,
      arp_ufwd: v.arpUfwd,
      mac_age: v.macAge,
      bd_tag: v.tag,
      is_add: true,
    });
  },
  async delete(ctx, { value: v }) {
    await ctx.client.call(msg.bridge_domain_add_del_v2, { bd_id: v.bd, is_add: false });
  },
  // The flags in place (bridge_flags): recreating the bridge would first take every pod port out
  // of it. vppnet never changes a bridge's tag or MAC age (both constants).
  async update(ctx, { value: v }, { value: was }) {
    if (v.tag !== was.tag || v.macAge !== was.macAge)
      throw new Error(
        `bridge domain ${v.bd}: tag or MAC age differ from vppnet's (${was.tag}, ${was.macAge}); delete the bridge domain to have it recreated`,
      );
    const set = flagsOf(v, was, true);
    const clear = flagsOf(v, was, false);
    if (set !== 0) await ctx.client.call(msg.bridge_flags, { bd_id: v.bd, is_set: true, flags: set });
    if (clear !== 0) await ctx.client.call(msg.bridge_flags, { bd_id: v.bd, is_set: false, flags: clear });
  },
});

const BD_FLAG = msg.bd_flags_t.values;

/** The bridge_flags bits that are `on` in `want` and not in `have`. */
function flagsOf(want: BridgeDomainValue, have: BridgeDomainValue, on: boolean): number {
  const pairs: [boolean, boolean, number][] = [
    [want.learn, have.learn, BD_FLAG.BRIDGE_API_FLAG_LEARN],
    [want.forward, have.forward, BD_FLAG.BRIDGE_API_FLAG_FWD],
    [want.flood, have.flood, BD_FLAG.BRIDGE_API_FLAG_FLOOD],
    [want.uuFlood, have.uuFlood, BD_FLAG.BRIDGE_API_FLAG_UU_FLOOD],
    [want.arpTerm, have.arpTerm, BD_FLAG.BRIDGE_API_FLAG_ARP_TERM],
    [want.arpUfwd, have.arpUfwd, BD_FLAG.BRIDGE_API_FLAG_ARP_UFWD],
  ];
  return pairs.reduce((bits, [w, h, bit]) => (w === on && h !== on ? bits | bit : bits), 0);
}

export const PORT_TYPE = msg.l2_port_type_t.values;

export interface BridgePortValue {
  readonly iface: string;
  readonly bd: number;
  /** L2_API_PORT_TYPE_*: 1 for the BVI, 0 for an ordinary member. */
  readonly portType: number;
  /** Split-horizon group. */
  readonly shg: number;
}

export const bridgePortDescriptor = defineKind<BridgePortValue, ServicesContext>({
  kind: 'bridge-port',
  messages: { optional: [msg.sw_interface_set_l2_bridge] },
  key: (v) => keys.bridgePort(v.iface),
  deps: (v) => [keys.interface(v.iface), keys.bridgeDomain(v.bd)],
  async create(ctx, { value: v }) {
    await ctx.client.call(msg.sw_interface_set_l2_bridge, {
      rx_sw_if_index: ctx.interfaces.index(v.iface),
      bd_id: v.bd,
      port_type: v.portType,
      shg: v.shg,
      enable: true,
    });
  },
  async delete(ctx, { value: v }) {
    // Deleting an interface takes it out of its bridge domain.
    if (!ctx.interfaces.has(v.iface)) return;
    await ctx.client.call(msg.sw_interface_set_l2_bridge, {
      rx_sw_if_index: ctx.interfaces.index(v.iface),
      bd_id: v.bd,
      port_type: v.portType,
      shg: v.shg,
      enable: false,
    });
  },
});
