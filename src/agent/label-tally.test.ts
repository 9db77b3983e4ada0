import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { LabelTally } from './label-tally.js';

/** A tally by message and outcome, registered in a registry of its own. */
function requestTally() {
  const registry = new Registry();
  const tally = new LabelTally({
    name: 'requests_total',
    help: 'requests',
    labelNames: ['message', 'outcome'] as const,
    registers: [registry],
  });
  return { registry, tally };
}

describe('LabelTally', () => {
  it('counts per label values and shows the totals in its counter at each scrape', async () => {
    const registry = new Registry();
    const tally = new LabelTally({
      name: 'ops_total',
      help: 'ops',
      labelNames: ['action', 'kind', 'outcome'] as const,
      registers: [registry],
    });
    tally.inc('create', 'sr-steering', 'ok');
    tally.inc('create', 'sr-steering', 'ok');
    tally.inc('create', 'sr-steering', 'failed');
    tally.inc('delete', 'sr-policy', 'ok');
    assert.equal(tally.count('create', 'sr-steering', 'ok'), 2);
    assert.equal(tally.count('update', 'sr-steering', 'ok'), 0);
    const first = await registry.metrics();
    assert.match(first, /^# TYPE ops_total counter$/m);
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
    const { registry, tally } = requestTally();
    tally.inc('sr_steering_add_del', 'ok');
    assert.match(
      await registry.metrics(),
      /^requests_total\{message="sr_steering_add_del",outcome="ok"\} 1$/m,
    );
    const config = { help: 'x', registers: [new Registry()] };
    assert.throws(
      () => new LabelTally({ ...config, name: 'none_total', labelNames: [] }),
      /none_total: a LabelTally has 1 to 3 labels, not 0/,
    );
    assert.throws(
      () => new LabelTally({ ...config, name: 'four_total', labelNames: ['a', 'b', 'c', 'd'] }),
      /four_total: a LabelTally has 1 to 3 labels, not 4/,
    );
  });

  it("forgets every count on the registry's resetMetrics() and on reset(), as prom-client does", async () => {
    const { registry, tally } = requestTally();
    tally.inc('control_ping', 'ok');
    tally.inc('control_ping', 'ok');
    assert.match(await registry.metrics(), /^requests_total\{message="control_ping",outcome="ok"\} 2$/m);
    registry.resetMetrics();
    assert.equal(tally.count('control_ping', 'ok'), 0);
    // Not copied back from the tally at the next scrape.
    assert.doesNotMatch(await registry.metrics(), /^requests_total\{/m);
    tally.inc('control_ping', 'ok');
    assert.match(await registry.metrics(), /^requests_total\{message="control_ping",outcome="ok"\} 1$/m);
    tally.reset();
    assert.doesNotMatch(await registry.metrics(), /^requests_total\{/m);
    tally.inc('control_ping', 'retval');
    const after = await registry.metrics();
    assert.match(after, /^requests_total\{message="control_ping",outcome="retval"\} 1$/m);
    assert.doesNotMatch(after, /outcome="ok"/);
  });
});
