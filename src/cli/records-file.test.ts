/**
 * vppnet datastore get over keys a store may hold: records named as Object.prototype's own
 * properties (`constructor` is a valid node and VPC name) and keys naming `__proto__` are printed
 * as records, never assigned to a prototype, so that what get prints, put takes back.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { KeySchema } from '../datastore/keys.js';
import { recordsFileOps } from '../datastore/operations.js';
import { recordsFileOf } from './datastore.js';

const schema = new KeySchema();
const P = schema.prefix;

describe('vppnet datastore get over hostile keys', () => {
  afterEach(() => {
    const inherited: string[] = [];
    for (const k in {}) inherited.push(k);
    assert.deepEqual(inherited, [], 'Object.prototype gained properties');
    assert.deepEqual(Object.keys(Object), [], 'Object gained properties');
  });

  it('gets records named constructor, and keys naming __proto__, as records, not as prototypes', () => {
    const node = JSON.stringify({
      underlay: { interface: 'memif1/0', address: '2001:db8::1/64', gateway: '2001:db8::2' },
      srv6: { locator: 'fc00:1::/48' },
    });
    const port = JSON.stringify({
      vpc: 'constructor',
      mac: '52:54:00:00:00:05',
      ip: '10.0.0.5',
      attach: { type: 'interface', name: 'tap0' },
    });
    const kvs = [
      [`${P}nodes/constructor`, node],
      [`${P}ports/constructor/vm1`, port],
      [`${P}endpoints/constructor/10.0.0.5_32`, '{"node":"constructor"}'],
      // Not valid records (a name with "_"), but keys the store may hold: get shows them.
      [`${P}ports/__proto__/vm2`, port],
      [`${P}endpoints/__proto__/10.0.0.6_32`, '{"node":"hv1"}'],
      [`${P}nodes/__proto__`, node],
    ].map(([key, value]) => ({ key: key as string, value: value as string, modRevision: 1 }));
    const file = recordsFileOf(schema, kvs);
    assert.deepEqual(Object.keys(file.nodes ?? {}), ['constructor', '__proto__']);
    assert.deepEqual(Object.keys(file.ports ?? {}), ['constructor', '__proto__']);
    assert.deepEqual(Object.keys((file.ports?.constructor as object | undefined) ?? {}), ['vm1']);
    assert.deepEqual(Object.keys(file.endpoints ?? {}), ['constructor', '__proto__']);
    assert.deepEqual(file.endpoints?.constructor, { '10.0.0.5/32': 'constructor' });
    // What get prints, put takes back: the valid records, and each invalid key named.
    const again = (() => {
      try {
        return recordsFileOps(schema, JSON.parse(JSON.stringify(file)));
      } catch (err) {
        return (err as { problems: { key: string }[] }).problems.map((p) => p.key);
      }
    })();
    assert.deepEqual([...new Set(again as string[])].sort(), [
      `${P}endpoints/__proto__/10.0.0.6_32`,
      `${P}nodes/__proto__`,
      `${P}ports/__proto__/vm2`,
    ]);
  });
});
