/**
 * vppinfra's pool (src/vppinfra/pool.h, VPP 26.06): elements live at stable indices; `pool_put`
 * pushes the index on a free list and `pool_get` pops the most recently freed index (LIFO) before
 * growing. Iteration (`pool_foreach`) visits used indices in increasing order.
 *
 * Index reuse is visible on the API: sw_if_index of a re-created interface, ACL indices,
 * `stats_index` of routes (load-balance pool), registration handles.
 */
export class VppPool<T> {
  readonly #items: (T | undefined)[] = [];
  readonly #free: number[] = [];
  #used = 0;

  /** pool_get: the last freed index, else the next new one. */
  add(make: (index: number) => T): number {
    const index = this.#free.length > 0 ? (this.#free.pop() as number) : this.#items.length;
    this.#items[index] = make(index);
    this.#used++;
    return index;
  }

  get(index: number): T | undefined {
    return index >= 0 && index < this.#items.length ? this.#items[index] : undefined;
  }

  has(index: number): boolean {
    return this.get(index) !== undefined;
  }

  /** pool_put */
  remove(index: number): void {
    if (this.#items[index] === undefined) return;
    this.#items[index] = undefined;
    this.#free.push(index);
    this.#used--;
  }

  get size(): number {
    return this.#used;
  }

  /** pool_len: one past the highest index ever used. */
  get length(): number {
    return this.#items.length;
  }

  /** pool_next_index: the next used index after `index`, or -1. */
  nextIndex(index: number): number {
    for (let i = index + 1; i < this.#items.length; i++) if (this.#items[i] !== undefined) return i;
    return -1;
  }

  *entries(): IterableIterator<[number, T]> {
    for (let i = 0; i < this.#items.length; i++) {
      const it = this.#items[i];
      if (it !== undefined) yield [i, it];
    }
  }

  *values(): IterableIterator<T> {
    for (const it of this.#items) if (it !== undefined) yield it;
  }
}

/**
 * The load-balance pool (src/vnet/dpo/load_balance.c): every FIB entry owns one load-balance and
 * its pool index is the entry's `stats_index`. Load-balances are reference counted (entries,
 * SR policies lock them); the index returns to the free list when the last lock goes.
 * Index 0 is taken at start-up by the special "never used" load-balance (`load_balance_module_init`).
 */
export class LoadBalancePool {
  readonly #locks = new VppPool<{ locks: number }>();

  constructor() {
    this.#locks.add(() => ({ locks: 1 }));
  }

  /** load_balance_create: a new index holding one lock. */
  create(): number {
    return this.#locks.add(() => ({ locks: 1 }));
  }

  lock(index: number): void {
    const lb = this.#locks.get(index);
    if (lb) lb.locks++;
  }

  unlock(index: number): void {
    const lb = this.#locks.get(index);
    if (!lb) return;
    if (--lb.locks === 0) this.#locks.remove(index);
  }

  get inUse(): number {
    return this.#locks.size;
  }
}
