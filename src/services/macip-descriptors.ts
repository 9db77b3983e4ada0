/**
 * MACIP ACLs (acl plugin) and their binding to pod ports: the source MAC and IPv4 address, and for
 * ARP the sender's, that a port may use. VPP applies a MACIP ACL with classifier tables on the L2
 * input-ACL feature, which runs before the bridge's learning and ARP termination, so a pod can
 * neither claim another address by gratuitous ARP nor send from another MAC. A MACIP ACL is named
 * by its tag; VPP picks its index (the MacipRegistry). An interface holds at most one; VPP refuses
 * to delete one still bound (MACIP ACL_IN_USE), so bindings depend on their ACLs.
 */
import { defineKind } from '../reconcile/kind.js';
import { keys } from '../dataplane/keys.js';
import { vppPrefix } from '../dataplane/ip-values.js';
import { formatPrefix } from '../dataplane/snapshot.js';
import type { Message } from '../vpp/codec/schema.js';
import { msg } from '../vpp/messages/index.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';
import type { ServicesContext } from './context.js';

/** One permit rule: this MAC (all 48 bits) with sources in this prefix. */
export interface MacipRuleValue {
  readonly mac: string;
  readonly prefix: string;
}

export interface MacipAclValue {
  readonly tag: string;
  readonly rules: readonly MacipRuleValue[];
  /** Only on a duplicate found in VPP (a second MACIP ACL with one tag): "tag#index". */
  readonly duplicateName?: string;
}

const FULL_MASK = 'ff:ff:ff:ff:ff:ff';

type ApiRule = Message<typeof msg.macip_acl_details>['r'][number];

/**
 * The permit rules vppnet wrote, or undefined when VPP holds a rule vppnet never writes (a deny, a
 * partial MAC mask): such an ACL compares unequal and is replaced.
 */
export function macipRulesFromApi(rules: readonly ApiRule[]): MacipRuleValue[] {
  return rules.map((r) =>
    r.is_permit === msg.acl_action_t.values.ACL_ACTION_API_PERMIT &&
    r.src_mac_mask.toLowerCase() === FULL_MASK
      ? { mac: r.src_mac.toLowerCase(), prefix: formatPrefix(r.src_prefix) }
      : { mac: `${r.src_mac}/${r.src_mac_mask} action-${r.is_permit}`, prefix: formatPrefix(r.src_prefix) },
  );
}

async function addReplace(ctx: ServicesContext, index: number, v: MacipAclValue): Promise<number> {
  // VPP builds no classifier table for a MACIP ACL without rules: bound, it would check nothing.
  if (v.rules.length === 0)
    throw new Error(`MACIP ACL ${v.tag} has no rules: it would let any source through`);
  const reply = await ctx.client.call(msg.macip_acl_add_replace, {
    acl_index: index,
    tag: v.tag,
    r: v.rules.map((r) => ({
      is_permit: msg.acl_action_t.values.ACL_ACTION_API_PERMIT,
      src_mac: r.mac,
      src_mac_mask: FULL_MASK,
      src_prefix: vppPrefix(r.prefix),
    })),
  });
  return reply.acl_index;
}

export const macipAclDescriptor = defineKind<MacipAclValue, ServicesContext>({
  kind: 'macip-acl',
  messages: { optional: [msg.macip_acl_add_replace, msg.macip_acl_del] },
  key: (v) => keys.macipAcl(v.duplicateName ?? v.tag),
  async create(ctx, { value }) {
    ctx.macips.set(value.tag, await addReplace(ctx, NO_INDEX, value));
  },
  async delete(ctx, { value }) {
    const name = value.duplicateName ?? value.tag;
    if (!ctx.macips.has(name)) return;
    await ctx.client.call(msg.macip_acl_del, { acl_index: ctx.macips.index(name) });
    ctx.macips.remove(name);
  },
  // In place: the index stays, and so does the binding.
  async update(ctx, { value }) {
    await addReplace(ctx, ctx.macips.index(value.tag), value);
  },
});

export interface MacipBindingValue {
  readonly iface: string;
  /** The MACIP ACL's name (its tag). */
  readonly acl: string;
}

export const macipBindingDescriptor = defineKind<MacipBindingValue, ServicesContext>({
  kind: 'macip-binding',
  messages: { optional: [msg.macip_acl_interface_add_del] },
  key: (v) => keys.macipBinding(v.iface),
  deps: (v) => [keys.interface(v.iface), keys.macipAcl(v.acl)],
  async create(ctx, { value: v }) {
    await ctx.client.call(msg.macip_acl_interface_add_del, {
      is_add: true,
      sw_if_index: ctx.interfaces.index(v.iface),
      acl_index: ctx.macips.index(v.acl),
    });
  },
  async delete(ctx, { value: v }) {
    // Gone with its interface, or with its ACL: VPP unbinds both ways by itself.
    if (!ctx.interfaces.has(v.iface) || !ctx.macips.has(v.acl)) return;
    await ctx.client.call(msg.macip_acl_interface_add_del, {
      is_add: false,
      sw_if_index: ctx.interfaces.index(v.iface),
      acl_index: ctx.macips.index(v.acl),
    });
  },
  // Adding another ACL to an interface replaces the one it had.
  async update(ctx, { value: v }) {
    await ctx.client.call(msg.macip_acl_interface_add_del, {
      is_add: true,
      sw_if_index: ctx.interfaces.index(v.iface),
      acl_index: ctx.macips.index(v.acl),
    });
  },
});
