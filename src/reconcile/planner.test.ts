import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalEqual, type Descriptor } from './descriptor.js';
import { execute } from './executor.js';
import { plan } from './planner.js';
import type { Resource } from './resource.js';

const noop = (): Promise<void> => Promise.resolve();
const plain: Descriptor = { kind: 'thing', equivalent: canonicalEqual, create: noop, delete: noop };
const updatable: Descriptor = {
  kind: 'knob',
  equivalent: canonicalEqual,
  create: noop,
  delete: noop,
  update: noop,
};
const descriptors = new Map<string, Descriptor>([
  ['thing', plain],
  ['knob', updatable],
]);

function r(key: string, deps: string[] = [], value: unknown = key, kind = 'thing'): Resource {
  return { kind, key, deps, value };
}

const order = (p: ReturnType<typeof plan>): string[] => p.ops.map((o) => `${o.action} ${o.resource.key}`);

describe('planner', () => {
  it('creates dependencies before what uses them', () => {
    const p = plan(
      [r('steer', ['policy', 'table']), r('policy', ['encap']), r('encap'), r('table')],
      [],
      descriptors,
    );
    const ops = order(p);
    assert.ok(ops.indexOf('create encap') < ops.indexOf('create policy'));
    assert.ok(ops.indexOf('create policy') < ops.indexOf('create steer'));
    assert.ok(ops.indexOf('create table') < ops.indexOf('create steer'));
  });

  it('plans nothing when VPP already matches', () => {
    const want = [r('a'), r('b', ['a'])];
    const p = plan(want, want, descriptors);
    assert.deepEqual(p.ops, []);
    assert.equal(p.unchanged, 2);
  });

  it('deletes what is no longer wanted, dependents first', () => {
    const have = [r('table'), r('policy'), r('steer', ['policy', 'table'])];
    assert.deepEqual(order(plan([r('table')], have, descriptors)), ['delete steer', 'delete policy']);
  });

  it('updates in place when the descriptor can, and recreates (with dependents) when not', () => {
    const have = [r('k', [], 1, 'knob'), r('iface', [], 'old'), r('addr', ['iface'])];
    const want = [r('k', [], 2, 'knob'), r('iface', [], 'new'), r('addr', ['iface'])];
    const ops = order(plan(want, have, descriptors));
    assert.deepEqual(ops, ['delete addr', 'delete iface', 'create iface', 'update k', 'create addr']);
  });

  it('recreates a stale found resource, even one that reads back equal and could update in place', () => {
    const want = [r('k', [], 1, 'knob'), r('j', [], 1, 'knob'), r('x')];
    const have = [
      { ...r('k', [], 1, 'knob'), stale: 'its interface was re-created' },
      { ...r('j', [], 1, 'knob'), stale: 'its interface was re-created' },
      r('x'),
    ];
    const p = plan(want, have, descriptors);
    // Every stale delete first: what makes them stale in VPP goes only once none holds it.
    assert.deepEqual(order(p), ['delete j', 'delete k', 'create j', 'create k']);
    assert.match(p.ops[0]?.reason ?? '', /stale in VPP \(its interface was re-created\); recreated/);
  });

  it('keeps resources whose external dependency is missing pending, saying what they wait for', () => {
    const nic: Resource = { kind: 'thing', key: 'nic', deps: [], value: 'nic', external: true };
    const p = plan([nic, r('addr', ['nic']), r('route', ['addr']), r('other')], [], descriptors);
    assert.deepEqual(order(p), ['create other']);
    const route = p.pending.find((x) => x.resource.key === 'route');
    assert.match(route?.waitingFor ?? '', /addr, itself waiting for nic does not exist in VPP/);
  });

  it('never deletes external resources and treats a shared dependency without cycles', () => {
    const nic: Resource = { kind: 'thing', key: 'nic', deps: [], value: 'nic', external: true };
    // A diamond: both a and b need base; c needs both. No cycle must be reported.
    const want = [nic, r('base'), r('a', ['base', 'nic']), r('b', ['base', 'nic']), r('c', ['a', 'b'])];
    const p = plan(want, [nic], descriptors);
    assert.equal(p.pending.length, 0);
    assert.equal(p.ops.length, 4);
    assert.deepEqual(order(plan([], [nic], descriptors)), []);
  });

  it('reports a real dependency cycle as pending', () => {
    const p = plan([r('x', ['y']), r('y', ['x'])], [], descriptors);
    assert.equal(p.ops.length, 0);
    assert.match(p.pending[0]?.waitingFor ?? '', /cycle/);
  });
});

describe('executor', () => {
  it('skips what depends on a failed op and carries on with the rest', async () => {
    const created: string[] = [];
    const flaky: Descriptor<unknown, null> = {
      kind: 'thing',
      equivalent: canonicalEqual,
      create: (_ctx, res) => {
        if (res.key === 'bad') return Promise.reject(new Error('VPP said no'));
        created.push(res.key);
        return Promise.resolve();
      },
      delete: noop,
    };
    const p = plan([r('bad'), r('child', ['bad']), r('grandchild', ['child']), r('fine')], [], descriptors);
    const result = await execute(p, new Map([['thing', flaky]]), null);
    assert.deepEqual(created, ['fine']);
    assert.equal(result.failed.length, 1);
    assert.equal(result.failed[0]?.error.message, 'VPP said no');
    assert.deepEqual(result.skipped.map((s) => s.op.resource.key).sort(), ['child', 'grandchild']);
  });

  it('runs a level with bounded concurrency', async () => {
    let inFlight = 0;
    let peak = 0;
    const slow: Descriptor<unknown, null> = {
      kind: 'thing',
      equivalent: canonicalEqual,
      create: async () => {
        peak = Math.max(peak, ++inFlight);
        await new Promise((res) => setImmediate(res));
        inFlight--;
      },
      delete: noop,
    };
    const want = Array.from({ length: 100 }, (_, i) => r(`k${i}`));
    const result = await execute(plan(want, [], descriptors), new Map([['thing', slow]]), null, {
      window: 8,
    });
    assert.equal(result.applied, 100);
    assert.equal(peak, 8);
  });
});
