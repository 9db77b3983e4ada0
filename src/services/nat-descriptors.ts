/**
 * NAT44-ED for per-VM identities on the service bridge (../shared/vpp-services.md §5, §6): the
 * plugin itself, the output feature on the BVI, one address-only static mapping per VM port and
 * identity mappings for the gateway address. There is deliberately no NAT address pool: traffic
 * from a source without a mapping is dropped, which keeps remote and unknown sources out.
 */
import { defineKind } from '../reconcile/kind.js';
import { keys } from '../dataplane/keys.js';
import { msg } from '../vpp/messages/index.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';
import type { ServicesContext } from './context.js';

/** NAT_IS_ADDR_ONLY: the mapping translates the address and leaves ports alone. */
export const NAT_ADDR_ONLY = msg.nat_config_flags_t.values.NAT_IS_ADDR_ONLY;

export interface NatPluginValue {
  /** Session table size per thread, fixed when the plugin is enabled. */
  readonly sessions: number;
}

export const natPluginDescriptor = defineKind<NatPluginValue, ServicesContext>({
  kind: 'nat44-ed',
  key: () => keys.natPlugin(),
  // Enabled is what matters. The session count is only applied when the plugin is enabled, and
  // re-enabling it to change the count would drop every NAT session and mapping on the node.
  equivalent: () => true,
  async create(ctx, { value }) {
    await ctx.client.call(msg.nat44_ed_plugin_enable_disable, {
      enable: true,
      sessions: value.sessions,
      inside_vrf: 0,
      outside_vrf: 0,
      session_memory: 0,
      flags: 0,
    });
  },
  async delete(ctx) {
    await ctx.client.call(msg.nat44_ed_plugin_enable_disable, { enable: false });
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
  await ctx.client.call(msg.nat44_ed_add_del_output_interface, {
    is_add: isAdd,
    sw_if_index: ctx.interfaces.index(v.iface),
  });
}

export const natOutputInterfaceDescriptor = defineKind<NatOutputInterfaceValue, ServicesContext>({
  kind: 'nat-output',
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
  await ctx.client.call(msg.nat44_add_del_static_mapping_v2, {
    is_add: isAdd,
    match_pool: false,
    flags: NAT_ADDR_ONLY,
    pool_ip_address: '0.0.0.0',
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
  kind: 'nat-static',
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
  await ctx.client.call(msg.nat44_add_del_identity_mapping, {
    is_add: isAdd,
    flags: NAT_ADDR_ONLY,
    ip_address: v.address,
    protocol: 0,
    port: 0,
    sw_if_index: NO_INDEX,
    vrf_id: v.vrf,
    tag: v.tag,
  });
}

export const natIdentityMappingDescriptor = defineKind<NatIdentityMappingValue, ServicesContext>({
  kind: 'nat-identity',
  key: (v) => keys.natIdentityMapping(v.vrf, v.address),
  deps: (v) => [keys.natPlugin(), keys.ipTable(v.vrf)],
  create: (ctx, { value }) => setIdentityMapping(ctx, value, true),
  delete: (ctx, { value }) => setIdentityMapping(ctx, value, false),
});
