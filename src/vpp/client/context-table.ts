/**
 * The request mux's unsettled requests by `context`, in an array indexed by the context's low
 * bits instead of a Map.
 *
 * The client chooses the contexts, so it can choose them so that no two live entries share a
 * slot: nextContext() counts up as before and only skips a value whose slot is still taken (a
 * request pending while the table's whole capacity of newer ones came and went). A lookup is
 * then one array read and one compare. Measured with 4,096 requests in flight and a get, delete
 * and set per request (the pipelined client's pattern), a Map took 490–880 ns per request (it
 * rehashes its live entries every few thousand deletes) and this table 35–75 ns.
 */

/** Slots of an empty table; it doubles while more than half full, and returns to this when empty. */
const INITIAL_CAPACITY = 1024;

export interface ContextEntry {
  readonly context: number;
}

export class ContextTable<T extends ContextEntry> {
  #slots: (T | undefined)[] = new Array<T | undefined>(INITIAL_CAPACITY).fill(undefined);
  #mask = INITIAL_CAPACITY - 1;
  #size = 0;
  #next: number;

  /** `firstContext`: where the count starts (tests start near the top of the u32 range). */
  constructor(firstContext = 1) {
    if (!Number.isInteger(firstContext) || firstContext < 1 || firstContext > 0xffffffff)
      throw new RangeError(`firstContext must be a u32 other than 0, got ${firstContext}`);
    this.#next = firstContext;
  }

  get size(): number {
    return this.#size;
  }

  /**
   * A context for a new entry: a u32, never 0 (vpp-wire.md: avoid context 0), counting up and
   * wrapping after 4 billion; never one whose slot is taken, so that set() with it cannot collide.
   */
  nextContext(): number {
    for (;;) {
      const c = this.#next;
      this.#next = c >= 0xffffffff ? 1 : c + 1;
      if (this.#slots[c & this.#mask] === undefined) return c;
    }
  }

  get(context: number): T | undefined {
    const entry = this.#slots[context & this.#mask];
    return entry !== undefined && entry.context === context ? entry : undefined;
  }

  /** Adds an entry whose context came from nextContext() and was not added since. */
  add(entry: T): void {
    if (2 * (this.#size + 1) > this.#slots.length) this.#grow();
    const i = entry.context & this.#mask;
    if (this.#slots[i] !== undefined) throw new Error(`context ${entry.context}: slot taken (a client bug)`);
    this.#slots[i] = entry;
    this.#size++;
  }

  /** Removes `entry` if it is the one stored under its context; true when it was. */
  delete(entry: T): boolean {
    const i = entry.context & this.#mask;
    if (this.#slots[i] !== entry) return false;
    this.#slots[i] = undefined;
    if (--this.#size === 0 && this.#slots.length > INITIAL_CAPACITY) {
      // A burst of 100k requests is over: give its table back.
      this.#slots = new Array<T | undefined>(INITIAL_CAPACITY).fill(undefined);
      this.#mask = INITIAL_CAPACITY - 1;
    }
    return true;
  }

  /**
   * The entries now in the table, oldest first (except for one older than the table's span of
   * contexts, which comes where its slot is): a copy, so the caller may delete while walking it.
   */
  values(): T[] {
    const out: T[] = [];
    const slots = this.#slots;
    const n = slots.length;
    // The slot after the newest context holds the oldest context still in the span.
    const from = this.#next & this.#mask;
    for (let k = 0; k < n && out.length < this.#size; k++) {
      const entry = slots[(from + k) & this.#mask];
      if (entry !== undefined) out.push(entry);
    }
    return out;
  }

  /**
   * Doubles the capacity. Entries in distinct slots stay distinct: two contexts that differ in
   * their low k bits also differ in their low k + 1.
   */
  #grow(): void {
    const old = this.#slots;
    const capacity = 2 * old.length;
    const slots = new Array<T | undefined>(capacity).fill(undefined);
    const mask = capacity - 1;
    for (const entry of old) if (entry !== undefined) slots[entry.context & mask] = entry;
    this.#slots = slots;
    this.#mask = mask;
  }
}
