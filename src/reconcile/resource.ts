/**
 * What the reconciler works on: resources (one VPP object each, identified by a key the model
 * builds) and the operations that turn what VPP has into what is desired.
 */

/** One VPP object as vppnet wants it or found it. `value` is canonical: equal iff equivalent. */
export interface Resource<V = unknown> {
  readonly kind: string;
  /** Unique across kinds; built only by the model's key functions (keys.ts). */
  readonly key: string;
  /** Keys this object cannot exist without (created first, deleted last). */
  readonly deps: readonly string[];
  readonly value: V;
  /**
   * Objects vppnet needs but never creates or deletes (the underlay NIC). Missing in VPP, they
   * leave their dependents pending with a reason instead of producing operations.
   */
  readonly external?: boolean;
  /**
   * An external object VPP has that vppnet may not use, and why (a VM port's interface that
   * belongs to another program): its dependents wait with this reason, as for a missing one.
   */
  readonly unusable?: string;
  /**
   * A found object that reads back as desired but no longer works, and why (a route through an
   * interface that was deleted and created again: dataplane/reset-interfaces.ts): the planner
   * deletes it and creates it again.
   */
  readonly stale?: string;
}

export type OpAction = 'create' | 'delete' | 'update';

export interface Op {
  readonly action: OpAction;
  readonly kind: string;
  /** The resource's key, known without building the resource. */
  readonly key: string;
  /**
   * The resource to create, delete or update. A bulk member's (bulk.ts) is built when asked for,
   * so that a plan of 100k steering ops does not hold 100k Resources.
   */
  readonly resource: Resource;
  /**
   * The resource's deps, when an op knows them without building the resource (a bulk member's
   * group list): what the executor waits on. Absent: `resource.deps`.
   */
  readonly deps?: readonly string[];
  /**
   * Runs the op without building `resource` (or, for an update, `previous`), when the kind can
   * (a bulk member from its own columns, bulk.ts): the executor calls it instead of the descriptor.
   */
  run?(ctx: unknown): Promise<unknown>;
  /**
   * Nothing depends on this op's resource (a bulk member, bulk.ts): the executor keeps no
   * bookkeeping by its key. Absent: it may have dependents.
   */
  readonly leaf?: boolean;
  /** For update: what VPP has now. */
  readonly previous?: Resource;
  /** Dependency depth: ops of one phase and level are independent of each other (plan order). */
  readonly level: number;
  /** Why the op exists, for `vppnet plan` and logs. */
  readonly reason: string;
}

export interface PendingResource {
  readonly resource: Resource;
  /** The dependency it waits for and why. */
  readonly waitingFor: string;
}

export interface Plan {
  /** Deletes first (dependents before what they use), then creates and updates (the reverse). */
  readonly ops: readonly Op[];
  readonly pending: readonly PendingResource[];
  /** Desired resources already in place. */
  readonly unchanged: number;
  /** The same, per kind (kinds with none left out). */
  readonly unchangedByKind: ReadonlyMap<string, number>;
}
