import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { execute } from './executor.js';
import { inPlaceByKind } from './in-place.js';
import { defineKind } from './kind.js';
import { plan } from './planner.js';
import { KindRegistry } from './registry.js';

interface PortValue {
  readonly port: string;
  readonly bridge: string;
}

const noop = (): Promise<void> => Promise.resolve();
const bridge = defineKind<{ readonly name: string }, null>({
  kind: 'bridge',
  messages: {},
  key: (v) => `bridge:${v.name}`,
  create: noop,
  delete: noop,
});
const port = defineKind<PortValue, null>({
  kind: 'port',
  messages: {},
  key: (v) => `port:${v.port}`,
  deps: (v) => [bridge.key({ name: v.bridge })],
  create: (_ctx, r) => (r.value.port === 'bad' ? Promise.reject(new Error('refused')) : Promise.resolve()),
  delete: noop,
});

describe('defineKind', () => {
  it('makes resources whose key and dependencies come from the kind, plus the ordering a builder adds', () => {
    const r = port.resource({ port: 'p1', bridge: 'b' }, { after: ['other'] });
    assert.deepEqual(r, {
      kind: 'port',
      key: 'port:p1',
      deps: ['bridge:b', 'other'],
      value: { port: 'p1', bridge: 'b' },
    });
    assert.equal(bridge.resource({ name: 'b' }, { external: true }).external, true);
    assert.equal(port.is(r), true);
    assert.equal(bridge.is(r), false);
  });

  it('compares values by their canonical JSON unless the kind says otherwise', () => {
    assert.equal(port.equivalent({ port: 'p', bridge: 'b' }, { bridge: 'b', port: 'p' }), true);
    assert.equal(port.equivalent({ port: 'p', bridge: 'b' }, { bridge: 'c', port: 'p' }), false);
  });
});

describe('KindRegistry', () => {
  it('refuses a kind registered twice, naming it', () => {
    const registry = new KindRegistry<null>().register(bridge, port);
    assert.deepEqual(registry.kinds, ['bridge', 'port']);
    const twin = defineKind<PortValue, null>({
      kind: 'port',
      messages: {},
      key: (v) => v.port,
      create: noop,
      delete: noop,
    });
    assert.throws(() => registry.register(twin), /kind port is registered twice/);
    assert.throws(() => new KindRegistry<null>().register(bridge, bridge), /kind bridge is registered twice/);
    assert.equal(registry.get('port'), port);
  });
});

describe('inPlaceByKind', () => {
  it('counts per kind what was unchanged and what was applied, not what failed or was skipped', async () => {
    const kinds = new KindRegistry<null>().register(bridge, port);
    const b = bridge.resource({ name: 'b' });
    const missing = bridge.resource({ name: 'gone' });
    const desired = [
      b,
      port.resource({ port: 'kept', bridge: 'b' }),
      port.resource({ port: 'new', bridge: 'b' }),
      port.resource({ port: 'bad', bridge: 'b' }),
      port.resource({ port: 'waits', bridge: 'gone' }),
    ];
    const p = plan(desired, [b, port.resource({ port: 'kept', bridge: 'b' })], kinds);
    assert.deepEqual(
      [...p.unchangedByKind],
      [
        ['bridge', 1],
        ['port', 1],
      ],
    );
    assert.deepEqual(
      p.ops.map((o) => `${o.action} ${o.kind} ${o.key}`),
      ['create port port:bad', 'create port port:new'],
    );
    assert.match(p.pending[0]?.waitingFor ?? '', new RegExp(`${missing.key}: not part of the desired state`));
    const result = await execute(p, kinds, null);
    assert.deepEqual(
      result.failed.map((f) => f.op.key),
      ['port:bad'],
    );
    assert.deepEqual(
      [...inPlaceByKind(p, result)],
      [
        ['bridge', 1],
        ['port', 2],
      ],
    );
  });
});
