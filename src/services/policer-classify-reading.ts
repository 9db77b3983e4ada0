/**
 * Policer classification as VPP holds it: which IPv4 and L2 classifier table each interface is
 * bound to, those tables' shape and sessions, and the policers the sessions name (the services'
 * per-VM rate limits, services/vm-rate-limit.ts, are built from it: the VM ports' IPv4 tables and
 * the service BVI's L2 table for IPv6). Read in three rounds, each pipelined: the bindings of both
 * types, then per bound table its info and sessions, then per policer index its details
 * (policer_details carries no index, so the index a session names is asked for alone).
 *
 * policer_classify_dump has no "every interface": sw_if_index 0 lists every binding of its type
 * with its own sw_if_index, ~0 lists nothing, and any other value makes VPP read outside its
 * vector (src/vpp/sim/policer-classify.ts). So it is only ever sent with 0.
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
  /** IPv4 policer-classify bindings (ip4-policer-classify), one per interface that has one. */
  readonly bindings: readonly PolicerClassifyBinding[];
  /** L2 policer-classify bindings (l2-policer-classify), one per interface that has one. */
  readonly bindingsL2: readonly PolicerClassifyBinding[];
  /** The policers the bound tables' sessions name, by index. */
  readonly policersByIndex: ReadonlyMap<number, PolicerDetails>;
  /** Every policer's name (orphans included: a name bound to nothing). */
  readonly policerNames: readonly string[];
}

/** The tables bound to one interface, per type (undefined: none). */
export interface PolicerClassifyTables {
  readonly ip4: number | undefined;
  readonly l2: number | undefined;
}

export const NO_POLICER_CLASSIFY: PolicerClassifyReading = {
  bindings: [],
  bindingsL2: [],
  policersByIndex: new Map(),
  policerNames: [],
};

const TYPE = msg.policer_classify_table_t.values;

/** Whether this VPP can report policer classification (the policer plugin is loaded). */
export function canReadPolicerClassify(client: VppApi): boolean {
  return (
    client.supports(msg.policer_classify_dump) &&
    client.supports(msg.classify_table_info) &&
    client.supports(msg.classify_session_dump) &&
    client.supports(msg.policer_dump_v2)
  );
}

/** sw_if_index → the tables bound to it, both types: what a pass's ops start from. */
export function policerClassifyTablesByInterface(
  reading: PolicerClassifyReading,
): Map<number, PolicerClassifyTables> {
  const out = new Map<number, PolicerClassifyTables>();
  for (const b of reading.bindings) out.set(b.swIfIndex, { ip4: b.table, l2: undefined });
  for (const b of reading.bindingsL2) out.set(b.swIfIndex, { ip4: out.get(b.swIfIndex)?.ip4, l2: b.table });
  return out;
}

async function readBindings(client: VppApi, type: number): Promise<PolicerClassifyBinding[]> {
  const raw = await client.dump(msg.policer_classify_dump, { type, sw_if_index: 0 });
  return Promise.all(
    raw.map(async (b): Promise<PolicerClassifyBinding> => {
      const [info, sessions] = await Promise.all([
        // A table deleted while bound: VPP answers CLASSIFY_TABLE_NOT_FOUND.
        client.call(msg.classify_table_info, { table_id: b.table_index }).catch(ignoreRetval),
        client.dump(msg.classify_session_dump, { table_id: b.table_index }),
      ]);
      return { swIfIndex: b.sw_if_index, table: b.table_index, info, sessions };
    }),
  );
}

export async function readPolicerClassify(client: VppApi): Promise<PolicerClassifyReading> {
  if (!canReadPolicerClassify(client)) return NO_POLICER_CLASSIFY;
  const [bindings, bindingsL2, all] = await Promise.all([
    readBindings(client, TYPE.POLICER_CLASSIFY_API_TABLE_IP4),
    readBindings(client, TYPE.POLICER_CLASSIFY_API_TABLE_L2),
    client.dump(msg.policer_dump_v2, { policer_index: NO_INDEX }),
  ]);
  const indexes = new Set(
    [...bindings, ...bindingsL2].flatMap((b) => b.sessions.map((s) => s.hit_next_index)),
  );
  const policersByIndex = new Map<number, PolicerDetails>();
  await Promise.all(
    [...indexes].map(async (index) => {
      const [details] = await client.dump(msg.policer_dump_v2, { policer_index: index });
      if (details) policersByIndex.set(index, details);
    }),
  );
  return { bindings, bindingsL2, policersByIndex, policerNames: all.map((p) => p.name) };
}
