import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, Registry } from 'prom-client';
import { LabelTally } from './label-tally.js';

describe('LabelTally', () => {
  it('counts per label values and shows the totals in its counter at each scrape', async () => {
    const registry = new Registry();
    const tally = new LabelTally(['action', 'kind', 'outcome'] as const);
    const counter: Counter<'action' | 'kind' | 'outcome'> = new Counter({
      name: 'ops_total',
      help: 'ops',
      labelNames: ['action', 'kind', 'outcome'],
      registers: [registry],
      collect: () => tally.copyTo(counter),
    });
    tally.inc('create', 'sr-steering', 'ok');
    tally.inc('create', 'sr-steering', 'ok');
    tally.inc('create', 'sr-steering', 'failed');
    tally.inc('delete', 'sr-policy', 'ok');
    assert.equal(tally.count('create', 'sr-steering', 'ok'), 2);
    assert.equal(tally.count('update', 'sr-steering', 'ok'), 0);
    const first = await registry.metrics();
    assert.match(first, /^ops_total\{action="create",kind="sr-steering",outcome="ok"\} 2$/m);
    assert.match(first, /^ops_total\{action="create",kind="sr-steering",outcome="failed"\} 1$/m);
    assert.match(first, /^ops_total\{action="delete",kind="sr-policy",outcome="ok"\} 1$/m);
    tally.inc('create', 'sr-steering', 'ok');
    // The next scrape shows the new total, not the total added to the last one.
    assert.match(
      await registry.metrics(),
      /^ops_total\{action="create",kind="sr-steering",outcome="ok"\} 3$/m,
    );
  });

  it('takes one to three labels', async () => {
    const registry = new Registry();
    const tally = new LabelTally(['message', 'outcome'] as const);
    const counter: Counter<'message' | 'outcome'> = new Counter({
      name: 'requests_total',
      help: 'requests',
      labelNames: ['message', 'outcome'],
      registers: [registry],
      collect: () => tally.copyTo(counter),
    });
    tally.inc('sr_steering_add_del', 'ok');
    assert.match(
      await registry.metrics(),
      /^requests_total\{message="sr_steering_add_del",outcome="ok"\} 1$/m,
    );
    assert.throws(() => new LabelTally([]), /1 to 3 labels, not 0/);
    assert.throws(() => new LabelTally(['a', 'b', 'c', 'd']), /1 to 3 labels, not 4/);
  });
});
