/**
 * Logical interface names ↔ VPP sw_if_index for one VPP process. Built from the snapshot and
 * kept current as the executor creates and deletes interfaces, so later operations in the same
 * run can refer to interfaces created moments earlier.
 */
import { isOwnedTag } from './keys.js';

export class InterfaceRegistry {
  readonly #byName = new Map<string, number>();
  readonly #byIndex = new Map<number, string>();

  static fromDump(details: Iterable<{ readonly sw_if_index: number; readonly interface_name: string; readonly tag: string }>): InterfaceRegistry {
    const r = new InterfaceRegistry();
    for (const d of details) r.set(isOwnedTag(d.tag) ? d.tag : d.interface_name, d.sw_if_index);
    return r;
  }

  set(name: string, swIfIndex: number): void {
    this.#byName.set(name, swIfIndex);
    this.#byIndex.set(swIfIndex, name);
  }

  remove(name: string): void {
    const idx = this.#byName.get(name);
    this.#byName.delete(name);
    if (idx !== undefined) this.#byIndex.delete(idx);
  }

  /** The sw_if_index of a logical name; throws a clear error when VPP has no such interface. */
  index(name: string): number {
    const idx = this.#byName.get(name);
    if (idx === undefined) throw new Error(`interface ${name} does not exist in VPP`);
    return idx;
  }

  has(name: string): boolean {
    return this.#byName.has(name);
  }

  nameOf(swIfIndex: number): string | undefined {
    return this.#byIndex.get(swIfIndex);
  }

  get size(): number {
    return this.#byName.size;
  }
}
