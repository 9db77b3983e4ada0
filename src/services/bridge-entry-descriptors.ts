/**
 * What the service bridge knows without learning: a static L2 FIB entry per pod port (its MAC is
 * reached on its port, and nowhere else whatever frames claim it), and the bridge's IP-to-MAC table
 * that ARP termination answers from (each pod's address, and the gateway's). With learning and
 * flooding of unknown unicast off, these entries are the bridge's whole view of who is where.
 */
import { defineKind } from '../reconcile/kind.js';
import { keys } from '../dataplane/keys.js';
import { vppAddress } from '../dataplane/ip-values.js';
import { msg } from '../vpp/messages/index.js';
import type { ServicesContext } from './context.js';

export interface L2FibEntryValue {
  readonly bd: number;
  /** Lower case. */
  readonly mac: string;
  readonly iface: string;
}

export const l2FibEntryDescriptor = defineKind<L2FibEntryValue, ServicesContext>({
  kind: 'l2fib-entry',
  messages: { optional: [msg.l2fib_add_del] },
  key: (v) => keys.l2FibEntry(v.bd, v.mac),
  // VPP takes an entry for any interface, but it only forwards through a member of the bridge.
  deps: (v) => [keys.interface(v.iface), keys.bridgePort(v.iface), keys.bridgeDomain(v.bd)],
  async create(ctx, { value: v }) {
    await ctx.client.call(msg.l2fib_add_del, {
      mac: v.mac,
      bd_id: v.bd,
      sw_if_index: ctx.interfaces.index(v.iface),
      is_add: true,
      static_mac: true,
      filter_mac: false,
      bvi_mac: false,
    });
  },
  async delete(ctx, { value: v }) {
    await ctx.client.call(msg.l2fib_add_del, {
      mac: v.mac,
      bd_id: v.bd,
      sw_if_index: ctx.interfaces.has(v.iface) ? ctx.interfaces.index(v.iface) : 0,
      is_add: false,
    });
  },
});

export interface BdIpMacValue {
  readonly bd: number;
  readonly ip: string;
  /** Lower case. */
  readonly mac: string;
}

export const bdIpMacDescriptor = defineKind<BdIpMacValue, ServicesContext>({
  kind: 'bd-ip-mac',
  messages: { optional: [msg.bd_ip_mac_add_del] },
  key: (v) => keys.bdIpMac(v.bd, v.ip),
  deps: (v) => [keys.bridgeDomain(v.bd)],
  create: (ctx, { value }) => setBdIpMac(ctx, value, true),
  // VPP deletes an entry only when its MAC is the one given.
  delete: (ctx, { value }) => setBdIpMac(ctx, value, false),
});

async function setBdIpMac(ctx: ServicesContext, v: BdIpMacValue, isAdd: boolean): Promise<void> {
  await ctx.client.call(msg.bd_ip_mac_add_del, {
    is_add: isAdd,
    entry: { bd_id: v.bd, ip: vppAddress(v.ip), mac: v.mac },
  });
}
