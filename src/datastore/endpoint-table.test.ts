/**
 * The view's endpoint columns: records built from the key and the columns read back as they were
 * set, deleted slots are reused without mixing records, and the scan by node finds exactly the
 * endpoints a node hosts now.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EndpointTable, NodeNames } from './endpoint-table.js';
import { KeySchema } from './keys.js';
import type { EndpointRecord } from './records.js';

const schema = new KeySchema('/t/');
const ep4 = (address: string, node: string): EndpointRecord => ({
  kind: 'endpoint',
  vpc: 'vpc-a',
  prefix: { address, len: 32 },
  family: 4,
  node,
});
const key = (r: EndpointRecord): string => schema.endpoint(r.vpc, r.prefix);

describe('EndpointTable', () => {
  test('records read back from the key and the columns, IPv4 and IPv6', () => {
    const table = new EndpointTable('vpc-a', schema.endpointsRange('vpc-a').key, new NodeNames());
    const v4 = ep4('10.0.0.2', 'hv1');
    const v6: EndpointRecord = {
      kind: 'endpoint',
      vpc: 'vpc-a',
      prefix: { address: '2001:db8:0:1::5', len: 128 },
      family: 6,
      node: 'hv2',
    };
    table.set(key(v4), v4, 7);
    table.set(key(v6), v6, 9);
    assert.deepEqual(table.get(key(v4)), v4);
    assert.deepEqual(table.get(key(v6)), v6);
    assert.equal(table.revisionOf(key(v6)), 9);
    assert.equal(table.nodeOf(key(v4)), 'hv1');
    assert.deepEqual([...table.values()], [v4, v6]);
    assert.equal(table.size, 2);
    assert.equal(table.get(schema.endpoint('vpc-a', { address: '10.0.0.3', len: 32 })), undefined);
  });

  test('replace holds the record and returns the node of the one it replaced, or undefined for a new key', () => {
    const table = new EndpointTable('vpc-a', schema.endpointsRange('vpc-a').key, new NodeNames());
    const first = ep4('10.0.0.2', 'hv1');
    const moved = ep4('10.0.0.2', 'hv2');
    assert.equal(table.replace(key(first), first, 3), undefined);
    assert.equal(table.replace(key(moved), moved, 4), 'hv1');
    assert.deepEqual(table.get(key(moved)), moved);
    assert.equal(table.revisionOf(key(moved)), 4);
    assert.equal(table.size, 1);
  });

  test('a deleted slot is reused by the next key without its old node or revision', () => {
    const table = new EndpointTable('vpc-a', schema.endpointsRange('vpc-a').key, new NodeNames());
    const records = Array.from({ length: 40 }, (_, i) => ep4(`10.0.1.${i + 2}`, `hv${i % 3}`));
    records.forEach((r, i) => table.set(key(r), r, i + 1));
    for (const r of records.slice(0, 20)) assert.equal(table.delete(key(r)), true);
    assert.equal(table.delete(key(records[0] as EndpointRecord)), false);
    const moved = ep4('10.0.2.2', 'hv9');
    table.set(key(moved), moved, 100);
    assert.equal(table.size, 21);
    assert.deepEqual(table.get(key(moved)), moved);
    assert.equal(table.revisionOf(key(moved)), 100);
    records.slice(20).forEach((r, i) => {
      assert.deepEqual(table.get(key(r)), r);
      assert.equal(table.revisionOf(key(r)), i + 21);
    });
  });

  test('keysOn finds the endpoints a node hosts now, a moved one under its new node', () => {
    const table = new EndpointTable('vpc-a', schema.endpointsRange('vpc-a').key, new NodeNames());
    const a = ep4('10.0.0.2', 'hv1');
    const b = ep4('10.0.0.3', 'hv2');
    table.set(key(a), a, 1);
    table.set(key(b), b, 2);
    table.set(key(a), { ...a, node: 'hv2' }, 3);
    assert.deepEqual([...table.keysOn(new Set(['hv2']))], [key(a), key(b)]);
    assert.deepEqual([...table.keysOn(new Set(['hv1', 'hv7']))], []);
  });
});
