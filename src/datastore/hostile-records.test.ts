/**
 * Records written to hurt: names that are also Object.prototype's (a VPC or node named
 * `constructor` is a valid name; `__proto__` is not, but a key may still say it), values with
 * extra or inherited fields, and keys that try to leave their lane. Each is refused naming its
 * key, or taken as the record it is, and nothing of it lands on a shared prototype.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { validateConfig } from '../config/validate.js';
import { KeySchema } from './keys.js';
import { MemoryStore } from './memory-store.js';
import { DatastoreView, type ViewChange } from './view.js';
import { until } from '../util/testing/until.js';
import { importConfig } from './operations.js';
import { parseRecord } from './records.js';

const schema = new KeySchema();
const P = schema.prefix;

/** Nothing a record named landed on Object.prototype or Object: assignments there are enumerable. */
function assertNothingInherited(): void {
  const inherited: string[] = [];
  for (const k in {}) inherited.push(k);
  assert.deepEqual(inherited, [], 'Object.prototype gained properties');
  assert.deepEqual(Object.keys(Object), [], 'Object gained properties');
}

describe('hostile records', () => {
  afterEach(assertNothingInherited);

  it('imports a VPC named constructor with its endpoints', async () => {
    const config = validateConfig({
      node: {
        name: 'hv1',
        underlay: { interface: 'memif1/0', address: '2001:db8::1/64', gateway: '2001:db8::2' },
        srv6: { locator: 'fc00:1::/48' },
      },
      vpcs: [{ name: 'constructor', id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' }],
      ports: [
        {
          name: 'constructor',
          vpc: 'constructor',
          mac: '52:54:00:00:00:05',
          ip: '10.0.0.5',
          attach: { type: 'vhost-user', socket: '/run/vppnet/vhost/vm1.sock' },
        },
      ],
    });
    const store = new MemoryStore();
    const ops = await importConfig(store, schema, config, { dryRun: true });
    assert.deepEqual(
      ops.map((o) => o.key),
      [
        `${P}nodes/hv1`,
        `${P}vpcs/constructor`,
        `${P}ports/hv1/constructor`,
        `${P}endpoints/constructor/10.0.0.5_32`,
      ],
    );
    await store.close();
  });

  it('refuses keys that leave their lane, naming the key', () => {
    const endpoint = '{"node":"hv2"}';
    for (const key of [
      `${P}endpoints/vpc-a/10.0.0.7_32/..`,
      `${P}endpoints/vpc-a/../10.0.0.7_32`,
      `${P}endpoints/vpc-a%2f..%2f/10.0.0.7_32`,
      `${P}endpoints/vpc-a\0/10.0.0.7_32`,
      `${P}endpoints/vpc-\u0430/10.0.0.7_32`, // Cyrillic a
      `${P}endpoints/vpc-a/10.0.0.7%2f32`,
      `${P}endpoints/vpc-a/010.0.0.7_32`,
      `${P}endpoints/vpc-a/10.0.0.7_032`,
      `${P}endpoints/vpc-a/10.0.0.7_33`,
      `${P}endpoints/vpc-a/10.0.0.7_1.5`,
      `${P}endpoints/vpc-a/10.0.0.7_-1`,
      `${P}endpoints/vpc-a/fe80::1%eth0_128`,
      `${P}endpoints/vpc-a/::ffff:10.0.0.7_128`,
      `${P}endpoints/vpc-a/ 10.0.0.7_32`,
      `${P}endpoints/${'a'.repeat(100_000)}/10.0.0.7_32`,
      `${P}nodes/..`,
      `${P}nodes/hv1\0`,
      `${P}ports/hv1/../hv2/vm1`,
      `${P}ports/__proto__/vm1`,
      `/vppnet/v2/nodes/hv1`,
    ]) {
      const r = parseRecord(schema, key, endpoint);
      assert.ok(Array.isArray(r), `${JSON.stringify(key.slice(0, 60))} refused`);
      assert.ok(
        r.every((p) => p.key === key),
        'every problem names the key',
      );
    }
  });

  it('refuses values with extra, inherited or duplicated shapes, naming the key and the field', () => {
    const key = `${P}endpoints/vpc-a/10.0.0.7_32`;
    const cases: [string, string][] = [
      ['{"node":"hv2","extra":1}', '(value).extra'],
      ['{"__proto__":{"node":"hv2"}}', '(value).__proto__'],
      ['{"node":"hv2","constructor":{}}', '(value).constructor'],
      ['{"node":"HV2"}', 'node'],
      ['{"node":"hv2\\u0000"}', 'node'],
      ['["hv2"]', '(value)'],
      ['"hv2"', '(value)'],
      ['null', '(value)'],
      ['\ufeff{"node":"hv2"}', '(value)'],
      ['{"node":"hv2"', '(value)'],
      ['', '(value)'],
    ];
    for (const [value, path] of cases) {
      const r = parseRecord(schema, key, value);
      assert.ok(Array.isArray(r), `${value} refused`);
      assert.ok(
        r.some((p) => p.key === key && p.path === path),
        `${value}: ${JSON.stringify(r)}`,
      );
    }
  });

  it('refuses a port record listing a million allowed prefixes, or a VPC record 20,000 subnets, by the schema', () => {
    const port = JSON.stringify({
      vpc: 'vpc-a',
      mac: '52:54:00:00:00:05',
      ip: '10.0.0.5',
      attach: { type: 'interface', name: 'tap0' },
      allowedPrefixes: Array.from(
        { length: 1_000_000 },
        (_, i) => `11.${i >> 16}.${(i >> 8) & 255}.${i & 255}/32`,
      ),
    });
    assert.deepEqual(parseRecord(schema, `${P}ports/hv1/vm1`, port), [
      {
        key: `${P}ports/hv1/vm1`,
        path: 'allowedPrefixes',
        message: 'must list at most 1024 (1000000 listed)',
      },
    ]);
    const vpc = JSON.stringify({
      id: 10,
      subnets: Array.from({ length: 20_000 }, (_, i) => `10.${i >> 8}.${i & 255}.0/30`),
      gateway: '10.0.0.1',
    });
    assert.deepEqual(parseRecord(schema, `${P}vpcs/vpc-a`, vpc), [
      { key: `${P}vpcs/vpc-a`, path: 'subnets', message: 'must list at most 256 (20000 listed)' },
    ]);
  });

  it("flips between valid and invalid, deletes what never was, writes another node's ports: the last good state stays", async () => {
    const store = new MemoryStore();
    const nodeValue = (n: number): string =>
      JSON.stringify({
        underlay: { interface: 'memif1/0', address: `2001:db8::${n}/64`, gateway: '2001:db8::ff' },
        srv6: { locator: `fc00:${n}::/48` },
      });
    const port = JSON.stringify({
      vpc: 'vpc-a',
      mac: '52:54:00:00:00:05',
      ip: '10.0.0.5',
      attach: { type: 'interface', name: 'tap0' },
    });
    const ep = `${P}endpoints/vpc-a/10.0.0.7_32`;
    await store.commit([
      { type: 'put', key: schema.node('hv1'), value: nodeValue(1) },
      { type: 'put', key: schema.node('hv2'), value: nodeValue(2) },
      {
        type: 'put',
        key: schema.vpc('vpc-a'),
        value: '{"id":10,"subnets":["10.0.0.0/24"],"gateway":"10.0.0.1"}',
      },
      { type: 'put', key: schema.port('hv1', 'vm1'), value: port },
      { type: 'put', key: ep, value: '{"node":"hv2"}' },
    ]);
    const batches: ViewChange[][] = [];
    const rejected: string[] = [];
    const view = new DatastoreView(store, schema, 'hv1', {
      onChange: (c) => batches.push([...c]),
      onRejected: (key) => rejected.push(key),
    });
    view.start();
    await view.whenSynced();
    await until(() => view.endpoints.get('vpc-a')?.nodeOf(ep) === 'hv2', 'the endpoint');
    const derived = JSON.stringify(view.derive().config);

    // Flips: each bad value is rejected naming its key, and the good one before it stays.
    for (const bad of ['{"node":"HV2"}', 'not json', '{"node":"hv2","x":1}']) {
      await store.commit([
        { type: 'put', key: ep, value: bad },
        { type: 'put', key: schema.port('hv1', 'vm1'), value: bad },
        { type: 'put', key: schema.vpc('vpc-a'), value: bad },
        { type: 'put', key: schema.node('hv1'), value: bad },
      ]);
      await until(() => view.rejected.size === 4, `rejected ${bad}`);
      assert.deepEqual(
        [...view.rejected.keys()].sort(),
        [ep, schema.node('hv1'), schema.port('hv1', 'vm1'), schema.vpc('vpc-a')].sort(),
      );
      assert.equal(JSON.stringify(view.derive().config), derived, `the last good state stays under ${bad}`);
      await store.commit([
        { type: 'put', key: ep, value: '{"node":"hv2"}' },
        { type: 'put', key: schema.port('hv1', 'vm1'), value: port },
        {
          type: 'put',
          key: schema.vpc('vpc-a'),
          value: '{"id":10,"subnets":["10.0.0.0/24"],"gateway":"10.0.0.1"}',
        },
        { type: 'put', key: schema.node('hv1'), value: nodeValue(1) },
      ]);
      await until(() => view.rejected.size === 0, 'valid again');
      assert.equal(JSON.stringify(view.derive().config), derived);
    }
    assert.ok(rejected.length >= 12);

    // Deleting keys that never existed, another node's port, and keys of no schema change nothing.
    const before = batches.length;
    await store.commit([
      { type: 'delete', key: `${P}endpoints/vpc-a/10.9.9.9_32` },
      { type: 'delete', key: `${P}ports/hv1/never` },
      { type: 'put', key: `${P}ports/hv2/vm9`, value: port },
      { type: 'put', key: `${P}ports/hv1x/vm9`, value: port },
      { type: 'put', key: `${P}ports/hv1/vm9/x`, value: port },
      { type: 'put', key: `${P}nodes/hv1/x`, value: nodeValue(1) },
    ]);
    await until(() => view.rejected.size === 2, 'the two keys in scope that are no records');
    assert.deepEqual([...view.rejected.keys()].sort(), [`${P}nodes/hv1/x`, `${P}ports/hv1/vm9/x`]);
    assert.equal(batches.length, before, 'no change handed on');
    assert.deepEqual([...view.ports.keys()], ['vm1']);
    assert.equal(JSON.stringify(view.derive().config), derived);
    // Deleting a key whose only value was rejected removes the rejection and nothing else.
    await store.commit([{ type: 'delete', key: `${P}ports/hv1/vm9/x` }]);
    await until(() => view.rejected.size === 1, 'its rejection gone');
    assert.equal(JSON.stringify(view.derive().config), derived);
    view.stop();
    await store.close();
  });
});
