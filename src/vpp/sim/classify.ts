/**
 * The vnet classifier's tables and sessions (src/vnet/classify/vnet_classify.c, vnet_classify.h
 * and classify_api.c in VPP 26.06), as the API sees them: classify_add_del_table,
 * classify_add_del_session, classify_table_ids, classify_table_info, classify_session_dump. The
 * lookup (vnet_classify_find_entry) is modelled for the nodes that use it (policer-classify.ts).
 *
 * Tables (cm->tables, one pool for every user: the API, the CLI, and in VPP the acl plugin's MACIP
 * tables, which this simulator keeps inside macip-dataplane.ts instead; see below):
 * - classify_add_del_table checks mask_len == match_n_vectors * 16 first, for deletes too
 *   (INVALID_VALUE). Delete: a free table_index → NO_SUCH_TABLE; otherwise the table goes (with
 *   del_chain, first its next_table_index chain, recursively, tolerating free indices: the
 *   deepest table is freed first) and the reply is 0 with ~0 in all three fields. Nothing checks
 *   who still uses the table: interfaces bound to it and tables chaining to it keep its index.
 * - Add (table_index ~0, or a free index: the handler turns that into ~0): memory_size 0 →
 *   INVALID_MEMORY_SIZE; nbuckets 0 → INVALID_VALUE; match_n_vectors outside 1..5 →
 *   INVALID_VALUE; skip_n_vectors is not checked. nbuckets is rounded up to a power of 2
 *   (1 << max_log2). The mask kept is the request's first match_n_vectors * 16 bytes. Reply: the
 *   new index (pool_get: the last freed index first) and the table's skip/match.
 * - "Update" (table_index of an existing table): only next_table_index changes; every other field
 *   of the request is ignored (no checks besides mask_len), the reply has the table's own
 *   skip/match.
 * - classify_table_ids: the pool's indices in increasing order. classify_table_info: the table,
 *   or retval CLASSIFY_TABLE_NOT_FOUND (-91) in a reply whose other fields VPP leaves
 *   uninitialised (vl_msg_api_alloc without memset: a real VPP sends garbage there; zeros here).
 *
 * Sessions (vnet_classify_add_del_session, vnet_classify_add_del):
 * - the handler: a free table → NO_SUCH_TABLE; match_len != (skip + match) * 16 → INVALID_VALUE.
 *   The key is the match after the skipped vectors, ANDed with the mask. hit_next_index is kept
 *   as a u16 (~0 comes back as 65535 in the dump). An existing key is replaced in place (0, the
 *   active count unchanged). A delete of a key that is not there → NO_SUCH_ENTRY.
 * - storage, which the dump order shows: the key's hash (the 64-bit XOR of the masked match
 *   vectors, then CRC-32C with seed 0: x86 with SSE4.2) picks bucket hash & (nbuckets - 1); a
 *   bucket holds 2 << log2_pages entry slots; an entry goes to the first free slot of the 2 at
 *   (hash >> log2_nbuckets) & ((1 << log2_pages) - 1) (an entry index, not a page index: VPP's
 *   pages overlap). A full bucket is split (log2_pages + 1, entries rehashed in slot order; if that
 *   fails + 2; then a linear-search bucket of log2_pages + 1, entries packed from slot 0). A freed
 *   slot is all 0xff; the next add in that bucket may take it.
 * - classify_session_dump: buckets in order, each bucket's slots in order, free ones skipped;
 *   hit_next_index, advance, opaque_index and the key (match_n_vectors * 16 bytes, no skip part).
 *   A table that does not exist: no details. retval in the details is 0.
 * - action SET_IP4/IP6_FIB_INDEX: the session holds a CLASSIFY lock on the FIB table whose id is
 *   `metadata` (created if missing); replacing such a session leaks its old lock, as VPP does.
 *
 * Not modelled: memory_size (a table never runs out of heap here), nbuckets so large that VPP
 * would fail to allocate them, current_data_flag/offset (kept, not used by policer-classify),
 * hit counters.
 *
 * MACIP: VPP's acl plugin creates its MACIP tables (acl.c macip_create_classify_tables via
 * acl_classify_add_del_table_small: 32 buckets, ingress and egress chains) in this same pool, so
 * they take indices the API sees. The simulator's MACIP model (macip-dataplane.ts) keeps its tables
 * to itself and takes no index here: with MACIP ACLs present, this pool's indices and
 * classify_table_ids differ from a real VPP's.
 */
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import { FibSource } from './fib-sources.js';
import { clibCrc32c } from './crc32c.js';
import { Rv } from './retval.js';
import type { Vpp } from './vpp.js';
import { VppPool } from './vpp-pool.js';

const NONE = 0xffffffff;
/** u32x4 */
const VECTOR = 16;
/** t->entries_per_page */
const ENTRIES_PER_PAGE = 2;

/** vnet_classify_action_t */
export const ClassifyAction = {
  NONE: 0,
  SET_IP4_FIB_INDEX: 1,
  SET_IP6_FIB_INDEX: 2,
  SET_METADATA: 3,
} as const;

export interface ClassifyEntry {
  /** match_n_vectors * 16 bytes, masked; all 0xff in a free slot */
  key: Buffer;
  /** u16 */
  nextIndex: number;
  opaqueIndex: number;
  advance: number;
  action: number;
  /** a FIB index for the SET_*_FIB_INDEX actions */
  metadata: number;
  free: boolean;
}

interface Bucket {
  slots: ClassifyEntry[];
  log2Pages: number;
  linear: boolean;
}

export interface ClassifyTable {
  readonly nbuckets: number;
  readonly log2Nbuckets: number;
  readonly skipNVectors: number;
  readonly matchNVectors: number;
  /** match_n_vectors * 16 bytes */
  readonly mask: Buffer;
  nextTableIndex: number;
  readonly missNextIndex: number;
  readonly currentDataFlag: number;
  readonly currentDataOffset: number;
  readonly memorySize: number;
  /** by bucket index; absent: offset 0 (never used) */
  readonly buckets: Map<number, Bucket>;
  activeElements: number;
  linearBuckets: number;
}

/**
 * vnet_classify_hash_packet: `data` starts where the classifier starts (skip vectors included);
 * the u64 words of the masked match vectors XORed, then crc32c of those 8 bytes.
 */
export function classifyHash(t: ClassifyTable, data: Uint8Array): number {
  const x = Buffer.alloc(8);
  const at = t.skipNVectors * VECTOR;
  for (let i = 0; i < t.matchNVectors * VECTOR; i++) {
    const d = data[at + i] ?? 0;
    x[i % 8] = (x[i % 8] as number) ^ (d & (t.mask[i] as number));
  }
  return clibCrc32c(x);
}

/** max_log2: the smallest l with 1 << l >= n. */
function maxLog2(n: number): number {
  let l = 31 - Math.clz32(n);
  if (n > 2 ** l) l++;
  return l;
}

const freeEntry = (len: number): ClassifyEntry => ({
  key: Buffer.alloc(len, 0xff),
  nextIndex: 0xffff,
  opaqueIndex: NONE,
  advance: -1,
  action: 0xff,
  metadata: NONE,
  free: true,
});

export class Classify {
  readonly #vpp: Vpp;
  readonly tables = new VppPool<ClassifyTable>();

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
  }

  /** vnet_classify_add_del_table's add (*table_index == ~0) */
  addTable(a: {
    mask: Buffer;
    nbuckets: number;
    memorySize: number;
    skip: number;
    match: number;
    next: number;
    miss: number;
    currentDataFlag?: number;
    currentDataOffset?: number;
  }): { rv: number; index: number } {
    if (a.memorySize === 0) return { rv: Rv.INVALID_MEMORY_SIZE, index: NONE };
    if (a.nbuckets === 0) return { rv: Rv.INVALID_VALUE, index: NONE };
    if (a.match < 1 || a.match > 5) return { rv: Rv.INVALID_VALUE, index: NONE };
    // nbuckets = 1 << max_log2 (nbuckets): a shift by 32 is a shift by 0 on x86
    const nbuckets = 2 ** (maxLog2(a.nbuckets) & 31);
    const mask = Buffer.alloc(a.match * VECTOR);
    a.mask.copy(mask, 0, 0, Math.min(a.mask.length, mask.length));
    const index = this.tables.add(() => ({
      nbuckets,
      log2Nbuckets: maxLog2(nbuckets),
      skipNVectors: a.skip,
      matchNVectors: a.match,
      mask,
      nextTableIndex: a.next,
      missNextIndex: a.miss,
      currentDataFlag: a.currentDataFlag ?? 0,
      currentDataOffset: a.currentDataOffset ?? 0,
      memorySize: a.memorySize,
      buckets: new Map(),
      activeElements: 0,
      linearBuckets: 0,
    }));
    return { rv: 0, index };
  }

  /** vnet_classify_delete_table_index */
  deleteTable(index: number, delChain: boolean): void {
    const t = this.tables.get(index);
    if (!t) return; // "Tolerate multiple frees, up to a point"
    if (delChain && t.nextTableIndex !== NONE) this.deleteTable(t.nextTableIndex, delChain);
    // the sessions' FIB locks are not released (vec_free of the buckets, the heap destroyed)
    this.tables.remove(index);
  }

  /** vnet_classify_add_del_session, after the handler's checks; 0 or NO_SUCH_TABLE/ENTRY */
  addDelSession(
    tableIndex: number,
    match: Buffer,
    e: { hitNext: number; opaque: number; advance: number; action: number; metadata: number },
    isAdd: boolean,
  ): number {
    const t = this.tables.get(tableIndex);
    if (!t) return Rv.NO_SUCH_TABLE;
    const fib = this.#vpp.fib;
    let metadata = 0;
    const af = this.#fibAf(e.action);
    if (af) {
      // fib_table_find_or_create_and_lock: released again below, the stored entry claims its own
      metadata = fib.findOrCreateAndLock(af, e.metadata, FibSource.CLASSIFY).index;
    } else if (e.action === ClassifyAction.SET_METADATA) {
      metadata = e.metadata;
    }
    const len = t.matchNVectors * VECTOR;
    const key = Buffer.alloc(len);
    const at = t.skipNVectors * VECTOR;
    for (let i = 0; i < len; i++) key[i] = (match[at + i] ?? 0) & (t.mask[i] as number);
    const entry: ClassifyEntry = {
      key,
      nextIndex: e.hitNext & 0xffff,
      opaqueIndex: e.opaque >>> 0,
      advance: e.advance | 0,
      action: e.action,
      metadata,
      free: false,
    };
    const rv = this.#addDel(t, entry, isAdd);
    this.#release(entry); // vnet_classify_entry_release_resource (e)
    return rv === 0 ? 0 : Rv.NO_SUCH_ENTRY;
  }

  /** vnet_classify_entry_claim_resource */
  #claim(e: ClassifyEntry): void {
    const af = this.#fibAf(e.action);
    if (!af) return;
    const t = this.#vpp.fib.byIndex(af, e.metadata);
    if (t) this.#vpp.fib.lock(t, FibSource.CLASSIFY);
  }

  /** vnet_classify_entry_release_resource */
  #release(e: ClassifyEntry): void {
    const af = this.#fibAf(e.action);
    if (!af) return;
    const t = this.#vpp.fib.byIndex(af, e.metadata);
    if (t) this.#vpp.fib.unlock(t, FibSource.CLASSIFY);
  }

  #fibAf(action: number): 4 | 6 | undefined {
    if (action === ClassifyAction.SET_IP4_FIB_INDEX) return 4;
    if (action === ClassifyAction.SET_IP6_FIB_INDEX) return 6;
    return undefined;
  }

  #copy(e: ClassifyEntry): ClassifyEntry {
    return { ...e, key: Buffer.from(e.key), free: false };
  }

  /** vnet_classify_add_del: 0, -1 (delete from an empty bucket) or -3 (key not in its bucket) */
  #addDel(t: ClassifyTable, add: ClassifyEntry, isAdd: boolean): number {
    // the key is already masked and after the skip: hash it as a packet starting skip vectors earlier
    const hash = this.#hashKey(t, add.key);
    const bucketIndex = hash & (t.nbuckets - 1);
    const h = Math.floor(hash / 2 ** t.log2Nbuckets);
    const b = t.buckets.get(bucketIndex);
    const len = t.matchNVectors * VECTOR;
    if (!b) {
      if (!isAdd) return -1;
      const slots = [this.#copy(add), freeEntry(len)];
      this.#claim(slots[0] as ClassifyEntry);
      t.buckets.set(bucketIndex, { slots, log2Pages: 0, linear: false });
      t.activeElements++;
      return 0;
    }
    let valueIndex = h & ((1 << b.log2Pages) - 1);
    let limit = ENTRIES_PER_PAGE;
    if (b.linear) {
      valueIndex = 0;
      limit *= 1 << b.log2Pages;
    }
    if (isAdd) {
      for (let i = 0; i < limit; i++) {
        const v = b.slots[valueIndex + i] as ClassifyEntry;
        if (v.key.equals(add.key)) {
          b.slots[valueIndex + i] = this.#copy(add);
          this.#claim(b.slots[valueIndex + i] as ClassifyEntry);
          return 0;
        }
      }
      for (let i = 0; i < limit; i++) {
        const v = b.slots[valueIndex + i] as ClassifyEntry;
        if (v.free) {
          b.slots[valueIndex + i] = this.#copy(add);
          this.#claim(b.slots[valueIndex + i] as ClassifyEntry);
          t.activeElements++;
          return 0;
        }
      }
    } else {
      for (let i = 0; i < limit; i++) {
        const v = b.slots[valueIndex + i] as ClassifyEntry;
        if (v.key.equals(add.key)) {
          this.#release(v);
          b.slots[valueIndex + i] = freeEntry(len);
          t.activeElements--;
          return 0;
        }
      }
      return -3;
    }

    // no room at the inn: split
    const oldLog2 = b.log2Pages;
    let newLog2 = oldLog2 + 1;
    let linear = false;
    let slots: ClassifyEntry[] | undefined;
    const place = (s: ClassifyEntry[], lin: boolean, log2: number): boolean => {
      let at = h & ((1 << log2) - 1);
      let lim = ENTRIES_PER_PAGE;
      if (lin) {
        lim *= 1 << log2;
        at = 0;
      }
      for (let i = 0; i < lim; i++) {
        if ((s[at + i] as ClassifyEntry).free) {
          s[at + i] = this.#copy(add);
          this.#claim(s[at + i] as ClassifyEntry);
          return true;
        }
      }
      return false;
    };
    if (b.linear) {
      slots = this.#splitLinear(t, b.slots, newLog2);
      linear = true;
      place(slots, true, newLog2);
    } else {
      slots = this.#split(t, b.slots, newLog2);
      let placed = slots !== undefined && place(slots, false, newLog2);
      if (!placed) {
        newLog2++;
        slots = this.#split(t, b.slots, newLog2);
        placed = slots !== undefined && place(slots, false, newLog2);
      }
      if (!placed) {
        newLog2--;
        slots = this.#splitLinear(t, b.slots, newLog2);
        linear = true;
        place(slots, true, newLog2);
      }
      if (linear) t.linearBuckets++;
    }
    t.buckets.set(bucketIndex, { slots: slots as ClassifyEntry[], log2Pages: newLog2, linear });
    t.activeElements++;
    return 0;
  }

  #hashKey(t: ClassifyTable, key: Buffer): number {
    const data = Buffer.alloc((t.skipNVectors + t.matchNVectors) * VECTOR);
    key.copy(data, t.skipNVectors * VECTOR);
    return classifyHash(t, data);
  }

  /** split_and_rehash */
  #split(t: ClassifyTable, old: readonly ClassifyEntry[], newLog2: number): ClassifyEntry[] | undefined {
    const len = t.matchNVectors * VECTOR;
    const out = Array.from({ length: ENTRIES_PER_PAGE << newLog2 }, () => freeEntry(len));
    for (const v of old) {
      if (v.free) continue;
      const at = Math.floor(this.#hashKey(t, v.key) / 2 ** t.log2Nbuckets) & ((1 << newLog2) - 1);
      let done = false;
      for (let j = 0; j < ENTRIES_PER_PAGE && !done; j++) {
        if ((out[at + j] as ClassifyEntry).free) {
          out[at + j] = { ...v };
          done = true;
        }
      }
      if (!done) return undefined;
    }
    return out;
  }

  /** split_and_rehash_linear */
  #splitLinear(t: ClassifyTable, old: readonly ClassifyEntry[], newLog2: number): ClassifyEntry[] {
    const len = t.matchNVectors * VECTOR;
    const out = Array.from({ length: ENTRIES_PER_PAGE << newLog2 }, () => freeEntry(len));
    let j = 0;
    for (const v of old) if (!v.free) out[j++] = { ...v };
    return out;
  }

  /** The entries classify_session_dump sends, in its order. */
  sessions(t: ClassifyTable): ClassifyEntry[] {
    const out: ClassifyEntry[] = [];
    for (const i of [...t.buckets.keys()].sort((x, y) => x - y)) {
      for (const e of (t.buckets.get(i) as Bucket).slots) if (!e.free) out.push(e);
    }
    return out;
  }

  /**
   * vnet_classify_find_entry on one table: `data` from where the classifier starts (the node's
   * h0). Free slots are compared too (their key is all 0xff), as VPP does. `known` says which
   * bytes of `data` the caller knows; a lookup that would depend on unknown bytes throws. One
   * that cannot find anything whatever they are (no slot's key agrees with the known bytes, e.g.
   * an IPv4 frame in a table keyed by ethertype 0x86dd) finds nothing.
   */
  findEntry(t: ClassifyTable, data: Uint8Array, known?: Uint8Array): ClassifyEntry | undefined {
    const at = t.skipNVectors * VECTOR;
    if (known) {
      const unknown: number[] = [];
      for (let i = 0; i < t.mask.length; i++) if (t.mask[i] && !known[at + i]) unknown.push(at + i);
      const agrees = (e: ClassifyEntry): boolean => {
        for (let k = 0; k < t.mask.length; k++)
          if (known[at + k] && ((data[at + k] ?? 0) & (t.mask[k] as number)) !== e.key[k]) return false;
        return true;
      };
      const slots = [...t.buckets.values()].flatMap((b) => b.slots);
      const none = t.buckets.size === 0 || !slots.some(agrees);
      if (unknown.length > 0 && none) return undefined;
      if (unknown.length > 0) {
        throw new Error(
          `classifier: the table's mask covers packet bytes ${unknown.join(',')}, which the model was not given`,
        );
      }
    }
    const hash = classifyHash(t, data);
    const b = t.buckets.get(hash & (t.nbuckets - 1));
    if (!b) return undefined;
    let start = Math.floor(hash / 2 ** t.log2Nbuckets) & ((1 << b.log2Pages) - 1);
    let limit = ENTRIES_PER_PAGE;
    if (b.linear) {
      start = 0;
      limit *= 1 << b.log2Pages;
    }
    for (let i = 0; i < limit; i++) {
      const v = b.slots[start + i] as ClassifyEntry;
      let equal = true;
      for (let k = 0; k < t.mask.length && equal; k++) {
        if (((data[at + k] ?? 0) & (t.mask[k] as number)) !== v.key[k]) equal = false;
      }
      if (equal) return v;
    }
    return undefined;
  }

  register(d: Dispatcher): void {
    d.on(msg.classify_add_del_table, (m, call) => {
      const fail = { new_table_index: NONE, skip_n_vectors: NONE, match_n_vectors: NONE };
      const matchN = m.match_n_vectors >>> 0;
      if (m.mask_len >>> 0 !== (matchN * VECTOR) >>> 0)
        return call.reply({ retval: Rv.INVALID_VALUE, ...fail });
      let index = m.table_index >>> 0;
      if (!m.is_add) {
        if (!this.tables.has(index)) return call.reply({ retval: Rv.NO_SUCH_TABLE, ...fail });
        this.deleteTable(index, m.del_chain);
        return call.reply({ retval: 0, ...fail });
      }
      if (index !== NONE && !this.tables.has(index)) index = NONE;
      if (index === NONE) {
        const r = this.addTable({
          mask: Buffer.from(m.mask),
          nbuckets: m.nbuckets >>> 0,
          memorySize: m.memory_size >>> 0,
          skip: m.skip_n_vectors >>> 0,
          match: matchN,
          next: m.next_table_index >>> 0,
          miss: m.miss_next_index >>> 0,
          currentDataFlag: m.current_data_flag,
          currentDataOffset: m.current_data_offset,
        });
        if (r.rv !== 0) return call.reply({ retval: r.rv, ...fail });
        index = r.index;
      } else {
        (this.tables.get(index) as ClassifyTable).nextTableIndex = m.next_table_index >>> 0;
      }
      const t = this.tables.get(index) as ClassifyTable;
      call.reply({
        retval: 0,
        new_table_index: index,
        skip_n_vectors: t.skipNVectors,
        match_n_vectors: t.matchNVectors,
      });
    });

    d.on(msg.classify_add_del_session, (m, call) => {
      const t = this.tables.get(m.table_index >>> 0);
      let rv: number;
      if (!t) rv = Rv.NO_SUCH_TABLE;
      else if (m.match_len >>> 0 !== (t.skipNVectors + t.matchNVectors) * VECTOR) rv = Rv.INVALID_VALUE;
      else {
        rv = this.addDelSession(
          m.table_index >>> 0,
          Buffer.from(m.match),
          {
            hitNext: m.hit_next_index >>> 0,
            opaque: m.opaque_index >>> 0,
            advance: m.advance,
            action: m.action,
            metadata: m.metadata >>> 0,
          },
          m.is_add,
        );
      }
      call.reply({ retval: rv });
    });

    d.on(msg.classify_table_ids, (_m, call) => {
      if (!call.reg) return;
      const ids = [...this.tables.entries()].map(([i]) => i);
      call.reply({ retval: 0, ids });
    });

    d.on(msg.classify_table_info, (m, call) => {
      if (!call.reg) return;
      const id = m.table_id >>> 0;
      const t = this.tables.get(id);
      if (!t) {
        // the fields besides retval are uninitialised in VPP
        return call.reply({
          retval: Rv.CLASSIFY_TABLE_NOT_FOUND,
          table_id: 0,
          nbuckets: 0,
          match_n_vectors: 0,
          skip_n_vectors: 0,
          active_sessions: 0,
          next_table_index: 0,
          miss_next_index: 0,
          mask: Buffer.alloc(0),
        });
      }
      call.reply({
        retval: 0,
        table_id: id,
        nbuckets: t.nbuckets,
        match_n_vectors: t.matchNVectors,
        skip_n_vectors: t.skipNVectors,
        active_sessions: t.activeElements,
        next_table_index: t.nextTableIndex,
        miss_next_index: t.missNextIndex,
        mask: Buffer.from(t.mask),
      });
    });

    d.on(msg.classify_session_dump, (m, call) => {
      if (!call.reg) return;
      const id = m.table_id >>> 0;
      const t = this.tables.get(id);
      if (!t) return;
      for (const e of this.sessions(t)) {
        call.details(msg.classify_session_details, {
          retval: 0,
          table_id: id,
          hit_next_index: e.nextIndex,
          advance: e.advance,
          opaque_index: e.opaqueIndex,
          match: Buffer.from(e.key),
        });
      }
    });
  }
}
