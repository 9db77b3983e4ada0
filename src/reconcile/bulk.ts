/**
 * Bulk kinds: kinds with too many objects to plan as one Resource each (a node's 100k SRv6
 * steering entries). Each side keeps its members in the kind's own compact form, the kind matches
 * the two sides by key, and the planner works on member indexes (bulk-set.ts): it builds a Resource only for a
 * member that gets an operation or stays pending, so a pass that changes nothing allocates
 * nothing per member. The planning rules are the same as for plain resources (plain-set.ts).
 *
 * What the planner relies on: members are leaves (no resource depends on a member), and members
 * share a few dependency lists, their groups (e.g. one list per policy and table).
 */
import type { Resource } from './resource.js';

/** One side of a bulk kind: what is desired, or what was found in VPP. */
export interface BulkResources {
  readonly kind: string;
  readonly size: number;
  /** The distinct dependency lists of the members. */
  readonly groups: readonly (readonly string[])[];
  /** Index into `groups` of a member's dependencies. */
  groupOf(member: number): number;
  /** A member's key, without building its Resource. */
  key(member: number): string;
  /**
   * What every member's key starts with, and `members` in key order (plain code-unit order of
   * key(member), equal keys as given) without building the keys (optional, both or neither): the
   * planner then orders 100k ops without 100k key strings (planner.ts).
   */
  readonly keyPrefix?: string;
  keyOrder?(members: Uint32Array): Uint32Array;
  /** A member as a Resource, built on demand; its deps are its group's list. */
  resource(member: number): Resource;
  /**
   * Creates, deletes or updates a member in VPP as the kind's descriptor would with
   * `resource(member)` (for an update, the desired side's member, as the descriptor's update
   * gets it), straight from the side's own form (optional): 100k creates then build no Resource,
   * value or address text each, and neither does each re-pointed entry of a busy fleet's deltas.
   */
  apply?(ctx: unknown, action: 'create' | 'delete' | 'update', member: number): Promise<unknown>;
}

/** Both sides of one bulk kind, matched by key. */
export interface BulkComparison {
  readonly desired: BulkResources;
  readonly actual: BulkResources;
  /** For each desired member, the actual member with the same key, or -1. */
  readonly counterpart: Int32Array;
  /**
   * For each actual member, the desired member whose counterpart it is, or -1 (found along with
   * `counterpart`: the planner then needs no loop of its own over 100k members to invert it, in a
   * pass that runs once before V8 has optimized it).
   */
  readonly desiredOf: Int32Array;
  /** How many actual members are a desired member's counterpart. */
  readonly matched: number;
  /** Whether a desired member and its counterpart are equivalent (the descriptor's rule). */
  equivalent(desired: number, actual: number): boolean;
}
