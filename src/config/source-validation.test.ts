/**
 * The config side of source validation: a port's `sourceCheck` and `allowedPrefixes`, and the
 * node's SRv6 ingress filter sources (`node.srv6.allowedSources`), each refusal naming its field.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentConfig } from './model.js';
import { ConfigError, validateConfig } from './validate.js';

type Obj = Record<string, unknown>;

/** A dual-stack node with two VMs: vm1 (10.0.0.5) and vm2 (10.0.0.6). */
function base(): Obj & { ports: Obj[]; remoteRoutes: Obj[]; node: Obj & { srv6: Obj } } {
  return {
    node: {
      name: 'hv1',
      underlay: { interface: 'memif1/0', address: '2001:db8::1/64', gateway: '2001:db8::2' },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs: [{ name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24', '2001:db8:a::/64'], gateway: '10.0.0.1' }],
    ports: [
      {
        name: 'vm1',
        vpc: 'vpc-a',
        mac: '52:54:00:61:0a:01',
        ip: '10.0.0.5',
        attach: { type: 'veth', netns: 'vm1' },
      },
      {
        name: 'vm2',
        vpc: 'vpc-a',
        mac: '52:54:00:61:0a:02',
        ip: '10.0.0.6',
        attach: { type: 'veth', netns: 'vm2' },
      },
    ],
    remoteRoutes: [],
  };
}

function outcome(edit: (c: ReturnType<typeof base>) => void): AgentConfig | string[] {
  const c = base();
  edit(c);
  try {
    return validateConfig(c);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.problems.map((p) => `${p.path}: ${p.message}`);
  }
}

function problems(edit: (c: ReturnType<typeof base>) => void): string[] {
  const r = outcome(edit);
  return Array.isArray(r) ? r : [];
}

function allow(...prefixes: string[]): (c: ReturnType<typeof base>) => void {
  return (c) => void ((c.ports[0] as Obj).allowedPrefixes = prefixes);
}

describe('ports[].sourceCheck', () => {
  it('is on unless a port turns it off', () => {
    const config = outcome((c) => void ((c.ports[1] as Obj).sourceCheck = false));
    assert.ok(!Array.isArray(config), Array.isArray(config) ? config.join('\n') : '');
    assert.deepEqual(
      config.ports.map((p) => [p.name, p.sourceCheck]),
      [
        ['vm1', true],
        ['vm2', false],
      ],
    );
  });

  it('takes only true or false', () => {
    assert.deepEqual(
      problems((c) => void ((c.ports[0] as Obj).sourceCheck = 'no')),
      ['ports[0].sourceCheck: must be true or false'],
    );
  });
});

describe('ports[].allowedPrefixes', () => {
  it('accepts networks behind an appliance, a covering default included, IPv4 and IPv6', () => {
    const config = outcome(allow('192.168.0.0/16', '0.0.0.0/0', '2001:db8:b::/48', '::/0'));
    assert.ok(!Array.isArray(config), Array.isArray(config) ? config.join('\n') : '');
    assert.deepEqual(config.ports[0]?.allowedPrefixes, [
      { address: '192.168.0.0', len: 16, family: 4 },
      { address: '0.0.0.0', len: 0, family: 4 },
      { address: '2001:db8:b::', len: 48, family: 6 },
      { address: '::', len: 0, family: 6 },
    ]);
  });

  const refused: [string, string[], RegExp][] = [
    ['host bits set', ['192.168.0.1/16'], /host bits set/],
    ['not a prefix', ['nope'], /must be an IPv4 prefix/],
    ['inside the service range', ['169.254.169.0/24'], /lies inside the link-local and service range/],
    ['the metadata address', ['169.254.169.254/32'], /lies inside the link-local and service range/],
    ['loopback', ['127.0.0.0/8'], /loopback/],
    ['multicast', ['239.1.0.0/16'], /multicast/],
    ['link-local IPv6', ['fe80::/64'], /link-local/],
    ['inside the underlay', ['2001:db8::/96'], /underlay prefix/],
    ['inside the locator', ['fc00:1:0:5::/64'], /locator/],
    ["the VPC's gateway", ['10.0.0.1/32'], /gateway of VPC vpc-a/],
    ["another VM's address", ['10.0.0.6/32'], /address of ports\[1\]/],
    ["the VPC's subnet", ['10.0.0.0/24'], /is a subnet of VPC vpc-a/],
  ];
  for (const [what, prefixes, why] of refused) {
    it(`refuses ${what}, naming the field`, () => {
      const found = problems(allow(...prefixes));
      assert.equal(found.length, 1, found.join('\n'));
      assert.match(found[0] ?? '', /^ports\[0\]\.allowedPrefixes\[0\]: /);
      assert.match(found[0] ?? '', why);
    });
  }

  it('refuses a prefix of a family the VPC does not have', () => {
    const found = problems((c) => {
      c.vpcs = [{ name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' }];
      (c.ports[0] as Obj).allowedPrefixes = ['2001:db8:b::/48'];
    });
    assert.deepEqual(found, ['ports[0].allowedPrefixes[0]: is IPv6, but VPC vpc-a has no IPv6 subnet']);
  });

  it('refuses a prefix two ports claim in one VPC, naming the first', () => {
    const found = problems((c) => {
      (c.ports[0] as Obj).allowedPrefixes = ['192.168.0.0/16'];
      (c.ports[1] as Obj).allowedPrefixes = ['192.168.0.0/16'];
    });
    assert.deepEqual(found, [
      'ports[1].allowedPrefixes[0]: allowed prefix vpc-a 192.168.0.0/16 is already used by ports[0].allowedPrefixes[0]',
    ]);
  });

  it('wins over a remote route for the same prefix (local wins)', () => {
    const found = problems((c) => {
      (c.ports[0] as Obj).allowedPrefixes = ['192.168.0.0/16'];
      c.remoteRoutes.push({ vpc: 'vpc-a', prefix: '192.168.0.0/16', sid: 'fc00:2::a' });
    });
    assert.equal(found.length, 1);
    assert.match(found[0] ?? '', /^remoteRoutes\[0\]\.prefix: 192\.168\.0\.0\/16 is held by port vm1/);
  });
});

describe('node.srv6.allowedSources', () => {
  it("defaults to the underlay address's prefix", () => {
    const config = outcome(() => undefined);
    assert.ok(!Array.isArray(config));
    assert.deepEqual(config.node.srv6.allowedSources, [{ address: '2001:db8::', len: 64 }]);
  });

  it('takes a list of prefixes, aggregated', () => {
    const config = outcome(
      (c) =>
        void (c.node.srv6.allowedSources = ['2001:db8:1::4/127', '2001:db8:1::6/127', '2001:db8:9::/64']),
    );
    assert.ok(!Array.isArray(config));
    assert.deepEqual(config.node.srv6.allowedSources, [
      { address: '2001:db8:1::4', len: 126 },
      { address: '2001:db8:9::', len: 64 },
    ]);
  });

  it('refuses an empty list and what is not an IPv6 network', () => {
    assert.deepEqual(
      problems((c) => void (c.node.srv6.allowedSources = [])),
      ["node.srv6.allowedSources: must list at least one prefix (['::/0'] accepts every source)"],
    );
    assert.deepEqual(
      problems((c) => void (c.node.srv6.allowedSources = ['10.0.0.0/8', '2001:db8::1/64'])),
      [
        'node.srv6.allowedSources[0]: must be an IPv6 prefix like fc00:1::/48',
        'node.srv6.allowedSources[1]: host bits set: the network is 2001:db8::/64',
      ],
    );
  });
});

describe('ports[].attach.name', () => {
  it("refuses one of vppnet's own interfaces, named by its tag", () => {
    assert.deepEqual(
      problems((c) => void ((c.ports[0] as Obj).attach = { type: 'interface', name: 'vppnet:services:bvi' })),
      ["ports[0].attach.name: names one of vppnet's own interfaces (vppnet:…)"],
    );
  });
});
