/**
 * NAT44-ED as vppnet used it before NAT44-EI (nat-descriptors.ts): the plugin, the output feature
 * on the BVI, address-only static mappings per VM port and identity mappings for the gateway
 * (../shared/vpp-services.md §5, §6). Kept to read them back and remove them from a node upgraded
 * from that version: nothing desired is made of these kinds any more. The plugin itself is only
 * ever a resource under its exact key, which no desired state has now, so it stays enabled
 * (empty): vppnet cannot tell whether someone else uses it (docs/security.md, CHANGELOG).
 */
import { defineKind } from '../reconcile/kind.js';
import { keys } from '../dataplane/keys.js';
import { msg } from '../vpp/messages/index.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';
import type { ServicesContext } from './context.js';

/** NAT_IS_ADDR_ONLY: the mapping translates the address and leaves ports alone. */
export const NAT_ADDR_ONLY = msg.nat_config_flags_t.values.NAT_IS_ADDR_ONLY;

export interface NatEdPluginValue {
  /** Session table size per thread, fixed when the plugin is enabled. */
  readonly sessions: number;
}

export const natEdPluginDescriptor = defineKind<NatEdPluginValue, ServicesContext>({
  kind: 'nat44-ed',
  key: () => keys.natEdPlugin(),
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

export interface NatEdOutputInterfaceValue {
  readonly iface: string;
}

async function setOutputInterface(
  ctx: ServicesContext,
  v: NatEdOutputInterfaceValue,
  isAdd: boolean,
): Promise<void> {
  await ctx.client.call(msg.nat44_ed_add_del_output_interface, {
    is_add: isAdd,
    sw_if_index: ctx.interfaces.index(v.iface),
  });
}

export const natEdOutputInterfaceDescriptor = defineKind<NatEdOutputInterfaceValue, ServicesContext>({
  kind: 'nat-output',
  key: (v) => keys.natEdOutputInterface(v.iface),
  deps: (v) => [keys.natEdPlugin(), keys.interface(v.iface)],
  create: (ctx, { value }) => setOutputInterface(ctx, value, true),
  async delete(ctx, { value }) {
    if (ctx.interfaces.has(value.iface)) await setOutputInterface(ctx, value, false);
  },
});

/** An address-only static mapping: `local` in table `vrf` is seen as `external` behind the BVI. */
export interface NatEdStaticMappingValue {
  readonly vrf: number;
  readonly local: string;
  readonly external: string;
  readonly tag: string;
}

async function setStaticMapping(
  ctx: ServicesContext,
  v: NatEdStaticMappingValue,
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

export const natEdStaticMappingDescriptor = defineKind<NatEdStaticMappingValue, ServicesContext>({
  kind: 'nat-static',
  key: (v) => keys.natEdStaticMapping(v.vrf, v.local),
  deps: (v) => [keys.natEdPlugin(), keys.ipTable(v.vrf)],
  create: (ctx, { value }) => setStaticMapping(ctx, value, true),
  delete: (ctx, { value }) => setStaticMapping(ctx, value, false),
});

/** An address-only identity mapping: `address` in table `vrf` passes NAT untranslated. */
export interface NatEdIdentityMappingValue {
  readonly vrf: number;
  readonly address: string;
  readonly tag: string;
}

async function setIdentityMapping(
  ctx: ServicesContext,
  v: NatEdIdentityMappingValue,
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

export const natEdIdentityMappingDescriptor = defineKind<NatEdIdentityMappingValue, ServicesContext>({
  kind: 'nat-identity',
  key: (v) => keys.natEdIdentityMapping(v.vrf, v.address),
  deps: (v) => [keys.natEdPlugin(), keys.ipTable(v.vrf)],
  create: (ctx, { value }) => setIdentityMapping(ctx, value, true),
  delete: (ctx, { value }) => setIdentityMapping(ctx, value, false),
});
