/**
 * The simulator's nat44-ei plugin against VPP 26.06 (src/plugins/nat/nat44-ei, see nat44-ei.ts):
 * what every change answers and what the dumps list while the plugin is disabled.
 *
 * The tests also run against a real VPP (VPP_API_SOCKET, nat44_ei plugin loaded): each starts with
 * the plugin disabled and ends by disabling it and removing what it made. nat44-ei leaves things
 * behind for good in several cases (table locks, identity mappings' /32s, tables locked by the
 * enable); tests that would do so skip on a real VPP unless VPPNET_DISPOSABLE_VPP=1 says it is a
 * fresh VPP to be thrown away (they use VRF ids and addresses of their own, so one run of the
 * nat44-ei files on a fresh VPP passes).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../messages/index.js';
import { SIM_ONLY } from '../../../test/support/vpp-target.js';
import { IN_USE, nat44EiSessions } from '../../../test/support/sim/nat44-ei-calls.js';

const {
  start,
  rv,
  dump,
  disable,
  runningConfig,
  sm,
  im,
  oif,
  smDump,
  imDump,
  outputInterfaces,
  ip4Tables,
  session,
  newLoop,
} = nat44EiSessions();

describe('simulator: nat44-ei while the plugin is disabled', { skip: IN_USE }, () => {
  it('changes answer -169 (a bad sw_if_index -2 first), dumps list nothing, timeouts can be set', async () => {
    await session(async (c, made, sim) => {
      const r = await runningConfig(c);
      assert.deepEqual(
        {
          retval: r.retval,
          inside_vrf: r.inside_vrf,
          outside_vrf: r.outside_vrf,
          users: r.users,
          sessions: r.sessions,
          user_sessions: r.user_sessions,
          forwarding_enabled: r.forwarding_enabled,
          ipfix_logging_enabled: r.ipfix_logging_enabled,
          log_level: r.log_level,
          flags: r.flags,
        },
        {
          retval: 0,
          inside_vrf: 0,
          outside_vrf: 0,
          users: 0,
          sessions: 0,
          user_sessions: 0,
          forwarding_enabled: false,
          ipfix_logging_enabled: true, // nat_ipfix_logging_enabled's inverted answer
          log_level: 0,
          flags: 0,
        },
      );
      if (sim) {
        // a fresh process: no buckets and no timeouts until the first enable
        assert.equal(r.user_buckets, 0);
        assert.equal(r.translation_buckets, 0);
        assert.deepEqual(r.timeouts, { udp: 0, tcp_established: 0, tcp_transitory: 0, icmp: 0 });
      }
      assert.equal(await disable(c), -169);
      const sw = await newLoop(c, made);
      assert.equal(await sm(c, true, '10.1.0.5', '169.252.252.5', { vrf: 6001 }), -169);
      assert.equal(await sm(c, false, '10.1.0.5', '169.252.252.5', { vrf: 6001 }), -169);
      assert.equal(await im(c, true, '10.1.0.1', { vrf: 6001 }), -169);
      assert.equal(await im(c, false, '10.1.0.1', { vrf: 6001 }), -169);
      assert.deepEqual(await ip4Tables(c, 6001), [], 'a refused mapping creates no table');
      assert.equal(await oif(c, true, sw), -169);
      assert.equal(await oif(c, false, sw), -169);
      assert.equal(await oif(c, true, 9999), -2, 'VALIDATE_SW_IF_INDEX comes first');
      assert.equal(await oif(c, false, 9999), -2);
      assert.deepEqual(await outputInterfaces(c), [0, 0, []]);
      assert.deepEqual(await smDump(c), []);
      assert.deepEqual(await imDump(c), []);
      assert.deepEqual(await dump(c, msg.nat44_ei_user_dump, {}), []);
      const timeouts = { udp: 1, tcp_established: 2, tcp_transitory: 3, icmp: 4 };
      assert.equal(await rv(c, msg.nat44_ei_set_timeouts, timeouts), 0);
      assert.deepEqual((await runningConfig(c)).timeouts, timeouts);
    });
  });

  it('nat44_ei_del_user while disabled kills VPP (the simulator restarts)', { skip: SIM_ONLY }, async () => {
    const { t, c } = await start();
    c.send(msg.nat44_ei_del_user, { ip_address: '10.0.0.1', fib_index: 0 }, 7);
    await c.closed;
    assert.equal(t.sim?.state.crashes.length, 1);
  });
});
