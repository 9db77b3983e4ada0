/**
 * Per-VM fairness on the service plane (services/vm-rate-limit.ts) across config changes: an
 * upgrade from the IPv4-only rate limit, and the services turned off. Also runs against a real VPP
 * with VPP_API_SOCKET.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tags } from '../dataplane/keys.js';
import { msg } from '../vpp/messages/index.js';
import {
  METADATA6,
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
} from '../../test/support/service-rate-limit-fixture.js';

describe('an upgrade from the IPv4-only rate limit', () => {
  it('adds the IPv6 table and each VM’s session in place, keeping the IPv4 tables and policers; a second pass plans nothing', async (t) => {
    const f = await openFixture();
    try {
      // What an agent without IPv6 policing left: IPv4 tables alone, on ports that have IPv6.
      await apply(f, rawConfig(f, { ip6: { ports: [1, 2], services: false } }));
      const sw = (await portIndex(f, 1)) as number;
      const table4 = (await bindings(f)).get(sw) as number;
      const [policer] = (await tableOf(f, table4)).policers;
      const { ops } = await apply(f, rawConfig(f, { ip6: { ports: [1, 2] } }));
      assert.deepEqual(
        ops.filter((o) => o.includes('vm-rate')),
        ['create vm-rate-table6', 'update vm-rate-limit:vm1', 'update vm-rate-limit:vm2'],
      );
      assert.equal((await bindings(f)).get(sw), table4, 'the IPv4 table stays');
      const bvi = await bviIndex(f);
      const t6 = await tableOf(f, (await bindings(f, 'l2')).get(bvi) as number);
      const source = (await serviceAddress6(f, 1)) as string;
      assert.equal(t6.bySource6.get(source), policer, 'the IPv6 session names the same policer');
      assert.deepEqual((await apply(f, rawConfig(f, { ip6: { ports: [1, 2] } }))).ops, []);
      if (f.target.sim)
        assert.equal(
          f.target.sim.policerClassifyVerdict({ swIfIndex: bvi, src: source, dst: METADATA6, l2Input: true }),
          policer,
        );
      else t.diagnostic('real VPP: the bindings read back through the API');
    } finally {
      await closeFixture(f);
    }
  });
});

describe('the services turned off', () => {
  it('takes the policers, the NAT mappings and the short UDP idle time away, and a second pass changes nothing', async () => {
    const f = await openFixture();
    const { target, client } = f;
    try {
      await apply(f, rawConfig(f));
      if (target.sim) assert.equal(target.sim.state.aclUdpIdleSeconds, 30, 'the default');
      const off = { ...rawConfig(f), services: undefined };
      await apply(f, off);
      assert.deepEqual((await apply(f, off)).ops, []);
      assert.equal(
        [...(await policers(f)).keys()].filter((n) => n.startsWith(tags.vmRatePolicer(''))).length,
        0,
      );
      // The plugin is a shared global: left enabled, holding nothing of vppnet's.
      const statics = await client.dump(msg.nat44_ei_static_mapping_dump, {});
      assert.equal(statics.filter((m) => m.tag.startsWith('vppnet:')).length, 0, 'no NAT mapping left');
      if (target.sim) assert.equal(target.sim.state.aclUdpIdleSeconds, 600, "VPP's default again");
    } finally {
      await closeFixture(f);
    }
  });
});
