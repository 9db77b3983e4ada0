/**
 * One descriptor per kind of VPP object: how to tell two values apart and how to create, delete
 * and (optionally) update one in VPP. Descriptors never decide ordering; the planner does.
 */
import type { MessageDef } from '../vpp/codec/schema.js';
import type { Resource } from './resource.js';

/**
 * The VPP messages a kind's create, delete and update may send, declared beside them:
 * hypervisor/required-messages.ts derives from them what a VPP must have before the agent
 * starts, and hypervisor/kind-messages.test.ts fails when a kind sends one it did not declare.
 */
export interface KindMessages {
  /** Checked when the agent connects: a VPP without one is refused at once, every one listed. */
  readonly required?: readonly MessageDef[];
  /**
   * Not checked at connect (a plugin a node may go without, a message only some values send):
   * on a VPP without one, only the operation that sends it fails.
   */
  readonly optional?: readonly MessageDef[];
}

export interface Descriptor<V = unknown, C = unknown> {
  readonly kind: string;
  /** What create, delete and update send; absent only in test doubles that send nothing. */
  readonly messages?: KindMessages;
  /** Values are canonical, so the default is deep equality of their JSON. */
  equivalent(desired: V, actual: V): boolean;
  create(ctx: C, resource: Resource<V>): Promise<void>;
  delete(ctx: C, resource: Resource<V>): Promise<void>;
  /** In-place change; without it a difference means delete + create. */
  update?(ctx: C, desired: Resource<V>, actual: Resource<V>): Promise<void>;
}

/** Deep equality of canonical values (plain objects, arrays, primitives), key order ignored. */
export function canonicalEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!canonicalEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  // for-in, not Object.keys: no array per object compared (every plain resource of a pass, in
  // code V8 has not optimized yet). Canonical values are plain data: their keys are their own.
  let count = 0;
  for (const k in ao) {
    if (!(k in bo) || !canonicalEqual(ao[k], bo[k])) return false;
    count++;
  }
  for (const _ in bo) count--;
  return count === 0;
}

/** JSON with object keys sorted, so equal values always print the same. */
export function stableJson(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => {
    if (x && typeof x === 'object' && !Array.isArray(x)) {
      const o = x as Record<string, unknown>;
      return Object.fromEntries(
        Object.keys(o)
          .sort()
          .map((k) => [k, o[k]]),
      );
    }
    return x;
  });
}
