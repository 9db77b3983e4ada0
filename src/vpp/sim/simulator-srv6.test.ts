/**
 * The simulator's SRv6 messages against VPP's behaviour for bad operations (retvals taken from VPP
 * 26.06's handlers). Real Unix sockets, the raw test client.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../messages/index.js';
import { prefix4, prefix6, simSessions } from '../../../test/support/sim/sim-sessions.js';

const { start, call, rv } = simSessions();

describe('srv6', () => {
  it('localsid -1/-2/-3/-4, policy -12/-13/-1, steering -2/-4/-5', async () => {
    const { c } = await start();
    const sid = (is_del: boolean, localsid: string, fib_table = 0) =>
      rv(c, msg.sr_localsid_add_del, {
        is_del,
        localsid,
        behavior: 9,
        sw_if_index: 10,
        fib_table,
        nh_addr: { af: 1 },
      });
    assert.equal(await sid(false, 'fc00:1::a'), 0);
    assert.equal(await sid(false, 'fc00:1::a'), -1);
    assert.equal(await sid(true, 'fc00:1::b'), -2);
    assert.equal(await sid(false, 'fc00:1::c', 99), -3);
    // a non-SR route already holds the address
    const lo = (await call(c, msg.create_loopback_instance, {})).sw_if_index as number;
    await rv(c, msg.sw_interface_set_flags, { sw_if_index: lo, flags: 1 });
    await rv(c, msg.sw_interface_add_del_address, {
      sw_if_index: lo,
      is_add: true,
      prefix: prefix6('fc00:1::d', 64),
    });
    assert.equal(await sid(false, 'fc00:1::d'), -4);
    assert.equal(await sid(true, 'fc00:1::a'), 0);

    const policy = (bsid: string, is_encap: boolean, fib_table = 0) =>
      rv(c, msg.sr_policy_add, {
        bsid_addr: bsid,
        is_encap,
        fib_table,
        sids: { num_sids: 1, weight: 1, sids: ['fc00:2::a'] },
      });
    assert.equal(await policy('fc00:1:ff::1', true), 0);
    assert.equal(await policy('fc00:1:ff::1', true), -12);
    assert.equal(await policy('fc00:1:ff::2', true, 77), -13);
    assert.equal(await policy('fc00:1:ff::3', false), 0);
    assert.equal(await rv(c, msg.sr_policy_del, { bsid_addr: 'fc00:1:ff::9' }), -1);

    await rv(c, msg.ip_table_add_del, { is_add: true, table: { table_id: 10 } });
    const steer = (is_del: boolean, bsid: string) =>
      rv(c, msg.sr_steering_add_del, {
        is_del,
        bsid_addr: bsid,
        table_id: 10,
        prefix: prefix4('10.0.1.0', 24),
        traffic_type: 4,
      });
    assert.equal(await steer(false, 'fc00:1:ff::9'), -2);
    assert.equal(await steer(false, 'fc00:1:ff::3'), -5);
    assert.equal(await steer(true, 'fc00:1:ff::1'), -4);
    assert.equal(await steer(false, 'fc00:1:ff::1'), 0);
    assert.equal(await steer(false, 'fc00:1:ff::3'), 0); // re-pointing skips the encap check, as in VPP
    assert.equal(await steer(true, 'fc00:1:ff::1'), 0);
  });

  it('steering into a table that does not exist crashes VPP (the simulator restarts)', async () => {
    const { sim, c } = await start();
    await call(c, msg.sr_policy_add, {
      bsid_addr: 'fc00::1',
      is_encap: true,
      sids: { num_sids: 1, weight: 1, sids: ['fc00::2'] },
    });
    c.send(
      msg.sr_steering_add_del,
      { bsid_addr: 'fc00::1', table_id: 55, prefix: prefix4('10.0.0.0', 8), traffic_type: 4 },
      9,
    );
    await c.closed;
    assert.equal(sim.state.crashes.length, 1);
    assert.equal(sim.state.sr.policies.length, 0);
  });
});
