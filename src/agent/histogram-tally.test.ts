import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Histogram, Registry, type RegistryContentType } from 'prom-client';
import { pickWith, seededRandom } from '../util/testing/seeded-random.js';
import { HistogramTally } from './histogram-tally.js';

const NAME = 'request_duration_seconds';
const HELP = 'Round trip of requests, by request message.';
const BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];

/** A plain prom-client Histogram (the oracle) and a tally, each in a registry of its own. */
function pair(contentType: RegistryContentType = Registry.PROMETHEUS_CONTENT_TYPE) {
  const plainRegistry = new Registry<RegistryContentType>();
  const tallyRegistry = new Registry<RegistryContentType>();
  plainRegistry.setContentType(contentType);
  tallyRegistry.setContentType(contentType);
  const plain = new Histogram({
    name: NAME,
    help: HELP,
    labelNames: ['message'],
    buckets: BUCKETS,
    registers: [plainRegistry],
  });
  const tally = new HistogramTally({
    name: NAME,
    help: HELP,
    labelName: 'message',
    buckets: BUCKETS,
    registers: [tallyRegistry],
  });
  return {
    plainRegistry,
    tallyRegistry,
    observe(message: string, value: number): void {
      plain.observe({ message }, value);
      tally.observe(message, value);
    },
    tally,
    async assertSame(): Promise<void> {
      assert.equal(await tallyRegistry.metrics(), await plainRegistry.metrics());
      assert.deepEqual(await tallyRegistry.getMetricsAsJSON(), await plainRegistry.getMetricsAsJSON());
    },
  };
}

/** Values that land everywhere: on each bound exactly, just either side, 0, past the last bound. */
function valueWith(random: () => number): number {
  const bound = pickWith(random, BUCKETS);
  switch (Math.floor(random() * 6)) {
    case 0:
      return bound;
    case 1:
      return bound * (1 - Number.EPSILON);
    case 2:
      return bound * (1 + Number.EPSILON);
    case 3:
      return 0;
    case 4:
      return 5 + random() * 100;
    default:
      return random() * random() * 0.05;
  }
}

const MESSAGES = [
  'sr_steering_add_del',
  'ip_route_add_del',
  'sw_interface_dump',
  'control_ping',
  'a"b\\c\nd',
];

describe('HistogramTally', () => {
  for (const contentType of [Registry.PROMETHEUS_CONTENT_TYPE, Registry.OPENMETRICS_CONTENT_TYPE]) {
    it(`shows exactly what a prom-client Histogram shows for the same observations (${contentType.split(';')[0]})`, async () => {
      for (const seed of [1, 2, 3, 0xc0ffee]) {
        const random = seededRandom(seed);
        const p = pair(contentType);
        await p.assertSame(); // nothing observed: no series at all
        // A label value never observed has no series in either; the rest appear in first-seen order.
        const seen = MESSAGES.filter(() => random() < 0.8);
        for (let round = 0; round < 3; round++) {
          for (let i = 0; i < 400; i++) p.observe(pickWith(random, seen), valueWith(random));
          // Each scrape shows the totals so far, not the totals added to the last scrape's.
          await p.assertSame();
        }
      }
    });
  }

  it('counts every value exactly on a bound in that bound, as prom-client does', async () => {
    const p = pair();
    for (const b of BUCKETS) p.observe('on_bound', b);
    p.observe('on_bound', 0);
    p.observe('above', 5.000001);
    await p.assertSame();
    const text = await p.tallyRegistry.metrics();
    assert.match(text, /^request_duration_seconds_bucket\{le="0.0001",message="on_bound"\} 2$/m);
    assert.match(text, /^request_duration_seconds_bucket\{le="5",message="on_bound"\} 14$/m);
    assert.match(text, /^request_duration_seconds_bucket\{le="5",message="above"\} 0$/m);
    assert.match(text, /^request_duration_seconds_bucket\{le="\+Inf",message="above"\} 1$/m);
    assert.match(text, /^request_duration_seconds_count\{message="above"\} 1$/m);
  });

  it('throws on NaN and infinities and counts nothing, and takes a negative value, as prom-client does', async () => {
    const p = pair();
    p.observe('seen', 0.003);
    for (const bad of [NaN, Infinity, -Infinity]) {
      const plainError = (() => {
        try {
          p.observe('seen', bad);
        } catch (err) {
          return err;
        }
        return undefined;
      })();
      assert.ok(plainError instanceof TypeError);
      assert.throws(() => p.tally.observe('seen', bad), { name: 'TypeError', message: plainError.message });
      assert.throws(() => p.tally.observe('never_seen', bad), TypeError);
    }
    // A negative value (a wall clock stepped back) goes in the first bucket and lowers the sum.
    p.observe('seen', -0.002);
    await p.assertSame();
    assert.doesNotMatch(await p.tallyRegistry.metrics(), /never_seen/);
    assert.match(await p.tallyRegistry.metrics(), /^request_duration_seconds_sum\{message="seen"\} 0.001$/m);
  });

  it("forgets every series on the registry's resetMetrics() and on reset(), as prom-client does", async () => {
    const p = pair();
    p.observe('before', 0.01);
    await p.assertSame();
    p.plainRegistry.resetMetrics();
    p.tallyRegistry.resetMetrics();
    await p.assertSame();
    assert.doesNotMatch(await p.tallyRegistry.metrics(), /before/);
    p.observe('after', 0.02);
    await p.assertSame();
    p.tally.reset();
    assert.doesNotMatch(await p.tallyRegistry.metrics(), /message="after"/);
  });

  it('shows default labels as prom-client does', async () => {
    const p = pair();
    p.plainRegistry.setDefaultLabels({ node: 'hv0' });
    p.tallyRegistry.setDefaultLabels({ node: 'hv0' });
    p.observe('control_ping', 0.0002);
    await p.assertSame();
  });

  it('takes only finite, strictly increasing buckets', () => {
    const config = { name: NAME, help: HELP, labelName: 'message', registers: [new Registry()] };
    for (const buckets of [[0.1, 0.1], [1, 0.5], [0.1, NaN], [Infinity]])
      assert.throws(() => new HistogramTally({ ...config, buckets }), /finite and strictly increasing/);
  });
});
