/**
 * A name ↔ VPP index map for objects whose index VPP picks at creation (interfaces, ACLs): built
 * from a snapshot and kept current as the executor creates and deletes them, so later operations
 * in the same run can refer to objects created moments earlier.
 */
export class NameIndex {
  readonly #what: string;
  readonly #byName = new Map<string, number>();
  readonly #byIndex = new Map<number, string>();

  /** `what` names the kind of object in errors ("interface", "ACL"). */
  constructor(what: string) {
    this.#what = what;
  }

  set(name: string, index: number): void {
    this.#byName.set(name, index);
    this.#byIndex.set(index, name);
  }

  remove(name: string): void {
    const idx = this.#byName.get(name);
    this.#byName.delete(name);
    if (idx !== undefined) this.#byIndex.delete(idx);
  }

  /** The index of a name; throws a clear error when VPP has no such object. */
  index(name: string): number {
    const idx = this.#byName.get(name);
    if (idx === undefined) throw new Error(`${this.#what} ${name} does not exist in VPP`);
    return idx;
  }

  has(name: string): boolean {
    return this.#byName.has(name);
  }

  /** The name registered for an index, if any. */
  protected lookupName(index: number): string | undefined {
    return this.#byIndex.get(index);
  }

  get size(): number {
    return this.#byName.size;
  }
}
