/**
 * SRv6 steering entries — (VRF table, prefix) → BSID — kept in columns, all of one address family.
 * A node may steer 100k prefixes: as objects each entry cost ~150 bytes with its strings, and as a
 * planner Resource with its key and value twice that again; here an IPv4 entry costs 13 bytes and
 * an IPv6 one 25, BSIDs (a few thousand at most) stored once each. An address is kept as 32-bit
 * words, most significant first: one for IPv4, four for IPv6.
 */
import { formatIp6, writeIp6Literal } from '../net/ip-literal.js';
import { intToIp4, ip4ToInt } from '../net/ip.js';
import { bucketByTable, LITTLE_ENDIAN } from './table-buckets.js';

export class SteeringEntries {
  /** The family of every entry's prefix: 4 (traffic type IPv4) or 6. */
  readonly family: 4 | 6;
  /** Address words per entry: 1 (IPv4) or 4 (IPv6). */
  readonly #words: number;
  #tables: Uint32Array;
  /** Entry i's address in words [i * #words, (i + 1) * #words). */
  #addresses: Uint32Array;
  #lengths: Uint8Array;
  #bsidOf: Uint32Array;
  readonly #bsids: string[] = [];
  readonly #bsidIndex = new Map<string, number>();
  /** Each distinct BSID's 16 bytes, made when first asked for (what a steering request carries). */
  readonly #bsidBytes: (Uint8Array | undefined)[] = [];
  #size = 0;
  /** The BSID index the last entry added got. */
  #lastBsid = 0;
  /** The columns are another instance's too (withBsids): copied before the first add. */
  #shared = false;
  /**
   * sortedOrder() of these columns, once made: shared with withBsids' sets, which share the
   * columns (a config's desired steering is made once and given each pass's BSIDs, so its order is
   * made once too, not once a pass), and groups() likewise; forgotten when an entry is added.
   * Do not modify them.
   */
  #orderCache: { order: Uint32Array | undefined; groups?: SteeringGroups } = { order: undefined };

  constructor(capacity = 64, family: 4 | 6 = 4) {
    this.family = family;
    this.#words = family === 4 ? 1 : 4;
    this.#tables = new Uint32Array(capacity);
    this.#addresses = new Uint32Array(capacity * this.#words);
    this.#lengths = new Uint8Array(capacity);
    this.#bsidOf = new Uint32Array(capacity);
  }

  get size(): number {
    return this.#size;
  }

  /** Adds an entry; `address` and `len` as in "address/len", of this set's family. */
  add(table: number, address: string, len: number, bsid: string): void {
    if (this.family === 4) {
      this.#addNumeric(table, ip4ToInt(address), len, this.#internBsid(bsid));
      return;
    }
    if (!writeIp6Literal(address, scratch, 0))
      throw new Error(`steering entry: ${address} is not an IPv6 address`);
    this.addBytes(table, scratch, len, bsid);
  }

  /**
   * add() with the address as its unsigned 32-bit value (10.0.0.1 → 0x0a000001), as a dump
   * decoded with STEERING_DETAILS_FIELDS gives it: no text between VPP's bytes and the column.
   * In an IPv6 set, the address whose first 96 bits are zero and whose last 32 are this value
   * (::/1 as VPP reports it: 0.0.0.0/1, srv6/reading.ts).
   */
  addNumber(table: number, address: number, len: number, bsid: string): void {
    const bsidIndex = this.#internBsid(bsid);
    if (this.family === 4) this.#addNumeric(table, address >>> 0, len, bsidIndex);
    else this.#addWords(table, 0, 0, 0, address >>> 0, len, bsidIndex);
  }

  /** add() with an IPv6 address as its 16 bytes from `bytes[offset]` (an IPv6 set's only). */
  addBytes(table: number, bytes: Uint8Array, len: number, bsid: string, offset = 0): void {
    if (this.family !== 6) throw new Error('steering entries: 16-byte addresses in an IPv4 set');
    this.#addWords(
      table,
      wordAt(bytes, offset),
      wordAt(bytes, offset + 4),
      wordAt(bytes, offset + 8),
      wordAt(bytes, offset + 12),
      len,
      this.#internBsid(bsid),
    );
  }

  table(i: number): number {
    return this.#tables[i] as number;
  }

  /** The prefix as "10.1.0.0/24" or "2001:db8::5/128", the spelling of VPP's dumps and of keys. */
  prefix(i: number): string {
    const len = this.#lengths[i] as number;
    if (this.family === 4) return `${intToIp4(this.#addresses[i] as number)}/${len}`;
    this.#writeAddress(i, scratch);
    return `${formatIp6(scratch, 0)}/${len}`;
  }

  /**
   * An IPv4 entry's address as an unsigned 32-bit number: prefix(i) without a string. Of an IPv6
   * entry, use addressWord or addressBytes.
   */
  address(i: number): number {
    return this.#addresses[i * this.#words] as number;
  }

  /** Word w (0 most significant) of the entry's address as an unsigned 32-bit number. */
  addressWord(i: number, w: number): number {
    return this.#addresses[i * this.#words + w] as number;
  }

  /** The entry's address as its 4 or 16 bytes, network order, in a new array (an IPv6 request's). */
  addressBytes(i: number): Uint8Array {
    const bytes = new Uint8Array(4 * this.#words);
    this.#writeAddress(i, bytes);
    return bytes;
  }

  prefixLength(i: number): number {
    return this.#lengths[i] as number;
  }

  bsid(i: number): string {
    return this.#bsids[this.#bsidOf[i] as number] as string;
  }

  /** The entry's BSID as its 16 bytes (shared by the entries with that BSID: do not modify). */
  bsidBytes(i: number): Uint8Array {
    const index = this.#bsidOf[i] as number;
    let bytes = this.#bsidBytes[index];
    if (bytes === undefined) {
      bytes = new Uint8Array(16);
      const bsid = this.#bsids[index] as string;
      if (!writeIp6Literal(bsid, bytes, 0))
        throw new Error(`steering entry ${i}: BSID ${bsid} is not an IPv6 address`);
      this.#bsidBytes[index] = bytes;
    }
    return bytes;
  }

  /** The distinct BSIDs, and the index into them of each entry's BSID (entries sharing a BSID share the index). */
  get bsids(): readonly string[] {
    return this.#bsids;
  }

  bsidIndex(i: number): number {
    return this.#bsidOf[i] as number;
  }

  /**
   * The same entries with other BSIDs: entry i points at `bsids[bsidIndex(i)]`. The columns are
   * shared, not copied (either side copies its own before adding to them): the desired steering
   * of a config is made once and given each pass's BSIDs (desired-steering.ts).
   */
  withBsids(bsids: readonly string[]): SteeringEntries {
    if (bsids.length !== this.#bsids.length)
      throw new Error(`steering entries: ${bsids.length} BSIDs for ${this.#bsids.length}`);
    const out = new SteeringEntries(0, this.family);
    out.#tables = this.#tables;
    out.#addresses = this.#addresses;
    out.#lengths = this.#lengths;
    out.#bsidOf = this.#bsidOf;
    out.#size = this.#size;
    out.#shared = this.#shared = true;
    out.#orderCache = this.#orderCache;
    bsids.forEach((bsid, index) => {
      out.#bsids.push(bsid);
      if (!out.#bsidIndex.has(bsid)) out.#bsidIndex.set(bsid, index);
    });
    return out;
  }

  /** The entries whose BSID passes `keep` (asked once per distinct BSID). */
  filterByBsid(keep: (bsid: string) => boolean): SteeringEntries {
    const kept = this.#bsids.map(keep);
    // All kept (a node's steering is all vppnet's): the same columns, shared, not copied.
    if (kept.every(Boolean)) return this.withBsids(this.#bsids);
    const out = new SteeringEntries(Math.max(1, this.#size), this.family);
    const w = this.#words;
    for (let i = 0; i < this.#size; i++) {
      if (!kept[this.#bsidOf[i] as number]) continue;
      const k = out.#size;
      out.#addNumeric(
        this.#tables[i] as number,
        this.#addresses[i * w] as number,
        this.#lengths[i] as number,
        out.#internBsid(this.bsid(i)),
      );
      for (let x = 1; x < w; x++) out.#addresses[k * w + x] = this.#addresses[i * w + x] as number;
    }
    return out;
  }

  /**
   * Entry indexes in key order: table, then address, then length; equal keys in index order.
   * Placed by table first (a counting sort on the table's rank), then each table's entries sorted
   * natively, without a comparator call per comparison: a key word, the length and the index
   * packed in one u64. An IPv4 key is that one word; an IPv6 key is sorted a word at a time from
   * its last (least significant) to its first, each pass keeping the order of the one before for
   * equal words (the word and the entry's position so far packed), and a table's pass skipped when
   * its entries all have the same word (the VPC's /64, most of the time). Sorting per table is
   * fewer comparisons than sorting all at once (a VPC's 100 entries among 100k), and an already
   * sorted side is not sorted at all.
   */
  sortedOrder(): Uint32Array {
    this.#orderCache.order ??= this.#makeSortedOrder();
    return this.#orderCache.order;
  }

  #makeSortedOrder(): Uint32Array {
    const n = this.#size;
    const w = this.#words;
    // The length takes 6 bits for IPv4 (0 to 32), 8 for IPv6 (0 to 128); the index the rest.
    const indexBits = w === 1 ? 26 : 24;
    const indexMask = 2 ** indexBits - 1;
    if (n >= 2 ** indexBits) throw new Error(`steering entries: ${n} is more than can be sorted`);
    const inOrder = this.#orderIfSorted();
    if (inOrder) return inOrder;
    const tables = this.#tables;
    const { count, rank, start } = bucketByTable(
      n,
      (i) => tables[i] as number,
      (ts) => ts.sort((x, y) => x - y),
    );
    // First by table: the last address word | length | index.
    const packed = new BigUint64Array(n);
    const words = new Uint32Array(packed.buffer);
    const [lo, hi] = LITTLE_ENDIAN ? [0, 1] : [1, 0];
    const next = start.slice(0, count);
    for (let i = 0; i < n; i++) {
      const r = rank[i] as number;
      const k = next[r] as number;
      next[r] = k + 1;
      words[2 * k + hi] = this.#addresses[i * w + w - 1] as number;
      words[2 * k + lo] = (((this.#lengths[i] as number) << indexBits) | i) >>> 0;
    }
    for (let r = 0; r < count; r++) {
      const [from, to] = [start[r] as number, start[r + 1] as number];
      if (to - from > 1) packed.subarray(from, to).sort();
    }
    const order = new Uint32Array(n);
    for (let k = 0; k < n; k++) order[k] = ((words[2 * k + lo] as number) & indexMask) >>> 0;
    // Then each word before it, per table: the word | the entry's position in the order so far.
    const word = new Uint32Array(w > 1 ? n : 0);
    const moved = new Uint32Array(w > 1 ? n : 0);
    for (let x = w - 2; x >= 0; x--) {
      for (let k = 0; k < n; k++) word[k] = this.#addresses[(order[k] as number) * w + x] as number;
      for (let r = 0; r < count; r++) {
        const [from, to] = [start[r] as number, start[r + 1] as number];
        if (to - from < 2 || isUniform(word, from, to)) continue;
        for (let k = from; k < to; k++) {
          words[2 * k + hi] = word[k] as number;
          words[2 * k + lo] = k;
        }
        packed.subarray(from, to).sort();
        for (let k = from; k < to; k++) moved[k] = order[words[2 * k + lo] as number] as number;
        order.set(moved.subarray(from, to), from);
      }
    }
    return order;
  }

  /**
   * The distinct (BSID index, table) pairs in order of first use, and each entry's pair: what
   * the planner groups entries by (their dependencies: policy and table). Made once for columns
   * shared by withBsids (the pairs name BSIDs by index), as sortedOrder is. Do not modify it.
   */
  groups(): SteeringGroups {
    this.#orderCache.groups ??= this.#makeGroups();
    return this.#orderCache.groups;
  }

  #makeGroups(): SteeringGroups {
    const n = this.#size;
    const groupOf = new Uint32Array(n);
    const bsidIndexes: number[] = [];
    const tables: number[] = [];
    // (BSID index, table) → group, as one number: exact below 2^53 (BSID indexes below 2^21).
    if (this.#bsids.length >= 2 ** 21)
      throw new Error(`${this.#bsids.length} BSIDs in one set of steering entries`);
    const groupOfPair = new Map<number, number>();
    let [lastBsid, lastTable, lastGroup] = [-1, -1, 0];
    for (let i = 0; i < n; i++) {
      const bsid = this.#bsidOf[i] as number;
      const table = this.#tables[i] as number;
      // Entries come in runs of one VPC (one table, one BSID): one lookup per run.
      if (bsid !== lastBsid || table !== lastTable) {
        const pair = bsid * 0x1_0000_0000 + table;
        let group = groupOfPair.get(pair);
        if (group === undefined) {
          group = bsidIndexes.length;
          bsidIndexes.push(bsid);
          tables.push(table);
          groupOfPair.set(pair, group);
        }
        [lastBsid, lastTable, lastGroup] = [bsid, table, group];
      }
      groupOf[i] = lastGroup;
    }
    return { groupOf, bsidIndexes, tables };
  }

  /**
   * 0, 1, … n-1 when the entries are already in key order with no key twice (a desired side made
   * from a sorted config, a dump in key order): one pass instead of a sort. Undefined otherwise.
   */
  #orderIfSorted(): Uint32Array | undefined {
    const n = this.#size;
    const w = this.#words;
    const [t, a, l] = [this.#tables, this.#addresses, this.#lengths];
    for (let i = 1; i < n; i++) {
      let d = (t[i - 1] as number) - (t[i] as number);
      for (let x = 0; d === 0 && x < w; x++) d = (a[(i - 1) * w + x] as number) - (a[i * w + x] as number);
      if (d === 0) d = (l[i - 1] as number) - (l[i] as number);
      if (d >= 0) return undefined;
    }
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    return order;
  }

  /**
   * For each entry here, the entry of `other` with the same key (table and prefix), or -1: both
   * walked once in key order (sortedOrder's). The first entry here whose key repeats the one
   * before it, if any, is `duplicate` (no counterparts are then complete). One loop over the
   * columns, no call per comparison: 100k entries on both sides of every pass.
   */
  matchKeys(other: SteeringEntries): { counterpart: Int32Array; duplicate: number | undefined } {
    if (other.family !== this.family)
      throw new Error(`steering entries: IPv${this.family} matched with IPv${other.family}`);
    const order = this.sortedOrder();
    const otherOrder = other.sortedOrder();
    const counterpart = new Int32Array(this.#size).fill(-1);
    const w = this.#words;
    if (w === 1) return this.#matchIp4Keys(other, order, otherOrder, counterpart);
    const [t, a, l] = [this.#tables, this.#addresses, this.#lengths];
    const [ot, oa, ol] = [other.#tables, other.#addresses, other.#lengths];
    const m = otherOrder.length;
    let y = 0;
    let previous = -1;
    for (let x = 0; x < order.length; x++) {
      const i = order[x] as number;
      const ti = t[i] as number;
      const li = l[i] as number;
      if (previous >= 0 && t[previous] === ti && l[previous] === li) {
        let same = true;
        for (let k = 0; same && k < w; k++) same = a[previous * w + k] === a[i * w + k];
        if (same) return { counterpart, duplicate: i };
      }
      previous = i;
      // Advance `other` to the first key not below this one.
      for (; y < m; y++) {
        const j = otherOrder[y] as number;
        let d = (ot[j] as number) - ti;
        for (let k = 0; d === 0 && k < w; k++) d = (oa[j * w + k] as number) - (a[i * w + k] as number);
        if (d === 0) d = (ol[j] as number) - li;
        if (d >= 0) {
          if (d === 0) counterpart[i] = j;
          break;
        }
      }
    }
    return { counterpart, duplicate: undefined };
  }

  /**
   * matchKeys of IPv4 sets (one address word): the same walk, each key compared as table, address
   * and length without the loop over words (100k entries on both sides of every pass).
   */
  #matchIp4Keys(
    other: SteeringEntries,
    order: Uint32Array,
    otherOrder: Uint32Array,
    counterpart: Int32Array,
  ): { counterpart: Int32Array; duplicate: number | undefined } {
    const [t, a, l] = [this.#tables, this.#addresses, this.#lengths];
    const [ot, oa, ol] = [other.#tables, other.#addresses, other.#lengths];
    const m = otherOrder.length;
    let y = 0;
    let previous = -1;
    for (let x = 0; x < order.length; x++) {
      const i = order[x] as number;
      const ti = t[i] as number;
      const ai = a[i] as number;
      const li = l[i] as number;
      if (previous >= 0 && t[previous] === ti && a[previous] === ai && l[previous] === li)
        return { counterpart, duplicate: i };
      previous = i;
      // Advance `other` to the first key not below this one.
      for (; y < m; y++) {
        const j = otherOrder[y] as number;
        const d = (ot[j] as number) - ti || (oa[j] as number) - ai || (ol[j] as number) - li;
        if (d >= 0) {
          if (d === 0) counterpart[i] = j;
          break;
        }
      }
    }
    return { counterpart, duplicate: undefined };
  }

  /** Key order between entry i here and entry j of `other`: < 0, 0 (same table and prefix) or > 0. */
  compare(i: number, other: SteeringEntries, j: number): number {
    const w = this.#words;
    let d = (this.#tables[i] as number) - (other.#tables[j] as number);
    for (let x = 0; d === 0 && x < w; x++)
      d = (this.#addresses[i * w + x] as number) - (other.#addresses[j * w + x] as number);
    return d || (this.#lengths[i] as number) - (other.#lengths[j] as number);
  }

  #internBsid(bsid: string): number {
    // Entries come in runs with one BSID (a dump lists a policy's entries together).
    if (bsid === this.#bsids[this.#lastBsid]) return this.#lastBsid;
    let index = this.#bsidIndex.get(bsid);
    if (index === undefined) {
      index = this.#bsids.length;
      this.#bsids.push(bsid);
      this.#bsidIndex.set(bsid, index);
    }
    this.#lastBsid = index;
    return index;
  }

  /** Adds an entry whose address's first word is `address` (an IPv4 entry's only one). */
  #addNumeric(table: number, address: number, len: number, bsidIndex: number): void {
    // Another set's order and groups (shared columns) or this one's, now out of date: a holder
    // of its own.
    const cache = this.#orderCache;
    if (this.#shared || cache.order !== undefined || cache.groups !== undefined)
      this.#orderCache = { order: undefined };
    if (this.#shared || this.#size === this.#tables.length) this.#grow();
    const i = this.#size++;
    this.#tables[i] = table;
    this.#addresses[i * this.#words] = address;
    this.#lengths[i] = len;
    this.#bsidOf[i] = bsidIndex;
  }

  #addWords(table: number, w0: number, w1: number, w2: number, w3: number, len: number, bsid: number): void {
    const i = this.#size;
    this.#addNumeric(table, w0, len, bsid);
    const a = this.#addresses;
    a[4 * i + 1] = w1;
    a[4 * i + 2] = w2;
    a[4 * i + 3] = w3;
  }

  /** Writes the entry's address, network order, at `out[0]`. */
  #writeAddress(i: number, out: Uint8Array): void {
    for (let x = 0; x < this.#words; x++) {
      const word = this.#addresses[i * this.#words + x] as number;
      out[4 * x] = word >>> 24;
      out[4 * x + 1] = (word >>> 16) & 255;
      out[4 * x + 2] = (word >>> 8) & 255;
      out[4 * x + 3] = word & 255;
    }
  }

  #grow(): void {
    const capacity =
      this.#size < this.#tables.length ? this.#tables.length : Math.max(64, this.#tables.length * 2);
    this.#shared = false;
    this.#tables = grownU32(this.#tables, capacity);
    this.#addresses = grownU32(this.#addresses, capacity * this.#words);
    this.#bsidOf = grownU32(this.#bsidOf, capacity);
    const lengths = new Uint8Array(capacity);
    lengths.set(this.#lengths);
    this.#lengths = lengths;
  }
}

/** SteeringEntries.groups(): per group its BSID index and table, and each entry's group. */
export interface SteeringGroups {
  readonly groupOf: Uint32Array;
  readonly bsidIndexes: readonly number[];
  readonly tables: readonly number[];
}

/** An address's bytes between parsing or formatting and the columns (synchronous use only). */
const scratch = new Uint8Array(16);

function wordAt(bytes: Uint8Array, at: number): number {
  return (
    (((bytes[at] as number) << 24) |
      ((bytes[at + 1] as number) << 16) |
      ((bytes[at + 2] as number) << 8) |
      (bytes[at + 3] as number)) >>>
    0
  );
}

/** Whether words[from, to) are all the same. */
function isUniform(words: Uint32Array, from: number, to: number): boolean {
  const first = words[from];
  for (let k = from + 1; k < to; k++) if (words[k] !== first) return false;
  return true;
}

function grownU32(a: Uint32Array, capacity: number): Uint32Array {
  const b = new Uint32Array(capacity);
  b.set(a);
  return b;
}
