/**
 * Counts by up to three label values, kept in nested maps and handed to a prom-client Counter
 * when it is scraped. prom-client's inc() builds a string of the labels on every call, and the
 * agent counts every VPP op and request: at 1,000 endpoint changes a second that was ~5 % of what
 * the busiest agent allocated (bench/fleet (c), a sampling heap profile). Here a count allocates
 * nothing once its label values have been seen.
 */
import type { Counter } from 'prom-client';

interface Cell<L extends string> {
  readonly labels: Readonly<Record<L, string>>;
  count: number;
}

export class LabelTally<L extends string> {
  readonly #names: readonly L[];
  readonly #cells = new Map<string, Map<string, Map<string, Cell<L>>>>();
  readonly #all: Cell<L>[] = [];

  /** `names`: the counter's label names, in the order inc() takes their values (one to three). */
  constructor(names: readonly L[]) {
    if (names.length < 1 || names.length > 3)
      throw new Error(`a LabelTally has 1 to 3 labels, not ${names.length}`);
    this.#names = names;
  }

  inc(a: string, b = '', c = ''): void {
    let byB = this.#cells.get(a);
    if (byB === undefined) this.#cells.set(a, (byB = new Map<string, Map<string, Cell<L>>>()));
    let byC = byB.get(b);
    if (byC === undefined) byB.set(b, (byC = new Map<string, Cell<L>>()));
    let cell = byC.get(c);
    if (cell === undefined) {
      const values = [a, b, c];
      const labels = Object.fromEntries(this.#names.map((n, i) => [n, values[i]])) as Record<L, string>;
      byC.set(c, (cell = { labels, count: 0 }));
      this.#all.push(cell);
    }
    cell.count++;
  }

  /** The count for these label values (0 when never counted). */
  count(a: string, b = '', c = ''): number {
    return this.#cells.get(a)?.get(b)?.get(c)?.count ?? 0;
  }

  /** Sets `counter` to the tally: its collect() hook, before each scrape. */
  copyTo(counter: Counter<L>): void {
    counter.reset();
    for (const cell of this.#all) counter.inc(cell.labels, cell.count);
  }
}
