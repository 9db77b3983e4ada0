import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalEqual, type Descriptor } from './descriptor.js';
import { execute, type ExecutionResult } from './executor.js';
import { FailingResources } from './failing-resources.js';
import { plan as makePlan } from './planner.js';
import type { Op, Plan, Resource } from './resource.js';

function r(key: string, value: unknown = key, deps: string[] = []): Resource {
  return { kind: 'thing', key, deps, value };
}

function op(resource: Resource, action: Op['action'] = 'create'): Op {
  return { action, kind: resource.kind, key: resource.key, resource, level: 0, reason: 'test' };
}

function planOf(...ops: Op[]): Plan {
  return { ops, pending: [], unchanged: 0, unchangedByKind: new Map() };
}

function failedResult(failed: Op[], skipped: Op[] = []): ExecutionResult {
  return {
    applied: 0,
    failed: failed.map((o) => ({ op: o, error: new Error(`${o.key} refused`) })),
    skipped: skipped.map((o) => ({ op: o, reason: 'held' })),
  };
}

function book(maxTracked?: number): { failing: FailingResources; clock: { now: number } } {
  const clock = { now: 1_000_000 };
  const failing = new FailingResources({
    backoff: { initialMs: 100, maxMs: 1_000 },
    clock: () => clock.now,
    ...(maxTracked === undefined ? {} : { maxTracked }),
  });
  return { failing, clock };
}

describe('FailingResources', () => {
  it('gives each resource its own doubling delay, up to the ceiling', () => {
    const { failing, clock } = book();
    const a = op(r('a'));
    const b = op(r('b'));
    for (let i = 0; i < 5; i++) failing.record(planOf(a), failedResult([a]), true);
    failing.record(planOf(a, b), failedResult([a, b]), true);
    const [first, second] = failing.list();
    assert.equal(first?.key, 'b', 'soonest retry first');
    assert.equal(first?.attempts, 1);
    assert.equal(first?.retryAt, clock.now + 100);
    assert.equal(second?.key, 'a');
    assert.equal(second?.attempts, 6);
    assert.equal(second?.retryAt, clock.now + 1_000, '100 × 2^5 capped at 1,000');
    assert.equal(second?.error, 'a refused');
    assert.equal(failing.nextRetryAt(), clock.now + 100);
    assert.deepEqual([...failing.countByKind()], [['thing', 2]]);
  });

  it('holds the failed op until its retry is due, and not another action or a new value', () => {
    const { failing, clock } = book();
    const a = op(r('a', { via: 'eth0' }));
    failing.record(planOf(a), failedResult([a]), true);
    const hold = failing.holdForPass();
    assert.ok(hold);
    assert.match(
      hold(op(r('a', { via: 'eth0' }))) ?? '',
      /^held until .*: create failed once \(a refused\)$/,
    );
    assert.equal(hold(op(r('a', { via: 'eth1' }))), undefined, 'a new desired value runs now');
    assert.equal(hold(op(r('a', { via: 'eth0' }), 'delete')), undefined, 'another action runs now');
    assert.equal(hold(op(r('b'))), undefined, 'a resource that never failed runs');
    clock.now += 100;
    assert.equal(failing.holdForPass()?.(a), undefined, 'due: it runs');
  });

  it('a new value that fails too starts a new series', () => {
    const { failing, clock } = book();
    const old = op(r('a', 1));
    for (let i = 0; i < 3; i++) failing.record(planOf(old), failedResult([old]), true);
    const changed = op(r('a', 2));
    clock.now += 5;
    failing.record(planOf(changed), failedResult([changed]), true);
    assert.deepEqual(
      failing.list().map((f) => [f.attempts, f.since, f.retryAt]),
      [[1, clock.now, clock.now + 100]],
    );
  });

  it('a full pass settles what neither failed nor was skipped; a delta only what it had ops for', () => {
    const { failing } = book();
    const a = op(r('a'));
    const b = op(r('b'));
    const c = op(r('c'));
    failing.record(planOf(a, b, c), failedResult([a, b, c]), true);
    // A delta with an op on b that worked: b is settled, a and c (not in the delta) stay.
    failing.record(planOf(b), failedResult([]), false);
    assert.deepEqual(
      failing.list().map((f) => f.key),
      ['a', 'c'],
    );
    // A full pass where a was held (skipped) and c is no longer there: a stays, c goes.
    failing.record(planOf(a), failedResult([], [a]), true);
    assert.deepEqual(
      failing.list().map((f) => [f.key, f.attempts]),
      [['a', 1]],
      'a held op keeps its series',
    );
    failing.clear();
    assert.equal(failing.size, 0);
    assert.equal(failing.holdForPass(), undefined, 'an empty book holds nothing, and costs no call per op');
  });

  it('tracks at most maxTracked resources; the rest are counted for a retry of the whole pass', () => {
    const { failing } = book(2);
    const ops = ['a', 'b', 'c', 'd'].map((k) => op(r(k)));
    failing.record(planOf(...ops), failedResult(ops), true);
    assert.equal(failing.size, 2);
    assert.equal(failing.untracked, 2);
    // Next pass: a tracked one fails again (kept), the untracked ones are counted again.
    failing.record(planOf(...ops), failedResult(ops), true);
    assert.equal(failing.size, 2);
    assert.equal(failing.untracked, 2);
    failing.record(planOf(...ops), failedResult([]), true);
    assert.equal(failing.untracked, 0);
    assert.equal(failing.size, 0);
  });
});

describe('executor hold', () => {
  it('skips a held op and what depends on it, and runs the rest', async () => {
    const ran: string[] = [];
    const kind: Descriptor<unknown, null> = {
      kind: 'thing',
      equivalent: canonicalEqual,
      create: (_ctx, res) => {
        ran.push(res.key);
        return Promise.resolve();
      },
      delete: () => Promise.resolve(),
    };
    const kinds = new Map([['thing', kind]]);
    const p = makePlan([r('table'), r('route', 'route', ['table']), r('other')], [], kinds);
    const result = await execute(p, kinds, null, {
      hold: (o) => (o.key === 'table' ? 'held until later' : undefined),
    });
    assert.deepEqual(ran, ['other']);
    assert.equal(result.applied, 1);
    assert.deepEqual(
      result.skipped.map((s) => [s.op.key, s.reason]),
      [
        ['table', 'held until later'],
        ['route', 'waiting for table, which was skipped'],
      ],
    );
  });
});
