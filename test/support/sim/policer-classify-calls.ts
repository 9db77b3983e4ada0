/**
 * Policers, classify tables and policer-classify bindings made and read over the raw test client,
 * for the simulator's policer and classifier tests (src/vpp/sim/policer*.test.ts and
 * classify.test.ts, which also run against a real VPP): one VPP target per test, closed after it.
 */
import { msg } from '../../../src/vpp/messages/index.js';
import type { RawClient } from '../raw-client.js';
import { rawSessions, type Obj } from '../raw-session.js';
import { REAL_VPP_SOCKET } from '../vpp-target.js';

export const NONE = 0xffffffff;

export const SIM_ONLY = REAL_VPP_SOCKET ? 'a model of the dataplane (simulator only)' : false;

/** Registers the file's afterEach (call it at the top level of a test file). */
export function policerClassifySessions() {
  const { start, call, rv, dump, loopback } = rawSessions('policer-classify-test');

  const action = (type: number, dscp = 0): { type: number; dscp: number } => ({ type, dscp });

  const cfg = (o: Record<string, unknown> = {}): never =>
    ({
      cir: 0,
      eir: 0,
      cb: 0n,
      eb: 0n,
      rate_type: 0,
      round_type: 0,
      type: 0,
      color_aware: false,
      conform_action: action(1),
      exceed_action: action(0),
      violate_action: action(0),
      ...o,
    }) as never;

  async function addPolicer(c: RawClient, name: string, infos: never): Promise<Obj> {
    return call(c, msg.policer_add, { name, infos });
  }

  const policers = (c: RawClient, index = NONE): Promise<Obj[]> =>
    dump(c, msg.policer_dump_v2, { policer_index: index });

  /** The mask `classify table mask l3 ip4 dst` builds: skip 1, match 2, the address at 14..17. */
  const DST_MASK = (() => {
    const m = Buffer.alloc(32);
    m.fill(0xff, 14, 18);
    return m;
  })();

  function table(c: RawClient, o: Record<string, unknown> = {}): Promise<Obj> {
    return call(c, msg.classify_add_del_table, {
      is_add: true,
      del_chain: false,
      table_index: NONE,
      nbuckets: 16,
      memory_size: 2 << 20,
      skip_n_vectors: 1,
      match_n_vectors: 2,
      next_table_index: NONE,
      miss_next_index: NONE,
      current_data_flag: 0,
      current_data_offset: 0,
      mask: DST_MASK,
      ...o,
    });
  }

  const delTable = (c: RawClient, index: number, delChain = false): Promise<Obj> =>
    table(c, {
      is_add: false,
      table_index: index,
      del_chain: delChain,
      match_n_vectors: 0,
      mask: Buffer.alloc(0),
    });

  /** A session's 48-byte match (skip + match vectors) for an IPv4 destination, from the Ethernet header. */
  function dstMatch(dst: readonly number[], fill?: number): Buffer {
    const m = Buffer.alloc(48, fill ?? 0);
    m.set(dst, 30);
    return m;
  }

  function session(c: RawClient, o: Record<string, unknown>): Promise<number> {
    return rv(c, msg.classify_add_del_session, {
      is_add: true,
      hit_next_index: 0,
      opaque_index: NONE,
      advance: 0,
      action: 0,
      metadata: 0,
      match: dstMatch([0, 0, 0, 0]),
      ...o,
    });
  }

  const tableIds = async (c: RawClient): Promise<number[]> =>
    (await call(c, msg.classify_table_ids, {})).ids as number[];

  const pcSet = (c: RawClient, sw: number, o: Record<string, unknown>): Promise<number> =>
    rv(c, msg.policer_classify_set_interface, {
      sw_if_index: sw,
      ip4_table_index: NONE,
      ip6_table_index: NONE,
      l2_table_index: NONE,
      is_add: true,
      ...o,
    });

  const pcDump = (c: RawClient, type: number, sw = 0): Promise<Obj[]> =>
    dump(c, msg.policer_classify_dump, { type, sw_if_index: sw });

  const hex = (o: Obj): Obj => ({ ...o, match: (o.match as Buffer).toString('hex') });

  /** The mask `classify table mask l3 ip6 dst` builds: skip 2, match 2, the address at 6..21. */
  const DST6_MASK = (() => {
    const m = Buffer.alloc(32);
    m.fill(0xff, 6, 22);
    return m;
  })();

  /** A session's 64-byte match for an IPv6 destination: frame bytes 38..53. */
  function dst6Match(dst: string): Buffer {
    const m = Buffer.alloc(64);
    const groups = dst.split('::');
    const head = groups[0] ? groups[0].split(':') : [];
    const tail = groups[1] ? groups[1].split(':') : [];
    const words = [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
    words.forEach((w, i) => m.writeUInt16BE(parseInt(w, 16), 38 + 2 * i));
    return m;
  }

  const table6 = (c: RawClient, o: Record<string, unknown> = {}): Promise<Obj> =>
    table(c, { skip_n_vectors: 2, match_n_vectors: 2, mask: DST6_MASK, ...o });
  return {
    start,
    call,
    rv,
    dump,
    loopback,
    action,
    cfg,
    addPolicer,
    policers,
    DST_MASK,
    table,
    delTable,
    dstMatch,
    session,
    tableIds,
    pcSet,
    pcDump,
    hex,
    DST6_MASK,
    dst6Match,
    table6,
  };
}
