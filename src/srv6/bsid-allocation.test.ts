import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assignNewBsids } from './bsid-allocation.js';

const block = { address: 'fc00:1:ff::', len: 64 };

describe('BSID allocation', () => {
  it('gives new SIDs the lowest free indexes in SID order, around those in use', () => {
    const out = assignNewBsids(['fc00:2::a', 'fc00:3::a', 'fc00:4::a'], ['fc00:1:ff::2'], block);
    assert.deepEqual(
      [...out],
      [
        ['fc00:2::a', 'fc00:1:ff::1'],
        ['fc00:3::a', 'fc00:1:ff::3'],
        ['fc00:4::a', 'fc00:1:ff::4'],
      ],
    );
  });

  it('leaves a SID that already has its BSID as it is', () => {
    const kept = new Map([['fc00:3::a', 'fc00:1:ff::1']]);
    const out = assignNewBsids(['fc00:2::a', 'fc00:3::a'], kept.values(), block, kept);
    assert.equal(out.get('fc00:3::a'), 'fc00:1:ff::1');
    assert.equal(out.get('fc00:2::a'), 'fc00:1:ff::2');
  });
});
