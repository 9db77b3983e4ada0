/**
 * The simulator's IPv6 (dual-stack VPCs, docs/dual-stack.md) against VPP 26.06: End.DT6 and IPv6
 * steering. Every test but the crash ones also runs against a real VPP (VPP_API_SOCKET; start it
 * fresh: the expected stats-free dumps assume only the IPv6 suites configured it). Each test uses
 * its own interfaces, tables, SIDs and BSIDs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../messages/index.js';
import { SIM_ONLY } from '../../../test/support/vpp-target.js';
import { localsid, policy, steer6, ip6Sessions } from '../../../test/support/sim/ip6-calls.js';

const { start, rv, dump, table6, routes6, nextContext } = ip6Sessions();

describe('simulator: SRv6 End.DT6 and IPv6 steering', () => {
  it('lists an End.DT6 SID with its IPv6 table id', async () => {
    const { c } = await start();
    await table6(c, 170);
    assert.equal(await rv(c, msg.sr_localsid_add_del, localsid('fc00:0:17::100:aa', 8, 170)), 0);
    assert.equal(await rv(c, msg.sr_localsid_add_del, localsid('fc00:0:17::100:aa', 8, 170)), -1);
    const sids = await dump(c, msg.sr_localsids_dump, {});
    assert.deepEqual(
      sids.filter((s) => s.addr === 'fc00:0:17::100:aa'),
      [
        {
          addr: 'fc00:0:17::100:aa',
          end_psp: false,
          behavior: 8,
          fib_table: 0,
          vlan_index: 0,
          xconnect_nh_addr: { af: 0, un: { ip4: '0.0.0.0', ip6: '::' } },
          xconnect_iface_or_vrf_table: 170,
        },
      ],
    );
    assert.equal(await rv(c, msg.sr_localsid_add_del, localsid('fc00:0:17::100:aa', 8, 170, true)), 0);
    assert.ok(!(await dump(c, msg.sr_localsids_dump, {})).some((s) => s.addr === 'fc00:0:17::100:aa'));
  });

  it('keys IPv6 steering by (prefix, table, type); a re-add re-points; the dump shows what VPP shows', async () => {
    const { c } = await start();
    await table6(c, 180);
    await table6(c, 181);
    assert.equal(await rv(c, msg.sr_policy_add, policy('fc00:ff:18::62:100:a', 'fc00:0:62::100:a')), 0);
    assert.equal(await rv(c, msg.sr_policy_add, policy('fc00:ff:18::62:100:14', 'fc00:0:62::100:14')), 0);
    const vm = '2001:db8:18::5054:ff:fe62:a01';
    assert.equal(await rv(c, msg.sr_steering_add_del, steer6('fc00:ff:18::62:100:a', 180, vm)), 0);
    assert.equal(await rv(c, msg.sr_steering_add_del, steer6('fc00:ff:18::62:100:14', 181, vm)), 0);
    assert.equal(await rv(c, msg.sr_steering_add_del, steer6('fc00:ff:18::62:100:14', 180, vm)), 0);
    assert.equal(await rv(c, msg.sr_steering_add_del, steer6('fc00:ff:18::62:100:a', 180, vm)), 0);
    assert.equal(await rv(c, msg.sr_steering_add_del, steer6('fc00:ff:18::99', 180, '2001:db8:18::1')), -2);
    assert.equal(
      await rv(c, msg.sr_steering_add_del, steer6('fc00:ff:18::62:100:a', 180, '2001:db8:18::2', true)),
      -4,
    );
    const steering = (await dump(c, msg.sr_steering_pol_dump, {})).filter((s) =>
      [180, 181].includes(s.fib_table as number),
    );
    // sw_if_index is a union with the prefix: 2001:0db8 read as a little-endian u32
    const entry = (table: number, bsid: string) => ({
      traffic_type: 6,
      fib_table: table,
      prefix: {
        address: { af: 1, un: { ip4: '32.1.13.184', ip6: '2001:db8:18:0:5054:ff:fe62:a01' } },
        len: 128,
      },
      sw_if_index: 0xb80d0120,
      bsid,
    });
    assert.deepEqual(steering, [entry(180, 'fc00:ff:18::62:100:a'), entry(181, 'fc00:ff:18::62:100:14')]);
    const remote = (await routes6(c, 180)).filter((r) => r.startsWith('2001:db8:18:'));
    assert.deepEqual(remote, [
      '2001:db8:18:0:5054:ff:fe62:a01/128 src 5 [sw 4294967295 table 4294967295 type 0 flags 0 proto 1 nh fc00:ff:18::62:100:a]',
    ]);
    assert.equal(await rv(c, msg.sr_steering_add_del, steer6('fc00:ff:18::62:100:a', 180, vm, true)), 0);
    assert.equal(await rv(c, msg.sr_steering_add_del, steer6('fc00:ff:18::62:100:14', 181, vm, true)), 0);
    assert.equal(
      await rv(c, msg.sr_policy_del, { bsid_addr: 'fc00:ff:18::62:100:a', sr_policy_index: 0 }),
      0,
    );
    assert.equal(
      await rv(c, msg.sr_policy_del, { bsid_addr: 'fc00:ff:18::62:100:14', sr_policy_index: 0 }),
      0,
    );
  });

  it(
    'a DT6 or DT4 SID into a missing table answers 0, and the next sr_localsids_dump kills VPP',
    { skip: SIM_ONLY },
    async () => {
      for (const behavior of [8, 9]) {
        const { t, c } = await start();
        assert.equal(await rv(c, msg.sr_localsid_add_del, localsid('fc00:0:19::1', behavior, 190)), 0);
        c.send(msg.sr_localsids_dump, {}, nextContext());
        await c.closed;
        assert.equal(t.sim?.state.crashes.length, 1);
        assert.equal(t.sim?.state.sr.localsids.length, 0, 'VPP came back empty');
      }
    },
  );

  it('IPv6 steering into a missing IPv6 table kills VPP at once', { skip: SIM_ONLY }, async () => {
    const { t, c } = await start();
    assert.equal(await rv(c, msg.sr_policy_add, policy('fc00:ff:19::1', 'fc00:0:62::100:a')), 0);
    const received = c.received.length;
    c.send(msg.sr_steering_add_del, steer6('fc00:ff:19::1', 191, '2001:db8:19::1'), nextContext());
    await c.closed;
    assert.equal(c.received.length, received, 'no reply');
    assert.equal(t.sim?.state.crashes.length, 1);
  });
});
