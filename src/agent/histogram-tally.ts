/**
 * A histogram by one label, kept as per-bucket counts, sum and count per label value and handed to
 * a prom-client Histogram when it is scraped. prom-client's observe() builds a closure and a
 * labels object, validates the labels, hashes them into a string and scans its buckets on every
 * call; the agent observes every VPP request (~101k in a fleet cold start), where that was ~73 ms
 * of the reconcile pass's CPU. Here an observation allocates nothing once its label value has been
 * seen: a Map lookup, a scan of the bounds, three additions.
 *
 * How it meets prom-client: through a real Histogram (a small subclass below), registered the
 * ordinary way, whose series the tally rewrites from its cells in the Histogram's collect hook, just
 * before prom-client reads them. prom-client itself then writes the exposition (text, JSON,
 * OpenMetrics, default labels, the cluster aggregator), so it cannot drift from what a plain
 * Histogram shows. The alternatives rely on more: a custom object passed to registerMetric needs a
 * cast to prom-client's Metric union and must reproduce its value pairs (`sharedLabels`,
 * `metricName`, `exemplar`: a shape that changed between prom-client 14 and 15); overriding
 * getForPromString() relies on the registry preferring it and on get() splaying its output.
 *
 * The prom-client internals relied on (lib/histogram.js and lib/metric.js, 15.1): a Histogram keeps
 * its series in `hashMap`, an object whose values are `{ labels, bucketValues, sum, count }` with
 * `bucketValues` keyed by each upper bound (not cumulative; values above the last bound are in
 * none), and reads it after its collect hook; Registry.resetMetrics() calls reset(), and the
 * Metric constructor calls reset() once too. The oracle test (histogram-tally.test.ts) compares the
 * whole exposition with a plain Histogram's, so an upgrade that changes any of this fails there.
 */
import { format } from 'node:util';
import { Histogram, type OpenMetricsContentType, type Registry } from 'prom-client';

export interface HistogramTallyConfig<L extends string> {
  readonly name: string;
  readonly help: string;
  /** The one label observations are kept by. */
  readonly labelName: L;
  /** Upper bounds, strictly increasing and finite (prom-client does not check; the tally does). */
  readonly buckets: readonly number[];
  readonly registers: readonly (Registry | Registry<OpenMetricsContentType>)[];
}

/** One series of prom-client's Histogram, as its `hashMap` holds it. */
interface HistogramEntry {
  readonly labels: Readonly<Record<string, string>>;
  readonly bucketValues: Record<string, number>;
  readonly sum: number;
  readonly count: number;
}

/**
 * The Histogram the registry reads: its reset() forgets the tally as prom-client's forgets its
 * series. Its own observe(), zero() and remove() (reachable through registry.getSingleMetric()) are
 * not for use: each scrape rewrites its series from the tally.
 */
class TalliedHistogram<L extends string> extends Histogram<L> {
  declare hashMap: Record<string, HistogramEntry>;
  /** Set once constructed: prom-client's Metric constructor calls reset() before it returns. */
  onReset: (() => void) | undefined;

  override reset(): void {
    super.reset();
    this.onReset?.();
  }
}

interface Cell {
  /** Shared by every scrape's copy: prom-client only reads it. */
  readonly labels: Readonly<Record<string, string>>;
  /** Per bound, not cumulative; the last element counts values above every bound. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

export class HistogramTally<L extends string> {
  readonly #labelName: L;
  readonly #bounds: Float64Array;
  /** prom-client's bucketValues keys, the bounds as its object keys spell them. */
  readonly #boundKeys: readonly string[];
  readonly #cells = new Map<string, Cell>();
  readonly #histogram: TalliedHistogram<L>;

  constructor(config: HistogramTallyConfig<L>) {
    const { buckets } = config;
    buckets.forEach((b, i) => {
      if (!Number.isFinite(b) || (i > 0 && !(b > (buckets[i - 1] ?? -Infinity))))
        throw new Error(
          `${config.name}: buckets must be finite and strictly increasing, got ${format(buckets)}`,
        );
    });
    this.#labelName = config.labelName;
    this.#bounds = Float64Array.from(buckets);
    this.#boundKeys = buckets.map(String);
    const histogram: TalliedHistogram<L> = new TalliedHistogram<L>({
      name: config.name,
      help: config.help,
      labelNames: [config.labelName],
      buckets: [...buckets],
      registers: [...config.registers],
      collect: (): void => this.#copyTo(histogram),
    });
    histogram.onReset = () => this.#cells.clear();
    this.#histogram = histogram;
  }

  /**
   * Counts `value` (seconds, say) for the label value `labelValue`. As prom-client's observe(): NaN
   * and ±Infinity throw a TypeError and count nothing; a negative value counts in the first bucket
   * and lowers the sum.
   */
  observe(labelValue: string, value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${format(value)}`);
    const cell = this.#cells.get(labelValue) ?? this.#add(labelValue);
    // The first bound at or above the value, as prom-client's findBound; past the last, the overflow.
    const bounds = this.#bounds;
    let i = 0;
    while (value > (bounds[i] ?? Infinity)) i++;
    cell.counts[i] = (cell.counts[i] ?? 0) + 1;
    cell.sum += value;
    cell.count++;
  }

  /** Forgets every label value, as prom-client's reset() (also what Registry.resetMetrics() calls). */
  reset(): void {
    this.#histogram.reset();
  }

  #add(labelValue: string): Cell {
    const cell: Cell = {
      labels: { [this.#labelName]: labelValue },
      counts: new Float64Array(this.#bounds.length + 1),
      sum: 0,
      count: 0,
    };
    this.#cells.set(labelValue, cell);
    return cell;
  }

  /** Rewrites the histogram's series from the cells, in the order their label values were first seen. */
  #copyTo(histogram: TalliedHistogram<L>): void {
    const hashMap: Record<string, HistogramEntry> = {};
    for (const [labelValue, cell] of this.#cells) {
      const bucketValues: Record<string, number> = {};
      this.#boundKeys.forEach((key, i) => (bucketValues[key] = cell.counts[i] ?? 0));
      // prom-client's own key: never an integer-like string, so the object keeps insertion order.
      hashMap[`${this.#labelName}:${labelValue},`] = {
        labels: cell.labels,
        bucketValues,
        sum: cell.sum,
        count: cell.count,
      };
    }
    histogram.hashMap = hashMap;
  }
}
