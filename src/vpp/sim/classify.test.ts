/**
 * The simulator's classifier tables and sessions against VPP 26.06
 * (src/vnet/classify/vnet_classify.c, classify_api.c): retvals, dump contents and order, index
 * reuse, chains.
 *
 * The tests also run against a real VPP (VPP_API_SOCKET, policer plugin loaded, no classify tables,
 * policers or policer-classify bindings to begin with): each removes what it made. Indices are
 * taken from the replies (a real VPP's pools may hold freed indices).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../messages/index.js';
import type { Obj } from '../../../test/support/raw-session.js';
import { NONE, policerClassifySessions } from '../../../test/support/sim/policer-classify-calls.js';

const { start, call, dump, DST_MASK, table, delTable, dstMatch, session, tableIds, hex } =
  policerClassifySessions();

describe('simulator: classify tables and sessions', () => {
  it('classify_add_del_table: argument checks, rounding, "update" changes next_table_index only', async () => {
    const { c } = await start();
    const fail = { new_table_index: NONE, skip_n_vectors: NONE, match_n_vectors: NONE };
    assert.deepEqual(await table(c, { mask: DST_MASK.subarray(0, 16) }), { retval: -7, ...fail });
    assert.deepEqual(await table(c, { memory_size: 0 }), { retval: -70, ...fail });
    assert.deepEqual(await table(c, { nbuckets: 0 }), { retval: -7, ...fail });
    assert.deepEqual(await table(c, { match_n_vectors: 0, mask: Buffer.alloc(0) }), { retval: -7, ...fail });
    assert.deepEqual(await table(c, { match_n_vectors: 6, mask: Buffer.alloc(96) }), { retval: -7, ...fail });
    const before = await tableIds(c);
    const a = await table(c, { nbuckets: 5 });
    assert.deepEqual(
      { ...a, new_table_index: 0 },
      { retval: 0, new_table_index: 0, skip_n_vectors: 1, match_n_vectors: 2 },
    );
    const A = a.new_table_index as number;
    const upd = await table(c, {
      table_index: A,
      nbuckets: 99,
      skip_n_vectors: 3,
      match_n_vectors: 1,
      mask: Buffer.alloc(16),
      next_table_index: 77,
      miss_next_index: 5,
    });
    assert.deepEqual(upd, { retval: 0, new_table_index: A, skip_n_vectors: 1, match_n_vectors: 2 });
    const info = await call(c, msg.classify_table_info, { table_id: A });
    assert.deepEqual(
      { ...info, mask: (info.mask as Buffer).toString('hex') },
      {
        retval: 0,
        table_id: A,
        nbuckets: 8,
        match_n_vectors: 2,
        skip_n_vectors: 1,
        active_sessions: 0,
        next_table_index: 77,
        miss_next_index: NONE,
        mask_length: 32,
        mask: DST_MASK.toString('hex'),
      },
    );
    assert.deepEqual(
      await tableIds(c),
      [...before, A].sort((x, y) => x - y),
    );
    assert.deepEqual(await delTable(c, A), { retval: 0, ...fail });
    assert.deepEqual(await delTable(c, A), { retval: -65, ...fail });
    assert.deepEqual(
      await table(c, { is_add: false, table_index: A, mask: Buffer.alloc(0) }),
      { retval: -7, ...fail },
      'mask_len first',
    );
    assert.equal((await call(c, msg.classify_table_info, { table_id: A })).retval, -91);
    // a free table_index on add: a new table (the last freed index)
    const b = await table(c, { table_index: 4000, nbuckets: 3 });
    assert.equal(b.new_table_index, A);
    // del_chain: the next_table_index chain goes too
    const c2 = (await table(c, { next_table_index: A })).new_table_index as number;
    assert.deepEqual(await delTable(c, c2, true), { retval: 0, ...fail });
    assert.deepEqual(await tableIds(c), before);
  });

  it('classify_add_del_session: retvals, masked keys, u16 hit_next_index, the dump in bucket/slot order', async () => {
    const { c } = await start();
    const A = (await table(c, { nbuckets: 1 })).new_table_index as number;
    try {
      for (let i = 1; i <= 7; i++) {
        const hit = i === 3 ? NONE : i;
        assert.equal(
          await session(c, {
            table_index: A,
            hit_next_index: hit,
            opaque_index: i,
            advance: -i,
            match: dstMatch([10, 0, 0, i]),
          }),
          0,
        );
      }
      assert.equal(
        await session(c, { table_index: A, hit_next_index: 42, match: dstMatch([10, 0, 0, 2]) }),
        0,
        'replaced',
      );
      assert.equal(await session(c, { table_index: A, match: Buffer.alloc(32) }), -7);
      assert.equal(await session(c, { table_index: 4000 }), -65);
      assert.equal(await session(c, { table_index: A, is_add: false, match: dstMatch([10, 0, 0, 99]) }), -6);
      assert.equal(await session(c, { table_index: A, is_add: false, match: dstMatch([10, 0, 0, 5]) }), 0);
      const unmasked = dstMatch([10, 0, 0, 8], 0x77);
      assert.equal(await session(c, { table_index: A, hit_next_index: 8, match: unmasked }), 0);
      const row = (hit: number, adv: number, opaque: number, last: number): Obj => ({
        retval: 0,
        table_id: A,
        hit_next_index: hit,
        advance: adv,
        opaque_index: opaque,
        match_length: 32,
        match: `00000000000000000000000000000a0000${last.toString(16).padStart(2, '0')}0000000000000000000000000000`,
      });
      // checked on a real VPP 26.06: one bucket, split twice; 8 took the slot 5 left
      assert.deepEqual((await dump(c, msg.classify_session_dump, { table_id: A })).map(hex), [
        row(1, -1, 1, 1),
        row(42, 0, NONE, 2),
        row(65535, -3, 3, 3),
        row(4, -4, 4, 4),
        row(8, 0, NONE, 8),
        row(6, -6, 6, 6),
        row(7, -7, 7, 7),
      ]);
      assert.equal((await call(c, msg.classify_table_info, { table_id: A })).active_sessions, 7);
      assert.deepEqual(await dump(c, msg.classify_session_dump, { table_id: 4000 }), []);
    } finally {
      assert.equal((await delTable(c, A)).retval, 0);
    }
  });
});
