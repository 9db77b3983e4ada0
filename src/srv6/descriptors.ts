/**
 * Descriptors for VPP's SRv6 objects (facts in ../shared/vpp-srv6.md). None of them carries a
 * tag: vppnet recognises its own by address (SIDs in the node's locator, BSIDs in its block).
 */
import type { DataplaneContext } from '../dataplane/context.js';
import { vppPrefix } from '../dataplane/ip-values.js';
import { defineKind } from '../reconcile/kind.js';
import { keys } from '../dataplane/keys.js';
import { msg } from '../vpp/messages/index.js';

const BEHAVIOR_DT4 = msg.sr_behavior_t.values.SR_BEHAVIOR_API_DT4;
const BEHAVIOR_DT6 = msg.sr_behavior_t.values.SR_BEHAVIOR_API_DT6;
const STEER_IPV4 = msg.sr_steer_t.values.SR_STEER_API_IPV4;
const STEER_IPV6 = msg.sr_steer_t.values.SR_STEER_API_IPV6;
const MAX_SIDS = 16;

export interface EncapSourceValue {
  readonly address: string;
}

/**
 * Encap source and hop limit are copied into a policy when it is created, so a change must be
 * followed by re-creating the policies: every policy depends on both, and its value includes the
 * source it was built with.
 */
export const encapSourceDescriptor = defineKind<EncapSourceValue, DataplaneContext>({
  kind: 'sr-encap-source',
  messages: { required: [msg.sr_set_encap_source] },
  key: () => keys.srEncapSource(),
  async create(ctx, { value }) {
    await ctx.client.call(msg.sr_set_encap_source, { encaps_source: value.address });
  },
  // VPP has no "unset"; leaving the last source in place harms nothing once no policy uses it.
  async delete() {},
  async update(ctx, desired) {
    await ctx.client.call(msg.sr_set_encap_source, { encaps_source: desired.value.address });
  },
});

export interface HopLimitValue {
  readonly hopLimit: number;
}

export const hopLimitDescriptor = defineKind<HopLimitValue, DataplaneContext>({
  kind: 'sr-hop-limit',
  messages: { required: [msg.sr_set_encap_hop_limit] },
  key: () => keys.srHopLimit(),
  async create(ctx, { value }) {
    await ctx.client.call(msg.sr_set_encap_hop_limit, { hop_limit: value.hopLimit });
  },
  async delete() {},
  async update(ctx, desired) {
    await ctx.client.call(msg.sr_set_encap_hop_limit, { hop_limit: desired.value.hopLimit });
  },
});

export interface LocalSidValue {
  readonly sid: string;
  readonly behavior: 'end.dt4' | 'end.dt6';
  /**
   * The table decapsulated packets are looked up in: IPv4 for End.DT4, IPv6 for End.DT6 (sent in
   * sw_if_index, as VPP reads it for both).
   */
  readonly table: number;
  /** IPv6 table the SID is installed in. */
  readonly fibTable: number;
}

async function setLocalSid(ctx: DataplaneContext, v: LocalSidValue, isDel: boolean): Promise<void> {
  await ctx.client.call(msg.sr_localsid_add_del, {
    is_del: isDel,
    localsid: v.sid,
    end_psp: false,
    behavior: v.behavior === 'end.dt6' ? BEHAVIOR_DT6 : BEHAVIOR_DT4,
    sw_if_index: v.table,
    vlan_index: 0,
    fib_table: v.fibTable,
    nh_addr: { af: 1, un: { ip6: '::' } },
  });
}

export const localSidDescriptor = defineKind<LocalSidValue, DataplaneContext>({
  kind: 'sr-localsid',
  messages: { required: [msg.sr_localsid_add_del] },
  key: (v) => keys.srLocalSid(v.sid),
  // The table first, for both behaviours: a SID whose table does not exist is accepted, and then
  // sr_localsids_dump crashes VPP 26.06 (docs/dual-stack.md, trap 1).
  deps: (v) => [keys.ipTable(v.table, v.behavior === 'end.dt6')],
  create: (ctx, { value }) => setLocalSid(ctx, value, false),
  delete: (ctx, { value }) => setLocalSid(ctx, value, true),
});

export interface PolicyValue {
  readonly bsid: string;
  readonly sids: readonly string[];
  /** The encap source VPP copied into the policy's rewrite. */
  readonly encapSource: string;
  readonly fibTable: number;
}

export const policyDescriptor = defineKind<PolicyValue, DataplaneContext>({
  kind: 'sr-policy',
  messages: { required: [msg.sr_policy_add, msg.sr_policy_del] },
  key: (v) => keys.srPolicy(v.bsid),
  deps: () => [keys.srEncapSource(), keys.srHopLimit()],
  async create(ctx, { value }) {
    const sids = [...value.sids, ...Array<string>(MAX_SIDS - value.sids.length).fill('::')];
    // sr_policy_add, not _v2: the v2 messages are still in_progress in 26.06. The segment list's
    // weight is read from sids.weight; the top-level weight is ignored by VPP.
    await ctx.client.call(msg.sr_policy_add, {
      bsid_addr: value.bsid,
      weight: 1,
      is_encap: true,
      is_spray: false,
      fib_table: value.fibTable,
      sids: { num_sids: value.sids.length, weight: 1, sids },
    });
  },
  async delete(ctx, { value }) {
    await ctx.client.call(msg.sr_policy_del, { bsid_addr: value.bsid, sr_policy_index: 0 });
  },
});

export interface SteeringValue {
  readonly table: number;
  readonly prefix: string;
  readonly bsid: string;
}

/** One steering entry's request; the traffic type says the prefix's family (VPP checks they agree). */
async function setSteering(
  ctx: DataplaneContext,
  v: SteeringValue,
  isDel: boolean,
  trafficType: typeof STEER_IPV4 | typeof STEER_IPV6 = STEER_IPV4,
): Promise<void> {
  await ctx.client.call(msg.sr_steering_add_del, {
    is_del: isDel,
    bsid_addr: v.bsid,
    sr_policy_index: 0,
    table_id: v.table,
    prefix: vppPrefix(v.prefix),
    sw_if_index: 0,
    traffic_type: trafficType,
  });
}

/**
 * The same request as a steering entry's create (isDel false) or delete, from the entry's numbers
 * (SteeringEntries' columns): its prefix address as a 32-bit number for IPv4 or as its 16 bytes
 * for IPv6 (the traffic type follows), and its BSID as 16 bytes.
 */
export function setSteeringEntry(
  ctx: DataplaneContext,
  table: number,
  address: number | Uint8Array,
  len: number,
  bsid: Uint8Array,
  isDel: boolean,
): Promise<unknown> {
  const ip4 = typeof address === 'number';
  return ctx.client.call(msg.sr_steering_add_del, {
    is_del: isDel,
    bsid_addr: bsid,
    sr_policy_index: 0,
    table_id: table,
    prefix: { address: ip4 ? { af: 0, un: { ip4: address } } : { af: 1, un: { ip6: address } }, len },
    sw_if_index: 0,
    traffic_type: ip4 ? STEER_IPV4 : STEER_IPV6,
  });
}

/**
 * An IPv4 steering entry: a remote IPv4 prefix in a VPC's table to the policy of the remote node's
 * End.DT4 SID. A bulk kind's members (steering-resources.ts), which depend on the policy and the
 * table.
 */
export const steeringDescriptor = defineKind<SteeringValue, DataplaneContext>({
  kind: 'sr-steering',
  // Also what steering-resources.ts' bulk apply sends (setSteeringEntry).
  messages: { required: [msg.sr_steering_add_del] },
  key: (v) => keys.srSteering(v.table, v.prefix),
  create: (ctx, { value }) => setSteering(ctx, value, false),
  delete: (ctx, { value }) => setSteering(ctx, value, true),
  // Re-adding an existing (prefix, table) re-points it at the new policy without a gap.
  update: (ctx, desired) => setSteering(ctx, desired.value, false),
});

/**
 * An IPv6 steering entry: a remote IPv6 prefix in a VPC's IPv6 table to the policy of the remote
 * node's End.DT6 SID. A bulk kind's members as the IPv4 entries are (steering-resources.ts), which
 * depend on the policy and the IPv6 table: both come first, since steering into a table that
 * does not exist crashes VPP 26.06 at once (docs/dual-stack.md, trap 1).
 */
export const steering6Descriptor = defineKind<SteeringValue, DataplaneContext>({
  kind: 'sr-steering6',
  messages: { required: [msg.sr_steering_add_del] },
  key: (v) => keys.srSteering(v.table, v.prefix, true),
  create: (ctx, { value }) => setSteering(ctx, value, false, STEER_IPV6),
  delete: (ctx, { value }) => setSteering(ctx, value, true, STEER_IPV6),
  // Re-adding an existing (prefix, table) re-points it (retval 0, as for IPv4).
  update: (ctx, desired) => setSteering(ctx, desired.value, false, STEER_IPV6),
});
