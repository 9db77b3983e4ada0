/**
 * IPv4 SRv6 steering entries — (VRF table, prefix) → BSID — kept in columns. A node may steer
 * 100k prefixes: as objects each entry cost ~150 bytes with its strings, and as a planner
 * Resource with its key and value twice that again; here it costs 13 bytes, BSIDs (a few
 * thousand at most) stored once each.
 */
import { writeIp6Literal } from '../net/ip-literal.js';
import { intToIp4, ip4ToInt } from '../net/ip.js';

export class SteeringEntries {
  #tables: Uint32Array;
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

  constructor(capacity = 64) {
    this.#tables = new Uint32Array(capacity);
    this.#addresses = new Uint32Array(capacity);
    this.#lengths = new Uint8Array(capacity);
    this.#bsidOf = new Uint32Array(capacity);
  }

  get size(): number {
    return this.#size;
  }

  /** Adds an entry; `address` and `len` as in "address/len". */
  add(table: number, address: string, len: number, bsid: string): void {
    this.#addNumeric(table, ip4ToInt(address), len, this.#internBsid(bsid));
  }

  /**
   * add() with the address as its unsigned 32-bit value (10.0.0.1 → 0x0a000001), as a dump
   * decoded with STEERING_DETAILS_FIELDS gives it: no text between VPP's bytes and the column.
   */
  addNumber(table: number, address: number, len: number, bsid: string): void {
    this.#addNumeric(table, address >>> 0, len, this.#internBsid(bsid));
  }

  table(i: number): number {
    return this.#tables[i] as number;
  }

  /** The prefix as "10.1.0.0/24", the spelling of VPP's dumps and of the config. */
  prefix(i: number): string {
    return `${intToIp4(this.#addresses[i] as number)}/${this.#lengths[i] as number}`;
  }

  /** The prefix's address as an unsigned 32-bit number, and its length: prefix(i) without a string. */
  address(i: number): number {
    return this.#addresses[i] as number;
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
   * of a config is made once and given each pass's BSIDs (overlay.ts, desiredSteering).
   */
  withBsids(bsids: readonly string[]): SteeringEntries {
    if (bsids.length !== this.#bsids.length)
      throw new Error(`steering entries: ${bsids.length} BSIDs for ${this.#bsids.length}`);
    const out = new SteeringEntries(0);
    out.#tables = this.#tables;
    out.#addresses = this.#addresses;
    out.#lengths = this.#lengths;
    out.#bsidOf = this.#bsidOf;
    out.#size = this.#size;
    out.#shared = this.#shared = true;
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
    const out = new SteeringEntries(Math.max(1, this.#size));
    for (let i = 0; i < this.#size; i++) {
      if (kept[this.#bsidOf[i] as number]) {
        out.#addNumeric(
          this.#tables[i] as number,
          this.#addresses[i] as number,
          this.#lengths[i] as number,
          out.#internBsid(this.bsid(i)),
        );
      }
    }
    return out;
  }

  /**
   * Entry indexes in key order: table, then address, then length; equal keys in index order.
   * Placed by table first (a counting sort on the table's rank), then each table's entries sorted
   * natively, without a comparator call per comparison: address, length and index packed in one
   * u64. Sorting per table is fewer comparisons than sorting all at once (a VPC's 100 entries
   * among 100k), and an already sorted side is not sorted at all.
   */
  sortedOrder(): Uint32Array {
    const n = this.#size;
    if (n >= 2 ** INDEX_BITS) throw new Error(`steering entries: ${n} is more than can be sorted`);
    const inOrder = this.#orderIfSorted();
    if (inOrder) return inOrder;
    // Each entry's table as its rank among the distinct tables, looked up once per run of one
    // table (entries come by VPC).
    const tables = this.#tables;
    const seen = new Set<number>();
    let lastTable = -1;
    for (let i = 0; i < n; i++) {
      const t = tables[i] as number;
      if (t !== lastTable) seen.add((lastTable = t));
    }
    const distinct = Float64Array.from(seen).sort();
    const rankOf = new Map<number, number>();
    distinct.forEach((t, r) => rankOf.set(t, r));
    const rank = new Uint32Array(n);
    const start = new Uint32Array(distinct.length + 1);
    lastTable = -1;
    let lastRank = 0;
    for (let i = 0; i < n; i++) {
      const t = tables[i] as number;
      if (t !== lastTable) {
        lastTable = t;
        lastRank = rankOf.get(t) as number;
      }
      rank[i] = lastRank;
      start[lastRank + 1] = (start[lastRank + 1] as number) + 1;
    }
    for (let r = 0; r < distinct.length; r++) start[r + 1] = (start[r + 1] as number) + (start[r] as number);
    // Packed by table: address (32 bits) | length (6 bits) | index (26 bits).
    const packed = new BigUint64Array(n);
    const words = new Uint32Array(packed.buffer);
    const [lo, hi] = LITTLE_ENDIAN ? [0, 1] : [1, 0];
    const next = start.slice(0, distinct.length);
    for (let i = 0; i < n; i++) {
      const r = rank[i] as number;
      const k = next[r] as number;
      next[r] = k + 1;
      words[2 * k + hi] = this.#addresses[i] as number;
      words[2 * k + lo] = (((this.#lengths[i] as number) << INDEX_BITS) | i) >>> 0;
    }
    for (let r = 0; r < distinct.length; r++) {
      const from = start[r] as number;
      const to = start[r + 1] as number;
      if (to - from > 1) packed.subarray(from, to).sort();
    }
    const order = new Uint32Array(n);
    for (let k = 0; k < n; k++) order[k] = ((words[2 * k + lo] as number) & INDEX_MASK) >>> 0;
    return order;
  }

  /**
   * 0, 1, … n-1 when the entries are already in key order with no key twice (a desired side made
   * from a sorted config, a dump in key order): one pass instead of a sort. Undefined otherwise.
   */
  #orderIfSorted(): Uint32Array | undefined {
    const n = this.#size;
    const [t, a, l] = [this.#tables, this.#addresses, this.#lengths];
    for (let i = 1; i < n; i++) {
      const d =
        (t[i - 1] as number) - (t[i] as number) ||
        (a[i - 1] as number) - (a[i] as number) ||
        (l[i - 1] as number) - (l[i] as number);
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
    const order = this.sortedOrder();
    const otherOrder = other.sortedOrder();
    const counterpart = new Int32Array(this.#size).fill(-1);
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
    return (
      (this.#tables[i] as number) - (other.#tables[j] as number) ||
      (this.#addresses[i] as number) - (other.#addresses[j] as number) ||
      (this.#lengths[i] as number) - (other.#lengths[j] as number)
    );
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

  #addNumeric(table: number, address: number, len: number, bsidIndex: number): void {
    if (this.#shared || this.#size === this.#tables.length) this.#grow();
    const i = this.#size++;
    this.#tables[i] = table;
    this.#addresses[i] = address;
    this.#lengths[i] = len;
    this.#bsidOf[i] = bsidIndex;
  }

  #grow(): void {
    const capacity =
      this.#size < this.#tables.length ? this.#tables.length : Math.max(64, this.#tables.length * 2);
    this.#shared = false;
    this.#tables = grownU32(this.#tables, capacity);
    this.#addresses = grownU32(this.#addresses, capacity);
    this.#bsidOf = grownU32(this.#bsidOf, capacity);
    const lengths = new Uint8Array(capacity);
    lengths.set(this.#lengths);
    this.#lengths = lengths;
  }
}

/** sortedOrder packs an entry index in this many bits (and the length, 0 to 32, in 6). */
const INDEX_BITS = 26;
const INDEX_MASK = 2 ** INDEX_BITS - 1;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function grownU32(a: Uint32Array, capacity: number): Uint32Array {
  const b = new Uint32Array(capacity);
  b.set(a);
  return b;
}
