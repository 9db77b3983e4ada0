import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { parseConfig } from './load.js';
import type { AgentConfig } from './model.js';
import { ConfigError, validateConfig } from './validate.js';

const EXAMPLE = readFileSync(new URL('../../../examples/hypervisor-1.yaml', import.meta.url), 'utf8');

type Obj = Record<string, unknown>;

/** The raw YAML shape, loosely typed so that each case can break one field. */
interface RawConfig {
  node: Obj & { underlay: Obj; srv6: Obj };
  vpcs: Obj[];
  ports: Obj[];
  remoteRoutes: Obj[];
  services?: Obj;
}

function base(): RawConfig {
  return {
    node: {
      name: 'hv1',
      underlay: { interface: 'memif1/0', address: '2001:db8::1/64', gateway: '2001:db8::2' },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs: [{ name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' }],
    ports: [
      {
        name: 'vm1',
        vpc: 'vpc-a',
        mac: '52:54:00:00:00:05',
        ip: '10.0.0.5',
        attach: { type: 'vhost-user', socket: '/run/vppnet/vhost/vm1.sock' },
      },
    ],
    remoteRoutes: [{ vpc: 'vpc-a', prefix: '10.0.0.7/32', sid: 'fc00:2::a' }],
  };
}

/** Applies `edit` to a fresh base config and returns the problems validation reports. */
function problems(edit: (c: RawConfig) => void): { path: string; message: string }[] {
  const c = base();
  edit(c);
  try {
    validateConfig(c);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return [...err.problems];
  }
  return [];
}

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

describe('config validation: MTU and vhost-user sockets', () => {
  const one = (edit: (c: RawConfig) => void): AgentConfig => {
    const c = base();
    edit(c);
    return validateConfig(c);
  };

  it('derives the tenant MTU from the underlay: 1500 − 40 by default, the underlay − 40 when set', () => {
    assert.equal(one(() => undefined).node.underlay.mtu, 1500);
    assert.equal(one(() => undefined).vpcs[0]?.mtu, 1460);
    assert.equal(one((c) => (c.node.underlay.mtu = 9000)).vpcs[0]?.mtu, 8960);
    assert.equal(one((c) => (c.vpcs[0]!.mtu = 1400)).vpcs[0]?.mtu, 1400);
  });

  it('refuses a VPC MTU that does not fit the underlay, naming both', () => {
    const p = problems((c) => {
      c.node.underlay.mtu = 1500;
      c.vpcs[0]!.mtu = 1500;
    });
    assert.equal(p.length, 1);
    assert.equal(p[0]?.path, 'vpcs[0].mtu');
    assert.match(p[0].message, /does not fit the underlay: node\.underlay\.mtu 1500 − 40 .* leaves 1460/);
    assert.deepEqual(
      problems((c) => (c.vpcs[0]!.mtu = 500)).map((x) => x.path),
      ['vpcs[0].mtu'],
    );
    assert.deepEqual(
      problems((c) => (c.node.underlay.mtu = 1279)).map((x) => x.path),
      ['node.underlay.mtu'],
    );
  });

  it('gives vhost-user sockets the node defaults, and a port its own', () => {
    const cfg = one((c) => {
      c.node.vhostUser = { gid: 107, mode: '0660' };
      c.ports.push({
        name: 'vm2',
        vpc: 'vpc-a',
        mac: '52:54:00:00:00:06',
        ip: '10.0.0.6',
        attach: { type: 'vhost-user', socket: '/run/vppnet/vhost/vm2.sock', uid: 64055, mode: '0600' },
      });
    });
    assert.deepEqual(cfg.node.vhostUser, {
      uid: undefined,
      gid: 107,
      mode: 0o660,
      directoryMode: 0o755,
      directory: '/run/vppnet/vhost',
    });
    const [vm1, vm2] = cfg.ports.map((p) => (p.attach.type === 'vhost-user' ? p.attach.access : undefined));
    assert.deepEqual(vm1, { uid: undefined, gid: 107, mode: 0o660 });
    assert.deepEqual(vm2, { uid: 64055, gid: 107, mode: 0o600 });
  });

  it('refuses modes YAML would misread, user names and bad socket paths, each by field', () => {
    const p = problems((c) => {
      c.node.vhostUser = { mode: 660, uid: 'libvirt-qemu', directoryMode: '0999' };
      c.ports[0]!.attach = { type: 'vhost-user', socket: '/run/vppnet/../vm1.sock', gid: 'kvm' };
    });
    const byPath = new Map(p.map((x) => [x.path, x.message]));
    assert.match(byPath.get('node.vhostUser.mode') ?? '', /quoted octal string .*decimal/);
    assert.match(byPath.get('node.vhostUser.uid') ?? '', /must be a number.*id -u/);
    assert.match(byPath.get('node.vhostUser.directoryMode') ?? '', /octal mode/);
    assert.match(byPath.get('ports[0].attach.socket') ?? '', /normalized/);
    assert.match(byPath.get('ports[0].attach.gid') ?? '', /must be a number/);
    assert.match(
      problems((c) => (c.ports[0]!.attach = { type: 'vhost-user', socket: `/${'x'.repeat(120)}.sock` }))[0]
        ?.message ?? '',
      /longer than a Unix socket path/,
    );
  });

  it("keeps every socket inside the node's socket directory, where VPP may replace files", () => {
    const socketProblem = (socket: string, directory?: string): string | undefined =>
      problems((c) => {
        if (directory !== undefined) c.node.vhostUser = { directory };
        c.ports[0]!.attach = { type: 'vhost-user', socket };
      }).find((x) => x.path === 'ports[0].attach.socket')?.message;
    for (const hostFile of [
      '/run/containerd/containerd.sock',
      '/run/vpp/api.sock',
      '/run/vppnet/vhost.sock', // a sibling with the directory's name as its prefix
      '/run/vppnet/vhost',
    ])
      assert.match(
        socketProblem(hostFile) ?? '',
        /outside the node's vhost-user socket directory \/run\/vppnet\/vhost/,
        hostFile,
      );
    assert.equal(socketProblem('/run/vppnet/vhost/vm1.sock'), undefined);
    assert.equal(
      socketProblem('/run/vppnet/vhost/tenant-7/vm1.sock'),
      undefined,
      'subdirectories are inside',
    );
    assert.equal(socketProblem('/srv/vms/vm1.sock', '/srv/vms'), undefined, 'a directory of its own');
    assert.match(socketProblem('/run/vppnet/vhost/vm1.sock', '/srv/vms') ?? '', /outside .* \/srv\/vms/);
    for (const bad of ['srv/vms', '/srv/vms/', '/srv/../vms', '/'])
      assert.equal(
        problems((c) => (c.node.vhostUser = { directory: bad }))[0]?.path,
        'node.vhostUser.directory',
        bad,
      );
  });

  it('refuses a socket mode that lets other users, or anyone with execute, reach a VM', () => {
    for (const mode of ['0666', '0662', '0670', '0770', '0700', '0777']) {
      const p = problems((c) => {
        c.node.vhostUser = { mode };
        c.ports[0]!.attach = { type: 'vhost-user', socket: '/run/vppnet/vhost/vm1.sock', mode };
      });
      assert.deepEqual(
        p.map((x) => x.path),
        ['node.vhostUser.mode', 'ports[0].attach.mode'],
        mode,
      );
      assert.match(p[0]?.message ?? '', /more than 0660/);
    }
    for (const mode of ['0660', '0600', '0640', '0620'])
      assert.deepEqual(
        problems((c) => (c.node.vhostUser = { mode })),
        [],
        mode,
      );
  });

  it('treats two ports on one socket as one attachment whatever their access', () => {
    const p = problems((c) => {
      c.ports.push({
        name: 'vm2',
        vpc: 'vpc-a',
        mac: '52:54:00:00:00:06',
        ip: '10.0.0.6',
        attach: { type: 'vhost-user', socket: '/run/vppnet/vhost/vm1.sock', mode: '0600' },
      });
    });
    assert.deepEqual(
      p.map((x) => x.path),
      ['ports[1].attach'],
    );
  });
});

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
    assert.deepEqual(validateConfig(c).remoteRoutes.slice(1), [
      {
        vpc: 'vpc-a',
        prefix: { address: '2001:db8:a:0:5054:ff:fe62:a01', len: 128 },
        family: 6,
        sid: 'fc00:2::100:a',
      },
      { vpc: 'vpc-b', prefix: { address: '2001:db8:b::', len: 64 }, family: 6, sid: 'fc00:2::100:14' },
    ]);
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
});
