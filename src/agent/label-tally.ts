/**
 * A counter by up to three labels, kept in nested maps and handed to a prom-client Counter when
 * it is scraped. prom-client's inc() builds a string of the labels on every call, and the agent
 * counts every VPP op and request: at 1,000 endpoint changes a second that was ~5 % of what the
 * busiest agent allocated (bench/fleet (c), a sampling heap profile). Here a count allocates
 * nothing once its label values have been seen.
 *
 * How it meets prom-client, as histogram-tally.ts does: through a real Counter (a small subclass
 * below), registered the ordinary way, whose series the tally rewrites in the Counter's collect
 * hook just before prom-client reads them, so prom-client writes the exposition. The Counter's
 * reset() (what Registry.resetMetrics() calls) forgets the tally too: otherwise the next scrape
 * would copy the old totals back.
 */
import { Counter, type OpenMetricsContentType, type Registry } from 'prom-client';

export interface LabelTallyConfig<L extends string> {
  readonly name: string;
  readonly help: string;
  /** The counter's label names, in the order inc() takes their values (one to three). */
  readonly labelNames: readonly L[];
  readonly registers: readonly (Registry | Registry<OpenMetricsContentType>)[];
}

interface Cell<L extends string> {
  readonly labels: Readonly<Record<L, string>>;
  count: number;
}

/**
 * The Counter the registry reads: its reset() forgets the tally as prom-client's forgets its
 * series. Its own inc() (reachable through registry.getSingleMetric()) is not for use: each scrape
 * rewrites its series from the tally.
 */
class TalliedCounter<L extends string> extends Counter<L> {
  /** Set once constructed: prom-client's Metric constructor calls reset() before it returns. */
  onReset: (() => void) | undefined;

  override reset(): void {
    super.reset();
    this.onReset?.();
  }

  /** prom-client's reset() alone: the series cleared before a scrape's copy, the tally kept. */
  clearSeries(): void {
    super.reset();
  }
}

export class LabelTally<L extends string> {
  readonly #names: readonly L[];
  readonly #cells = new Map<string, Map<string, Map<string, Cell<L>>>>();
  #all: Cell<L>[] = [];
  readonly #counter: TalliedCounter<L>;

  constructor(config: LabelTallyConfig<L>) {
    const names = config.labelNames;
    if (names.length < 1 || names.length > 3)
      throw new Error(`${config.name}: a LabelTally has 1 to 3 labels, not ${names.length}`);
    this.#names = names;
    const counter: TalliedCounter<L> = new TalliedCounter<L>({
      name: config.name,
      help: config.help,
      labelNames: [...names],
      registers: [...config.registers],
      collect: (): void => this.#copyTo(counter),
    });
    counter.onReset = () => {
      this.#cells.clear();
      this.#all = [];
    };
    this.#counter = counter;
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

  /** The count for these label values (0 when never counted, or not since a reset). */
  count(a: string, b = '', c = ''): number {
    return this.#cells.get(a)?.get(b)?.get(c)?.count ?? 0;
  }

  /** Forgets every count, as prom-client's reset() (also what Registry.resetMetrics() calls). */
  reset(): void {
    this.#counter.reset();
  }

  /** Sets the counter's series to the tally: its collect() hook, before each scrape. */
  #copyTo(counter: TalliedCounter<L>): void {
    counter.clearSeries();
    for (const cell of this.#all) counter.inc(cell.labels, cell.count);
  }
}
