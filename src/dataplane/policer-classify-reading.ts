/**
 * Policer classification as VPP holds it: which IPv4 classifier table each interface is bound to,
 * that table's shape and sessions, and the policers the sessions name (the services' per-VM rate
 * limits, services/vm-rate-limit.ts, are built from it). Read in three rounds, each pipelined:
 * the bindings, then per bound table its info and sessions, then per policer index its details
 * (policer_details carries no index, so the index a session names is asked for alone).
 *
 * policer_classify_dump has no "every interface": sw_if_index 0 lists every binding with its
 * own sw_if_index, ~0 lists nothing, and any other value makes VPP read outside its vector
 * (src/vpp/sim/policer-classify.ts). So it is only ever sent with 0.
 */
import type { Message } from '../vpp/codec/schema.js';
import { ignoreRetval } from '../vpp/client/retval-error.js';
import type { VppApi } from '../vpp/client/vpp-api.js';
import { msg } from '../vpp/messages/index.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';

export type ClassifyTableInfo = Message<typeof msg.classify_table_info_reply>;
export type ClassifySession = Message<typeof msg.classify_session_details>;
export type PolicerDetails = Message<typeof msg.policer_details>;

export interface PolicerClassifyBinding {
  readonly swIfIndex: number;
  readonly table: number;
  /** undefined: the bound index is no table (deleted while bound). */
  readonly info: ClassifyTableInfo | undefined;
  readonly sessions: readonly ClassifySession[];
}

export interface PolicerClassifyReading {
  /** IPv4 policer-classify bindings, one per interface that has one. */
  readonly bindings: readonly PolicerClassifyBinding[];
  /** The policers the bound tables' sessions name, by index. */
  readonly policersByIndex: ReadonlyMap<number, PolicerDetails>;
  /** Every policer's name (orphans included: a name bound to nothing). */
  readonly policerNames: readonly string[];
}

export const NO_POLICER_CLASSIFY: PolicerClassifyReading = {
  bindings: [],
  policersByIndex: new Map(),
  policerNames: [],
};

const IP4 = msg.policer_classify_table_t.values.POLICER_CLASSIFY_API_TABLE_IP4;

/** Whether this VPP can report policer classification (the policer plugin is loaded). */
export function canReadPolicerClassify(client: VppApi): boolean {
  return (
    client.supports(msg.policer_classify_dump) &&
    client.supports(msg.classify_table_info) &&
    client.supports(msg.classify_session_dump) &&
    client.supports(msg.policer_dump_v2)
  );
}

export async function readPolicerClassify(client: VppApi): Promise<PolicerClassifyReading> {
  if (!canReadPolicerClassify(client)) return NO_POLICER_CLASSIFY;
  const [raw, all] = await Promise.all([
    client.dump(msg.policer_classify_dump, { type: IP4, sw_if_index: 0 }),
    client.dump(msg.policer_dump_v2, { policer_index: NO_INDEX }),
  ]);
  const bindings = await Promise.all(
    raw.map(async (b): Promise<PolicerClassifyBinding> => {
      const [info, sessions] = await Promise.all([
        // A table deleted while bound: VPP answers CLASSIFY_TABLE_NOT_FOUND.
        client.call(msg.classify_table_info, { table_id: b.table_index }).catch(ignoreRetval),
        client.dump(msg.classify_session_dump, { table_id: b.table_index }),
      ]);
      return { swIfIndex: b.sw_if_index, table: b.table_index, info, sessions };
    }),
  );
  const indexes = new Set(bindings.flatMap((b) => b.sessions.map((s) => s.hit_next_index)));
  const policersByIndex = new Map<number, PolicerDetails>();
  await Promise.all(
    [...indexes].map(async (index) => {
      const [details] = await client.dump(msg.policer_dump_v2, { policer_index: index });
      if (details) policersByIndex.set(index, details);
    }),
  );
  return { bindings, policersByIndex, policerNames: all.map((p) => p.name) };
}
