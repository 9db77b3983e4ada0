/**
 * Per-VM fairness on the service plane (services/vm-rate-limit.ts) over IPv6 (services.ip6): each
 * VM's traffic to the IPv6 service addresses goes through the same policer as its IPv4. What VPP
 * would do with a packet is judged by the simulator's model of ip6-policer-classify
 * (policerClassifyVerdict); the same floods with real packets on a real VPP are in
 * test/integration/service-plane-ip6.test.ts. The state checks (read back, changes, leftovers) also
 * run against a real VPP with VPP_API_SOCKET.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tags } from '../dataplane/keys.js';
import { msg } from '../vpp/messages/index.js';
import {
  METADATA,
  METADATA6,
  DNS6,
  VM6,
  type Fixture,
  openFixture,
  closeFixture,
  rawConfig,
  apply,
  portIndex,
  policers,
  bindings,
  tableOf,
  bviIndex,
  serviceAddress6,
  tableCount,
  policerName,
} from '../../test/support/service-rate-limit-fixture.js';

describe("each VM's policer over IPv6 too (services.ip6)", () => {
  let f: Fixture;
  /** vm1 and vm2 have IPv6 addresses in the dual-stack vpc-a; vm3, in the IPv4-only vpc-b, none. */
  const dual = (o: { services?: boolean; vmLimits?: Record<string, number> } = {}) =>
    rawConfig(f, {
      ports: [1, 2, 3],
      ip6: { ports: [1, 2], ...(o.services !== undefined && { services: o.services }) },
      ...(o.vmLimits && { vmLimits: o.vmLimits }),
    });
  /** vm n's IPv4 table's policer. */
  const policerOf = async (n: number): Promise<number> => {
    const sw = (await portIndex(f, n)) as number;
    const [p] = (await tableOf(f, (await bindings(f)).get(sw) as number)).policers;
    return p as number;
  };
  before(async () => {
    f = await openFixture();
    await apply(f, dual());
  });
  after(() => closeFixture(f));

  it("gives the service BVI's L2 input one table with a session per IPv6 VM naming that VM's policer; a second pass plans nothing", async () => {
    const bvi = await bviIndex(f);
    const l2 = await bindings(f, 'l2');
    assert.deepEqual([...l2.keys()], [bvi], 'one L2 table, on the BVI');
    const t = await tableOf(f, l2.get(bvi) as number);
    assert.deepEqual(
      { skip: t.skip, match: t.match, sessions: t.sessions },
      { skip: 0, match: 3, sessions: 2 },
      'the ethertype and the IPv6 source; vm1 and vm2',
    );
    for (const n of [1, 2]) {
      const source = await serviceAddress6(f, n);
      assert.ok(source !== undefined, `vm${n} has an IPv6 service address`);
      assert.equal(t.bySource6.get(source), await policerOf(n), `vm${n}: the policer of its IPv4 packets`);
      assert.equal(await policerName(f, await policerOf(n)), tags.vmRatePolicer(`vm${n}`));
    }
    assert.equal(t.policers.includes(await policerOf(3)), false, 'vm3 has no IPv6: no session');
    assert.equal(
      (await bindings(f, 'ip6')).size,
      0,
      'nothing on the ports’ IPv6 input (nat66 comes first there)',
    );
    assert.deepEqual((await apply(f, dual())).ops, [], 'a second pass changes nothing');
  });

  it('polices what a VM sends over IPv6 to the services with its own policer, and no tenant IPv6 traffic', async (t) => {
    const sim = f.target.sim;
    if (!sim) return t.skip('judged by the simulator’s model of l2-policer-classify');
    const bvi = await bviIndex(f);
    for (const n of [1, 2]) {
      const source = (await serviceAddress6(f, n)) as string;
      const policer = await policerOf(n);
      assert.equal(
        sim.policerClassifyVerdict({
          swIfIndex: (await portIndex(f, n)) as number,
          src: `10.0.0.${n + 4}`,
          dst: METADATA,
        }),
        policer,
      );
      // Past nat66 the VM's request carries its service address; the BVI sends it into the bridge.
      for (const dst of [METADATA6, DNS6])
        assert.equal(
          sim.policerClassifyVerdict({ swIfIndex: bvi, src: source, dst, dstPort: 53, l2Input: true }),
          policer,
          `vm${n} → ${dst}`,
        );
      // Before nat66, on the VM port: nothing classifies IPv6 (its tenant traffic is untouched).
      for (const dst of [METADATA6, VM6(3 - n), '2001:4860:4860::8888'])
        assert.equal(
          sim.policerClassifyVerdict({ swIfIndex: (await portIndex(f, n)) as number, src: VM6(n), dst }),
          'no-classify',
          `vm${n}'s port → ${dst}`,
        );
    }
    // What else the BVI sends into the bridge: from the gateway, link-local, other service addresses, IPv4.
    for (const src of ['fd00:ec2::1', 'fe80::1', 'fd00:ec2:0:ff::99', '2001:db8:a::5'])
      assert.equal(
        sim.policerClassifyVerdict({ swIfIndex: bvi, src, dst: METADATA6, l2Input: true }),
        'no-match',
        src,
      );
    assert.equal(
      sim.policerClassifyVerdict({ swIfIndex: bvi, src: '169.252.252.1', dst: METADATA, l2Input: true }),
      'no-match',
      'IPv4 from the BVI',
    );
  });

  it('takes the IPv6 table away when services.ip6 goes, and brings it back in place', async () => {
    const tables = await tableCount(f);
    const off = await apply(f, dual({ services: false }));
    assert.ok(off.ops.includes('delete vm-rate-table6'), off.ops.join(', '));
    assert.equal((await bindings(f, 'l2')).size, 0, 'no L2 binding left');
    assert.equal(await tableCount(f), tables - 1, 'the IPv6 table is deleted');
    assert.deepEqual((await policers(f)).get(tags.vmRatePolicer('vm1')), { cir: 1000, cb: 65536 });
    assert.deepEqual((await apply(f, dual({ services: false }))).ops, []);

    const p1 = await policerOf(1);
    const back = await apply(f, dual());
    assert.deepEqual(
      back.ops.filter((o) => o.includes('vm-rate')),
      ['create vm-rate-table6', 'update vm-rate-limit:vm1', 'update vm-rate-limit:vm2'],
    );
    const t = await tableOf(f, (await bindings(f, 'l2')).get(await bviIndex(f)) as number);
    assert.equal(
      t.bySource6.get((await serviceAddress6(f, 1)) as string),
      p1,
      'the same policer: its counters stay',
    );
    assert.deepEqual((await apply(f, dual())).ops, []);
  });

  it('a new rate: the IPv6 session names the new policer', async (t) => {
    const limits = { rateKbps: 300, burstBytes: 4000 };
    await apply(f, dual({ vmLimits: limits }));
    assert.deepEqual((await apply(f, dual({ vmLimits: limits }))).ops, []);
    const table6 = await tableOf(f, (await bindings(f, 'l2')).get(await bviIndex(f)) as number);
    const p1 = await policerOf(1);
    assert.equal(table6.bySource6.get((await serviceAddress6(f, 1)) as string), p1);
    assert.equal(table6.sessions, 2, 'no stale session');
    assert.deepEqual((await policers(f)).get(tags.vmRatePolicer('vm1')), { cir: 300, cb: 4000 });
    if (!f.target.sim) t.diagnostic('real VPP: the sessions read back through the API');
    await apply(f, dual());
  });

  it("unbinds another's L2 table from the BVI without deleting it, and binds its own", async () => {
    const bvi = await bviIndex(f);
    const ours = (await bindings(f, 'l2')).get(bvi) as number;
    const mask = Buffer.alloc(48);
    mask.fill(0xff, 6, 12);
    const table = (isAdd: boolean, index: number) =>
      f.client.call(msg.classify_add_del_table, {
        is_add: isAdd,
        del_chain: false,
        table_index: index,
        nbuckets: 2,
        memory_size: 64 << 10,
        skip_n_vectors: 0,
        match_n_vectors: 3,
        next_table_index: 0xffffffff,
        miss_next_index: 0xffffffff,
        current_data_flag: 0,
        current_data_offset: 0,
        mask,
      });
    const theirs = (await table(true, 0xffffffff)).new_table_index;
    const bind = (index: number, isAdd: boolean) =>
      f.client.call(msg.policer_classify_set_interface, {
        sw_if_index: bvi,
        ip4_table_index: 0xffffffff,
        ip6_table_index: 0xffffffff,
        l2_table_index: index,
        is_add: isAdd,
      });
    // Someone swaps the BVI's table for one of theirs (by source MAC).
    await bind(ours, false);
    await bind(theirs, true);
    try {
      const { ops } = await apply(f, dual());
      assert.deepEqual(ops.filter((o) => o.includes('vm-rate-table6')).sort(), [
        'create vm-rate-table6',
        'delete vm-rate-table6',
      ]);
      const now = (await bindings(f, 'l2')).get(bvi) as number;
      assert.notEqual(now, theirs, 'theirs is unbound');
      assert.ok((await f.client.call(msg.classify_table_ids, {})).ids.includes(theirs), 'and still there');
      const t = await tableOf(f, now);
      assert.equal(t.bySource6.get((await serviceAddress6(f, 1)) as string), await policerOf(1));
      assert.deepEqual((await apply(f, dual())).ops, []);
    } finally {
      await table(false, theirs);
      // Ours, unbound behind vppnet's back, is nobody's now.
      await table(false, ours).catch(() => undefined);
    }
  });
  it('makes the IPv6 table again when a session in it names no VM policer of vppnet, and the VMs’ sessions with it', async () => {
    const bvi = await bviIndex(f);
    const table = (await bindings(f, 'l2')).get(bvi) as number;
    const config = {
      cir: 10,
      eir: 0,
      cb: 1500n,
      eb: 0n,
      rate_type: 0,
      round_type: 0,
      type: 0,
      color_aware: false,
      conform_action: { type: 1, dscp: 0 },
      exceed_action: { type: 0, dscp: 0 },
      violate_action: { type: 0, dscp: 0 },
    };
    const theirs = (await f.client.call(msg.policer_add, { name: 'operator-l2', infos: config }))
      .policer_index;
    const match = Buffer.alloc(48);
    match.writeUInt16BE(0x86dd, 12);
    Buffer.from('fd000ec200000000000000000000beef', 'hex').copy(match, 22);
    await f.client.call(msg.classify_add_del_session, {
      is_add: true,
      table_index: table,
      hit_next_index: theirs,
      opaque_index: 0xffffffff,
      advance: 0,
      action: 0,
      metadata: 0,
      match,
    });
    try {
      const { ops } = await apply(f, dual());
      assert.deepEqual(ops.filter((o) => o.includes('vm-rate')).sort(), [
        'create vm-rate-limit:vm1',
        'create vm-rate-limit:vm2',
        'create vm-rate-table6',
        'delete vm-rate-limit:vm1',
        'delete vm-rate-limit:vm2',
        'delete vm-rate-table6',
      ]);
      const t = await tableOf(f, (await bindings(f, 'l2')).get(bvi) as number);
      assert.equal(t.sessions, 2, 'only the VMs’ sessions');
      assert.equal(t.bySource6.get((await serviceAddress6(f, 1)) as string), await policerOf(1));
      assert.deepEqual((await apply(f, dual())).ops, []);
    } finally {
      await f.client.call(msg.policer_add_del, { is_add: false, name: 'operator-l2', ...config });
    }
  });
});
