/**
 * The simulator's IPv6 (dual-stack VPCs, docs/dual-stack.md) against VPP 26.06: router
 * advertisements and their prefixes. Every test but the crash ones also runs against a real VPP
 * (VPP_API_SOCKET; start it fresh: the expected stats-free dumps assume only the IPv6 suites
 * configured it). Each test uses its own interfaces, tables, SIDs and BSIDs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msg } from '../messages/index.js';
import {
  ANY,
  prefix6,
  prefixView,
  RA_DEFAULTS,
  raConfig,
  raPrefix,
  VPC_PREFIX,
  VPC_RA,
  ip6Sessions,
  type RaDetails,
} from '../../../test/support/sim/ip6-calls.js';

const { start, rv, loopback, raDump } = ip6Sessions();

describe('simulator: router advertisements', () => {
  it('answers −62 while IPv6 is off; once on, lists the defaults with the IPv6 MTU of that moment', async () => {
    const { c } = await start();
    const lo = await loopback(c, '02:fe:00:00:01:01');
    assert.equal(await rv(c, msg.sw_interface_ip6nd_ra_config, raConfig(lo, VPC_RA)), -62);
    assert.equal(
      await rv(c, msg.sw_interface_ip6nd_ra_prefix, raPrefix(lo, '2001:db8:a::', VPC_PREFIX)),
      -62,
    );
    assert.deepEqual(await raDump(c, lo), []);
    assert.equal(await rv(c, msg.sw_interface_set_mtu, { sw_if_index: lo, mtu: [0, 1460, 1460, 0] }), 0);
    assert.equal(await rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: lo, enable: true }), 0);
    // the MTU is copied once: a later change does not show
    assert.equal(await rv(c, msg.sw_interface_set_mtu, { sw_if_index: lo, mtu: [0, 1400, 1400, 0] }), 0);
    assert.deepEqual(await raDump(c, lo), [
      { sw_if_index: lo, ...RA_DEFAULTS, adv_link_mtu: 1460, n_prefixes: 0, prefixes: [] },
    ]);
    // enabled at the default MTU: 9000
    const lo2 = await loopback(c, '02:fe:00:00:01:02');
    assert.equal(await rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: lo2, enable: true }), 0);
    assert.equal((await raDump(c, lo2))[0]?.adv_link_mtu, 9000);
  });

  it('validates intervals and lifetime as VPP does; a rejected config still turns sending on', async () => {
    const { c } = await start();
    const lo = await loopback(c, '02:fe:00:00:02:01');
    assert.equal(await rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: lo, enable: true }), 0);
    assert.equal(
      await rv(c, msg.sw_interface_ip6nd_ra_config, raConfig(lo, { max_interval: 30, min_interval: 29 })),
      -7,
    );
    const after = (await raDump(c, lo))[0] as RaDetails;
    assert.deepEqual([after.send_radv, after.max_radv_interval, after.min_radv_interval], [true, 200, 150]);
    // lifetime only counts with default_router: 100 ≤ 200 is accepted without, refused with
    assert.equal(
      await rv(c, msg.sw_interface_ip6nd_ra_config, raConfig(lo, { max_interval: 200, lifetime: 100 })),
      0,
    );
    assert.equal(
      await rv(
        c,
        msg.sw_interface_ip6nd_ra_config,
        raConfig(lo, { max_interval: 200, lifetime: 100, default_router: 1 }),
      ),
      -7,
    );
    // no min_interval: 0.75 · max, truncated (30 → 22)
    assert.equal(
      await rv(
        c,
        msg.sw_interface_ip6nd_ra_config,
        raConfig(lo, { max_interval: 30, lifetime: 600, default_router: 1 }),
      ),
      0,
    );
    assert.equal((await raDump(c, lo))[0]?.min_radv_interval, 22);
    assert.equal(await rv(c, msg.sw_interface_ip6nd_ra_config, raConfig(lo, VPC_RA)), 0);
    const d = (await raDump(c, lo))[0] as RaDetails;
    assert.deepEqual(
      [d.send_radv, d.adv_router_lifetime, d.max_radv_interval, d.min_radv_interval],
      [true, 600, 30, 10],
    );
  });

  it('keeps prefixes by address: re-add keeps explicit lifetimes, use_default zeroes an existing one, −7/−8 on delete', async () => {
    const { c } = await start();
    const lo = await loopback(c, '02:fe:00:00:03:01');
    assert.equal(await rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: lo, enable: true }), 0);
    assert.equal(await rv(c, msg.sw_interface_ip6nd_ra_prefix, raPrefix(lo, '2001:db8:a::', VPC_PREFIX)), 0);
    assert.equal(await rv(c, msg.sw_interface_ip6nd_ra_prefix, raPrefix(lo, '2001:db8:a::', VPC_PREFIX)), 0);
    assert.equal(
      await rv(c, msg.sw_interface_ip6nd_ra_prefix, raPrefix(lo, '2001:db8:b::', { is_no: true })),
      -7,
    );
    assert.equal(
      await rv(c, msg.sw_interface_ip6nd_ra_prefix, {
        ...raPrefix(lo, '2001:db8:a::', { is_no: true }),
        prefix: prefix6('2001:db8:a::', 48),
      }),
      -8,
    );
    const vpc = {
      prefix: '2001:db8:a::/64',
      onlink_flag: false,
      autonomous_flag: true,
      val_lifetime: 2592000,
      pref_lifetime: 604800,
      decrement_lifetime_flag: true,
      no_advertise: false,
      validExpiresAbout: 2592000,
      prefExpiresAbout: 604800,
    };
    assert.deepEqual(((await raDump(c, lo))[0] as RaDetails).prefixes.map(prefixView), [vpc]);
    assert.equal(
      await rv(c, msg.sw_interface_ip6nd_ra_prefix, raPrefix(lo, '2001:db8:a::', { use_default: true })),
      0,
    );
    assert.equal(
      await rv(
        c,
        msg.sw_interface_ip6nd_ra_prefix,
        raPrefix(lo, '2001:db8:c::', { use_default: true, no_onlink: true }),
      ),
      0,
    );
    assert.equal(
      await rv(
        c,
        msg.sw_interface_ip6nd_ra_prefix,
        raPrefix(lo, '2001:db8:d::', { val_lifetime: ANY, pref_lifetime: ANY, no_advertise: true }),
      ),
      0,
    );
    const d = (await raDump(c, ANY)).find((x) => x.sw_if_index === lo) as RaDetails;
    assert.equal(d.n_prefixes, 3);
    assert.deepEqual(d.prefixes.map(prefixView), [
      // the trap: an existing prefix takes the request's (zero) lifetimes and flags
      {
        prefix: '2001:db8:a::/64',
        onlink_flag: true,
        autonomous_flag: true,
        val_lifetime: 0,
        pref_lifetime: 0,
        decrement_lifetime_flag: true,
        no_advertise: false,
        validExpiresAbout: 0,
        prefExpiresAbout: 0,
      },
      // a new one gets VPP's defaults, and its flags are ignored
      {
        prefix: '2001:db8:c::/64',
        onlink_flag: true,
        autonomous_flag: true,
        val_lifetime: 2592000,
        pref_lifetime: 604800,
        decrement_lifetime_flag: true,
        no_advertise: false,
        validExpiresAbout: 2592000,
        prefExpiresAbout: 604800,
      },
      {
        prefix: '2001:db8:d::/64',
        onlink_flag: true,
        autonomous_flag: true,
        val_lifetime: ANY,
        pref_lifetime: ANY,
        decrement_lifetime_flag: false,
        no_advertise: true,
        validExpiresAbout: 0,
        prefExpiresAbout: 0,
      },
    ]);
  });

  it('drops the RA config and prefixes when IPv6 goes off; re-enabling starts from the defaults', async () => {
    const { c } = await start();
    const lo = await loopback(c, '02:fe:00:00:04:01');
    assert.equal(await rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: lo, enable: true }), 0);
    assert.equal(await rv(c, msg.sw_interface_ip6nd_ra_prefix, raPrefix(lo, '2001:db8:a::', VPC_PREFIX)), 0);
    assert.equal(await rv(c, msg.sw_interface_ip6nd_ra_config, raConfig(lo, VPC_RA)), 0);
    assert.equal(await rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: lo, enable: false }), 0);
    assert.deepEqual(await raDump(c, lo), []);
    assert.ok(!(await raDump(c, ANY)).some((d) => d.sw_if_index === lo));
    assert.equal(await rv(c, msg.sw_interface_ip6_enable_disable, { sw_if_index: lo, enable: true }), 0);
    assert.deepEqual(await raDump(c, lo), [
      { sw_if_index: lo, ...RA_DEFAULTS, adv_link_mtu: 9000, n_prefixes: 0, prefixes: [] },
    ]);
  });
});
