/**
 * The L2 FIB's provisioned entries (src/vnet/l2/l2_fib.c, l2_fib.h, l2_api.c in VPP 26.06):
 * `l2fib_add_del`, `l2_fib_table_dump`, and the BVI entry set_int_l2_mode adds and removes
 * (l2_input.c; see l2.ts).
 *
 * The table: one clib_bihash_8_8 keyed by {u16 bd_index, u8 mac[6]} (l2fib_make_key; the key's
 * bytes in memory: bd_index little-endian, then the MAC). An entry holds sw_if_index and flags;
 * l2fib_add_entry overwrites an existing key in place and always sets AGE_NOT ("no aging for
 * provisioned entry"), so nothing the API adds is ever aged out or flushed: l2fib_flush_int_mac /
 * l2fib_flush_bd_mac (an interface leaving its bridge, admin down, bd_delete) only bump sequence
 * numbers, and the scanner (l2fib_scan) skips AGE_NOT entries. What removes an entry: l2fib_add_del
 * with is_add 0, a BVI leaving its bridge (l2fib_del_entry of its current hw address), a loopback
 * BVI's MAC changing (l2input_interface_mac_change: old deleted, new added). So entries outlive
 * the interface they point at and the bridge domain they are in: after bd_delete their key keeps
 * the freed bd_index, the dump shows them with that index's bd_id, ~0 (bd_delete sets it), and
 * with the new bd_id once bd_add_bd_index hands the index to another bridge domain.
 *
 * Dump order (l2fib_table_dump: BV (clib_bihash_foreach_key_value_pair)): buckets in index order,
 * slots in order within a bucket. The bucket is clib_bihash_hash_8_8 & (nbuckets - 1):
 * clib_crc32c over the 8 key bytes (x86-64-v2 and armv8-a+crc builds have the CRC instructions;
 * crc32c with initial value 0 and no final xor, vppinfra/crc32.h), nbuckets the default
 * L2FIB_NUM_BUCKETS, 256 * 1024 (startup.conf `l2fib { num-buckets }` changes it; not modelled).
 * 8_8 keeps BIHASH_KVP_PER_PAGE = 7 slots at the bucket level: an add takes the first free slot,
 * a delete frees its slot. Not modelled: an 8th entry in one bucket (unlikely with 262144), for
 * which VPP splits the bucket into pages by further hash bits; the simulator appends it.
 */
import { readMac } from '../codec/text-format.js';
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import { macBytes } from './ip-addr.js';
import { clibCrc32c } from './crc32c.js';
import { Rv } from './retval.js';
import type { Vpp } from './vpp.js';

/** foreach_l2fib_entry_result_attr (l2_fib.h) */
export const L2FIB_FLAG = {
  STATIC: 1 << 0,
  AGE_NOT: 1 << 1,
  BVI: 1 << 2,
  FILTER: 1 << 3,
} as const;

/** L2FIB_NUM_BUCKETS */
export const L2FIB_NUM_BUCKETS = 256 * 1024;
/** BIHASH_KVP_PER_PAGE for clib_bihash_8_8 */
const KVP_PER_PAGE = 7;

export interface L2FibEntry {
  readonly bdIndex: number;
  readonly mac: Buffer;
  swIfIndex: number;
  flags: number;
}

/** l2fib_make_key's 8 bytes as they lie in memory (little-endian bd_index, then the MAC). */
export function l2fibKey(mac: Uint8Array, bdIndex: number): Buffer {
  const k = Buffer.alloc(8);
  k.writeUInt16LE(bdIndex & 0xffff, 0);
  k.set(mac.subarray(0, 6), 2);
  return k;
}

/** The bihash bucket of an L2 FIB key. */
export function l2fibBucket(mac: Uint8Array, bdIndex: number): number {
  return clibCrc32c(l2fibKey(mac, bdIndex)) & (L2FIB_NUM_BUCKETS - 1);
}

export class L2Fib {
  readonly #vpp: Vpp;
  /** Occupied buckets: their slots (undefined: free). */
  readonly #buckets = new Map<number, (L2FibEntry | undefined)[]>();
  readonly #byKey = new Map<string, L2FibEntry>();

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
  }

  get size(): number {
    return this.#byKey.size;
  }

  get(mac: Uint8Array, bdIndex: number): L2FibEntry | undefined {
    return this.#byKey.get(l2fibKey(mac, bdIndex).toString('hex'));
  }

  /** l2fib_add_entry: overwrites an existing key in place; AGE_NOT always set. */
  add(mac: Uint8Array, bdIndex: number, swIfIndex: number, flags: number): void {
    const keyHex = l2fibKey(mac, bdIndex).toString('hex');
    const old = this.#byKey.get(keyHex);
    if (old) {
      old.swIfIndex = swIfIndex >>> 0;
      old.flags = flags | L2FIB_FLAG.AGE_NOT;
      return;
    }
    const e: L2FibEntry = {
      bdIndex,
      mac: Buffer.from(mac.subarray(0, 6)),
      swIfIndex: swIfIndex >>> 0,
      flags: flags | L2FIB_FLAG.AGE_NOT,
    };
    const b = l2fibBucket(mac, bdIndex);
    const slots = this.#buckets.get(b) ?? [];
    const free = slots.findIndex((s, i) => s === undefined && i < KVP_PER_PAGE);
    if (free >= 0) slots[free] = e;
    else slots.push(e); // not modelled: VPP splits a full bucket into pages
    this.#buckets.set(b, slots);
    this.#byKey.set(keyHex, e);
  }

  /**
   * l2fib_del_entry: false (VPP's 1) when the key is absent, or when `swIfIndex` is not 0 and not
   * the entry's.
   */
  del(mac: Uint8Array, bdIndex: number, swIfIndex: number): boolean {
    const keyHex = l2fibKey(mac, bdIndex).toString('hex');
    const e = this.#byKey.get(keyHex);
    if (!e) return false;
    if (swIfIndex >>> 0 !== 0 && swIfIndex >>> 0 !== e.swIfIndex) return false;
    this.#byKey.delete(keyHex);
    const b = l2fibBucket(mac, bdIndex);
    const slots = this.#buckets.get(b) as (L2FibEntry | undefined)[];
    slots[slots.indexOf(e)] = undefined;
    while (slots.length > KVP_PER_PAGE && slots[slots.length - 1] === undefined) slots.pop();
    if (slots.every((s) => s === undefined)) this.#buckets.delete(b);
    return true;
  }

  /** l2fib_table_dump: every entry (bdIndex ~0) or one bridge domain's, in bihash order. */
  entries(bdIndex = 0xffffffff): L2FibEntry[] {
    const out: L2FibEntry[] = [];
    for (const b of [...this.#buckets.keys()].sort((x, y) => x - y)) {
      for (const e of this.#buckets.get(b) ?? []) {
        if (e && (bdIndex === 0xffffffff || e.bdIndex === bdIndex)) out.push(e);
      }
    }
    return out;
  }

  register(d: Dispatcher): void {
    const l2 = this.#vpp.l2;

    d.on(msg.l2fib_add_del, (m, call) => {
      // vl_api_l2fib_add_del_t_handler
      const bdIndex = l2.bdIndexOf(m.bd_id >>> 0);
      if (bdIndex === undefined) return call.reply({ retval: Rv.NO_SUCH_ENTRY });
      const mac = macBytes(m.mac);
      const sw = m.sw_if_index >>> 0;
      if (m.is_add) {
        if (m.filter_mac) {
          // l2fib_add_filter_entry: no interface (~0), FILTER | STATIC; sw_if_index not looked at
          this.add(mac, bdIndex, 0xffffffff, L2FIB_FLAG.FILTER | L2FIB_FLAG.STATIC);
          return call.reply({ retval: 0 });
        }
        // VALIDATE_SW_IF_INDEX, then the interface must be in bridge mode (any bridge domain:
        // that it is in *this* one is not checked)
        if (!this.#vpp.interfaces.isValid(sw)) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
        if (!l2.portOf(sw)) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
        const flags = (m.static_mac ? L2FIB_FLAG.STATIC : 0) | (m.bvi_mac ? L2FIB_FLAG.BVI : 0);
        this.add(mac, bdIndex, sw, flags);
        return call.reply({ retval: 0 });
      }
      call.reply({ retval: this.del(mac, bdIndex, sw) ? 0 : Rv.NO_SUCH_ENTRY });
    });

    d.on(msg.l2_fib_table_dump, (m, call) => {
      // vl_api_l2_fib_table_dump_t_handler: ~0 any bridge domain; an unknown bd_id dumps nothing
      if (!call.reg) return;
      const bdId = m.bd_id >>> 0;
      let bdIndex = 0xffffffff;
      if (bdId !== 0xffffffff) {
        const i = l2.bdIndexOf(bdId);
        if (i === undefined) return;
        bdIndex = i;
      }
      for (const e of this.entries(bdIndex)) {
        call.details(msg.l2_fib_table_details, {
          bd_id: l2.bdIdAt(e.bdIndex),
          mac: readMac(e.mac, 0),
          sw_if_index: e.swIfIndex,
          static_mac: (e.flags & L2FIB_FLAG.STATIC) !== 0,
          filter_mac: (e.flags & L2FIB_FLAG.FILTER) !== 0,
          bvi_mac: (e.flags & L2FIB_FLAG.BVI) !== 0,
        });
      }
    });
  }
}
