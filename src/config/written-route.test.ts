import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ip4ToInt } from '../net/ip.js';
import { Ip4WrittenRoute, Ip6WrittenRoute } from './written-route.js';
import { base } from './testing/raw-config.js';
import { validateConfig } from './validate.js';

describe('written routes', () => {
  it('give back the IPv4 prefix they were made from, across the whole address range', () => {
    for (const address of [
      '0.0.0.0',
      '10.1.255.0',
      '127.255.255.255',
      '128.0.0.0',
      '192.168.1.0',
      '255.255.255.255',
    ]) {
      const r = new Ip4WrittenRoute('vpc-a', ip4ToInt(address), 24, 'fc00:2::a');
      assert.deepEqual(r.prefix, { address, len: 24 });
      assert.equal(r.family, 4);
      assert.deepEqual(JSON.parse(JSON.stringify(r)), {
        vpc: 'vpc-a',
        prefix: { address, len: 24 },
        family: 4,
        sid: 'fc00:2::a',
      });
    }
  });

  it('give back the IPv6 prefix they were made from, canonical, across the whole address range', () => {
    const cases: [string, string][] = [
      ['2001:db8:b::', '2001:db8:b::'],
      ['2001:DB8:A:0:5054:ff:fe62:a01', '2001:db8:a:0:5054:ff:fe62:a01'],
      ['::', '::'],
      ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
      ['8000::1', '8000::1'],
      ['::ffff:10.0.0.1', '::ffff:a00:1'],
    ];
    for (const [written, canonical] of cases) {
      const r = new Ip6WrittenRoute('vpc-b', written, 64, 'fc00:2::100:14');
      assert.deepEqual(r.prefix, { address: canonical, len: 64 });
      assert.equal(r.family, 6);
      assert.deepEqual(r.toJSON(), {
        vpc: 'vpc-b',
        prefix: { address: canonical, len: 64 },
        family: 6,
        sid: 'fc00:2::100:14',
      });
    }
    assert.throws(
      () => new Ip6WrittenRoute('vpc-b', '10.0.0.1', 32, 'fc00:2::1'),
      /not an IPv6 address: "10.0.0.1"/,
    );
  });

  it('are what a config file’s remote routes validate into, their strings shared', () => {
    const raw = base();
    raw.remoteRoutes.push(
      { vpc: 'vpc-a', prefix: '10.0.200.0/24', sid: 'fc00:2::a' },
      { vpc: 'vpc-a', prefix: '10.0.201.7/32', sid: 'fc00:2::a' },
    );
    const config = validateConfig(raw);
    const [, a, b] = config.remoteRoutes;
    assert.ok(a instanceof Ip4WrittenRoute && b instanceof Ip4WrittenRoute);
    assert.deepEqual(a.prefix, { address: '10.0.200.0', len: 24 });
    assert.deepEqual(b.prefix, { address: '10.0.201.7', len: 32 });
    assert.equal(a.sid, 'fc00:2::a');
    assert.equal(a.vpc, config.vpcs[0]?.name);
  });
});
