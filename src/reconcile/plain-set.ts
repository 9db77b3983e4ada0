/**
 * The planner's bookkeeping for plain resources (one Resource each, of any kind): the only members
 * others may depend on, so the planner's dependency graph is made of them. Kept per key in maps
 * and sets; bulk kinds keep the same steps per member index (bulk-set.ts).
 */
import type { Descriptor } from './descriptor.js';
import type { DependencyVerdicts, KindSet, Levels } from './kind-set.js';
import type { Op, PendingResource, Resource } from './resource.js';

export class PlainKindSet implements KindSet {
  readonly #want: ReadonlyMap<string, Resource>;
  readonly #actualByKey: ReadonlyMap<string, Resource>;
  readonly #descriptorOf: (r: Resource) => Descriptor;
  readonly #pending = new Map<string, PendingResource>();
  readonly #creates = new Set<string>();
  readonly #updates = new Set<string>();
  readonly #deletes = new Set<string>();
  readonly #unchanged = new Set<string>();
  /** #unchanged counted by kind as it changes: countUnchanged then reads no key. */
  readonly #unchangedByKind = new Map<string, number>();
  readonly #reasons = new Map<string, string>();
  /** Found resources by the key they depend on: built at the first cascade. */
  #dependents: Map<string, string[]> | undefined;

  /** `want` and `actualByKey` (desired and actual by key); `descriptorOf` fails on a kind it does not know. */
  constructor(
    want: ReadonlyMap<string, Resource>,
    actualByKey: ReadonlyMap<string, Resource>,
    descriptorOf: (r: Resource) => Descriptor,
  ) {
    this.#want = want;
    this.#actualByKey = actualByKey;
    this.#descriptorOf = descriptorOf;
  }

  get pending(): readonly PendingResource[] {
    return [...this.#pending.values()];
  }

  classify(verdicts: DependencyVerdicts): readonly string[] {
    // One loop for both steps (a resource's step 2 reads only its own step 1): it runs once a
    // pass over every plain resource, before V8 has optimized it.
    for (const r of this.#want.values()) {
      // 1. Resources whose dependencies cannot be met stay pending, and so do their dependents.
      const why = verdicts.blockedReason(r);
      if (why !== undefined) {
        this.#pending.set(r.key, { resource: r, waitingFor: why });
        continue;
      }
      if (r.external) continue;
      // 2. Create, recreate (not equivalent and no in-place update), update, unchanged.
      const found = this.#actualByKey.get(r.key);
      const d = this.#descriptorOf(r);
      if (!found) {
        this.#creates.add(r.key);
        this.#reasons.set(r.key, 'missing in VPP');
      } else if (found.stale !== undefined) {
        // Deleted in the delete phase, before anything is created: what makes it stale in VPP
        // (a shared path-list) goes only once every stale object holding it is gone.
        this.#deletes.add(r.key);
        this.#creates.add(r.key);
        this.#reasons.set(r.key, `stale in VPP (${found.stale}); recreated`);
      } else if (d.equivalent(r.value, found.value)) {
        this.#unchanged.add(r.key);
        this.#unchangedByKind.set(r.kind, (this.#unchangedByKind.get(r.kind) ?? 0) + 1);
      } else if (d.update) {
        this.#updates.add(r.key);
        this.#reasons.set(r.key, 'differs from VPP');
      } else {
        this.#deletes.add(r.key);
        this.#creates.add(r.key);
        this.#reasons.set(r.key, 'differs from VPP; recreated');
      }
    }
    for (const r of this.#actualByKey.values()) {
      if (!this.#want.has(r.key) && !r.external) {
        this.#deletes.add(r.key);
        this.#reasons.set(r.key, 'not in the desired state');
      }
    }
    return [...this.#deletes];
  }

  cascade(key: string): readonly string[] {
    const removed: string[] = [];
    for (const child of this.#dependentsOf(key)) {
      if (this.#deletes.has(child)) continue;
      this.#deletes.add(child);
      removed.push(child);
      if (this.#want.has(child) && !this.#pending.has(child)) {
        this.#creates.add(child);
        this.#updates.delete(child);
        if (this.#unchanged.delete(child)) {
          const kind = (this.#want.get(child) as Resource).kind;
          this.#unchangedByKind.set(kind, (this.#unchangedByKind.get(kind) as number) - 1);
        }
        this.#reasons.set(child, `recreated with ${key}`);
      } else {
        this.#reasons.set(child, `removed with ${key}`);
      }
    }
    return removed;
  }

  ops(found: Levels, desired: Levels): { deletes: Op[]; applies: Op[] } {
    const reason = (key: string): string => this.#reasons.get(key) ?? '';
    const deletes: Op[] = [];
    for (const key of this.#deletes) {
      const r = this.#actualByKey.get(key) as Resource;
      deletes.push({
        action: 'delete',
        kind: r.kind,
        key,
        resource: r,
        level: found.of(key),
        reason: reason(key),
      });
    }
    const applies: Op[] = [];
    for (const key of this.#creates) {
      const r = this.#want.get(key) as Resource;
      applies.push({
        action: 'create',
        kind: r.kind,
        key,
        resource: r,
        level: desired.of(key),
        reason: reason(key),
      });
    }
    for (const key of this.#updates) {
      const r = this.#want.get(key) as Resource;
      const previous = this.#actualByKey.get(key) as Resource;
      applies.push({
        action: 'update',
        kind: r.kind,
        key,
        resource: r,
        previous,
        level: desired.of(key),
        reason: reason(key),
      });
    }
    return { deletes, applies };
  }

  countUnchanged(into: Map<string, number>): void {
    for (const [kind, n] of this.#unchangedByKind) if (n > 0) into.set(kind, (into.get(kind) ?? 0) + n);
  }

  #dependentsOf(key: string): readonly string[] {
    if (!this.#dependents) {
      this.#dependents = new Map();
      for (const r of this.#actualByKey.values()) {
        for (const dep of r.deps) {
          const list = this.#dependents.get(dep) ?? [];
          list.push(r.key);
          this.#dependents.set(dep, list);
        }
      }
    }
    return this.#dependents.get(key) ?? [];
  }
}
