/**
 * Policer classification: per-interface classifier tables whose sessions name policers
 * (src/vnet/classify/policer_classify.c, classify_api.c, and the node in
 * src/plugins/policer/policer_node.c in VPP 26.06). API state, plus a model of what
 * ip4-policer-classify picks for one packet.
 *
 * policer_classify_set_interface (VALIDATE_SW_IF_INDEX first: -2), then
 * vnet_set_policer_classify_intfc over ip4, ip6, l2 in that order, skipping ~0:
 * - a table index not in the classify pool → NO_SUCH_TABLE (-65), and the types after it are not
 *   looked at (the ones before stay done);
 * - add on a type that already has a table (any table): returns 0 at once, changing nothing, and
 *   the types after it are not looked at either;
 * - delete with a table other than the bound one (none bound included) → NO_SUCH_TABLE;
 * - add: the table is bound and the feature enabled (ip4-policer-classify on ip4-unicast,
 *   ip6-policer-classify on ip6-unicast, L2INPUT_FEAT_POLICER_CLAS in the interface's l2-input
 *   feature bitmap); delete: unbound, disabled. set_int_l2_mode (MODE_L3), an interface leaving
 *   its bridge, resets that bitmap to DROP: the L2 binding stays, without its feature (l2.ts).
 * - all three ~0: 0, nothing happens.
 *
 * policer_classify_dump (type, sw_if_index): the handler returns nothing for a sw_if_index at or
 * beyond the type's vector length (~0 included: there is no "all"); otherwise it walks
 * vec_len(&vec[sw_if_index]) entries from &vec[sw_if_index], reporting each bound one with its
 * offset as sw_if_index. So sw_if_index 0 lists every binding of that type with its real
 * sw_if_index; for 1 or more VPP reads a vec_len from the bytes before that element (the vector
 * header's, or the table index bound to sw_if_index - 2) and walks that many entries from there,
 * with the offsets for sw_if_index: so the dump for sw_if_index s ≥ 2 sends, for the first
 * vec[s - 2] entries from s, (offset, table) — and when sw_if_index s - 2 has no table (~0) VPP
 * walks 4G entries and crashes (VppCrash here; not tried on the real VPP). What lies past the
 * vector's end is taken as unbound (GUESS); sw_if_index 1 walks as far as the vector goes.
 * The vector (vec_validate_init_empty) grows to one past the highest sw_if_index any call with
 * a table in the pool got to, failed deletes included, and never shrinks.
 *
 * Interface deletion: policer_classify registers no interface add/del callback: the binding stays
 * (the dump keeps listing it). vnet_feature_add_del_sw_interface does disable every feature of the
 * deleted interface, so a new interface reusing the sw_if_index inherits the binding without the
 * feature: an add there answers 0 ("already enabled") and enables nothing; packets on it are not
 * classified until the binding is deleted and added again. (Checked on a real VPP 26.06.)
 *
 * Deleting a table that is still bound (classify_add_del_table is_add 0): VPP checks nothing; the
 * binding keeps the freed index (the dump shows it), a delete of the binding then fails with -65
 * (the table is not in the pool), and a later table that reuses the index is silently the bound
 * one. The node would read the freed table (pool_elt_at_index on a free index): undefined, so the
 * verdict throws there.
 *
 * ip4-policer-classify and ip6-policer-classify (policer_classify_inline, one function for both,
 * each with its own type's table and feature: ip4-unicast and ip6-unicast arcs, after the input
 * ACL and uRPF): the classifier's data starts at b->data, the start of the buffer: for a packet
 * received on an Ethernet interface, at the Ethernet header (14 bytes before the IP header; 18
 * with one VLAN tag, 22 with two), not at the IP header. That is why `classify table mask l3 ip4
 * dst` gives skip 1, match 2 and the destination at mask bytes 14..17, and `classify table mask
 * l3 ip6 dst` skip 2, match 2 and the destination at mask bytes 6..21 (frame bytes 38..53; both
 * read back on VPP 26.06). The first table, then its next_table_index chain; the first session
 * found names the policer in its (u16) hit_next_index. No session: the packet is not policed.
 * An IPv4 and an IPv6 table may name the same policer: one bucket, one set of counters.
 *
 * The order on the ip6-unicast arc matters: VPP 26.06 orders nat66-in2out before
 * ip6-policer-classify (neither names the other), and nat66-in2out sends every packet straight to
 * ip6-lookup (nat66_in2out.c: no vnet_feature_next), so on a nat66 inside interface
 * ip6-policer-classify never runs (`show interface features`, and a trace: ip6-rx-urpf-strict →
 * ip6-sv-reassembly-feature → nat66-in2out → ip6-lookup). The verdict models the node, not the
 * arc: what reaches it.
 *
 * l2-policer-classify (L2INPUT_FEAT_POLICER_CLAS, before l2-fwd) runs on frames entering
 * l2-input from a bridge member, and from a BVI: a BVI's output (simulated_ethernet_interface_tx)
 * enters l2-input as received on the BVI, with its features. Its data also starts at b->data; for
 * a packet routed out of the BVI that is where the new Ethernet header is (ip6-rewrite steps back
 * over what ip6-input advanced). It counts what it sees: the frame, Ethernet header included.
 */
import { msg } from '../messages/index.js';
import type { ClassifyTable } from './classify.js';
import { VppCrash, type Dispatcher } from './dispatcher.js';
import { Rv } from './retval.js';
import type { Vpp } from './vpp.js';

const NONE = 0xffffffff;

/** policer_classify_table_id_t */
export const PolicerClassifyType = { IP4: 0, IP6: 1, L2: 2 } as const;
const N_TABLES = 3;

/** A policer index (the session's hit_next_index), or why there is none. */
export type PolicerClassifyVerdict = number | 'no-match' | 'no-classify';

export class PolicerClassify {
  readonly #vpp: Vpp;
  /** pcm->classify_table_index_by_sw_if_index[type] */
  readonly byType: number[][] = [[], [], []];
  /** Whether the type's feature is enabled on the interface (ip4/ip6 arcs, l2 bitmap). */
  readonly #feature: Set<string> = new Set();

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
    // no callback of policer_classify's own; vnet_feature_add_del_sw_interface disables the ip4/ip6
    // features, and the l2 feature bitmap goes with the interface's l2 config
    vpp.interfaces.deleteHooks.push((sw) => {
      for (let ti = 0; ti < N_TABLES; ti++) this.#feature.delete(`${ti}|${sw.swIfIndex}`);
    });
  }

  /** vnet_set_policer_classify_intfc (sw_if_index already validated) */
  set(swIfIndex: number, tables: readonly [number, number, number], isAdd: boolean): number {
    for (let ti = 0; ti < N_TABLES; ti++) {
      const table = tables[ti] as number;
      if (table === NONE) continue;
      if (!this.#vpp.classify.tables.has(table)) return Rv.NO_SUCH_TABLE;
      const vec = this.byType[ti] as number[];
      while (vec.length <= swIfIndex) vec.push(NONE);
      if (!isAdd && table !== vec[swIfIndex]) return Rv.NO_SUCH_TABLE;
      if (isAdd && vec[swIfIndex] !== NONE) return 0;
      const key = `${ti}|${swIfIndex}`;
      if (isAdd) this.#feature.add(key);
      else this.#feature.delete(key);
      vec[swIfIndex] = isAdd ? table : NONE;
    }
    return 0;
  }

  /** set_int_l2_mode (MODE_L3): the l2-input feature bitmap goes, the L2 binding stays. */
  l2ModeL3(swIfIndex: number): void {
    this.#feature.delete(`${PolicerClassifyType.L2}|${swIfIndex}`);
  }

  /** The table bound to an interface for a type, if any. */
  tableOf(type: number, swIfIndex: number): number | undefined {
    const t = this.byType[type]?.[swIfIndex];
    return t === undefined || t === NONE ? undefined : t;
  }

  /**
   * What ip4-policer-classify (type IP4), ip6-policer-classify (IP6) or l2-policer-classify (L2)
   * does with one packet on `swIfIndex`: `data` is the buffer from b->data (the Ethernet header
   * on), `known` which of its bytes are known. L2: a frame entering l2-input from `swIfIndex`,
   * which must be in a bridge for that ('no-classify' otherwise).
   */
  verdict(type: number, swIfIndex: number, data: Uint8Array, known: Uint8Array): PolicerClassifyVerdict {
    const vpp = this.#vpp;
    if (!vpp.interfaces.isValid(swIfIndex))
      throw new Error(`policer-classify verdict: the simulated VPP has no interface ${swIfIndex}`);
    if (type === PolicerClassifyType.L2 && !vpp.l2.portOf(swIfIndex)) return 'no-classify';
    const first = this.tableOf(type, swIfIndex);
    if (first === undefined || !this.#feature.has(`${type}|${swIfIndex}`)) return 'no-classify';
    let index = first;
    for (;;) {
      const t: ClassifyTable | undefined = vpp.classify.tables.get(index);
      if (!t) {
        throw new Error(
          `policer-classify verdict: interface ${swIfIndex}'s chain reaches classify table ${index}, which ` +
            'was deleted (VPP would read freed memory)',
        );
      }
      const e = vpp.classify.findEntry(t, data, known);
      if (e) return e.nextIndex;
      if (t.nextTableIndex === NONE) return 'no-match';
      index = t.nextTableIndex;
    }
  }

  register(d: Dispatcher): void {
    d.on(msg.policer_classify_set_interface, (m, call) => {
      const sw = m.sw_if_index >>> 0;
      if (!this.#vpp.interfaces.isValid(sw)) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      const rv = this.set(
        sw,
        [m.ip4_table_index >>> 0, m.ip6_table_index >>> 0, m.l2_table_index >>> 0],
        m.is_add,
      );
      call.reply({ retval: rv });
    });

    d.on(msg.policer_classify_dump, (m, call) => {
      if (!call.reg) return;
      const vec = this.byType[m.type];
      // a type beyond l2 reads past pcm->classify_table_index_by_sw_if_index (GUESS: nothing)
      if (!vec) return;
      const filter = m.sw_if_index >>> 0;
      if (filter >= vec.length) return;
      for (const [sw, table] of this.#dumpFrom(vec, filter)) {
        call.details(msg.policer_classify_details, { sw_if_index: sw, table_index: table });
      }
    });
  }

  /** The (offset, table) pairs the handler's walk from &vec[filter] sends. */
  #dumpFrom(vec: readonly number[], filter: number): [number, number][] {
    let n = vec.length;
    if (filter === 1) {
      // vec_len reads the vector header's hdr_size/log2_align/grow_elts bytes: tens of thousands,
      // a walk far past the vector (GUESS: what lies there is not bound, so nothing is sent)
      n = vec.length - 1;
    } else if (filter >= 2) {
      const len = vec[filter - 2] as number;
      if (len === NONE)
        throw new VppCrash(`policer_classify_dump from sw_if_index ${filter}: a 4G-entry walk`);
      // GUESS: entries past the vector's end are not bound (heap contents in VPP)
      n = Math.min(len, vec.length - filter);
    }
    const out: [number, number][] = [];
    for (let i = 0; i < n; i++) {
      const t = vec[filter + i] as number;
      if (t !== NONE) out.push([i, t]);
    }
    return out;
  }
}
