/** Config validation of dual-stack and IPv6-only VPCs: subnets, DT6 SIDs, link-local gateways, routes. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseConfig } from './load.js';
import { validateConfig } from './validate.js';
import { routeAsWritten } from './written-route.js';
import { base, problems, type RawConfig } from './testing/raw-config.js';

describe('config validation: dual-stack and IPv6-only VPCs', () => {
  it('accepts the dual-stack example with its commented values', () => {
    const cfg = parseConfig(
      readFileSync(new URL('../../../examples/dual-stack.yaml', import.meta.url), 'utf8'),
    );
    assert.deepEqual(
      cfg.vpcs.map((v) => [v.name, v.sid, v.sid6, v.gateway, v.gatewayLinkLocal]),
      [
        ['vpc-a', 'fc00:1::a', 'fc00:1::100:a', '10.0.0.1', 'fe80::1'],
        ['vpc-b', 'fc00:1::14', 'fc00:1::100:14', undefined, 'fe80::1'],
      ],
    );
    assert.deepEqual(
      cfg.ports.map((p) => [p.name, p.ip, p.ip6]),
      [
        ['vm1', '10.0.0.5', '2001:db8:a:0:5054:ff:fe61:a01'],
        ['vm2', undefined, '2001:db8:a::10'],
      ],
    );
    assert.deepEqual(
      cfg.remoteRoutes.map((r) => r.family),
      [4, 6, 6],
    );
  });

  /** The base config with vpc-a dual-stack and an IPv6-only vpc-b, each with a port. */
  function dual(): RawConfig {
    const c = base();
    c.vpcs[0]!.subnets = ['10.0.0.0/24', '2001:db8:a::/64'];
    c.vpcs.push({ name: 'vpc-b', id: 20, subnets: ['2001:db8:a::/64', '2001:db8:b::/64'] });
    c.ports[0]!.mac = '52:54:00:61:0a:01';
    c.ports.push({
      name: 'vm2',
      vpc: 'vpc-b',
      mac: '52:54:00:61:0a:02',
      attach: { type: 'vhost-user', socket: '/run/vppnet/vhost/vm2.sock' },
    });
    return c;
  }
  const dualProblems = (edit: (c: RawConfig) => void): { path: string; message: string }[] =>
    problems((c) => {
      const d = dual();
      Object.assign(c, d);
      edit(c);
    });

  it('parses a dual-stack and an IPv6-only VPC to the model: subnets6, DT6 SID, link-local, EUI-64', () => {
    const cfg = validateConfig(dual());
    const [a, b] = cfg.vpcs;
    assert.deepEqual(a?.subnets, [{ address: '10.0.0.0', len: 24 }]);
    assert.deepEqual(a?.subnets6, [{ address: '2001:db8:a::', len: 64 }]);
    assert.equal(a?.gateway, '10.0.0.1');
    assert.equal(a?.sid, 'fc00:1::a', 'DT4: locator + id');
    assert.equal(a?.sid6, 'fc00:1::100:a', 'DT6: locator + 2^24 + id');
    assert.equal(a?.gatewayLinkLocal, 'fe80::1');
    assert.deepEqual(b?.subnets, []);
    assert.equal(b?.gateway, undefined);
    assert.deepEqual(b?.subnets6, [
      { address: '2001:db8:a::', len: 64 },
      { address: '2001:db8:b::', len: 64 },
    ]);
    assert.equal(b?.sid, 'fc00:1::14');
    assert.equal(b?.sid6, 'fc00:1::100:14');
    const [vm1, vm2] = cfg.ports;
    assert.equal(vm1?.ip, '10.0.0.5');
    assert.equal(vm1?.ip6, '2001:db8:a:0:5054:ff:fe61:a01', 'EUI-64 of the MAC in the first /64');
    assert.equal(vm2?.ip, undefined);
    assert.equal(vm2?.ip6, '2001:db8:a:0:5054:ff:fe61:a02', 'the same /64 in two VPCs is allowed');
  });

  it('keeps an IPv4-only VPC as it was: no IPv6 subnets, SID or port address', () => {
    const cfg = validateConfig(base());
    assert.deepEqual(cfg.vpcs[0]?.subnets6, []);
    assert.equal(cfg.vpcs[0]?.sid6, undefined);
    assert.equal(cfg.ports[0]?.ip6, undefined);
    assert.equal(cfg.remoteRoutes[0]?.family, 4);
  });

  it('takes sid6, gatewayLinkLocal and a port ip6 as written, canonically', () => {
    const cfg = validateConfig(
      (() => {
        const c = dual();
        c.vpcs[1]!.sid6 = 'FC00:1::2:14';
        c.vpcs[1]!.gatewayLinkLocal = 'FE80::A';
        c.ports[1]!.ip6 = '2001:DB8:B::10';
        return c;
      })(),
    );
    assert.equal(cfg.vpcs[1]?.sid6, 'fc00:1::2:14');
    assert.equal(cfg.vpcs[1]?.gatewayLinkLocal, 'fe80::a');
    assert.equal(cfg.ports[1]?.ip6, '2001:db8:b::10');
  });

  it('takes IPv6 remote routes with family 6, their canonical prefix and SID', () => {
    const c = dual();
    c.remoteRoutes.push(
      { vpc: 'vpc-a', prefix: '2001:DB8:A:0:5054:ff:fe62:a01/128', sid: 'fc00:2::100:a' },
      { vpc: 'vpc-b', prefix: '2001:db8:b::/64', sid: 'fc00:2::100:14' },
    );
    const routes = validateConfig(c).remoteRoutes.slice(1);
    assert.deepEqual(routes.map(routeAsWritten), [
      {
        vpc: 'vpc-a',
        prefix: { address: '2001:db8:a:0:5054:ff:fe62:a01', len: 128 },
        family: 6,
        sid: 'fc00:2::100:a',
      },
      { vpc: 'vpc-b', prefix: { address: '2001:db8:b::', len: 64 }, family: 6, sid: 'fc00:2::100:14' },
    ]);
    // A printed config shows them as the file writes them.
    assert.deepEqual(JSON.parse(JSON.stringify(routes[1])), {
      vpc: 'vpc-b',
      prefix: { address: '2001:db8:b::', len: 64 },
      family: 6,
      sid: 'fc00:2::100:14',
    });
  });

  const cases: [string, (c: RawConfig) => void, string, RegExp][] = [
    [
      'an IPv6 subnet that is not a /64',
      (c) => (c.vpcs[0]!.subnets = ['10.0.0.0/24', '2001:db8:a::/56']),
      'vpcs[0].subnets[1]',
      /^an IPv6 subnet must be a \/64$/,
    ],
    [
      'an IPv6 subnet with host bits',
      (c) => (c.vpcs[0]!.subnets = ['10.0.0.0/24', '2001:db8:a::1/64']),
      'vpcs[0].subnets[1]',
      /host bits set: the network is 2001:db8:a::\/64/,
    ],
    [
      'a malformed IPv6 subnet',
      (c) => (c.vpcs[1]!.subnets = ['2001:db8:a::/64', '2001:db8:::/64']),
      'vpcs[1].subnets[1]',
      /must be an IPv6 prefix/,
    ],
    [
      'the same IPv6 subnet twice in a VPC',
      (c) => (c.vpcs[1]!.subnets = ['2001:db8:a::/64', '2001:DB8:A::/64']),
      'vpcs[1].subnets[1]',
      /overlaps 2001:db8:a::\/64/,
    ],
    [
      'a link-local IPv6 subnet',
      (c) => (c.vpcs[1]!.subnets = ['fe80::/64']),
      'vpcs[1].subnets[0]',
      /link-local/,
    ],
    [
      'an IPv6 subnet in the underlay prefix',
      (c) => (c.vpcs[1]!.subnets = ['2001:db8::/64']),
      'vpcs[1].subnets[0]',
      /overlaps the underlay prefix 2001:db8::\/64/,
    ],
    [
      'an IPv6 subnet in the locator',
      (c) => (c.vpcs[1]!.subnets = ['fc00:1:0:5::/64']),
      'vpcs[1].subnets[0]',
      /overlaps the locator fc00:1::\/48/,
    ],
    [
      'an IPv6 subnet that is the BSID prefix',
      (c) => (c.vpcs[1]!.subnets = ['fc00:1:ff::/64']),
      'vpcs[1].subnets[0]',
      /overlaps the BSID prefix fc00:1:ff::\/64/,
    ],
    ['a VPC without subnets', (c) => (c.vpcs[1]!.subnets = []), 'vpcs[1].subnets', /at least one subnet/],
    [
      'a dual-stack VPC without its IPv4 gateway',
      (c) => delete c.vpcs[0]!.gateway,
      'vpcs[0].gateway',
      /must be an IPv4 address/,
    ],
    [
      'an IPv4 gateway in an IPv6-only VPC',
      (c) => (c.vpcs[1]!.gateway = '10.0.0.1'),
      'vpcs[1].gateway',
      /no IPv4 subnet/,
    ],
    [
      'a gateway link-local that is not link-local',
      (c) => (c.vpcs[1]!.gatewayLinkLocal = '2001:db8:a::1'),
      'vpcs[1].gatewayLinkLocal',
      /link-local unicast address \(fe80::\/10\)/,
    ],
    [
      'a gateway link-local that is multicast',
      (c) => (c.vpcs[1]!.gatewayLinkLocal = 'ff02::1'),
      'vpcs[1].gatewayLinkLocal',
      /link-local unicast/,
    ],
    [
      'a gateway link-local in an IPv4-only VPC',
      (c) => {
        c.vpcs[0]!.subnets = ['10.0.0.0/24'];
        c.vpcs[0]!.gatewayLinkLocal = 'fe80::1';
      },
      'vpcs[0].gatewayLinkLocal',
      /no IPv6 subnet/,
    ],
    [
      'a sid6 in an IPv4-only VPC',
      (c) => {
        c.vpcs[0]!.subnets = ['10.0.0.0/24'];
        c.vpcs[0]!.sid6 = 'fc00:1::100:a';
      },
      'vpcs[0].sid6',
      /no IPv6 subnet/,
    ],
    [
      'a sid6 outside the locator',
      (c) => (c.vpcs[1]!.sid6 = 'fc00:9::1'),
      'vpcs[1].sid6',
      /outside the locator/,
    ],
    [
      'a sid6 inside the BSID prefix',
      (c) => ((c.node.srv6.bsidPrefix = 'fc00:1:0:ff::/64'), (c.vpcs[1]!.sid6 = 'fc00:1:0:ff::1')),
      'vpcs[1].sid6',
      /inside the BSID prefix/,
    ],
    [
      'a sid6 equal to a DT4 SID',
      (c) => (c.vpcs[1]!.sid6 = 'fc00:1::a'),
      'vpcs[1].sid6',
      /SID fc00:1::a is already used by vpcs\[0\]\.sid/,
    ],
    [
      'a DT4 SID equal to a default DT6 SID',
      (c) => (c.vpcs[1]!.sid = 'fc00:1::100:a'),
      'vpcs[1].sid',
      /already used by vpcs\[0\]\.sid6/,
    ],
    [
      'a locator longer than /103 with an IPv6 subnet',
      (c) => ((c.node.srv6.locator = 'fc00:1::/104'), (c.node.srv6.bsidPrefix = 'fc00:1:ff::/112')),
      'node.srv6.locator',
      /must be \/103 or shorter: vpcs\[0\] has an IPv6 subnet.*2\^24/,
    ],
    [
      'an IPv4 address on a port of an IPv6-only VPC',
      (c) => (c.ports[1]!.ip = '10.0.0.9'),
      'ports[1].ip',
      /is IPv4, but VPC vpc-b has no IPv4 subnet/,
    ],
    [
      'a port of a dual-stack VPC without its IPv4 address',
      (c) => delete c.ports[0]!.ip,
      'ports[0].ip',
      /must be an IPv4 address/,
    ],
    [
      'a port ip6 outside its VPC subnets',
      (c) => (c.ports[1]!.ip6 = '2001:db8:c::5'),
      'ports[1].ip6',
      /not in an IPv6 subnet of VPC vpc-b/,
    ],
    [
      'a port ip6 that is the subnet-router anycast',
      (c) => (c.ports[1]!.ip6 = '2001:db8:b::'),
      'ports[1].ip6',
      /subnet-router anycast address of 2001:db8:b::\/64/,
    ],
    ['a link-local port ip6', (c) => (c.ports[1]!.ip6 = 'fe80::5'), 'ports[1].ip6', /link-local/],
    ['a multicast port ip6', (c) => (c.ports[1]!.ip6 = 'ff02::1'), 'ports[1].ip6', /multicast/],
    ['a malformed port ip6', (c) => (c.ports[1]!.ip6 = '2001:db8:b::g'), 'ports[1].ip6', /IPv6 address/],
    [
      'a port ip6 in the locator',
      (c) => (c.ports[1]!.ip6 = 'fc00:1::5'),
      'ports[1].ip6',
      /overlaps the locator/,
    ],
    [
      'a port ip6 in a VPC without IPv6 subnets',
      (c) => {
        c.vpcs[0]!.subnets = ['10.0.0.0/24'];
        c.ports[0]!.ip6 = '2001:db8:a::5';
      },
      'ports[0].ip6',
      /is IPv6, but VPC vpc-a has no IPv6 subnet/,
    ],
    [
      "a port ip6 equal to another port's default in the VPC",
      (c) =>
        c.ports.push({
          name: 'vm3',
          vpc: 'vpc-b',
          mac: '52:54:00:61:0a:03',
          ip6: '2001:db8:a:0:5054:ff:fe61:a02',
          attach: { type: 'vhost-user', socket: '/run/vppnet/vhost/vm3.sock' },
        }),
      'ports[2].ip6',
      /address vpc-b\/2001:db8:a:0:5054:ff:fe61:a02 is already used by ports\[1\]\.ip6/,
    ],
    [
      'an IPv6 remote route in a VPC without IPv6 subnets',
      (c) => {
        c.vpcs[0]!.subnets = ['10.0.0.0/24'];
        c.remoteRoutes.push({ vpc: 'vpc-a', prefix: '2001:db8:a::7/128', sid: 'fc00:2::100:a' });
      },
      'remoteRoutes[1].prefix',
      /is IPv6, but VPC vpc-a has no IPv6 subnet/,
    ],
    [
      'an IPv4 remote route in an IPv6-only VPC',
      (c) => c.remoteRoutes.push({ vpc: 'vpc-b', prefix: '10.0.0.8/32', sid: 'fc00:2::14' }),
      'remoteRoutes[1].prefix',
      /is IPv4, but VPC vpc-b has no IPv4 subnet/,
    ],
    [
      'an IPv6 remote route with host bits',
      (c) => c.remoteRoutes.push({ vpc: 'vpc-b', prefix: '2001:db8:b::1/64', sid: 'fc00:2::100:14' }),
      'remoteRoutes[1].prefix',
      /host bits set: the network is 2001:db8:b::\/64/,
    ],
    [
      'an IPv6 remote route inside the underlay prefix',
      (c) => c.remoteRoutes.push({ vpc: 'vpc-b', prefix: '2001:db8::5/128', sid: 'fc00:2::100:14' }),
      'remoteRoutes[1].prefix',
      /lies inside the underlay prefix/,
    ],
    [
      'an IPv6 remote route inside the locator',
      (c) => c.remoteRoutes.push({ vpc: 'vpc-b', prefix: 'fc00:1:0:1::/64', sid: 'fc00:2::100:14' }),
      'remoteRoutes[1].prefix',
      /lies inside the locator/,
    ],
    [
      'an IPv6 remote route that is the BSID prefix',
      (c) => c.remoteRoutes.push({ vpc: 'vpc-b', prefix: 'fc00:1:ff::/64', sid: 'fc00:2::100:14' }),
      'remoteRoutes[1].prefix',
      /lies inside the BSID prefix/,
    ],
    [
      'an IPv6 remote route inside link-local',
      (c) => c.remoteRoutes.push({ vpc: 'vpc-b', prefix: 'fe80::1/128', sid: 'fc00:2::100:14' }),
      'remoteRoutes[1].prefix',
      /lies inside the link-local range/,
    ],
    [
      'an IPv6 remote route inside multicast',
      (c) => c.remoteRoutes.push({ vpc: 'vpc-b', prefix: 'ff02::/16', sid: 'fc00:2::100:14' }),
      'remoteRoutes[1].prefix',
      /lies inside the multicast range/,
    ],
    [
      'an IPv6 remote route whose SID is in the own locator',
      (c) => c.remoteRoutes.push({ vpc: 'vpc-b', prefix: '2001:db8:b::/64', sid: 'fc00:1::100:14' }),
      'remoteRoutes[1].sid',
      /own locator/,
    ],
    [
      'an IPv6 remote route to the DT4 SID of an IPv4 route',
      (c) => c.remoteRoutes.push({ vpc: 'vpc-a', prefix: '2001:db8:a::7/128', sid: 'FC00:2::A' }),
      'remoteRoutes[1].sid',
      /is the SID of remoteRoutes\[0\], an IPv4 route: an IPv6 route needs the remote node's End\.DT6 SID/,
    ],
    [
      'the same IPv6 remote route twice, spelled differently',
      (c) =>
        c.remoteRoutes.push(
          { vpc: 'vpc-b', prefix: '2001:db8:b::/64', sid: 'fc00:2::100:14' },
          { vpc: 'vpc-b', prefix: '2001:DB8:B:0::/64', sid: 'fc00:2::100:14' },
        ),
      'remoteRoutes[2].prefix',
      /already used by remoteRoutes\[1\]\.prefix/,
    ],
  ];
  for (const [name, edit, path, message] of cases) {
    it(`rejects ${name}, naming ${path}`, () => {
      const found = dualProblems(edit);
      const hit = found.find((p) => p.path === path);
      assert.ok(hit, `expected a problem at ${path}, got ${JSON.stringify(found)}`);
      assert.match(hit.message, message);
    });
  }

  it('accepts an IPv6 route whose SID only IPv6 routes use, and ::/0 or 2000::/3 through an appliance', () => {
    assert.deepEqual(
      dualProblems((c) =>
        c.remoteRoutes.push(
          { vpc: 'vpc-a', prefix: '2001:db8:a::7/128', sid: 'fc00:2::100:a' },
          { vpc: 'vpc-a', prefix: '2001:db8:a::8/128', sid: 'fc00:2:0::100:a' },
        ),
      ),
      [],
    );
    // Covering the node's own ranges takes nothing of theirs in a VPC's table (lanes.ts).
    assert.deepEqual(
      dualProblems((c) =>
        c.remoteRoutes.push(
          { vpc: 'vpc-b', prefix: '::/0', sid: 'fc00:2::100:14' },
          { vpc: 'vpc-a', prefix: '2000::/3', sid: 'fc00:2::100:a' },
          { vpc: 'vpc-a', prefix: 'fc00::/16', sid: 'fc00:2::100:a' },
        ),
      ),
      [],
    );
  });
});
