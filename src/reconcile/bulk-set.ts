/**
 * The planner's bookkeeping for one bulk kind (bulk.ts): the same steps and reasons as for plain
 * resources (plain-set.ts), kept per member index in typed arrays instead of per key in maps and
 * sets. Its ops hold a member index, and build the member's key and Resource when asked
 * for: creating 100k steering entries then keeps 100k small ops alive rather than 100k ops,
 * Resources and values.
 */
import type { BulkComparison, BulkResources } from './bulk.js';
import type { Descriptor } from './descriptor.js';
import type { DependencyVerdicts, KindSet, KindSetOps, Levels } from './kind-set.js';
import type { Op, OpAction, PendingResource, Resource } from './resource.js';

/**
 * What the ops on one side's members with one action and reason share: each op then holds only
 * this and its member. A cold start's plan holds 100k steering ops through its whole execution;
 * with the action, level and reason of its own an op was 64 bytes, 40 without (heap snapshots).
 */
class MemberOps {
  readonly action: OpAction;
  readonly side: BulkResources;
  /** The level of each of the side's groups that has ops (the one above its dependencies). */
  readonly groupLevels: Int32Array;
  readonly reason: string;

  constructor(action: OpAction, side: BulkResources, groupLevels: Int32Array, reason: string) {
    this.action = action;
    this.side = side;
    this.groupLevels = groupLevels;
    this.reason = reason;
  }
}

/** An op on a bulk member; its key and `resource` are built on each access. */
class BulkMemberOp implements Op {
  protected readonly shared: MemberOps;
  protected readonly member: number;

  constructor(shared: MemberOps, member: number) {
    this.shared = shared;
    this.member = member;
  }

  get action(): OpAction {
    return this.shared.action;
  }

  get level(): number {
    return this.shared.groupLevels[this.shared.side.groupOf(this.member)] as number;
  }

  get reason(): string {
    return this.shared.reason;
  }

  get kind(): string {
    return this.shared.side.kind;
  }

  /**
   * Built when asked for, not held: a cold start's plan holds 100k of these ops, and the executor
   * never asks a leaf for its key (a held steering key was ~48 bytes of each op's ~120).
   */
  get key(): string {
    return this.shared.side.key(this.member);
  }

  /** Members are leaves: nothing depends on them. */
  get leaf(): boolean {
    return true;
  }

  get resource(): Resource {
    return this.shared.side.resource(this.member);
  }

  /** The member's group list, shared, without building the member. */
  get deps(): readonly string[] {
    const side = this.shared.side;
    return side.groups[side.groupOf(this.member)] as readonly string[];
  }
}

type ApplyingSide = BulkResources & Required<Pick<BulkResources, 'apply'>>;

/**
 * An op on a member of a side that applies its members itself (BulkResources.apply). Built only
 * for such a side (memberOp, memberUpdate); the fields are the base class's, not copies: a cold
 * start's plan holds 100k of these ops.
 */
class AppliedBulkMemberOp extends BulkMemberOp {
  run(ctx: unknown): Promise<unknown> {
    const { side, action } = this.shared;
    return (side as ApplyingSide).apply(ctx, action, this.member);
  }
}

/** A create or delete op on a member: one that applies it itself when its side can. */
function memberOp(shared: MemberOps, member: number): BulkMemberOp {
  return shared.side.apply ? new AppliedBulkMemberOp(shared, member) : new BulkMemberOp(shared, member);
}

/** An update also has what VPP has now. */
class BulkMemberUpdate extends BulkMemberOp {
  readonly #actual: BulkResources;
  readonly #previous: number;

  constructor(shared: MemberOps, member: number, actual: BulkResources, previous: number) {
    super(shared, member);
    this.#actual = actual;
    this.#previous = previous;
  }

  get previous(): Resource {
    return this.#actual.resource(this.#previous);
  }
}

/** An update of a member of a side that applies its members itself. */
class AppliedBulkMemberUpdate extends BulkMemberUpdate {
  run(ctx: unknown): Promise<unknown> {
    return (this.shared.side as ApplyingSide).apply(ctx, 'update', this.member);
  }
}

/** An update op on a desired member (`previous`: its actual counterpart), applied by its side when it can. */
function memberUpdate(
  shared: MemberOps,
  member: number,
  actual: BulkResources,
  previous: number,
): BulkMemberOp {
  return shared.side.apply
    ? new AppliedBulkMemberUpdate(shared, member, actual, previous)
    : new BulkMemberUpdate(shared, member, actual, previous);
}

/**
 * The MemberOps of one action on one side, one per reason (a handful: the reasons are a few
 * texts, and a cascade's name the dependency it follows).
 */
function sharedOps(
  action: OpAction,
  side: BulkResources,
  groupLevels: Int32Array,
): (reason: string) => MemberOps {
  const byReason = new Map<string, MemberOps>();
  return (reason) => {
    let shared = byReason.get(reason);
    if (!shared) byReason.set(reason, (shared = new MemberOps(action, side, groupLevels, reason)));
    return shared;
  };
}

const NONE: readonly string[] = [];
const NO_MEMBERS: Uint32Array = new Uint32Array(0);

// What happens to a desired member.
const UNCHANGED = 0;
const PENDING = 1;
const CREATE = 2; // missing in VPP
const UPDATE = 3; // differs, updated in place
const RECREATE = 4; // differs, deleted and created again
const CASCADED = 5; // deleted with one of its dependencies, created again

export class BulkKindSet implements KindSet {
  readonly #c: BulkComparison;
  readonly #canUpdate: boolean;
  readonly #state: Uint8Array;
  /** For each actual member, the desired member whose counterpart it is, or -1 (not modified). */
  readonly #desiredOf: Int32Array;
  readonly #deleted: Uint8Array;
  /** Actual members deleted with a dependency: the dependency's key. */
  readonly #deletedWith = new Map<number, string>();
  readonly #pending: PendingResource[] = [];
  /**
   * How many actual members have a desired one, are deleted, and how many desired members stay
   * unchanged: a pass that changes nothing then skips the loops over 100k members that would find
   * nothing (they run once a pass, before V8 has optimized them).
   */
  readonly #matched: number;
  #deletedCount = 0;
  #unchangedCount = 0;
  /** Groups of actual members by dependency key, and members by group: built at the first cascade. */
  #actualGroupsByDep: Map<string, number[]> | undefined;
  #groupStart: Uint32Array | undefined;
  #groupMembers: Uint32Array | undefined;

  /** `descriptor`: the kind's, for whether a difference is updated in place. */
  constructor(comparison: BulkComparison, descriptor: Descriptor) {
    this.#c = comparison;
    this.#canUpdate = descriptor.update !== undefined;
    this.#state = new Uint8Array(comparison.desired.size);
    this.#deleted = new Uint8Array(comparison.actual.size);
    this.#desiredOf = comparison.desiredOf;
    this.#matched = comparison.matched;
  }

  get pending(): readonly PendingResource[] {
    return this.#pending;
  }

  /** Steps 1 and 2: pending (by group), then create, update, recreate or unchanged; unmatched actual members are deleted. */
  classify(verdicts: DependencyVerdicts): readonly string[] {
    const c = this.#c;
    const { desired, counterpart } = c;
    const canUpdate = this.#canUpdate;
    const groupBlocked = desired.groups.map((deps) => verdicts.blockedBy(deps));
    // Locals rather than fields in the loop over 100k members, which runs once a pass before V8
    // has optimized it; and no member's group looked up when no group waits.
    const anyBlocked = groupBlocked.some((why) => why !== undefined);
    const state = this.#state;
    let unchanged = 0;
    for (let i = 0; i < desired.size; i++) {
      if (anyBlocked) {
        const why = groupBlocked[desired.groupOf(i)];
        if (why !== undefined) {
          state[i] = PENDING;
          this.#pending.push({ resource: desired.resource(i), waitingFor: why });
          continue;
        }
      }
      const j = counterpart[i] as number;
      if (j < 0) state[i] = CREATE;
      else if (c.equivalent(i, j)) {
        state[i] = UNCHANGED;
        unchanged++;
      } else if (canUpdate) state[i] = UPDATE;
      else {
        state[i] = RECREATE;
        this.#deleted[j] = 1;
        this.#deletedCount++;
      }
    }
    this.#unchangedCount += unchanged;
    if (this.#matched < this.#desiredOf.length)
      for (let j = 0; j < this.#desiredOf.length; j++)
        if (this.#desiredOf[j] === -1) {
          this.#deleted[j] = 1;
          this.#deletedCount++;
        }
    return NONE; // members are leaves: nothing depends on them
  }

  /** Step 3: VPP deletes these members with `key`: delete them first, and create again those still desired. */
  cascade(key: string): readonly string[] {
    const groups = this.#groupsDependingOn(key);
    if (!groups) return NONE;
    const start = this.#groupStart as Uint32Array;
    const members = this.#groupMembers as Uint32Array;
    for (const g of groups) {
      for (let m = start[g] as number; m < (start[g + 1] as number); m++) {
        const j = members[m] as number;
        if (this.#deleted[j]) continue;
        this.#deleted[j] = 1;
        this.#deletedCount++;
        this.#deletedWith.set(j, key);
        const i = this.#desiredOf[j] as number;
        if (i >= 0 && this.#state[i] !== PENDING) {
          if (this.#state[i] === UNCHANGED) this.#unchangedCount--;
          this.#state[i] = CASCADED;
        }
      }
    }
    return NONE;
  }

  countUnchanged(into: Map<string, number>): void {
    const n = this.#unchangedCount;
    const kind = this.#c.desired.kind;
    if (n > 0) into.set(kind, (into.get(kind) ?? 0) + n);
  }

  /**
   * Step 4: the delete ops and the create and update ops. A member is a leaf: its level is the one
   * above its group's dependencies.
   */
  ops(found: Levels, wanted: Levels): KindSetOps {
    const { desired, actual, counterpart } = this.#c;
    const deletes: Op[] = [];
    const applies: Op[] = [];
    // A group's level only when one of its members has an op: none in a pass that changes nothing.
    // Known levels stay in `known`, which the ops read theirs from (MemberOps.groupLevels).
    const levelsOf = (side: BulkResources, levels: Levels) => {
      const known = new Int32Array(side.groups.length).fill(-1);
      const levelOf = (group: number): number => {
        let level = known[group] as number;
        if (level < 0) known[group] = level = levels.above(side.groups[group] as readonly string[]);
        return level;
      };
      return { known, levelOf };
    };
    const actualLevels = levelsOf(actual, found);
    const desiredLevels = levelsOf(desired, wanted);
    const deleted =
      this.#deletedCount === 0 ? NO_MEMBERS : inPlanOrder(actual, this.#deleted, 1, actualLevels.levelOf, -1);
    const deleteOps = sharedOps('delete', actual, actualLevels.known);
    for (let k = 0; k < deleted.length; k++) {
      const j = deleted[k] as number;
      actualLevels.levelOf(actual.groupOf(j));
      deletes.push(memberOp(deleteOps(this.#actualReason(j)), j));
    }
    const state = this.#state;
    let applied: Uint32Array = NO_MEMBERS;
    if (this.#unchangedCount + this.#pending.length < state.length) {
      const changed = new Uint8Array(state.length);
      for (let i = 0; i < state.length; i++)
        changed[i] = state[i] === UNCHANGED || state[i] === PENDING ? 0 : 1;
      applied = inPlanOrder(desired, changed, 1, desiredLevels.levelOf, 1);
    }
    const createOps = sharedOps('create', desired, desiredLevels.known);
    const updateOps = sharedOps('update', desired, desiredLevels.known);
    for (let k = 0; k < applied.length; k++) {
      const i = applied[k] as number;
      desiredLevels.levelOf(desired.groupOf(i));
      const reason = this.#desiredReason(i);
      if (state[i] === UPDATE)
        applies.push(memberUpdate(updateOps(reason), i, actual, counterpart[i] as number));
      else applies.push(memberOp(createOps(reason), i));
    }
    // In plan order only when both sides could order their members by key.
    const keyPrefix = desired.keyOrder && actual.keyOrder ? desired.keyPrefix : undefined;
    return keyPrefix === undefined || keyPrefix !== actual.keyPrefix
      ? { deletes, applies }
      : { deletes, applies, keyPrefix };
  }

  #desiredReason(i: number): string {
    switch (this.#state[i]) {
      case CREATE:
        return 'missing in VPP';
      case UPDATE:
        return 'differs from VPP';
      case RECREATE:
        return 'differs from VPP; recreated';
      default:
        return `recreated with ${this.#deletedWith.get(this.#c.counterpart[i] as number) ?? ''}`;
    }
  }

  #actualReason(j: number): string {
    const i = this.#desiredOf[j] as number;
    if (i >= 0 && (this.#state[i] === RECREATE || this.#state[i] === CASCADED)) return this.#desiredReason(i);
    const key = this.#deletedWith.get(j);
    return key === undefined ? 'not in the desired state' : `removed with ${key}`;
  }

  #groupsDependingOn(key: string): readonly number[] | undefined {
    if (!this.#actualGroupsByDep) {
      const { actual } = this.#c;
      this.#actualGroupsByDep = new Map();
      actual.groups.forEach((deps, g) => {
        for (const dep of deps) {
          const list = this.#actualGroupsByDep?.get(dep) ?? [];
          list.push(g);
          this.#actualGroupsByDep?.set(dep, list);
        }
      });
      // Members by group (a counting sort), so a cascade visits only the members it deletes.
      const start = new Uint32Array(actual.groups.length + 1);
      for (let j = 0; j < actual.size; j++) {
        const g = actual.groupOf(j);
        start[g + 1] = (start[g + 1] as number) + 1;
      }
      for (let g = 0; g < actual.groups.length; g++)
        start[g + 1] = (start[g + 1] as number) + (start[g] as number);
      const next = start.slice(0, actual.groups.length);
      const members = new Uint32Array(actual.size);
      for (let j = 0; j < actual.size; j++) {
        const g = actual.groupOf(j);
        const at = next[g] as number;
        members[at] = j;
        next[g] = at + 1;
      }
      this.#groupStart = start;
      this.#groupMembers = members;
    }
    return this.#actualGroupsByDep.get(key);
  }
}

/**
 * The members of `side` whose flag is `want`, by level (ascending for 1, descending for -1) and
 * then in key order when the side can order them without keys (BulkResources.keyOrder); in
 * member order otherwise, for the planner to sort.
 */
function inPlanOrder(
  side: BulkResources,
  flags: Uint8Array,
  want: number,
  levelOf: (group: number) => number,
  levelOrder: 1 | -1,
): Uint32Array {
  let n = 0;
  for (let m = 0; m < flags.length; m++) if (flags[m] === want) n++;
  let members: Uint32Array = new Uint32Array(n);
  n = 0;
  for (let m = 0; m < flags.length; m++) if (flags[m] === want) members[n++] = m;
  if (!side.keyOrder || n < 2) return members;
  members = side.keyOrder(members);
  // Then by level, keeping key order within a level (a stable counting sort: levels are few).
  const levels = new Int32Array(n);
  let top = 0;
  for (let k = 0; k < n; k++) {
    const level = levelOf(side.groupOf(members[k] as number));
    levels[k] = level;
    if (level > top) top = level;
  }
  const start = new Uint32Array(top + 2);
  for (let k = 0; k < n; k++) {
    const slot = levelOrder === 1 ? (levels[k] as number) : top - (levels[k] as number);
    start[slot + 1] = (start[slot + 1] as number) + 1;
  }
  for (let l = 0; l <= top; l++) start[l + 1] = (start[l + 1] as number) + (start[l] as number);
  const out = new Uint32Array(n);
  for (let k = 0; k < n; k++) {
    const slot = levelOrder === 1 ? (levels[k] as number) : top - (levels[k] as number);
    out[start[slot] as number] = members[k] as number;
    start[slot] = (start[slot] as number) + 1;
  }
  return out;
}
