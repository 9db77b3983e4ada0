/**
 * The simulator's policer_classify_set_interface and policer_classify_dump against VPP 26.06
 * (src/vnet/classify/policer_classify.c): retvals, dump contents and order, what deleting a bound
 * table or interface leaves.
 *
 * The tests also run against a real VPP (VPP_API_SOCKET, policer plugin loaded, no classify tables,
 * policers or policer-classify bindings to begin with): each removes what it made. Indices are
 * taken from the replies (a real VPP's pools may hold freed indices).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../messages/index.js';
import { NONE, policerClassifySessions } from '../../../test/support/sim/policer-classify-calls.js';

const { start, rv, loopback, table, delTable, pcSet, pcDump } = policerClassifySessions();

describe('simulator: policer_classify_set_interface and policer_classify_dump', () => {
  it('retvals, the first-bound-wins add, stopping early, the dump by sw_if_index 0 only', async () => {
    const { c } = await start();
    const A = (await table(c)).new_table_index as number;
    const B = (await table(c)).new_table_index as number;
    const sw = await loopback(c);
    try {
      assert.equal(await pcSet(c, 99999, { ip4_table_index: A }), -2);
      assert.equal(await pcSet(c, sw, { ip4_table_index: 4000 }), -65);
      assert.equal(await pcSet(c, sw, {}), 0);
      assert.equal(await pcSet(c, sw, { ip4_table_index: B }), 0);
      // ip4 already bound: 0 at once, ip6 not looked at
      assert.equal(await pcSet(c, sw, { ip4_table_index: A, ip6_table_index: A }), 0);
      assert.deepEqual(await pcDump(c, 0), [{ sw_if_index: sw, table_index: B }]);
      assert.deepEqual(await pcDump(c, 0, NONE), [], 'sw_if_index ~0 is beyond the vector: nothing');
      assert.deepEqual(await pcDump(c, 1), []);
      assert.equal(await pcSet(c, sw, { is_add: false, ip4_table_index: A }), -65, 'not the bound table');
      // ip6 bound, then l2 with a missing table: ip6 stays done
      assert.equal(await pcSet(c, sw, { ip6_table_index: A, l2_table_index: 4000 }), -65);
      assert.deepEqual(await pcDump(c, 1), [{ sw_if_index: sw, table_index: A }]);
      assert.deepEqual(await pcDump(c, 2), []);
      assert.equal(await pcSet(c, sw, { is_add: false, ip4_table_index: B, ip6_table_index: A }), 0);
      assert.deepEqual([await pcDump(c, 0), await pcDump(c, 1)], [[], []]);
    } finally {
      await pcSet(c, sw, { is_add: false, ip4_table_index: B });
      await pcSet(c, sw, { is_add: false, ip6_table_index: A });
      assert.equal(await rv(c, msg.delete_loopback, { sw_if_index: sw }), 0);
      assert.equal((await delTable(c, A)).retval, 0);
      assert.equal((await delTable(c, B)).retval, 0);
    }
  });

  it('a deleted table stays bound (-65 to unbind) until its index comes back', async () => {
    const { c } = await start();
    const A = (await table(c)).new_table_index as number;
    const sw = await loopback(c);
    assert.equal(await pcSet(c, sw, { ip4_table_index: A }), 0);
    assert.equal((await delTable(c, A)).retval, 0);
    assert.deepEqual(await pcDump(c, 0), [{ sw_if_index: sw, table_index: A }]);
    assert.equal(await pcSet(c, sw, { is_add: false, ip4_table_index: A }), -65);
    assert.equal((await table(c)).new_table_index, A, 'the freed index comes back');
    assert.equal(await pcSet(c, sw, { is_add: false, ip4_table_index: A }), 0);
    assert.deepEqual(await pcDump(c, 0), []);
    assert.equal(await rv(c, msg.delete_loopback, { sw_if_index: sw }), 0);
    assert.equal((await delTable(c, A)).retval, 0);
  });

  it("a deleted interface's binding stays; an interface reusing the index inherits it", async () => {
    const { t, c } = await start();
    const A = (await table(c)).new_table_index as number;
    const sw = await loopback(c);
    assert.equal(await pcSet(c, sw, { ip4_table_index: A }), 0);
    if (t.sim)
      assert.equal(
        t.sim.policerClassifyVerdict({ swIfIndex: sw, src: '10.0.0.1', dst: '1.2.3.4' }),
        'no-match',
      );
    assert.equal(await rv(c, msg.delete_loopback, { sw_if_index: sw }), 0);
    assert.deepEqual(await pcDump(c, 0), [{ sw_if_index: sw, table_index: A }]);
    const sw2 = await loopback(c);
    assert.equal(sw2, sw);
    assert.equal(await pcSet(c, sw2, { ip4_table_index: A }), 0, '"already enabled"');
    if (t.sim) {
      assert.equal(
        t.sim.policerClassifyVerdict({ swIfIndex: sw2, src: '10.0.0.1', dst: '1.2.3.4' }),
        'no-classify',
        'the feature went with the old interface',
      );
    }
    assert.equal(await pcSet(c, sw2, { is_add: false, ip4_table_index: A }), 0);
    assert.deepEqual(await pcDump(c, 0), []);
    assert.equal(await rv(c, msg.delete_loopback, { sw_if_index: sw2 }), 0);
    assert.equal((await delTable(c, A)).retval, 0);
  });
});
