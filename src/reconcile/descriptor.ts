/**
 * One descriptor per kind of VPP object: how to tell two values apart and how to create, delete
 * and (optionally) update one in VPP. Descriptors never decide ordering; the planner does.
 */
import type { Resource } from './resource.js';

export interface Descriptor<V = unknown, C = unknown> {
  readonly kind: string;
  /** Values are canonical, so the default is deep equality of their JSON. */
  equivalent(desired: V, actual: V): boolean;
  create(ctx: C, resource: Resource<V>): Promise<void>;
  delete(ctx: C, resource: Resource<V>): Promise<void>;
  /** In-place change; without it a difference means delete + create. */
  update?(ctx: C, desired: Resource<V>, actual: Resource<V>): Promise<void>;
}

export function canonicalEqual(a: unknown, b: unknown): boolean {
  return stableJson(a) === stableJson(b);
}

/** JSON with object keys sorted, so equal values always print the same. */
export function stableJson(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => {
    if (x && typeof x === 'object' && !Array.isArray(x)) {
      const o = x as Record<string, unknown>;
      return Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
    }
    return x;
  });
}
