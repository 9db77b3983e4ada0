import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, validateConfig } from './validate.js';

type Obj = Record<string, unknown>;

/** A dual-stack node: vm1 at 10.0.0.5 and, by EUI-64, 2001:db8:a:0:5054:ff:fe61:a01. */
function base(): Obj & { remoteRoutes: Obj[]; services?: Obj } {
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
    ],
    remoteRoutes: [],
  };
}

function problemsOfRoute(prefix: string, edit?: (c: ReturnType<typeof base>) => void): string[] {
  const c = base();
  edit?.(c);
  c.remoteRoutes.push({
    vpc: 'vpc-a',
    prefix,
    sid: prefix.includes(':') ? 'fc00:2::100:a' : 'fc00:2::a',
  });
  try {
    validateConfig(c);
    return [];
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.problems.map((p) => `${p.path}: ${p.message}`);
  }
}

describe('config lanes: a remote route stays out of what the node handles itself', () => {
  it('accepts a remote VM in the VPC, IPv4 and IPv6', () => {
    assert.deepEqual(problemsOfRoute('10.0.0.7/32'), []);
    assert.deepEqual(problemsOfRoute('2001:db8:a::7/128'), []);
    assert.deepEqual(problemsOfRoute('10.0.0.128/25'), [], 'a block of remote VMs without the gateway');
  });

  const refused: [string, string, RegExp][] = [
    ['the metadata address', '169.254.169.254/32', /169\.254\.0\.0\/16/],
    ['the DNS address', '169.254.169.53/32', /169\.254\.0\.0\/16/],
    ['a prefix covering the service space', '169.0.0.0/8', /169\.254\.0\.0\/16/],
    ['a default route', '0.0.0.0/0', /169\.254\.0\.0\/16/],
    ['loopback', '127.0.0.1/32', /loopback/],
    ['multicast', '224.0.0.251/32', /multicast/],
    ["the VPC's gateway", '10.0.0.1/32', /gateway 10\.0\.0\.1/],
    ["a prefix covering the VPC's gateway", '10.0.0.0/25', /gateway 10\.0\.0\.1/],
    ["a local VM's own /32", '10.0.0.5/32', /port vm1 on this node: the local route wins/],
    ["a local VM's own /128", '2001:db8:a:0:5054:ff:fe61:a01/128', /port vm1 on this node/],
    ["a local VM's /128 spelled otherwise", '2001:DB8:A::5054:FF:FE61:A01/128', /port vm1/],
    ['an IPv6 link-local prefix', 'fe80::1/128', /link-local/],
    ['the underlay', '2001:db8::1/128', /underlay/],
    ['the locator', 'fc00:1::a/128', /locator/],
    ['the BSID prefix', 'fc00:1:ff::1/128', /BSID/],
  ];
  for (const [what, prefix, message] of refused) {
    it(`refuses ${what} (${prefix}), naming the route`, () => {
      const found = problemsOfRoute(prefix);
      assert.equal(found.length, 1, JSON.stringify(found));
      assert.match(found[0] ?? '', /^remoteRoutes\[0\]\.prefix: /);
      assert.match(found[0] ?? '', message);
    });
  }

  it("refuses the service bridge's prefix when the node moved it out of 169.254.0.0/16", () => {
    const moved = (c: ReturnType<typeof base>): void => {
      c.services = {
        gateway: '100.64.0.1/24',
        vmAddressRange: '100.65.0.0/24',
        metadataAddress: '100.64.0.254',
      };
    };
    const found = problemsOfRoute('100.64.0.254/32', moved);
    assert.match(found.join('\n'), /service bridge 100\.64\.0\.1\/24/);
  });
});
