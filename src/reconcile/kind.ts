/**
 * A resource kind: everything the reconciler knows about one kind of VPP object in one place —
 * how its key and its dependencies follow from its value, when two values are the same, and how
 * to create, delete and (optionally) update one. Builders make resources only through
 * `kind.resource(value)`, so a key is spelled by the kind's own function and nowhere else, and
 * `Resource.value` has the kind's type.
 */
import { canonicalEqual, type Descriptor, type KindMessages } from './descriptor.js';
import type { Resource } from './resource.js';

export interface KindSpec<V, C> {
  readonly kind: string;
  /** The VPP messages create, delete and update send (descriptor.ts). */
  readonly messages: KindMessages;
  /** The resource's key (unique across kinds), from the spellings in dataplane/keys.ts. */
  readonly key: (value: V) => string;
  /** What the value itself names (its interface, its table); none when absent. */
  readonly deps?: (value: V) => readonly string[];
  /** Values are canonical, so the default is deep equality of their JSON. */
  readonly equivalent?: (desired: V, actual: V) => boolean;
  readonly create: (ctx: C, resource: Resource<V>) => Promise<void>;
  readonly delete: (ctx: C, resource: Resource<V>) => Promise<void>;
  /** In-place change; without it a difference means delete + create. */
  readonly update?: (ctx: C, desired: Resource<V>, actual: Resource<V>) => Promise<void>;
}

export interface ResourceOptions {
  /**
   * Keys this object must also come after, beyond what its value names: ordering that depends on
   * where it is used (an address after its interface's table binding, a pod port's address after
   * its bridge membership), or on what VPP reported (a route's paths).
   */
  readonly after?: readonly string[];
  /** vppnet needs it but never creates or deletes it (the underlay NIC): see Resource.external. */
  readonly external?: boolean;
  /** With external, as found in VPP: why vppnet may not use it (Resource.unusable). */
  readonly unusable?: string;
}

export interface Kind<V, C> extends Descriptor<V, C> {
  readonly messages: KindMessages;
  key(value: V): string;
  deps(value: V): readonly string[];
  /** The one way to make a resource of this kind. */
  resource(value: V, opts?: ResourceOptions): Resource<V>;
  /** Whether a resource is of this kind (made by `resource`), so its value has type V. */
  is(r: Resource): r is Resource<V>;
}

const NONE: readonly string[] = Object.freeze([]);

export function defineKind<V, C>(spec: KindSpec<V, C>): Kind<V, C> {
  const ownDeps = spec.deps ?? ((): readonly string[] => NONE);
  const kind: Kind<V, C> = {
    kind: spec.kind,
    messages: spec.messages,
    key: spec.key,
    deps: ownDeps,
    equivalent: spec.equivalent ?? canonicalEqual,
    create: spec.create,
    delete: spec.delete,
    ...(spec.update && { update: spec.update }),
    resource(value, opts = {}) {
      const own = ownDeps(value);
      // No copy when one side is empty: a bulk kind's members share their group's list.
      const deps = !opts.after?.length ? own : own.length ? [...own, ...opts.after] : opts.after;
      const r: Resource<V> = { kind: spec.kind, key: spec.key(value), deps, value };
      if (!opts.external) return r;
      return opts.unusable === undefined
        ? { ...r, external: true }
        : { ...r, external: true, unusable: opts.unusable };
    },
    is: (r): r is Resource<V> => r.kind === spec.kind,
  };
  return kind;
}
