import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allocateBsids } from './bsid-allocation.js';

const block = { address: 'fc00:1:ff::', len: 64 };

describe('BSID allocation', () => {
  it('gives new SIDs the lowest free indexes in SID order, around those reserved', () => {
    const out = allocateBsids(['fc00:2::a', 'fc00:3::a', 'fc00:4::a'], block, new Map(), ['fc00:1:ff::2']);
    assert.deepEqual(
      [...out],
      [
        ['fc00:2::a', 'fc00:1:ff::1'],
        ['fc00:3::a', 'fc00:1:ff::3'],
        ['fc00:4::a', 'fc00:1:ff::4'],
      ],
    );
  });

  it('leaves a SID that already has its BSID as it is, and gives no other SID that BSID', () => {
    const existing = new Map([['fc00:3::a', 'fc00:1:ff::1']]);
    const out = allocateBsids(['fc00:2::a', 'fc00:3::a'], block, existing);
    assert.equal(out.get('fc00:3::a'), 'fc00:1:ff::1');
    assert.equal(out.get('fc00:2::a'), 'fc00:1:ff::2');
  });

  it('allocates anew for a BSID outside the block, and frees what no SID keeps', () => {
    const existing = new Map([
      ['fc00:2::a', 'fc00:9:ff::7'],
      ['fc00:5::a', 'fc00:1:ff::1'],
    ]);
    const out = allocateBsids(['fc00:2::a'], block, existing);
    assert.deepEqual([...out], [['fc00:2::a', 'fc00:1:ff::1']]);
  });
});
