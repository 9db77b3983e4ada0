/**
 * SRv6 steering entries — (VRF table, prefix) → BSID — kept in columns, all of one address family.
 * A node may steer 100k prefixes: as objects each entry cost ~150 bytes with its strings, and as a
 * planner Resource with its key and value twice that again; here an IPv4 entry costs 13 bytes and
 * an IPv6 one 25, BSIDs (a few thousand at most) stored once each. An address is kept as 32-bit
 * words, most significant first: one for IPv4, four for IPv6.
 */
import { formatIp6, writeIp6Literal } from '../net/ip-literal.js';
import { intToIp4, ip4ToInt } from '../net/ip.js';

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
   * What is made of these columns alone (the key index of matchKeys, groups()), once made: shared
   * with withBsids' sets, which share the columns (a config's desired steering is made once and
   * given each pass's BSIDs, so these are made once too, not once a pass); forgotten when an entry
   * is added. Do not modify them.
   */
  #derived: { index?: KeyIndex; groups?: SteeringGroups } = {};

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
    out.#derived = this.#derived;
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
   * The distinct (BSID index, table) pairs in order of first use, and each entry's pair: what
   * the planner groups entries by (their dependencies: policy and table). Made once for columns
   * shared by withBsids (the pairs name BSIDs by index), as the key index is. Do not modify it.
   */
  groups(): SteeringGroups {
    this.#derived.groups ??= this.#makeGroups();
    return this.#derived.groups;
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
   * For each entry here, the entry of `other` with the same key (table and prefix), or -1 (the
   * first of `other`'s entries with that key, when it has several): `counterpart`; and the inverse,
   * for each of `other`'s entries the one here it is the counterpart of, or -1, and how many are
   * (`matched`). The first entry here whose key an earlier one has, if any, is `duplicate` (no
   * counterparts are then made). Each of `other`'s entries is looked up in this set's key index
   * (keyIndex), which sets sharing columns share: a config's desired steering is hashed once, and a
   * pass finds 100k entries of a dump without sorting them.
   */
  matchKeys(other: SteeringEntries): KeyMatch {
    if (other.family !== this.family)
      throw new Error(`steering entries: IPv${this.family} matched with IPv${other.family}`);
    const index = this.#keyIndex();
    const counterpart = new Int32Array(this.#size).fill(-1);
    const desiredOf = new Int32Array(other.#size).fill(-1);
    let matched = 0;
    if (index.duplicate !== undefined) return { counterpart, desiredOf, matched, duplicate: index.duplicate };
    const { slots, mask } = index;
    const w = this.#words;
    const [t, a, l] = [this.#tables, this.#addresses, this.#lengths];
    const [ot, oa, ol] = [other.#tables, other.#addresses, other.#lengths];
    for (let j = 0; j < other.#size; j++) {
      const tj = ot[j] as number;
      const lj = ol[j] as number;
      for (let slot = keyHash(tj, oa, j * w, w, lj) & mask; ; slot = (slot + 1) & mask) {
        const i = (slots[slot] as number) - 1;
        if (i < 0) break;
        if (t[i] !== tj || l[i] !== lj || !sameWords(a, i * w, oa, j * w, w)) continue;
        if (counterpart[i] === -1) {
          counterpart[i] = j;
          desiredOf[j] = i;
          matched++;
        }
        break;
      }
    }
    return { counterpart, desiredOf, matched, duplicate: undefined };
  }

  /**
   * The entries' keys in an open-addressing hash table (linear probing, a power-of-two size at
   * least 1.25 times the entries: 5 to 10 bytes an entry, where the sorted order it replaced was
   * 4, and sorting the dump 12 more a pass), made once for columns shared by withBsids as groups() is.
   * Stops at the first key that repeats: the set then matches nothing.
   */
  #keyIndex(): KeyIndex {
    this.#derived.index ??= this.#makeKeyIndex();
    return this.#derived.index;
  }

  #makeKeyIndex(): KeyIndex {
    const n = this.#size;
    const w = this.#words;
    let capacity = 1;
    while (capacity < n * 1.25) capacity *= 2;
    const slots = new Int32Array(capacity);
    const mask = capacity - 1;
    const [t, a, l] = [this.#tables, this.#addresses, this.#lengths];
    for (let i = 0; i < n; i++) {
      const ti = t[i] as number;
      const li = l[i] as number;
      for (let slot = keyHash(ti, a, i * w, w, li) & mask; ; slot = (slot + 1) & mask) {
        const k = (slots[slot] as number) - 1;
        if (k < 0) {
          slots[slot] = i + 1;
          break;
        }
        if (t[k] === ti && l[k] === li && sameWords(a, k * w, a, i * w, w))
          return { slots, mask, duplicate: i };
      }
    }
    return { slots, mask, duplicate: undefined };
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
    // Another set's key index and groups (shared columns) or this one's, now out of date: a
    // holder of its own.
    const derived = this.#derived;
    if (this.#shared || derived.index !== undefined || derived.groups !== undefined) this.#derived = {};
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

/** SteeringEntries.matchKeys: entries matched by key, both ways. */
export interface KeyMatch {
  readonly counterpart: Int32Array;
  readonly desiredOf: Int32Array;
  readonly matched: number;
  readonly duplicate: number | undefined;
}

/** SteeringEntries' key index: each slot an entry's index + 1, or 0 when free. */
interface KeyIndex {
  readonly slots: Int32Array;
  /** The slots' count - 1 (a power of two - 1): a hash's slot is `hash & mask`. */
  readonly mask: number;
  /** The first entry whose key an earlier entry has; the index then holds only those before it. */
  readonly duplicate: number | undefined;
}

/** A key's hash: its table, length and `w` address words from `words[at]`, mixed (murmur3's constants). */
function keyHash(table: number, words: Uint32Array, at: number, w: number, len: number): number {
  let h = Math.imul(table ^ (len << 24), 0xcc9e2d51);
  for (let x = 0; x < w; x++) {
    h = Math.imul(h ^ (words[at + x] as number), 0x1b873593);
    h ^= h >>> 15;
  }
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  return h ^ (h >>> 13);
}

/** Whether `w` words from a[i] and from b[j] are the same. */
function sameWords(a: Uint32Array, i: number, b: Uint32Array, j: number, w: number): boolean {
  for (let x = 0; x < w; x++) if (a[i + x] !== b[j + x]) return false;
  return true;
}

function grownU32(a: Uint32Array, capacity: number): Uint32Array {
  const b = new Uint32Array(capacity);
  b.set(a);
  return b;
}
