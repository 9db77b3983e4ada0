/**
 * NAT66 for per-VM identities over IPv6 (docs/dual-stack.md, verified on VPP 26.06): the plugin
 * with its outside table 0, each VPC's services loopback inside (never a VM port: ip6-services.ts
 * says why), the service BVI outside, and a 1:1 static mapping per VM from its address in its
 * VPC's IPv6 services table to its IPv6 service address.
 *
 * nat66 has what NAT44-EI does not, and the rest of the service bridge makes up for it:
 * - no pool and no drop: a source without a mapping passes untranslated (nat66_in2out), so only
 *   the pod ports' output ACL (pod-acls.ts) keeps anything but the VMs' service addresses from the
 *   pods;
 * - no tags: a mapping is vppnet's when its table is vppnet's (the actual side decides);
 * - no interface delete hook: a deleted interface's entry stays (src/vpp/sim/nat66.ts), so the
 *   inside feature is removed before the port (it depends on the interface);
 * - no sessions: translation is stateless, so there is nothing for one VM to fill.
 */
import { defineKind } from '../reconcile/kind.js';
import { keys } from '../dataplane/keys.js';
import { msg } from '../vpp/messages/index.js';
import { VppRetvalError } from '../vpp/client/retval-error.js';
import type { ServicesContext } from './context.js';

/** nat_config_flags NAT_IS_INSIDE: the only flag nat66 reads. */
export const NAT66_INSIDE = msg.nat_config_flags_t.values.NAT_IS_INSIDE;

/** What nat66's fail_if_enabled answers: a plain 1, not an API error code. */
const NAT66_ALREADY_ENABLED = 1;

/** The outside interface (the BVI) must be in IPv6 table 0: nat66 keys external addresses there. */
export const NAT66_OUTSIDE_TABLE = 0;

export const nat66PluginDescriptor = defineKind<Record<string, never>, ServicesContext>({
  kind: 'nat66',
  messages: { optional: [msg.nat66_plugin_enable_disable] },
  key: () => keys.nat66Plugin(),
  async create(ctx) {
    try {
      await ctx.client.call(msg.nat66_plugin_enable_disable, {
        enable: true,
        outside_vrf: NAT66_OUTSIDE_TABLE,
      });
    } catch (err) {
      // Enabled with nothing in it reads back as off (its dumps answer nothing either way): on is
      // what was asked for. The outside table cannot be read; vppnet only ever enables with 0.
      if (!(err instanceof VppRetvalError && err.retval === NAT66_ALREADY_ENABLED)) throw err;
    }
  },
  async delete(ctx) {
    await ctx.client.call(msg.nat66_plugin_enable_disable, { enable: false, outside_vrf: 0 });
  },
});

export interface Nat66InterfaceValue {
  readonly iface: string;
  readonly inside: boolean;
}

async function setInterface(ctx: ServicesContext, v: Nat66InterfaceValue, isAdd: boolean): Promise<void> {
  await ctx.client.call(msg.nat66_add_del_interface, {
    is_add: isAdd,
    flags: v.inside ? NAT66_INSIDE : 0,
    sw_if_index: ctx.interfaces.index(v.iface),
  });
}

export const nat66InterfaceDescriptor = defineKind<Nat66InterfaceValue, ServicesContext>({
  kind: 'nat66-interface',
  messages: { optional: [msg.nat66_add_del_interface] },
  key: (v) => keys.nat66Interface(v.iface),
  deps: (v) => [keys.nat66Plugin(), keys.interface(v.iface)],
  create: (ctx, { value }) => setInterface(ctx, value, true),
  async delete(ctx, { value }) {
    if (ctx.interfaces.has(value.iface)) await setInterface(ctx, value, false);
  },
});

/** `local` in the VPC's IPv6 services table `vrf` is seen as `external` behind the BVI. */
export interface Nat66StaticMappingValue {
  readonly vrf: number;
  readonly local: string;
  readonly external: string;
}

async function setStaticMapping(
  ctx: ServicesContext,
  v: Nat66StaticMappingValue,
  isAdd: boolean,
): Promise<void> {
  await ctx.client.call(msg.nat66_add_del_static_mapping, {
    is_add: isAdd,
    local_ip_address: v.local,
    external_ip_address: v.external,
    vrf_id: v.vrf,
  });
}

export const nat66StaticMappingDescriptor = defineKind<Nat66StaticMappingValue, ServicesContext>({
  kind: 'nat66-static',
  messages: { optional: [msg.nat66_add_del_static_mapping] },
  key: (v) => keys.nat66StaticMapping(v.vrf, v.local),
  // Its table first: nat66 would create a missing one itself and hold it locked.
  deps: (v) => [keys.nat66Plugin(), keys.ipTable(v.vrf, true)],
  create: (ctx, { value }) => setStaticMapping(ctx, value, true),
  delete: (ctx, { value }) => setStaticMapping(ctx, value, false),
});
