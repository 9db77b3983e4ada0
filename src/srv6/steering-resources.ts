/**
 * SRv6 steering as bulk kinds of the planner (reconcile/bulk.ts), one per address family: the
 * members of a side are the entries of a SteeringEntries, each depending on its policy and its
 * table (the IPv6 table for an IPv6 entry: steering into a table that does not exist crashes VPP
 * 26.06, docs/dual-stack.md, trap 1), so entries that share both share one dependency list.
 * Desired and found entries are matched by key — table and prefix — through the desired side's
 * key index (SteeringEntries.matchKeys), and are equivalent when they point at the same BSID.
 */
import { keys } from '../dataplane/keys.js';
import type { SteeringEntries } from './steering-entries.js';
import { bucketByTable, LITTLE_ENDIAN } from './table-buckets.js';
import type { BulkComparison, BulkResources } from '../reconcile/bulk.js';
import type { Resource } from '../reconcile/resource.js';
import type { DataplaneContext } from '../dataplane/context.js';
import {
  setSteeringEntry,
  steering6Descriptor,
  steeringDescriptor,
  type SteeringValue,
} from './descriptors.js';

export class SteeringResources implements BulkResources {
  readonly kind: string;
  readonly entries: SteeringEntries;
  /** sr-steering (IPv4) or sr-steering6, as the entries' family. */
  readonly #descriptor: typeof steeringDescriptor;
  /** [policy key, table key] per (BSID, table) in use. */
  readonly groups: (readonly string[])[] = [];
  readonly #groupOf: Uint32Array;

  constructor(entries: SteeringEntries) {
    this.entries = entries;
    this.#descriptor = entries.family === 4 ? steeringDescriptor : steering6Descriptor;
    this.kind = this.#descriptor.kind;
    const ip6 = entries.family === 6;
    // Made once for the columns a config's desired steering shares across passes (groups()).
    const groups = entries.groups();
    this.#groupOf = groups.groupOf;
    for (let g = 0; g < groups.tables.length; g++) {
      const bsid = entries.bsids[groups.bsidIndexes[g] as number] as string;
      this.groups.push([keys.srPolicy(bsid), keys.ipTable(groups.tables[g] as number, ip6)]);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get keyPrefix(): string {
    return keys.srSteeringPrefix(this.entries.family === 6);
  }

  /**
   * `members` in the code-unit order of their keys (keys.srSteering: prefix, table, ':', the
   * prefix's text). IPv4 without text: a key's order is its table's (the decimal followed by
   * ':'), then each octet's decimal and the length's, each ranked as text: '.', '/' and the end
   * sort before every digit, so a shorter number that starts another sorts first, whereas ':'
   * sorts after them (`100:` before `10:`). IPv6 text has no such shortcut: ip6KeyOrder.
   */
  keyOrder(members: Uint32Array): Uint32Array {
    return this.entries.family === 4
      ? ip4KeyOrder(this.entries, members)
      : ip6KeyOrder(this.entries, members);
  }

  groupOf(member: number): number {
    return this.#groupOf[member] as number;
  }

  key(member: number): string {
    return this.#descriptor.key(this.#value(member));
  }

  resource(member: number): Resource<SteeringValue> {
    return this.#descriptor.resource(this.#value(member), {
      after: this.groups[this.groupOf(member)] as readonly string[],
    });
  }

  /** As the kind's descriptor does: an update re-adds the entry, which re-points it in place. */
  apply(ctx: unknown, action: 'create' | 'delete' | 'update', member: number): Promise<unknown> {
    const e = this.entries;
    return setSteeringEntry(
      ctx as DataplaneContext,
      e.table(member),
      e.family === 4 ? e.address(member) : e.addressBytes(member),
      e.prefixLength(member),
      e.bsidBytes(member),
      action === 'delete',
    );
  }

  #value(member: number): SteeringValue {
    return {
      table: this.entries.table(member),
      prefix: this.entries.prefix(member),
      bsid: this.entries.bsid(member),
    };
  }
}

/**
 * Desired and found steering entries of one family, matched by table and prefix. VPP holds one
 * entry per (table, prefix) of a family; the desired side must not hold two either.
 */
export function compareSteering(desired: SteeringEntries, actual: SteeringEntries): BulkComparison {
  const want = new SteeringResources(desired);
  const have = new SteeringResources(actual);
  const { counterpart, desiredOf, matched, duplicate } = desired.matchKeys(actual);
  if (duplicate !== undefined)
    throw new Error(`duplicate desired resource key ${want.resource(duplicate).key}`);
  // Same table and prefix (the key): the same value when the BSID is the same. Compared as
  // numbers, each side's BSID indexes mapped once to the first desired index with that text (a
  // side may list one BSID at two indexes: withBsids), or -1.
  const firstIndex = new Map<string, number>();
  desired.bsids.forEach((b, k) => firstIndex.has(b) || firstIndex.set(b, k));
  const desiredCanon = Int32Array.from(desired.bsids, (b) => firstIndex.get(b) as number);
  const actualCanon = Int32Array.from(actual.bsids, (b) => firstIndex.get(b) ?? -1);
  return {
    desired: want,
    actual: have,
    counterpart,
    desiredOf,
    matched,
    equivalent: (i, j) => actualCanon[actual.bsidIndex(j)] === desiredCanon[desired.bsidIndex(i)],
  };
}

/** A side's steering entries: the IPv4 ones and the IPv6 ones, each a bulk kind of its own. */
export interface SteeringSides {
  readonly steering: SteeringEntries;
  readonly steering6: SteeringEntries;
}

/** compareSteering of each family: the planner's bulk comparisons for a desired and a found side. */
export function compareSteeringSides(desired: SteeringSides, actual: SteeringSides): BulkComparison[] {
  return [
    compareSteering(desired.steering, actual.steering),
    compareSteering(desired.steering6, actual.steering6),
  ];
}

/** Each number from 0 to `max` ranked by its decimal text's code-unit order. */
function textRanks(max: number): Uint8Array {
  const numbers = Array.from({ length: max + 1 }, (_, n) => n);
  numbers.sort((a, b) => (String(a) < String(b) ? -1 : 1));
  const rank = new Uint8Array(max + 1);
  numbers.forEach((n, r) => (rank[n] = r));
  return rank;
}

const OCTET_RANK = textRanks(255);
const LENGTH_RANK = textRanks(32);

/**
 * The IPv6 key order: tables as for IPv4 (a counting sort by their text's rank), then within each
 * table the prefixes' canonical text, which has no numeric shortcut (RFC 5952's "::" moves the
 * groups after it), so it is made, once a member, and sorted only among its table's entries: a
 * node's 100k entries were keyed and sorted whole, ~0.3 s of a pass from empty with the garbage.
 */
function ip6KeyOrder(entries: SteeringEntries, members: Uint32Array): Uint32Array {
  const n = members.length;
  const { count, rank, start } = bucketByTable(n, (k) => entries.table(members[k] as number), tablesAsText);
  const byBucket = new Uint32Array(n);
  const next = start.slice(0, count);
  for (let k = 0; k < n; k++) {
    const r = rank[k] as number;
    byBucket[next[r] as number] = k;
    next[r] = (next[r] as number) + 1;
  }
  const texts = new Array<string>(n);
  for (let k = 0; k < n; k++) texts[k] = entries.prefix(members[k] as number);
  const byText = (a: number, b: number): number => {
    const x = texts[a] as string;
    const y = texts[b] as string;
    return x < y ? -1 : x > y ? 1 : a - b;
  };
  for (let r = 0; r < count; r++) {
    const from = start[r] as number;
    const to = start[r + 1] as number;
    if (to - from > 1) byBucket.subarray(from, to).sort(byText);
  }
  return byBucket.map((k) => members[k] as number);
}

/** Tables in the order of their key text (the decimal followed by ':'). */
function tablesAsText(ts: number[]): readonly number[] {
  const texts = new Map(ts.map((t) => [t, `${t}:`]));
  return ts.sort((x, y) => ((texts.get(x) as string) < (texts.get(y) as string) ? -1 : 1));
}

/**
 * IPv4 members in key order (SteeringResources.keyOrder): by table rank (a counting sort), then
 * each table's run sorted natively as u64s packing the octets' ranks, the length's rank and the
 * position (equal keys keep their order).
 */
function ip4KeyOrder(entries: SteeringEntries, members: Uint32Array): Uint32Array {
  const n = members.length;
  if (n >= 2 ** 26) throw new Error(`steering entries: ${n} members are more than can be ordered`);
  const { count, rank, start } = bucketByTable(n, (k) => entries.table(members[k] as number), tablesAsText);
  const packed = new BigUint64Array(n);
  const words = new Uint32Array(packed.buffer);
  const [lo, hi] = LITTLE_ENDIAN ? [0, 1] : [1, 0];
  const next = start.slice(0, count);
  for (let k = 0; k < n; k++) {
    const m = members[k] as number;
    const r = rank[k] as number;
    const at = next[r] as number;
    next[r] = at + 1;
    const a = entries.address(m);
    words[2 * at + hi] =
      (((OCTET_RANK[a >>> 24] as number) << 24) |
        ((OCTET_RANK[(a >>> 16) & 255] as number) << 16) |
        ((OCTET_RANK[(a >>> 8) & 255] as number) << 8) |
        (OCTET_RANK[a & 255] as number)) >>>
      0;
    words[2 * at + lo] = (((LENGTH_RANK[entries.prefixLength(m)] as number) << 26) | k) >>> 0;
  }
  for (let r = 0; r < count; r++) {
    const [from, to] = [start[r] as number, start[r + 1] as number];
    if (to - from > 1) packed.subarray(from, to).sort();
  }
  const out = new Uint32Array(n);
  for (let at = 0; at < n; at++)
    out[at] = members[((words[2 * at + lo] as number) & (2 ** 26 - 1)) >>> 0] as number;
  return out;
}
