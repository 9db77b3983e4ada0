/**
 * The simulator's ip4-, ip6- and l2-policer-classify verdicts (simulator only: a model of the
 * dataplane), with the policer each classify session names.
 *
 * The tests also run against a real VPP (VPP_API_SOCKET, policer plugin loaded, no classify tables,
 * policers or policer-classify bindings to begin with): each removes what it made. Indices are
 * taken from the replies (a real VPP's pools may hold freed indices).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../messages/index.js';
import { SIM_ONLY, policerClassifySessions } from '../../../test/support/sim/policer-classify-calls.js';

const {
  start,
  call,
  rv,
  dump,
  loopback,
  cfg,
  addPolicer,
  table,
  delTable,
  dstMatch,
  session,
  pcSet,
  pcDump,
  dst6Match,
  table6,
} = policerClassifySessions();

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
