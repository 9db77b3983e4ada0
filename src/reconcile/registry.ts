/**
 * The kinds one reconciler works with, registered once each: two kinds under one name would
 * make the planner and the executor pick one of them silently.
 */
import type { Descriptor } from './descriptor.js';

/** What the planner and executor look kinds up in (a registry, or a plain Map in tests). */
export interface KindLookup<C = unknown> {
  get(kind: string): Descriptor<unknown, C> | undefined;
}

export class KindRegistry<C> implements KindLookup<C> {
  readonly #kinds = new Map<string, Descriptor<unknown, C>>();

  /** Adds kinds; a kind registered already (here or in `kinds`) is an error. */
  register(...kinds: readonly Descriptor<unknown, C>[]): this {
    for (const k of kinds) {
      if (this.#kinds.has(k.kind)) throw new Error(`kind ${k.kind} is registered twice`);
      this.#kinds.set(k.kind, k);
    }
    return this;
  }

  get(kind: string): Descriptor<unknown, C> | undefined {
    return this.#kinds.get(kind);
  }

  has(kind: string): boolean {
    return this.#kinds.has(kind);
  }

  get kinds(): readonly string[] {
    return [...this.#kinds.keys()];
  }
}
