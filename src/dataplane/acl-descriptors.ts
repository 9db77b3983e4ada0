/**
 * ACLs (acl plugin) and their binding to interfaces. An ACL is named by its tag; its index is VPP's
 * choice and lives in the AclRegistry. VPP refuses to delete an ACL still applied to an interface
 * (ACL_IN_USE_INBOUND/OUTBOUND), so bindings depend on their ACLs.
 */
import { defineKind } from '../reconcile/kind.js';
import { keys } from './keys.js';
import type { Message } from '../vpp/codec/schema.js';
import { msg } from '../vpp/messages/index.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';
import { vppPrefix } from './ip-values.js';
import { formatPrefix } from './snapshot.js';
import type { AclContext } from './context.js';

export type AclAction = 'deny' | 'permit' | 'permit+reflect';

const ACTIONS: Readonly<Record<AclAction, number>> = {
  deny: msg.acl_action_t.values.ACL_ACTION_API_DENY,
  permit: msg.acl_action_t.values.ACL_ACTION_API_PERMIT,
  'permit+reflect': msg.acl_action_t.values.ACL_ACTION_API_PERMIT_REFLECT,
};

/** One rule as VPP stores and dumps it; ports and flags are explicit so dumps compare equal. */
export interface AclRuleValue {
  /** 'deny', 'permit', 'permit+reflect', or "action-N" for an action vppnet never writes. */
  readonly action: string;
  readonly src: string;
  readonly dst: string;
  /** IP protocol; 0 = any. */
  readonly proto: number;
  readonly srcPorts: readonly [number, number];
  readonly dstPorts: readonly [number, number];
  readonly tcpFlagsMask: number;
  readonly tcpFlagsValue: number;
}

export interface AclValue {
  readonly tag: string;
  readonly rules: readonly AclRuleValue[];
  /**
   * Only on a duplicate found in VPP (a second ACL with the same tag): its registry name,
   * "tag#index", so that it can be deleted. Desired ACLs never have one.
   */
  readonly duplicateName?: string;
}

type ApiRule = Message<typeof msg.acl_details>['r'][number];

/** A rule matching any protocol and port between two prefixes. */
export function ipRule(action: AclAction, src: string, dst: string): AclRuleValue {
  return {
    action,
    src,
    dst,
    proto: 0,
    srcPorts: [0, 65535],
    dstPorts: [0, 65535],
    tcpFlagsMask: 0,
    tcpFlagsValue: 0,
  };
}

export function ruleFromApi(r: ApiRule): AclRuleValue {
  const action =
    (Object.keys(ACTIONS) as AclAction[]).find((a) => ACTIONS[a] === r.is_permit) ?? `action-${r.is_permit}`;
  return {
    action,
    src: formatPrefix(r.src_prefix),
    dst: formatPrefix(r.dst_prefix),
    proto: r.proto,
    srcPorts: [r.srcport_or_icmptype_first, r.srcport_or_icmptype_last],
    dstPorts: [r.dstport_or_icmpcode_first, r.dstport_or_icmpcode_last],
    tcpFlagsMask: r.tcp_flags_mask,
    tcpFlagsValue: r.tcp_flags_value,
  };
}

function ruleToApi(r: AclRuleValue): object {
  const action = ACTIONS[r.action as AclAction];
  if (action === undefined) throw new Error(`ACL action ${r.action} is not one vppnet writes`);
  return {
    is_permit: action,
    src_prefix: vppPrefix(r.src),
    dst_prefix: vppPrefix(r.dst),
    proto: r.proto,
    srcport_or_icmptype_first: r.srcPorts[0],
    srcport_or_icmptype_last: r.srcPorts[1],
    dstport_or_icmpcode_first: r.dstPorts[0],
    dstport_or_icmpcode_last: r.dstPorts[1],
    tcp_flags_mask: r.tcpFlagsMask,
    tcp_flags_value: r.tcpFlagsValue,
  };
}

async function addReplace(ctx: AclContext, aclIndex: number, v: AclValue): Promise<number> {
  const reply = await ctx.client.call(msg.acl_add_replace, {
    acl_index: aclIndex,
    tag: v.tag,
    r: v.rules.map(ruleToApi),
  });
  return reply.acl_index;
}

/** ~0: "create a new ACL" in acl_add_replace. */

export const aclDescriptor = defineKind<AclValue, AclContext>({
  kind: 'acl',
  // The acl plugin: checked per operation (a node without services does not need it).
  messages: { optional: [msg.acl_add_replace, msg.acl_del] },
  // A duplicate found in VPP goes by its registry name, so that it has a key of its own.
  key: (v) => keys.acl(v.duplicateName ?? v.tag),
  async create(ctx, { value }) {
    const index = await addReplace(ctx, NO_INDEX, value);
    ctx.acls.set(value.tag, index);
  },
  async delete(ctx, { value }) {
    const name = value.duplicateName ?? value.tag;
    if (!ctx.acls.has(name)) return;
    await ctx.client.call(msg.acl_del, { acl_index: ctx.acls.index(name) });
    ctx.acls.remove(name);
  },
  // Replacing the rules in place keeps the index, so bindings stay as they are.
  async update(ctx, { value }) {
    await addReplace(ctx, ctx.acls.index(value.tag), value);
  },
});

export interface AclBindingValue {
  readonly iface: string;
  /** ACL names (tags), in evaluation order. */
  readonly input: readonly string[];
  readonly output: readonly string[];
}

async function setAclList(
  ctx: AclContext,
  iface: string,
  input: readonly number[],
  output: readonly number[],
): Promise<void> {
  await ctx.client.call(msg.acl_interface_set_acl_list, {
    sw_if_index: ctx.interfaces.index(iface),
    n_input: input.length,
    acls: [...input, ...output],
  });
}

export const aclBindingDescriptor = defineKind<AclBindingValue, AclContext>({
  kind: 'acl-binding',
  messages: { optional: [msg.acl_interface_set_acl_list] },
  key: (v) => keys.aclBinding(v.iface),
  deps: (v) => [keys.interface(v.iface)],
  async create(ctx, { value: v }) {
    const index = (name: string): number => ctx.acls.index(name);
    await setAclList(ctx, v.iface, v.input.map(index), v.output.map(index));
  },
  async delete(ctx, { value: v }) {
    if (!ctx.interfaces.has(v.iface)) return;
    await setAclList(ctx, v.iface, [], []);
  },
  // Setting the list replaces it as a whole.
  async update(ctx, { value: v }) {
    const index = (name: string): number => ctx.acls.index(name);
    await setAclList(ctx, v.iface, v.input.map(index), v.output.map(index));
  },
});
