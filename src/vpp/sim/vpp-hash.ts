/**
 * An emulation of vppinfra's `uword`-keyed hash (src/vppinfra/hash.c, hash.h in VPP 26.06), kept
 * only for one property: the ORDER in which `hash_foreach_pair` visits its pairs.
 *
 * VPP's route dumps walk the FIB's hash tables (ip4: one `hash_create (32, sizeof (uword))` per
 * prefix length, src/vnet/fib/ip4_fib_hash.c; ip6: one `hash_create_mem (2, 17, 4)` per table,
 * src/vnet/fib/ip6_fib.c) and send the entries in that visiting order. Reproducing the bytes of
 * `ip_route_details` therefore means reproducing:
 *  - the key sum: `hash_uword` (Bob Jenkins' 64-bit mix) for ip4, `hash_memory` over the 17-byte
 *    key {ip6 address, u8 len} for ip6;
 *  - the bucket: `sum & (capacity - 1)`, capacity a power of two, at least 64
 *    (`_hash_create`: max (elts, BITS (uword)));
 *  - collisions: a bucket holds one pair directly, or an "indirect" vector in insertion order; a
 *    delete moves the vector's last pair into the hole, and a 2-pair vector collapses back to a
 *    direct pair (`unset_indirect`);
 *  - growth: after an insert, if 4 * (elts + 1) > 3 * capacity the table doubles and every pair
 *    is re-inserted in the old visiting order (`_hash_set3`, `hash_resize_internal`);
 *  - shrink: after a delete, if enabled, elts > 32 and 4 * (elts + 1) < capacity, it halves
 *    (`_hash_unset`). ip4 FIB hashes set HASH_FLAG_NO_AUTO_SHRINK; ip6 ones do not.
 *
 * Checked against the real dumps in ../shared/vpp-transcripts (26.06/14, 26.06-design/15).
 */

/** The 64-bit golden ratio VPP seeds a, b with: 0x9e3779b97f4a7c13. */
const GOLDEN_HI = 0x9e3779b9;
const GOLDEN_LO = 0x7f4a7c13;

/**
 * Bob Jenkins' 64-bit mix (hash.h `hash_mix64`), on 32-bit halves; returns c's low 32 bits, which
 * is all a bucket index (< 2^32) ever uses.
 */
function mix64LowC(
  ahi0: number,
  alo0: number,
  bhi0: number,
  blo0: number,
  chi0: number,
  clo0: number,
): number {
  let ahi = ahi0 >>> 0;
  let alo = alo0 >>> 0;
  let bhi = bhi0 >>> 0;
  let blo = blo0 >>> 0;
  let chi = chi0 >>> 0;
  let clo = clo0 >>> 0;
  // hash_mix_step (a, b, c, s0, s1, s2):
  //   a -= b + c; a ^= c >> s0;  b -= c + a; b ^= a << s1;  c -= a + b; c ^= b >> s2;
  const steps: readonly (readonly [number, number, number])[] = MIX_STEPS;
  for (let s = 0; s < 4; s++) {
    const [s0, s1, s2] = steps[s] as readonly [number, number, number];
    // a -= b + c
    let slo = blo + clo;
    let shi = bhi + chi + (slo > 0xffffffff ? 1 : 0);
    slo >>>= 0;
    shi >>>= 0;
    let nlo = alo - slo;
    ahi = (ahi - shi - (nlo < 0 ? 1 : 0)) >>> 0;
    alo = nlo >>> 0;
    // a ^= c >> s0
    ahi = (ahi ^ shr64hi(chi, s0)) >>> 0;
    alo = (alo ^ shr64lo(chi, clo, s0)) >>> 0;
    // b -= c + a
    slo = clo + alo;
    shi = chi + ahi + (slo > 0xffffffff ? 1 : 0);
    slo >>>= 0;
    shi >>>= 0;
    nlo = blo - slo;
    bhi = (bhi - shi - (nlo < 0 ? 1 : 0)) >>> 0;
    blo = nlo >>> 0;
    // b ^= a << s1
    bhi = (bhi ^ shl64hi(ahi, alo, s1)) >>> 0;
    blo = (blo ^ shl64lo(alo, s1)) >>> 0;
    // c -= a + b
    slo = alo + blo;
    shi = ahi + bhi + (slo > 0xffffffff ? 1 : 0);
    slo >>>= 0;
    shi >>>= 0;
    nlo = clo - slo;
    chi = (chi - shi - (nlo < 0 ? 1 : 0)) >>> 0;
    clo = nlo >>> 0;
    // c ^= b >> s2
    chi = (chi ^ shr64hi(bhi, s2)) >>> 0;
    clo = (clo ^ shr64lo(bhi, blo, s2)) >>> 0;
  }
  return clo;
}

/** hash.h: hash_mix64_step_1..4 shift triples. */
const MIX_STEPS: readonly (readonly [number, number, number])[] = [
  [43, 9, 8],
  [38, 23, 5],
  [35, 49, 11],
  [12, 18, 22],
];

function shr64hi(hi: number, n: number): number {
  return n >= 32 ? 0 : hi >>> n;
}
function shr64lo(hi: number, lo: number, n: number): number {
  if (n >= 32) return hi >>> (n - 32);
  return ((lo >>> n) | (hi << (32 - n))) >>> 0;
}
function shl64hi(hi: number, lo: number, n: number): number {
  if (n >= 32) return (lo << (n - 32)) >>> 0;
  return ((hi << n) | (lo >>> (32 - n))) >>> 0;
}
function shl64lo(lo: number, n: number): number {
  return n >= 32 ? 0 : (lo << n) >>> 0;
}

/**
 * `hash_uword (x)` for a key below 2^32 (hash.c): a = b = golden + ..., c = 0, a += x, mix.
 * Returns the low 32 bits of the sum.
 */
export function hashUwordLow(x: number): number {
  const lo = GOLDEN_LO + (x >>> 0);
  const carry = lo > 0xffffffff ? 1 : 0;
  return mix64LowC(GOLDEN_HI + carry, lo >>> 0, GOLDEN_HI, GOLDEN_LO, 0, 0);
}

/**
 * `hash_memory (p, 17, 0)` (hash.c) for an ip6 FIB key {16 address bytes, u8 length}: with fewer
 * than 24 bytes there is no loop; c += n_bytes, then the bytes are loaded as three little-endian
 * u64 words (x86-64 and arm64 are little-endian) and added to a, b, c before one mix.
 */
export function hashIp6KeyLow(addr: Uint8Array, len: number): number {
  // c = 0 + n_bytes (17) + last[2] (= the length byte)
  return hashIp6Words(addr, 17 + (len & 0xff));
}

/**
 * `hash_memory (p, 16, 0)` (hash.c) for a bare ip6 address: the key sum of a
 * `hash_create_mem (0, sizeof (ip6_address_t), ...)` table (mem_key_sum), e.g. a bridge domain's
 * mac_by_ip6. As hashIp6KeyLow, without the length byte: c = 16.
 */
export function hashIp6AddressLow(addr: Uint8Array): number {
  return hashIp6Words(addr, 16);
}

/** a = golden + the first 8 address bytes, b = golden + the next 8 (little-endian), c given; one mix. */
function hashIp6Words(addr: Uint8Array, clo: number): number {
  const w = (o: number): number =>
    ((addr[o] as number) |
      ((addr[o + 1] as number) << 8) |
      ((addr[o + 2] as number) << 16) |
      ((addr[o + 3] as number) << 24)) >>>
    0;
  let alo = GOLDEN_LO + w(0);
  const ahi = GOLDEN_HI + w(4) + (alo > 0xffffffff ? 1 : 0);
  alo >>>= 0;
  let blo = GOLDEN_LO + w(8);
  const bhi = GOLDEN_HI + w(12) + (blo > 0xffffffff ? 1 : 0);
  blo >>>= 0;
  return mix64LowC(ahi, alo, bhi, blo, 0, clo);
}

interface Pair<K, V> {
  readonly key: K;
  value: V;
}

/** A bucket: empty, one direct pair, or an indirect vector of >= 2 pairs. */
type Bucket<K, V> = Pair<K, V> | Pair<K, V>[] | undefined;

/**
 * A hash table with VPP's visiting order. Keys compare with `===` (numbers for ip4, strings for
 * ip6); `sumOf` gives the low 32 bits of VPP's key sum.
 */
export class VppHash<K extends number | string, V> {
  #buckets: Bucket<K, V>[];
  #elts = 0;
  readonly #sumOf: (key: K) => number;
  readonly #autoShrink: boolean;
  /** Fast exact lookups beside the emulated structure. */
  readonly #index = new Map<K, Pair<K, V>>();

  constructor(sumOf: (key: K) => number, opts: { autoShrink: boolean; initialElts?: number }) {
    this.#sumOf = sumOf;
    this.#autoShrink = opts.autoShrink;
    // _hash_create: elts = max (elts, BITS (uword)); elts = 1 << max_log2 (elts)
    let cap = 64;
    while (cap < (opts.initialElts ?? 0)) cap *= 2;
    this.#buckets = new Array<Bucket<K, V>>(cap);
  }

  get size(): number {
    return this.#elts;
  }

  get capacity(): number {
    return this.#buckets.length;
  }

  get(key: K): V | undefined {
    return this.#index.get(key)?.value;
  }

  has(key: K): boolean {
    return this.#index.has(key);
  }

  /** hash_set: replaces the value of an existing key in place (its position does not change). */
  set(key: K, value: V): void {
    const existing = this.#index.get(key);
    if (existing) {
      existing.value = value;
      return;
    }
    this.#insert({ key, value });
    // _hash_set3: resize when 3/4 full (checked after the insert, with elts + 1)
    if (4 * (this.#elts + 1) > 3 * this.#buckets.length) this.#resize(2 * this.#buckets.length);
  }

  delete(key: K): boolean {
    const pair = this.#index.get(key);
    if (!pair) return false;
    this.#index.delete(key);
    const i = this.#sumOf(key) & (this.#buckets.length - 1);
    const b = this.#buckets[i];
    if (b === pair) {
      this.#buckets[i] = undefined;
    } else if (Array.isArray(b)) {
      const at = b.indexOf(pair);
      if (b.length <= 2) {
        // unset_indirect: two or fewer pairs left: the remaining one becomes direct
        this.#buckets[i] = b[at === 0 ? 1 : 0];
      } else {
        // keep non-null pairs together: the last pair moves into the hole
        const last = b.pop() as Pair<K, V>;
        if (at < b.length) b[at] = last;
      }
    }
    this.#elts--;
    // _hash_unset: resize when 1/4 full, unless HASH_FLAG_NO_AUTO_SHRINK
    if (this.#autoShrink && this.#elts > 32 && 4 * (this.#elts + 1) < this.#buckets.length) {
      this.#resize(this.#buckets.length / 2);
    }
    return true;
  }

  /** Pairs in hash_foreach_pair order. */
  *entries(): IterableIterator<[K, V]> {
    for (const b of this.#buckets) {
      if (b === undefined) continue;
      if (Array.isArray(b)) {
        for (const p of b) yield [p.key, p.value];
      } else {
        yield [b.key, b.value];
      }
    }
  }

  *values(): IterableIterator<V> {
    for (const [, v] of this.entries()) yield v;
  }

  /**
   * The values in hash_foreach_pair order, without a generator or a pair per value: a FIB walk of
   * a VPC table steering 100k prefixes (ip_route_v2_dump, every drift check) went through
   * values() at several generator steps per entry.
   */
  forEachValue(fn: (value: V) => void): void {
    for (const b of this.#buckets) {
      if (b === undefined) continue;
      if (Array.isArray(b)) for (const p of b) fn(p.value);
      else fn(b.value);
    }
  }

  #insert(pair: Pair<K, V>): void {
    const i = this.#sumOf(pair.key) & (this.#buckets.length - 1);
    const b = this.#buckets[i];
    if (b === undefined) this.#buckets[i] = pair;
    else if (Array.isArray(b)) b.push(pair);
    else this.#buckets[i] = [b, pair];
    this.#index.set(pair.key, pair);
    this.#elts++;
  }

  #resize(newCap: number): void {
    const old = this.#buckets;
    this.#buckets = new Array<Bucket<K, V>>(Math.max(64, newCap));
    this.#elts = 0;
    this.#index.clear();
    for (const b of old) {
      if (b === undefined) continue;
      if (Array.isArray(b)) for (const p of b) this.#insert(p);
      else this.#insert(b);
    }
  }
}
