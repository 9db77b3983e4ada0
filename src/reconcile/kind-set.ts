/**
 * What the planner (planner.ts) asks of a set of kinds: one implementation for plain resources
 * (plain-set.ts: one Resource each, the only ones others may depend on) and one per bulk kind
 * (bulk-set.ts: members in columns, leaves). The planner runs the same four steps over all of
 * them; a set keeps its own bookkeeping and makes its own ops.
 */
import type { Op, PendingResource, Resource } from './resource.js';

/** The desired state's dependency graph, as step 1 sees it. */
export interface DependencyVerdicts {
  /** Why a desired resource waits (missing dependency, cycle, absent external), or undefined. */
  blockedReason(r: Resource): string | undefined;
  /** Why a dependency list cannot be met, or undefined. */
  blockedBy(deps: readonly string[]): string | undefined;
}

/** Depths in the dependency graph of one side (desired or found). */
export interface Levels {
  /** A resource's depth, by key. */
  of(key: string): number;
  /** The depth of something that depends on `deps` (one above the deepest of them). */
  above(deps: readonly string[]): number;
}

export interface KindSet {
  /**
   * Steps 1 and 2: pending members, then create, update, recreate or unchanged; found members
   * not desired are deleted. Returns the keys deleted so far whose dependents go with them.
   */
  classify(verdicts: DependencyVerdicts): readonly string[];
  /**
   * Step 3: VPP deletes whatever depends on `key` along with it: those members are deleted first,
   * and created again when still desired. Returns the newly deleted keys whose dependents go too.
   */
  cascade(key: string): readonly string[];
  /** Step 4: the delete ops and the create and update ops, with their levels. */
  ops(found: Levels, desired: Levels): KindSetOps;
  readonly pending: readonly PendingResource[];
  /** Adds the desired members already in place, per kind. */
  countUnchanged(into: Map<string, number>): void;
}

/** A kind set's ops (step 4). */
export interface KindSetOps {
  readonly deletes: Op[];
  readonly applies: Op[];
  /**
   * Set when both lists are already in plan order among themselves (by level, deletes deepest
   * first, then by key) and every op's key starts with this: the planner merges them with the
   * other sets' ops without reading their keys, which a bulk member's op builds on each read.
   */
  readonly keyPrefix?: string;
}
