/**
 * NAT44-EI for per-VM identities on the service bridge: the plugin, the output feature on the
 * BVI, one address-only static mapping per VM port and identity mappings for the gateway address
 * (the design of ../shared/vpp-services.md §5, §6, verified with NAT44-ED, and again with NAT44-EI
 * on VPP 26.06: docs/security.md). There is deliberately no NAT address pool: traffic from a
 * source without a mapping is dropped, which keeps remote and unknown sources out.
 *
 * Why EI and not ED: a bound on each VM's NAT sessions. NAT44-ED has none (its per-VRF "session
 * limit" compares the thread's total, nat44_ed_inlines.h nat44_ed_maximum_sessions_exceeded), so
 * one VM sending from random source ports fills the table and every other VM's new DNS query or
 * metadata connection is dropped ("maximum sessions exceeded") until sessions time out; measured on
 * VPP 26.06: another VM got 42 of 120 requests through during a 12-second flood. NAT44-EI keeps
 * sessions per user (inside address and table: one VM) and, at `user_sessions`, reuses that
 * user's own least recently used session (nat44_ei.c nat44_ei_session_alloc_or_recycle): a VM can
 * only push out its own. With `users` = the VM service range's size and `sessions` = users ×
 * user_sessions, the table cannot fill either.
 */
import { defineKind } from '../reconcile/kind.js';
import { keys } from '../dataplane/keys.js';
import { msg } from '../vpp/messages/index.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';
import { ignoreRetval, VppRetvalError } from '../vpp/client/retval-error.js';
import type { ServicesContext } from './context.js';

/** VNET_API_ERROR_BUG */
const API_ERROR_BUG = -168;

/** The mapping translates the address and leaves ports alone. */
export const NAT_EI_ADDR_ONLY = msg.nat44_ei_config_flags_t.values.NAT44_EI_ADDR_ONLY_MAPPING;

export interface NatPluginValue {
  /** Users (VMs) per thread. */
  readonly users: number;
  /** Sessions per thread: users × userSessions. */
  readonly sessions: number;
  /** Sessions per user (VM); beyond that the VM's own oldest is reused. */
  readonly userSessions: number;
}

export const natPluginDescriptor = defineKind<NatPluginValue, ServicesContext>({
  kind: 'nat44-ei',
  messages: { optional: [msg.nat44_ei_plugin_enable_disable, msg.nat44_ei_show_running_config] },
  key: () => keys.natPlugin(),
  // The sizes are fixed when the plugin is enabled: a change replaces it (disable, enable) and the
  // mappings and output feature that depend on it with it; the VMs' NAT sessions start again.
  async create(ctx, { value }) {
    await ctx.client.call(msg.nat44_ei_plugin_enable_disable, {
      enable: true,
      users: value.users,
      sessions: value.sessions,
      user_sessions: value.userSessions,
      inside_vrf: 0,
      outside_vrf: 0,
      user_memory: 0,
      session_memory: 0,
      flags: 0,
    });
  },
  async delete(ctx) {
    try {
      await ctx.client.call(msg.nat44_ei_plugin_enable_disable, { enable: false });
    } catch (err) {
      // VPP 26.06 removes identity mappings on disable as if they were in VRF 0: with vppnet's (in
      // the VPC tables) that fails, and when one is last the reply is VNET_API_ERROR_BUG although
      // everything is cleared and the plugin is off (src/vpp/sim/nat44-ei.ts). Off is what counts.
      if (!(err instanceof VppRetvalError && err.retval === API_ERROR_BUG)) throw err;
      const running = await ctx.client.call(msg.nat44_ei_show_running_config, {}).catch(ignoreRetval);
      if (running !== undefined && running.sessions > 0) throw err;
    }
  },
});

export interface NatOutputInterfaceValue {
  readonly iface: string;
}

async function setOutputInterface(
  ctx: ServicesContext,
  v: NatOutputInterfaceValue,
  isAdd: boolean,
): Promise<void> {
  await ctx.client.call(msg.nat44_ei_add_del_output_interface, {
    is_add: isAdd,
    sw_if_index: ctx.interfaces.index(v.iface),
  });
}

export const natOutputInterfaceDescriptor = defineKind<NatOutputInterfaceValue, ServicesContext>({
  kind: 'nat-ei-output',
  messages: { optional: [msg.nat44_ei_add_del_output_interface] },
  key: (v) => keys.natOutputInterface(v.iface),
  deps: (v) => [keys.natPlugin(), keys.interface(v.iface)],
  create: (ctx, { value }) => setOutputInterface(ctx, value, true),
  async delete(ctx, { value }) {
    if (ctx.interfaces.has(value.iface)) await setOutputInterface(ctx, value, false);
  },
});

/** An address-only static mapping: `local` in table `vrf` is seen as `external` behind the BVI. */
export interface NatStaticMappingValue {
  readonly vrf: number;
  readonly local: string;
  readonly external: string;
  readonly tag: string;
}

async function setStaticMapping(
  ctx: ServicesContext,
  v: NatStaticMappingValue,
  isAdd: boolean,
): Promise<void> {
  await ctx.client.call(msg.nat44_ei_add_del_static_mapping, {
    is_add: isAdd,
    flags: NAT_EI_ADDR_ONLY,
    local_ip_address: v.local,
    external_ip_address: v.external,
    protocol: 0,
    local_port: 0,
    external_port: 0,
    external_sw_if_index: NO_INDEX,
    vrf_id: v.vrf,
    tag: v.tag,
  });
}

export const natStaticMappingDescriptor = defineKind<NatStaticMappingValue, ServicesContext>({
  kind: 'nat-ei-static',
  messages: { optional: [msg.nat44_ei_add_del_static_mapping] },
  key: (v) => keys.natStaticMapping(v.vrf, v.local),
  deps: (v) => [keys.natPlugin(), keys.ipTable(v.vrf)],
  create: (ctx, { value }) => setStaticMapping(ctx, value, true),
  delete: (ctx, { value }) => setStaticMapping(ctx, value, false),
});

/** An address-only identity mapping: `address` in table `vrf` passes NAT untranslated. */
export interface NatIdentityMappingValue {
  readonly vrf: number;
  readonly address: string;
  readonly tag: string;
}

async function setIdentityMapping(
  ctx: ServicesContext,
  v: NatIdentityMappingValue,
  isAdd: boolean,
): Promise<void> {
  // Deprecated in nat44_ei.api but the only way EI has, unchanged (CRC cb8606b9) from 25.06 to
  // 26.06: without it, relayed DHCP (sourced from the gateway address) finds no mapping and no
  // pool on the BVI's output and is dropped.
  await ctx.client.call(msg.nat44_ei_add_del_identity_mapping, {
    is_add: isAdd,
    flags: NAT_EI_ADDR_ONLY,
    ip_address: v.address,
    protocol: 0,
    port: 0,
    sw_if_index: NO_INDEX,
    vrf_id: v.vrf,
    tag: v.tag,
  });
}

export const natIdentityMappingDescriptor = defineKind<NatIdentityMappingValue, ServicesContext>({
  kind: 'nat-ei-identity',
  messages: { optional: [msg.nat44_ei_add_del_identity_mapping] },
  key: (v) => keys.natIdentityMapping(v.vrf, v.address),
  deps: (v) => [keys.natPlugin(), keys.ipTable(v.vrf)],
  create: (ctx, { value }) => setIdentityMapping(ctx, value, true),
  delete: (ctx, { value }) => setIdentityMapping(ctx, value, false),
});
