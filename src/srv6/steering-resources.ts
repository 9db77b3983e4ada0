/**
 * SRv6 steering as bulk kinds of the planner (reconcile/bulk.ts), one per address family: the
 * members of a side are the entries of a SteeringEntries, each depending on its policy and its
 * table (the IPv6 table for an IPv6 entry: steering into a table that does not exist crashes VPP
 * 26.06, docs/dual-stack.md, trap 1), so entries that share both share one dependency list.
 * Desired and found entries are matched by key — table and prefix — by sorting both sides, and
 * are equivalent when they point at the same BSID.
 */
import { keys } from '../dataplane/keys.js';
import type { SteeringEntries } from './steering-entries.js';
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
    this.#groupOf = new Uint32Array(entries.size);
    // (BSID index, table) → group, as one number: a Map per BSID was most of what a route delta's
    // small sides allocated (a batch of 50 changes names about as many BSIDs).
    const groupOfPair = new Map<number, number>();
    if (entries.bsids.length >= 2 ** 21)
      throw new Error(`${entries.bsids.length} BSIDs in one set of steering entries`);
    let lastBsid = -1;
    let lastTable = -1;
    let lastGroup = 0;
    for (let i = 0; i < entries.size; i++) {
      const bsid = entries.bsidIndex(i);
      const table = entries.table(i);
      // Entries come in runs of one VPC (one table, one BSID): one lookup per run.
      if (bsid === lastBsid && table === lastTable) {
        this.#groupOf[i] = lastGroup;
        continue;
      }
      // Exact below 2^53: BSID indices are below 2^21 (checked above), tables are 32-bit.
      const pair = bsid * 0x1_0000_0000 + table;
      let group = groupOfPair.get(pair);
      if (group === undefined) {
        group = this.groups.length;
        this.groups.push([keys.srPolicy(entries.bsid(i)), keys.ipTable(table, ip6)]);
        groupOfPair.set(pair, group);
      }
      this.#groupOf[i] = group;
      lastBsid = bsid;
      lastTable = table;
      lastGroup = group;
    }
  }

  get size(): number {
    return this.entries.size;
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
  const { counterpart, duplicate } = desired.matchKeys(actual);
  if (duplicate !== undefined)
    throw new Error(`duplicate desired resource key ${want.resource(duplicate).key}`);
  return {
    desired: want,
    actual: have,
    counterpart,
    // Same table and prefix (the key): the same value when the BSID is the same.
    equivalent: (i, j) => desired.bsid(i) === actual.bsid(j),
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
