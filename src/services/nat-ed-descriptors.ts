/**
 * NAT44-ED as vppnet used it before NAT44-EI (nat-descriptors.ts): the output feature on the BVI,
 * address-only static mappings per VM port and identity mappings for the gateway
 * (../shared/vpp-services.md §5, §6). Read back (actual.ts) only to be removed from a node
 * upgraded from that version, so these kinds delete and never create: nothing desired is of them.
 * The plugin itself is a shared global, no resource at all: it stays enabled and empty, as vppnet
 * cannot tell whether someone else uses it (docs/security.md, CHANGELOG).
 */
import type { MessageDef } from '../vpp/codec/schema.js';
import { defineKind, type Kind } from '../reconcile/kind.js';
import { keys } from '../dataplane/keys.js';
import { msg } from '../vpp/messages/index.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';
import type { ServicesContext } from './context.js';

/** NAT_IS_ADDR_ONLY: the mapping translates the address and leaves ports alone. */
export const NAT_ADDR_ONLY = msg.nat_config_flags_t.values.NAT_IS_ADDR_ONLY;

/** A kind vppnet only removes: asked to make one, it says so (a bug in the desired state). */
function removedOnly<V>(
  kind: string,
  key: (v: V) => string,
  /** The one message `remove` sends. */
  message: MessageDef,
  remove: (ctx: ServicesContext, v: V) => Promise<void>,
): Kind<V, ServicesContext> {
  return defineKind<V, ServicesContext>({
    kind,
    messages: { optional: [message] },
    key,
    create: () => Promise.reject(new Error(`${kind}: NAT44-ED is no longer used; nothing creates one`)),
    delete: (ctx, { value }) => remove(ctx, value),
  });
}

export interface NatEdOutputInterfaceValue {
  readonly iface: string;
}

export const natEdOutputInterfaceDescriptor = removedOnly<NatEdOutputInterfaceValue>(
  'nat-output',
  (v) => keys.natEdOutputInterface(v.iface),
  msg.nat44_ed_add_del_output_interface,
  async (ctx, v) => {
    if (!ctx.interfaces.has(v.iface)) return;
    await ctx.client.call(msg.nat44_ed_add_del_output_interface, {
      is_add: false,
      sw_if_index: ctx.interfaces.index(v.iface),
    });
  },
);

/** An address-only static mapping: `local` in table `vrf` seen as `external` behind the BVI. */
export interface NatEdStaticMappingValue {
  readonly vrf: number;
  readonly local: string;
  readonly external: string;
  readonly tag: string;
}

export const natEdStaticMappingDescriptor = removedOnly<NatEdStaticMappingValue>(
  'nat-static',
  (v) => keys.natEdStaticMapping(v.vrf, v.local),
  msg.nat44_add_del_static_mapping_v2,
  async (ctx, v) => {
    await ctx.client.call(msg.nat44_add_del_static_mapping_v2, {
      is_add: false,
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
  },
);

/** An address-only identity mapping: `address` in table `vrf` passes NAT untranslated. */
export interface NatEdIdentityMappingValue {
  readonly vrf: number;
  readonly address: string;
  readonly tag: string;
}

export const natEdIdentityMappingDescriptor = removedOnly<NatEdIdentityMappingValue>(
  'nat-identity',
  (v) => keys.natEdIdentityMapping(v.vrf, v.address),
  msg.nat44_add_del_identity_mapping,
  async (ctx, v) => {
    await ctx.client.call(msg.nat44_add_del_identity_mapping, {
      is_add: false,
      flags: NAT_ADDR_ONLY,
      ip_address: v.address,
      protocol: 0,
      port: 0,
      sw_if_index: NO_INDEX,
      vrf_id: v.vrf,
      tag: v.tag,
    });
  },
);
