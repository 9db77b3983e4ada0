/**
 * The simulator's policers against VPP 26.06 (src/plugins/policer/policer_op.c, policer_api.c,
 * xlate.c): retvals, dump contents and order, index reuse.
 *
 * The tests also run against a real VPP (VPP_API_SOCKET, policer plugin loaded, no classify tables,
 * policers or policer-classify bindings to begin with): each removes what it made. Indices are
 * taken from the replies (a real VPP's pools may hold freed indices); the policers' token counts
 * depend on the host's TSC frequency and are compared on the simulator only.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../messages/index.js';
import { NONE, policerClassifySessions } from '../../../test/support/sim/policer-classify-calls.js';

const { start, call, rv, action, cfg, addPolicer, policers } = policerClassifySessions();

describe('simulator: policers', () => {
  it('policer_add: -81 for a name taken, -7 for what xlate.c refuses; computed fields in the dump', async () => {
    const { t, c } = await start();
    const made: number[] = [];
    try {
      // the CLI's "cir 200 cb 50 rate pps type 1r2c": 410 kbps, 2563 bytes of burst
      const a = await addPolicer(c, 'vm1-svc', cfg({ cir: 200, cb: 50n, rate_type: 1 }));
      assert.equal(a.retval, 0);
      made.push(a.policer_index as number);
      assert.deepEqual(await addPolicer(c, 'vm1-svc', cfg({ cir: 1, cb: 1n })), {
        retval: -81,
        policer_index: NONE,
      });
      const refused = [
        cfg({ cir: 1000, cb: 100n, eb: 100n }), // 1R2C with eb
        cfg({ cir: 1000 }), // 1-rate, cb and eb 0
        cfg({ cir: 1000, eir: 5, cb: 10n }), // 1-rate with eir
        cfg({ type: 3, cir: 3000, eir: 2000, cb: 1n, eb: 1n }), // eir < cir
        cfg({ type: 4, cir: 1000, eir: 2000, cb: 1n, eb: 1n }), // MEF5CF1
        cfg({ rate_type: 2, cir: 1000, cb: 1n }),
      ];
      for (const k of refused)
        assert.deepEqual(await addPolicer(c, 'x', k), { retval: -7, policer_index: NONE });
      const z = await addPolicer(c, 'always-violate', cfg({ type: 4, eir: 5 }));
      assert.equal(z.retval, 0, 'cir, cb and eb 0: accepted whatever the type');
      made.push(z.policer_index as number);

      const [d] = await policers(c, a.policer_index as number);
      assert.ok(d);
      assert.deepEqual(
        { ...d, cir_tokens_per_period: 0 },
        {
          name: 'vm1-svc',
          cir: 200,
          eir: 0,
          cb: 50n,
          eb: 0n,
          rate_type: 1,
          round_type: 0,
          type: 0,
          conform_action: action(1),
          exceed_action: action(0),
          violate_action: action(0),
          single_rate: true,
          color_aware: false,
          scale: 20,
          cir_tokens_per_period: 0,
          pir_tokens_per_period: 1,
          current_limit: 2563 * 2 ** 20,
          current_bucket: 2563 * 2 ** 20,
          extended_limit: 0,
          extended_bucket: 0,
          last_update_time: 0n,
        },
      );
      if (t.sim) assert.equal(d.cir_tokens_per_period, 3062598);
      const [zd] = await policers(c, z.policer_index as number);
      assert.deepEqual(
        [
          zd?.single_rate,
          zd?.scale,
          zd?.cir_tokens_per_period,
          zd?.pir_tokens_per_period,
          zd?.current_bucket,
        ],
        [true, 0, 0, 0, 0],
      );
    } finally {
      for (const i of made) assert.equal(await rv(c, msg.policer_del, { policer_index: i }), 0);
    }
    assert.deepEqual(await policers(c), []);
  });

  it('policer_del/update by index (-6 when free), policer_add_del by name; the pool reuses indices', async () => {
    const { t, c } = await start();
    const a = (await addPolicer(c, 'a', cfg({ cir: 1000, cb: 10000n }))).policer_index as number;
    const b = (await addPolicer(c, 'b', cfg({ cir: 1000, cb: 10000n }))).policer_index as number;
    assert.equal(await rv(c, msg.policer_update, { policer_index: a, infos: cfg({ cir: 1000 }) }), -7);
    const upd = cfg({ type: 2, cir: 1000, eir: 2000, cb: 10000n, eb: 20000n, conform_action: action(2, 10) });
    assert.equal(await rv(c, msg.policer_update, { policer_index: a, infos: upd }), 0);
    const [d] = await policers(c, a);
    assert.deepEqual(
      [d?.name, d?.type, d?.single_rate, d?.scale, d?.current_limit, d?.extended_limit, d?.conform_action],
      ['a', 2, false, 17, 10000 * 2 ** 17, 20000 * 2 ** 17, action(2, 10)],
    );
    if (t.sim) assert.deepEqual([d?.cir_tokens_per_period, d?.pir_tokens_per_period], [933719, 1867438]);
    assert.equal(await rv(c, msg.policer_del, { policer_index: a }), 0);
    assert.equal(await rv(c, msg.policer_del, { policer_index: a }), -6);
    assert.equal(await rv(c, msg.policer_update, { policer_index: a, infos: upd }), -6);
    assert.deepEqual(await policers(c, a), []);
    const again = await call(c, msg.policer_add_del, {
      is_add: true,
      name: 'c',
      ...(cfg({ cir: 1, cb: 1n }) as object),
    });
    assert.deepEqual(again, { retval: 0, policer_index: a }, 'the freed index first');
    const del = { is_add: false, name: 'c', ...(cfg() as object) } as never;
    assert.deepEqual(await call(c, msg.policer_add_del, del), { retval: 0, policer_index: NONE });
    assert.deepEqual(await call(c, msg.policer_add_del, del), { retval: -6, policer_index: NONE });
    assert.equal(await rv(c, msg.policer_del, { policer_index: b }), 0);
    assert.deepEqual(await policers(c), []);
  });
});
