/** Config validation of the service bridge over IPv6 (services.ip6) and the ranges it must stay out of. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, validateConfig } from './validate.js';
import { base, type Obj, type RawConfig } from './testing/raw-config.js';

describe('config validation: services over IPv6 (services.ip6)', () => {
  /** The base config, dual-stack, with the service bridge on both families. */
  function withIp6(ip6: Obj = {}): RawConfig {
    const c = base();
    c.vpcs[0]!.subnets = ['10.0.0.0/24', '2001:db8:a::/64'];
    c.remoteRoutes = [];
    c.services = { dnsAddress: '169.254.169.53', ip6 };
    return c;
  }
  const problemsOf = (c: RawConfig): { path: string; message: string }[] => {
    try {
      validateConfig(c);
      return [];
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      return [...err.problems];
    }
  };

  it('fills in fd00:ec2::254 and ::253 in the style of AWS, and leaves IPv6 off without it', () => {
    const cfg = validateConfig(withIp6());
    assert.deepEqual(cfg.services?.ip6, {
      gateway: { address: 'fd00:ec2::1', len: 64 },
      vmAddressRange: { address: 'fd00:ec2:0:ff::', len: 64 },
      metadataAddress: 'fd00:ec2::254',
      dnsAddress: 'fd00:ec2::253',
    });
    const noDns = withIp6();
    delete noDns.services!.dnsAddress;
    assert.equal(
      validateConfig(noDns).services?.ip6?.dnsAddress,
      undefined,
      'no IPv4 DNS, no default IPv6 one',
    );
    const off = withIp6();
    delete off.services!.ip6;
    assert.equal(validateConfig(off).services?.ip6, undefined);
  });

  it('names each field that is wrong', () => {
    assert.deepEqual(problemsOf(withIp6({ metadataAddress: 'fd00:ec3::254' })), [
      {
        path: 'services.ip6.metadataAddress',
        message: 'is not inside the service bridge prefix fd00:ec2::/64',
      },
    ]);
    assert.deepEqual(problemsOf(withIp6({ dnsAddress: 'fd00:ec2::1' })), [
      { path: 'services.ip6.dnsAddress', message: 'is the bridge gateway address' },
    ]);
    assert.deepEqual(problemsOf(withIp6({ vmAddressRange: 'fd00:ec2::/120' })), [
      {
        path: 'services.ip6.vmAddressRange',
        message: 'overlaps the service bridge prefix (services.ip6.gateway)',
      },
    ]);
    // A /24 of IPv4 service addresses needs 8 host bits over IPv6 too.
    assert.match(
      problemsOf(withIp6({ vmAddressRange: 'fd00:ec2:0:ff::/121' }))[0]?.message ?? '',
      /must hold as many addresses as services\.vmAddressRange \(a \/120 or shorter\)/,
    );
    assert.deepEqual(problemsOf(withIp6({ gateway: 'fd00:ec2::1/127' })), [
      { path: 'services.ip6.gateway', message: 'must be a /48 to /126' },
    ]);
    assert.deepEqual(
      problemsOf(withIp6({ nonsense: 1 })).map((p) => p.path),
      ['services.ip6.nonsense'],
    );
  });

  it("keeps the bridge out of table 0's other ranges: the underlay, the locator and the allowed sources", () => {
    assert.match(
      problemsOf(
        withIp6({
          gateway: '2001:db8::99/64',
          metadataAddress: '2001:db8::254',
          dnsAddress: '2001:db8::253',
        }),
      )
        .map((p) => `${p.path}: ${p.message}`)
        .join('\n'),
      /services\.ip6\.gateway: overlaps the underlay prefix 2001:db8::\/64/,
    );
    assert.match(
      problemsOf(withIp6({ vmAddressRange: 'fc00:1:0:ff::/64' }))
        .map((p) => `${p.path}: ${p.message}`)
        .join('\n'),
      /services\.ip6\.vmAddressRange: overlaps the locator fc00:1::\/48/,
    );
  });

  it("keeps VPC prefixes out of the bridge and the VMs' service addresses, and lets ::/0 cover them", () => {
    const subnet = withIp6();
    subnet.vpcs.push({ name: 'vpc-b', id: 20, subnets: ['fd00:ec2::/64'] });
    assert.deepEqual(problemsOf(subnet), [
      {
        path: 'vpcs[1].subnets[0]',
        message: 'overlaps the service bridge fd00:ec2::/64 (services.ip6.gateway)',
      },
    ]);
    const route = withIp6();
    route.remoteRoutes = [
      { vpc: 'vpc-a', prefix: 'fd00:ec2::254/128', sid: 'fc00:2::100:a' },
      { vpc: 'vpc-a', prefix: 'fd00:ec2:0:ff::/80', sid: 'fc00:2::100:a' },
    ];
    assert.deepEqual(problemsOf(route), [
      {
        path: 'remoteRoutes[0].prefix',
        message: 'lies inside the service bridge fd00:ec2::/64 (services.ip6.gateway)',
      },
      {
        path: 'remoteRoutes[1].prefix',
        message:
          "lies inside the VMs' IPv6 service addresses fd00:ec2:0:ff::/64 (services.ip6.vmAddressRange)",
      },
    ]);
    const world = withIp6();
    world.remoteRoutes = [{ vpc: 'vpc-a', prefix: '::/0', sid: 'fc00:2::100:a' }];
    assert.deepEqual(problemsOf(world), []);
    const appliance = withIp6();
    appliance.ports[0]!.allowedPrefixes = ['fd00:ec2::/96'];
    assert.deepEqual(problemsOf(appliance), [
      {
        path: 'ports[0].allowedPrefixes[0]',
        message: 'lies inside the service bridge fd00:ec2::/64 (services.ip6.gateway)',
      },
    ]);
  });

  it("refuses vppnet's own fabric table ids for a VPC", () => {
    const c = base();
    c.vpcs[0]!.table = 0xc1000000 + 5;
    assert.match(problemsOf(c)[0]?.message ?? '', /is one of vppnet's own tables/);
  });

  it("refuses vppnet's own IPv6 services table ids for a VPC and for the services", () => {
    for (const table of [0xc2000000 + 5, 0xc2ffffff]) {
      const vpc = base();
      vpc.vpcs[0]!.table = table;
      assert.match(problemsOf(vpc)[0]?.message ?? '', /is one of vppnet's own tables/);
      const services = withIp6();
      services.services = { ...services.services, table };
      assert.deepEqual(
        problemsOf(services).map((p) => p.path),
        ['services.table'],
      );
    }
  });
});
