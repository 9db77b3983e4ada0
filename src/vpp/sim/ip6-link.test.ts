/**
 * The simulator's IPv6 (dual-stack VPCs, docs/dual-stack.md) against VPP 26.06: the lock-counted
 * IPv6 link and its link-local address. Every test but the crash ones also runs against a real VPP
 * (VPP_API_SOCKET; start it fresh: the expected stats-free dumps assume only the IPv6 suites
 * configured it). Each test uses its own interfaces, tables, SIDs and BSIDs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../messages/index.js';
import { type VppTarget } from '../../../test/support/vpp-target.js';
import { prefix6, ip6Sessions } from '../../../test/support/sim/ip6-calls.js';

const { start, call, rv, loopback, open } = ip6Sessions();

describe('simulator: the IPv6 link (sw_interface_ip6_enable_disable, link-local)', () => {
  it('counts locks: enable twice (0, −81), one disable leaves it on, the next turns it off, then −62', async () => {
    const { c } = await start();
    const lo = await loopback(c, '02:fe:c9:3d:74:f7');
    const en = (enable: boolean) => rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: lo, enable });
    const ll = () => call(c, msg.sw_interface_ip6_get_link_local_address, { sw_if_index: lo });
    assert.equal((await ll()).retval, -62); // VPP leaves ip unset then: old buffer bytes
    assert.equal(await en(false), -62);
    assert.equal(await en(true), 0);
    assert.deepEqual(await ll(), { retval: 0, ip: 'fe80::fe:c9ff:fe3d:74f7' });
    assert.equal(await en(true), -81);
    assert.equal(await en(false), 0);
    assert.deepEqual(await ll(), { retval: 0, ip: 'fe80::fe:c9ff:fe3d:74f7' });
    assert.equal(await en(false), 0);
    assert.equal((await ll()).retval, -62); // VPP leaves ip unset then: old buffer bytes
    assert.equal(await en(false), -62);
    assert.equal(await rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: 9999, enable: true }), -2);
    const { t } = open[0] as { t: VppTarget };
    assert.equal(t.sim?.state.interfaces.find((i) => i.swIfIndex === lo)?.linkLocal, undefined);
  });

  it('sets the link-local (and, when off, enables with one lock); re-enabling goes back to EUI-64', async () => {
    const { c } = await start();
    const lo = await loopback(c, '02:fe:00:00:00:02');
    const ll = () => call(c, msg.sw_interface_ip6_get_link_local_address, { sw_if_index: lo });
    const en = (enable: boolean) => rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: lo, enable });
    assert.equal(
      await rv(c, msg.sw_interface_ip6_set_link_local_address, { sw_if_index: lo, ip: 'fe80::2' }),
      0,
    );
    assert.deepEqual(await ll(), { retval: 0, ip: 'fe80::2' });
    assert.equal(
      await rv(c, msg.sw_interface_ip6_set_link_local_address, { sw_if_index: lo, ip: 'fe80::1' }),
      0,
    );
    assert.deepEqual(await ll(), { retval: 0, ip: 'fe80::1' });
    assert.equal(await en(false), 0); // the one lock set_link_local took
    assert.equal((await ll()).retval, -62); // VPP leaves ip unset then: old buffer bytes
    assert.equal(await en(true), 0);
    assert.deepEqual(await ll(), { retval: 0, ip: 'fe80::fe:ff:fe00:2' });
  });

  it('adding an IPv6 address enables IPv6 with a lock; deleting it drops that lock', async () => {
    const { c } = await start();
    const lo = await loopback(c, '02:fe:00:00:00:03');
    const addr = (is_add: boolean) =>
      rv(c, msg.sw_interface_add_del_address, {
        sw_if_index: lo,
        is_add,
        del_all: false,
        prefix: prefix6('2001:db8:ff::1', 64),
      });
    const en = (enable: boolean) => rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: lo, enable });
    const ll = () => call(c, msg.sw_interface_ip6_get_link_local_address, { sw_if_index: lo });
    assert.equal(await addr(true), 0);
    assert.deepEqual(await ll(), { retval: 0, ip: 'fe80::fe:ff:fe00:3' });
    assert.equal(await en(true), -81);
    assert.equal(await en(false), 0);
    assert.deepEqual(await ll(), { retval: 0, ip: 'fe80::fe:ff:fe00:3' }); // the address's lock
    assert.equal(await addr(false), 0);
    assert.equal((await ll()).retval, -62); // VPP leaves ip unset then: old buffer bytes
  });
});
