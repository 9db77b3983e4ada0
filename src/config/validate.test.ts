import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { parseConfig } from './load.js';
import { ConfigError, validateConfig } from './validate.js';
import { base, problems, type RawConfig } from './testing/raw-config.js';

const EXAMPLE = readFileSync(new URL('../../../examples/hypervisor-1.yaml', import.meta.url), 'utf8');

describe('config validation', () => {
  it('takes a Kubernetes node name, dots included, and names what is wrong with others', () => {
    assert.deepEqual(
      problems((c) => (c.node.name = 'ip-10-0-0-1.eu-west-1.compute.internal')),
      [],
    );
    for (const bad of ['HV1', 'hv1.', '-hv1', 'hv..1', 'a'.repeat(254)])
      assert.deepEqual(
        problems((c) => (c.node.name = bad)).map((p) => p.path),
        ['node.name'],
        bad,
      );
  });

  it('accepts the bundled example and fills the defaults', () => {
    const cfg = parseConfig(EXAMPLE);
    assert.equal(cfg.vpcs.length, 2);
    assert.equal(cfg.vpcs[0]?.sid, 'fc00:1::a', 'SID defaults to locator + VPC id');
    assert.equal(cfg.vpcs[0]?.table, 10, 'table defaults to the VPC id');
    assert.equal(cfg.node.srv6.encapSource, '2001:db8::1', 'encap source defaults to the underlay address');
    assert.equal(cfg.node.srv6.hopLimit, 64);
    assert.deepEqual(cfg.node.srv6.bsidPrefix, { address: 'fc00:1:ff::', len: 64 });
    assert.equal(cfg.services?.table, 4000);
    assert.deepEqual(cfg.services?.gateway, { address: '169.254.169.1', len: 24 });
  });

  it('accepts the minimal base config', () => {
    assert.deepEqual(
      problems(() => undefined),
      [],
    );
  });

  const cases: [string, (c: RawConfig) => void, string, RegExp][] = [
    ['missing node', (c) => delete (c as Partial<RawConfig>).node, 'node', /required/],
    ['unknown field (typo)', (c) => (c.vpcs[0]!.subnet = ['10.0.0.0/24']), 'vpcs[0].subnet', /unknown field/],
    ['bad VPC name', (c) => (c.vpcs[0]!.name = 'VPC A'), 'vpcs[0].name', /lowercase/],
    [
      'duplicate VPC id',
      (c) => c.vpcs.push({ name: 'vpc-b', id: 10, subnets: ['10.1.0.0/24'], gateway: '10.1.0.1' }),
      'vpcs[1].id',
      /already used/,
    ],
    [
      'subnet with host bits',
      (c) => (c.vpcs[0]!.subnets = ['10.0.0.1/24']),
      'vpcs[0].subnets[0]',
      /host bits set/,
    ],
    [
      'overlapping subnets in one VPC',
      (c) => (c.vpcs[0]!.subnets = ['10.0.0.0/24', '10.0.0.0/25']),
      'vpcs[0].subnets[1]',
      /overlaps/,
    ],
    [
      'gateway outside the subnets',
      (c) => (c.vpcs[0]!.gateway = '10.9.0.1'),
      'vpcs[0].gateway',
      /inside one of the subnets/,
    ],
    ['SID outside the locator', (c) => (c.vpcs[0]!.sid = 'fc00:9::a'), 'vpcs[0].sid', /outside the locator/],
    ['port in an unknown VPC', (c) => (c.ports[0]!.vpc = 'nope'), 'ports[0].vpc', /no VPC named/],
    ['port IP outside its VPC', (c) => (c.ports[0]!.ip = '192.168.1.5'), 'ports[0].ip', /not a host address/],
    ['port IP = gateway', (c) => (c.ports[0]!.ip = '10.0.0.1'), 'ports[0].ip', /gateway/],
    ['multicast MAC', (c) => (c.ports[0]!.mac = '01:00:5e:00:00:01'), 'ports[0].mac', /multicast/],
    ['bad attach type', (c) => (c.ports[0]!.attach = { type: 'pci' }), 'ports[0].attach.type', /one of/],
    [
      'relative vhost socket',
      (c) => (c.ports[0]!.attach = { type: 'vhost-user', socket: 'vm1.sock' }),
      'ports[0].attach.socket',
      /absolute/,
    ],
    [
      'veth ifname too long',
      (c) => (c.ports[0]!.attach = { type: 'veth', netns: 'vm1', ifname: 'a-very-long-ifname' }),
      'ports[0].attach.ifname',
      /1-15/,
    ],
    [
      'remote SID in own locator',
      (c) => (c.remoteRoutes[0]!.sid = 'fc00:1::b'),
      'remoteRoutes[0].sid',
      /own locator/,
    ],
    [
      'duplicate remote route',
      (c) => c.remoteRoutes.push({ ...c.remoteRoutes[0]! }),
      'remoteRoutes[1].prefix',
      /already used/,
    ],
    [
      'an IPv6 address with a zone',
      (c) => (c.node.underlay.gateway = 'fe80::1%eth0'),
      'node.underlay.gateway',
      /must be an IPv6 address/,
    ],
    [
      'underlay gateway off-link',
      (c) => (c.node.underlay.gateway = '2001:db9::1'),
      'node.underlay.gateway',
      /not inside/,
    ],
    [
      'locator holding the underlay address',
      (c) => (c.node.srv6.locator = '2001:db8::/32'),
      'node.srv6.locator',
      /underlay address/,
    ],
    [
      'BSID prefix inside the locator',
      (c) => (c.node.srv6.bsidPrefix = 'fc00:1:0:1::/64'),
      'node.srv6.bsidPrefix',
      /overlaps the locator/,
    ],
    ['hop limit 0', (c) => (c.node.srv6.hopLimit = 0), 'node.srv6.hopLimit', /from 1 to 255/],
    [
      'a VM port on the underlay interface',
      (c) => (c.ports[0]!.attach = { type: 'interface', name: 'memif1/0' }),
      'ports[0].attach.name',
      /is the underlay interface/,
    ],
    [
      'services range overlapping the bridge',
      (c) => (c.services = { vmAddressRange: '169.254.169.0/25' }),
      'services.vmAddressRange',
      /overlaps/,
    ],
    [
      'DHCP server outside the bridge subnet',
      (c) => (c.services = { dhcpServer: '10.0.0.3' }),
      'services.dhcpServer',
      /not inside/,
    ],
    [
      'a DHCP network without a DHCP server',
      (c) => (c.services = { networks: { dhcp: 'vppnet-dhcp' } }),
      'services.networks.dhcp',
      /services\.dhcpServer is not set/,
    ],
    [
      'one network for two services',
      (c) => (c.services = { dnsAddress: '169.254.169.53', networks: { metadata: 'svc', dns: 'svc' } }),
      'services.networks.dns',
      /also services\.networks\.metadata/,
    ],
    [
      'a service network name CNI would refuse',
      (c) => (c.services = { networks: { metadata: '-bad name' } }),
      'services.networks.metadata',
      /CNI network name/,
    ],
    [
      'VPC table = services table',
      (c) => ((c.services = {}), (c.vpcs[0]!.table = 4000)),
      'vpcs[0].table',
      /services table/,
    ],
  ];
  for (const [name, edit, path, message] of cases) {
    it(`rejects ${name}, naming ${path}`, () => {
      const found = problems(edit);
      const hit = found.find((p) => p.path === path);
      assert.ok(hit, `expected a problem at ${path}, got ${JSON.stringify(found)}`);
      assert.match(hit.message, message);
    });
  }

  it('reports every problem at once', () => {
    const found = problems((c) => {
      c.vpcs[0]!.gateway = 'x';
      c.ports[0]!.mac = 'y';
      c.remoteRoutes[0]!.prefix = 'z';
    });
    // The port's IP cannot be checked against an invalid VPC, and is not blamed for it.
    assert.deepEqual(found.map((p) => p.path).sort(), [
      'ports[0].mac',
      'remoteRoutes[0].prefix',
      'vpcs[0].gateway',
    ]);
  });

  it('reports YAML syntax errors with their line', () => {
    assert.throws(
      () => parseConfig('node: [\n'),
      (err: unknown) => err instanceof ConfigError && err.problems[0]?.path === 'line 2',
    );
    assert.throws(
      () => parseConfig('a: 1\nb:\n  c: 1\n  c: 2\n'),
      (err: unknown) => err instanceof ConfigError && err.problems[0]?.path === 'line 4',
      'duplicate keys are errors',
    );
    assert.throws(() => parseConfig('a: 1\n---\nb: 2\n'), ConfigError, 'one document only');
  });

  it('checks a remote SID once per spelling, yet reports every route that uses a bad one', () => {
    const found = problems((c) => {
      c.remoteRoutes = [
        { vpc: 'vpc-a', prefix: '10.9.0.0/24', sid: 'fc00:1::99' },
        { vpc: 'vpc-a', prefix: '10.9.1.0/24', sid: 'fc00:1::99' },
        { vpc: 'vpc-a', prefix: '10.9.2.0/24', sid: 'nope' },
        { vpc: 'vpc-a', prefix: '10.9.3.0/24', sid: 'nope' },
      ];
    });
    assert.deepEqual(
      found.map((p) => `${p.path}: ${p.message}`),
      [
        "remoteRoutes[0].sid: is inside this node's own locator",
        "remoteRoutes[1].sid: is inside this node's own locator",
        'remoteRoutes[2].sid: must be an IPv6 address',
        'remoteRoutes[3].sid: must be an IPv6 address',
      ],
    );
    const c = base();
    c.remoteRoutes = [
      { vpc: 'vpc-a', prefix: '10.9.0.0/24', sid: 'FC00:2:0::A' },
      { vpc: 'vpc-a', prefix: '10.9.1.0/24', sid: 'FC00:2:0::A' },
    ];
    assert.deepEqual(
      validateConfig(c).remoteRoutes.map((r) => r.sid),
      ['fc00:2::a', 'fc00:2::a'],
      'canonical spelling',
    );
  });

  it('reads YAML with the core schema, where a merge key is just an unknown field', () => {
    assert.throws(
      () => parseConfig('node:\n  <<: {name: hv1}\n'),
      (err: unknown) => err instanceof ConfigError && err.problems.some((p) => p.path === 'node.<<'),
    );
  });

  it('round-trips the example through YAML unchanged in meaning', () => {
    assert.deepEqual(validateConfig(parse(EXAMPLE)), parseConfig(EXAMPLE));
  });
});
