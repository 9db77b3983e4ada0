/**
 * Per-VM fairness on the service plane (services/vm-rate-limit.ts) over IPv4: the reconciler gives
 * each VM port a policer of its own on its traffic to the service addresses. What VPP would do with
 * a packet is judged by the simulator's model of ip4-policer-classify (policerClassifyVerdict); the
 * same floods with real packets on a real VPP are in
 * test/integration/service-plane-traffic.test.ts. The state checks (read back, changes, leftovers)
 * also run against a real VPP with VPP_API_SOCKET.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tags } from '../dataplane/keys.js';
import { msg } from '../vpp/messages/index.js';
import {
  METADATA,
  DNS,
  type Fixture,
  openFixture,
  closeFixture,
  rawConfig,
  apply,
  portIndex,
  policers,
  bindings,
  policerName,
} from '../../test/support/service-rate-limit-fixture.js';

describe("each VM port's own policer on its traffic to the services", () => {
  let f: Fixture;
  before(async () => {
    f = await openFixture();
    await apply(f, rawConfig(f));
  });
  after(() => closeFixture(f));

  it('gives every VM port a policer of its own, at the configured rate and burst, read back as applied', async () => {
    const p = await policers(f);
    assert.deepEqual(p.get(tags.vmRatePolicer('vm1')), { cir: 1000, cb: 65536 }, 'the defaults');
    assert.deepEqual(p.get(tags.vmRatePolicer('vm2')), { cir: 1000, cb: 65536 });
    const b = await bindings(f);
    const [one, two] = [await portIndex(f, 1), await portIndex(f, 2)];
    assert.ok(one !== undefined && two !== undefined);
    assert.ok(b.has(one) && b.has(two), 'both ports are bound');
    assert.notEqual(b.get(one), b.get(two), 'a table each');
    assert.deepEqual((await apply(f, rawConfig(f))).ops, [], 'a second pass changes nothing');
  });

  it('polices what a VM sends to the metadata, DNS and DHCP broadcast addresses with its own policer, and nothing else', async (t) => {
    const sim = f.target.sim;
    if (!sim) return t.skip('judged by the simulator’s model of ip4-policer-classify');
    for (const n of [1, 2]) {
      const swIfIndex = (await portIndex(f, n)) as number;
      const src = `10.0.0.${n + 4}`;
      for (const dst of [METADATA, DNS, '255.255.255.255']) {
        const v = sim.policerClassifyVerdict({ swIfIndex, src, dst });
        assert.equal(typeof v, 'number', `vm${n} → ${dst}: ${v}`);
        assert.equal(await policerName(f, v as number), tags.vmRatePolicer(`vm${n}`), `vm${n} → ${dst}`);
      }
      for (const dst of ['10.0.0.6', '10.0.1.9', '169.254.169.1', '8.8.8.8'])
        assert.equal(sim.policerClassifyVerdict({ swIfIndex, src, dst }), 'no-match', `vm${n} → ${dst}`);
    }
  });

  it('applies a new rate, takes a removed port’s policer away, and turns policing off at rate 0', async (t) => {
    await apply(f, rawConfig(f, { vmLimits: { rateKbps: 200, burstBytes: 3000 } }));
    let p = await policers(f);
    assert.deepEqual(p.get(tags.vmRatePolicer('vm1')), { cir: 200, cb: 3000 });
    assert.deepEqual(
      (await apply(f, rawConfig(f, { vmLimits: { rateKbps: 200, burstBytes: 3000 } }))).ops,
      [],
    );
    if (f.target.sim) {
      const swIfIndex = (await portIndex(f, 1)) as number;
      const v = f.target.sim.policerClassifyVerdict({ swIfIndex, src: '10.0.0.5', dst: METADATA });
      assert.equal(
        await policerName(f, v as number),
        tags.vmRatePolicer('vm1'),
        'the new policer is the one named',
      );
    }

    const two = (await portIndex(f, 2)) as number;
    await apply(f, rawConfig(f, { ports: [1] }));
    p = await policers(f);
    assert.equal(p.has(tags.vmRatePolicer('vm2')), false, "vm2's policer is gone with it");
    assert.equal((await bindings(f)).has(two), false, "and vm2's binding");

    const tablesBefore = (await f.client.call(msg.classify_table_ids, {})).ids;
    await apply(f, rawConfig(f, { ports: [1], vmLimits: { rateKbps: 0 } }));
    p = await policers(f);
    assert.equal(
      [...p.keys()].filter((n) => n.startsWith(tags.vmRatePolicer(''))).length,
      0,
      'no policer left',
    );
    assert.equal((await bindings(f)).size, 0, 'no binding left');
    const tablesAfter = (await f.client.call(msg.classify_table_ids, {})).ids;
    assert.equal(tablesAfter.length, tablesBefore.length - 1, "vm1's table is deleted");
    if (!f.target.sim) t.diagnostic('real VPP: bindings and tables checked through the API');
    await apply(f, rawConfig(f));
  });

  it("deletes a vppnet policer bound to nothing (a crash part way) and leaves others' policers alone", async () => {
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
    await f.client.call(msg.policer_add, { name: tags.vmRatePolicer('vm9'), infos: config });
    await f.client.call(msg.policer_add, { name: 'operator-policer', infos: config });
    const { ops } = await apply(f, rawConfig(f));
    assert.deepEqual(ops, [`delete vm-rate-limit:vm9`]);
    const p = await policers(f);
    assert.equal(p.has(tags.vmRatePolicer('vm9')), false);
    assert.equal(p.has('operator-policer'), true);
    await f.client.call(msg.policer_add_del, { is_add: false, name: 'operator-policer', ...config });
  });
});
