/** FibSources keeps a FIB entry's sources as the Map it replaced did: by addition, best by priority. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FibSource, FibSources } from './fib-sources.js';

const state = (refs: number) => ({ paths: [], refs });

describe('FibSources', () => {
  it('adds, replaces and deletes sources in the order a Map keeps them', () => {
    const s = new FibSources();
    assert.equal(s.size, 0);
    assert.equal(s.best(), -1);
    s.set(FibSource.API, state(1));
    s.set(FibSource.RR, state(2));
    s.set(FibSource.SR, state(3));
    assert.deepEqual([...s.keys()], [FibSource.API, FibSource.RR, FibSource.SR]);
    assert.equal(s.best(), FibSource.SR, 'SR (0x10) outranks API (0x80) and RR (0xfb)');
    s.set(FibSource.RR, state(5));
    assert.deepEqual(
      [...s.keys()],
      [FibSource.API, FibSource.RR, FibSource.SR],
      'a replaced source keeps its place',
    );
    assert.equal(s.get(FibSource.RR)?.refs, 5);
    assert.equal(s.delete(FibSource.API), true);
    assert.deepEqual([...s.keys()], [FibSource.RR, FibSource.SR], 'the next source moves up');
    assert.equal(s.delete(FibSource.API), false);
    assert.equal(s.has(FibSource.API), false);
    s.set(FibSource.API, state(1));
    assert.deepEqual([...s.keys()], [FibSource.RR, FibSource.SR, FibSource.API]);
    assert.equal(s.delete(FibSource.SR), true);
    assert.equal(s.best(), FibSource.API);
    assert.equal(s.delete(FibSource.RR), true);
    assert.equal(s.delete(FibSource.API), true);
    assert.equal(s.size, 0);
    assert.deepEqual([...s.keys()], []);
    s.set(FibSource.CLI, state(1));
    assert.deepEqual([...s.keys()], [FibSource.CLI]);
    assert.equal(s.size, 1);
  });
});
