/**
 * A VM's policer for the per-VM service rate limit (vm-rate-limit.ts): a 1r2c policer in kbit/s,
 * conform transmitted, exceed dropped, named after the VM's port (tags.vmRatePolicer), added and
 * deleted by that name. Apart from the classifier side (vm-rate-classify.ts) because the policer
 * is the one object its sessions name by an index VPP picks.
 */
import { tags } from '../dataplane/keys.js';
import { VppRetvalError } from '../vpp/client/retval-error.js';
import { msg } from '../vpp/messages/index.js';
import type { ServicesContext } from './context.js';

export const RATE = msg.sse2_qos_rate_type_t.values;
export const POLICER_TYPE = msg.sse2_qos_policer_type_t.values;
export const ACTION = msg.sse2_qos_action_type_t.values;
const ROUND = msg.sse2_qos_round_type_t.values;
/** vnet error VALUE_EXIST: a policer of that name is there already. */
const VALUE_EXIST = -81;

/** What a VM's policer is made of. */
export interface VmPolicerSpec {
  readonly port: string;
  readonly rateKbps: number;
  readonly burstBytes: number;
}

/** policer_add: the new policer's index. */
export async function addPolicer(ctx: ServicesContext, v: VmPolicerSpec): Promise<number> {
  const request = {
    name: tags.vmRatePolicer(v.port),
    infos: {
      cir: v.rateKbps,
      eir: 0,
      cb: BigInt(v.burstBytes),
      eb: 0n,
      rate_type: RATE.SSE2_QOS_RATE_API_KBPS,
      round_type: ROUND.SSE2_QOS_ROUND_API_TO_CLOSEST,
      type: POLICER_TYPE.SSE2_QOS_POLICER_TYPE_API_1R2C,
      color_aware: false,
      conform_action: { type: ACTION.SSE2_QOS_ACTION_API_TRANSMIT, dscp: 0 },
      exceed_action: { type: ACTION.SSE2_QOS_ACTION_API_DROP, dscp: 0 },
      violate_action: { type: ACTION.SSE2_QOS_ACTION_API_DROP, dscp: 0 },
    },
  };
  try {
    return (await ctx.client.call(msg.policer_add, request)).policer_index;
  } catch (err) {
    // One of this name bound to nothing (a crash between its creation and its binding): replaced.
    if (!(err instanceof VppRetvalError && err.retval === VALUE_EXIST)) throw err;
    await deletePolicer(ctx, v.port);
    return (await ctx.client.call(msg.policer_add, request)).policer_index;
  }
}

export async function deletePolicer(ctx: ServicesContext, port: string): Promise<void> {
  // By name: the index may be unknown (a policer bound to nothing) or stale.
  await ctx.client.call(msg.policer_add_del, {
    is_add: false,
    name: tags.vmRatePolicer(port),
    cir: 0,
    eir: 0,
    cb: 0n,
    eb: 0n,
    rate_type: RATE.SSE2_QOS_RATE_API_KBPS,
    round_type: ROUND.SSE2_QOS_ROUND_API_TO_CLOSEST,
    type: POLICER_TYPE.SSE2_QOS_POLICER_TYPE_API_1R2C,
    color_aware: false,
    conform_action: { type: ACTION.SSE2_QOS_ACTION_API_DROP, dscp: 0 },
    exceed_action: { type: ACTION.SSE2_QOS_ACTION_API_DROP, dscp: 0 },
    violate_action: { type: ACTION.SSE2_QOS_ACTION_API_DROP, dscp: 0 },
  });
}
