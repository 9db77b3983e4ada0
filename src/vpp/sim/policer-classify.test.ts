/**
 * The simulator's policers, classifier tables and policer classification against VPP 26.06
 * (src/plugins/policer/policer_op.c, policer_api.c, xlate.c; src/vnet/classify/vnet_classify.c,
 * classify_api.c, policer_classify.c): retvals, dump contents and order, index reuse, what
 * deleting a bound table or interface leaves, and (simulator only) the ip4- and
 * ip6-policer-classify verdicts.
 *
 * The tests also run against a real VPP (VPP_API_SOCKET, policer plugin loaded, no classify
 * tables, policers or policer-classify bindings to begin with): each removes what it made. Indices
 * are taken from the replies (a real VPP's pools may hold freed indices); the policers' token
 * counts depend on the host's TSC frequency and are compared on the simulator only.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../messages/index.js';
import type { RawClient } from '../../../test/support/raw-client.js';
import { rawSessions, type Obj } from '../../../test/support/raw-session.js';
import { REAL_VPP_SOCKET } from '../../../test/support/vpp-target.js';

const NONE = 0xffffffff;
const SIM_ONLY = REAL_VPP_SOCKET ? 'a model of the dataplane (simulator only)' : false;

const { start, call, rv, dump, loopback } = rawSessions('policer-classify-test');

const action = (type: number, dscp = 0): { type: number; dscp: number } => ({ type, dscp });
const cfg = (o: Record<string, unknown> = {}): never =>
  ({
    cir: 0,
    eir: 0,
    cb: 0n,
    eb: 0n,
    rate_type: 0,
    round_type: 0,
    type: 0,
    color_aware: false,
    conform_action: action(1),
    exceed_action: action(0),
    violate_action: action(0),
    ...o,
  }) as never;

async function addPolicer(c: RawClient, name: string, infos: never): Promise<Obj> {
  return call(c, msg.policer_add, { name, infos });
}
const policers = (c: RawClient, index = NONE): Promise<Obj[]> =>
  dump(c, msg.policer_dump_v2, { policer_index: index });

/** The mask `classify table mask l3 ip4 dst` builds: skip 1, match 2, the address at 14..17. */
const DST_MASK = (() => {
  const m = Buffer.alloc(32);
  m.fill(0xff, 14, 18);
  return m;
})();

function table(c: RawClient, o: Record<string, unknown> = {}): Promise<Obj> {
  return call(c, msg.classify_add_del_table, {
    is_add: true,
    del_chain: false,
    table_index: NONE,
    nbuckets: 16,
    memory_size: 2 << 20,
    skip_n_vectors: 1,
    match_n_vectors: 2,
    next_table_index: NONE,
    miss_next_index: NONE,
    current_data_flag: 0,
    current_data_offset: 0,
    mask: DST_MASK,
    ...o,
  });
}
const delTable = (c: RawClient, index: number, delChain = false): Promise<Obj> =>
  table(c, {
    is_add: false,
    table_index: index,
    del_chain: delChain,
    match_n_vectors: 0,
    mask: Buffer.alloc(0),
  });

/** A session's 48-byte match (skip + match vectors) for an IPv4 destination, from the Ethernet header. */
function dstMatch(dst: readonly number[], fill?: number): Buffer {
  const m = Buffer.alloc(48, fill ?? 0);
  m.set(dst, 30);
  return m;
}
function session(c: RawClient, o: Record<string, unknown>): Promise<number> {
  return rv(c, msg.classify_add_del_session, {
    is_add: true,
    hit_next_index: 0,
    opaque_index: NONE,
    advance: 0,
    action: 0,
    metadata: 0,
    match: dstMatch([0, 0, 0, 0]),
    ...o,
  });
}
const tableIds = async (c: RawClient): Promise<number[]> =>
  (await call(c, msg.classify_table_ids, {})).ids as number[];
const pcSet = (c: RawClient, sw: number, o: Record<string, unknown>): Promise<number> =>
  rv(c, msg.policer_classify_set_interface, {
    sw_if_index: sw,
    ip4_table_index: NONE,
    ip6_table_index: NONE,
    l2_table_index: NONE,
    is_add: true,
    ...o,
  });
const pcDump = (c: RawClient, type: number, sw = 0): Promise<Obj[]> =>
  dump(c, msg.policer_classify_dump, { type, sw_if_index: sw });
const hex = (o: Obj): Obj => ({ ...o, match: (o.match as Buffer).toString('hex') });

/** The mask `classify table mask l3 ip6 dst` builds: skip 2, match 2, the address at 6..21. */
const DST6_MASK = (() => {
  const m = Buffer.alloc(32);
  m.fill(0xff, 6, 22);
  return m;
})();
/** A session's 64-byte match for an IPv6 destination: frame bytes 38..53. */
function dst6Match(dst: string): Buffer {
  const m = Buffer.alloc(64);
  const groups = dst.split('::');
  const head = groups[0] ? groups[0].split(':') : [];
  const tail = groups[1] ? groups[1].split(':') : [];
  const words = [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  words.forEach((w, i) => m.writeUInt16BE(parseInt(w, 16), 38 + 2 * i));
  return m;
}
const table6 = (c: RawClient, o: Record<string, unknown> = {}): Promise<Obj> =>
  table(c, { skip_n_vectors: 2, match_n_vectors: 2, mask: DST6_MASK, ...o });

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

describe('simulator: the ip4-policer-classify verdict', () => {
  it(
    'the per-VM service policer: the session names the policer; other packets, interfaces, chains',
    { skip: SIM_ONLY },
    async () => {
      const { t, c } = await start();
      const sim = t.sim;
      assert.ok(sim);
      const pol = (await addPolicer(c, 'vm1-svc', cfg({ cir: 200, cb: 50n, rate_type: 1 })))
        .policer_index as number;
      const other = (await addPolicer(c, 'other', cfg({ cir: 200, cb: 50n, rate_type: 1 })))
        .policer_index as number;
      const tail = (await table(c)).new_table_index as number;
      const head = (await table(c, { next_table_index: tail })).new_table_index as number;
      assert.equal(
        await session(c, { table_index: head, hit_next_index: pol, match: dstMatch([169, 254, 169, 53]) }),
        0,
      );
      assert.equal(
        await session(c, { table_index: tail, hit_next_index: other, match: dstMatch([169, 254, 169, 54]) }),
        0,
      );
      const vm = await loopback(c);
      const bare = await loopback(c);
      assert.equal(await pcSet(c, vm, { ip4_table_index: head }), 0);
      const v = (dst: string, sw = vm, l2?: 18): ReturnType<typeof sim.policerClassifyVerdict> =>
        sim.policerClassifyVerdict({
          swIfIndex: sw,
          src: '10.1.0.5',
          dst,
          dstPort: 53,
          ...(l2 ? { l2HeaderBytes: l2 } : {}),
        });
      assert.equal(v('169.254.169.53'), pol);
      assert.equal(v('169.254.169.54'), other, 'found down the chain');
      assert.equal(v('169.254.169.55'), 'no-match');
      assert.equal(v('169.254.169.53', bare), 'no-classify');
      // with a VLAN tag the IPv4 header is 4 bytes further on: the mask's bytes are the source's
      assert.equal(v('169.254.169.53', vm, 18), 'no-match');
      assert.equal(await rv(c, msg.policer_del, { policer_index: pol }), 0);
      assert.equal(v('169.254.169.53'), pol, 'the session still names the deleted policer');
      assert.equal((await delTable(c, tail)).retval, 0);
      assert.throws(() => v('169.254.169.55'), /deleted/);
    },
  );
});

describe('simulator: the ip6-policer-classify verdict', () => {
  it('the IPv6 table on the same port names the same policer as the IPv4 one; each family reads its own table', async (t) => {
    const { t: target, c } = await start();
    const pol = (await addPolicer(c, 'vm1-svc6', cfg({ cir: 200, cb: 50n, rate_type: 0 })))
      .policer_index as number;
    const A = (await table(c)).new_table_index as number;
    const B = (await table6(c)).new_table_index as number;
    const sw = await loopback(c);
    try {
      assert.deepEqual(
        [
          (await call(c, msg.classify_table_info, { table_id: B })).skip_n_vectors,
          (await call(c, msg.classify_table_info, { table_id: B })).match_n_vectors,
        ],
        [2, 2],
      );
      assert.equal(
        await session(c, { table_index: A, hit_next_index: pol, match: dstMatch([169, 254, 169, 254]) }),
        0,
      );
      assert.equal(
        await session(c, { table_index: B, hit_next_index: pol, match: dst6Match('fd00:ec2::254') }),
        0,
      );
      assert.equal(
        await session(c, { table_index: B, hit_next_index: pol, match: dstMatch([169, 254, 169, 254]) }),
        -7,
        'a 48-byte match for a table of 2 + 2 vectors',
      );
      // Both families in one call: ip4 first, then ip6.
      assert.equal(await pcSet(c, sw, { ip4_table_index: A, ip6_table_index: B }), 0);
      assert.deepEqual(await pcDump(c, 0), [{ sw_if_index: sw, table_index: A }]);
      assert.deepEqual(await pcDump(c, 1), [{ sw_if_index: sw, table_index: B }]);
      const [s6] = await dump(c, msg.classify_session_dump, { table_id: B });
      assert.equal(s6?.hit_next_index, pol);
      assert.equal(
        (s6?.match as Buffer).toString('hex'),
        '000000000000fd000ec2000000000000000000000254' + '00'.repeat(10),
        'the key: the destination at 6..21 of the matched vectors',
      );
      const sim = target.sim;
      if (sim) {
        const v = (src: string, dst: string): unknown =>
          sim.policerClassifyVerdict({ swIfIndex: sw, src, dst, dstPort: 53 });
        assert.equal(v('2001:db8:a::5', 'fd00:ec2::254'), pol);
        assert.equal(v('10.0.0.5', '169.254.169.254'), pol, 'one policer for both');
        assert.equal(v('2001:db8:a::5', 'fd00:ec2::253'), 'no-match');
        // the source is not in the mask; another family's table is not looked at
        assert.equal(v('fd00:ec2::254', '2001:db8:a::5'), 'no-match');
        assert.equal(v('10.0.0.5', '169.254.169.253'), 'no-match');
        assert.throws(() => v('10.0.0.5', 'fd00:ec2::254'), /one family/);
        assert.equal(
          sim.policerClassifyVerdict({
            swIfIndex: sw,
            src: '2001:db8:a::5',
            dst: 'fd00:ec2::254',
            l2HeaderBytes: 18,
          }),
          'no-match',
          'with a VLAN tag the mask covers other bytes',
        );
        // unbinding ip4 alone leaves ip6 classified
        assert.equal(await pcSet(c, sw, { is_add: false, ip4_table_index: A }), 0);
        assert.equal(v('10.0.0.5', '169.254.169.254'), 'no-classify');
        assert.equal(v('2001:db8:a::5', 'fd00:ec2::254'), pol);
        assert.equal(await pcSet(c, sw, { is_add: false, ip6_table_index: B }), 0);
        assert.equal(v('2001:db8:a::5', 'fd00:ec2::254'), 'no-classify');
      } else {
        t.diagnostic(
          'real VPP: the verdicts are the simulator’s (service-plane-ip6.test.ts sends real packets)',
        );
        assert.equal(await pcSet(c, sw, { is_add: false, ip4_table_index: A, ip6_table_index: B }), 0);
      }
      assert.deepEqual([await pcDump(c, 0), await pcDump(c, 1)], [[], []]);
    } finally {
      await pcSet(c, sw, { is_add: false, ip4_table_index: A });
      await pcSet(c, sw, { is_add: false, ip6_table_index: B });
      assert.equal(await rv(c, msg.delete_loopback, { sw_if_index: sw }), 0);
      assert.equal((await delTable(c, A)).retval, 0);
      assert.equal((await delTable(c, B)).retval, 0);
      assert.equal(await rv(c, msg.policer_del, { policer_index: pol }), 0);
    }
  });

  it('an add with an IPv4 table already bound binds no IPv6 table: 0, and ip6 is not looked at', async () => {
    const { c } = await start();
    const A = (await table(c)).new_table_index as number;
    const B = (await table6(c)).new_table_index as number;
    const sw = await loopback(c);
    try {
      assert.equal(await pcSet(c, sw, { ip4_table_index: A }), 0);
      assert.equal(await pcSet(c, sw, { ip4_table_index: A, ip6_table_index: B }), 0);
      assert.deepEqual(await pcDump(c, 1), [], 'the upgrade must bind ip6 alone (ip4 ~0)');
      assert.equal(await pcSet(c, sw, { ip6_table_index: B }), 0);
      assert.deepEqual(await pcDump(c, 1), [{ sw_if_index: sw, table_index: B }]);
      // a delete naming both where only ip6 matches: ip4 -65 first, ip6 stays bound
      assert.equal(await pcSet(c, sw, { is_add: false, ip4_table_index: B, ip6_table_index: B }), -65);
      assert.deepEqual(await pcDump(c, 1), [{ sw_if_index: sw, table_index: B }]);
      assert.equal(await pcSet(c, sw, { is_add: false, ip4_table_index: A, ip6_table_index: B }), 0);
      assert.deepEqual([await pcDump(c, 0), await pcDump(c, 1)], [[], []]);
    } finally {
      await pcSet(c, sw, { is_add: false, ip4_table_index: A });
      await pcSet(c, sw, { is_add: false, ip6_table_index: B });
      assert.equal(await rv(c, msg.delete_loopback, { sw_if_index: sw }), 0);
      assert.equal((await delTable(c, A)).retval, 0);
      assert.equal((await delTable(c, B)).retval, 0);
    }
  });
});

describe('simulator: the l2-policer-classify verdict on a BVI', () => {
  it('a BVI sending into its bridge passes its L2 table; leaving the bridge keeps the binding without the feature', async (t) => {
    const { t: target, c } = await start();
    const pol = (await addPolicer(c, 'vm1-svc-l2', cfg({ cir: 200, cb: 50n }))).policer_index as number;
    // `classify table mask l2 proto l3 ip6 src`: skip 0, match 3, the ethertype and the source.
    const mask = Buffer.alloc(48);
    mask.fill(0xff, 12, 14);
    mask.fill(0xff, 22, 38);
    const T = (await table(c, { skip_n_vectors: 0, match_n_vectors: 3, mask })).new_table_index as number;
    const match = Buffer.alloc(48);
    match.writeUInt16BE(0x86dd, 12);
    dst6Match('fd00:ec2:0:ff::1').copy(match, 22, 38, 54);
    assert.equal(await session(c, { table_index: T, hit_next_index: pol, match }), 0);
    const bvi = await loopback(c);
    const BD = 4242;
    assert.equal(
      await rv(c, msg.bridge_domain_add_del_v2, {
        bd_id: BD,
        flood: false,
        uu_flood: false,
        forward: true,
        learn: false,
        arp_term: false,
        arp_ufwd: false,
        mac_age: 0,
        bd_tag: '',
        is_add: true,
      }),
      0,
    );
    const l2Mode = (enable: boolean): Promise<number> =>
      rv(c, msg.sw_interface_set_l2_bridge, {
        rx_sw_if_index: bvi,
        bd_id: BD,
        port_type: 1,
        shg: 0,
        enable,
      });
    try {
      assert.equal(await l2Mode(true), 0);
      assert.equal(await pcSet(c, bvi, { l2_table_index: T }), 0);
      assert.deepEqual(await pcDump(c, 2), [{ sw_if_index: bvi, table_index: T }]);
      const sim = target.sim;
      const v = (src: string, dst: string): unknown =>
        sim?.policerClassifyVerdict({ swIfIndex: bvi, src, dst, dstPort: 53, l2Input: true });
      if (sim) {
        assert.equal(v('fd00:ec2:0:ff::1', 'fd00:ec2::253'), pol);
        assert.equal(v('fd00:ec2:0:ff::2', 'fd00:ec2::253'), 'no-match');
        assert.equal(v('169.252.252.1', '169.254.169.53'), 'no-match', 'IPv4: another ethertype');
        assert.equal(
          sim.policerClassifyVerdict({ swIfIndex: bvi, src: 'fd00:ec2:0:ff::1', dst: 'fd00:ec2::253' }),
          'no-classify',
          'ip6-policer-classify: no IPv6 table',
        );
      }
      assert.equal(await l2Mode(false), 0);
      assert.deepEqual(await pcDump(c, 2), [{ sw_if_index: bvi, table_index: T }], 'the binding stays');
      if (sim) {
        assert.equal(v('fd00:ec2:0:ff::1', 'fd00:ec2::253'), 'no-classify', 'in no bridge');
        assert.equal(await l2Mode(true), 0);
        assert.equal(v('fd00:ec2:0:ff::1', 'fd00:ec2::253'), 'no-classify', 'the feature went with L3 mode');
      } else t.diagnostic('real VPP: the feature bitmap is not in the API (show interface features)');
    } finally {
      await pcSet(c, bvi, { is_add: false, l2_table_index: T });
      await l2Mode(false);
      assert.equal(await rv(c, msg.delete_loopback, { sw_if_index: bvi }), 0);
      await rv(c, msg.bridge_domain_add_del_v2, {
        bd_id: BD,
        flood: false,
        uu_flood: false,
        forward: true,
        learn: false,
        arp_term: false,
        arp_ufwd: false,
        mac_age: 0,
        bd_tag: '',
        is_add: false,
      });
      assert.equal((await delTable(c, T)).retval, 0);
      assert.equal(await rv(c, msg.policer_del, { policer_index: pol }), 0);
    }
  });
});
