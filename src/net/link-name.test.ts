import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateConfig } from '../config/validate.js';
import { isLinkName, linkNameProblem } from './link-name.js';

describe('link names, by the kernel rule', () => {
  it('accepts what dev_valid_name accepts', () => {
    for (const name of ['eth0', 'net1', 'a', 'x'.repeat(15), 'eth0.100', 'veth-a_b', 'eth@0'])
      assert.equal(isLinkName(name), true, name);
  });

  it('refuses the empty name, more than 15 bytes, . and .., /, : and whitespace', () => {
    assert.match(linkNameProblem('') ?? '', /empty/);
    assert.match(linkNameProblem('x'.repeat(16)) ?? '', /longer than 15/);
    assert.match(linkNameProblem('é'.repeat(8)) ?? '', /longer than 15/, '16 bytes in UTF-8');
    for (const name of ['.', '..']) assert.match(linkNameProblem(name) ?? '', /\. or \.\./);
    for (const name of ['a/b', 'a:b', 'a b', 'a\tb', 'a\nb'])
      assert.match(linkNameProblem(name) ?? '', /\/ or : or whitespace/, JSON.stringify(name));
  });

  it('refuses a NUL: the kernel (and `ip`) would take the name up to it, another name', () => {
    for (const name of ['ne\0t1', 'net1\0', '\0'])
      assert.match(linkNameProblem(name) ?? '', /NUL/, JSON.stringify(name));
  });

  it("is the config's rule for a VM's ifname too: '..' is refused there as well", () => {
    const config = (ifname: string): unknown => ({
      node: {
        name: 'hv1',
        underlay: { interface: 'eth0', address: '2001:db8::1/64', gateway: '2001:db8::2' },
        srv6: { locator: 'fc00:1::/48' },
      },
      vpcs: [{ name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' }],
      ports: [
        {
          name: 'vm1',
          vpc: 'vpc-a',
          mac: '52:54:00:00:10:01',
          ip: '10.0.0.5',
          attach: { type: 'veth', netns: 'vm1', ifname },
        },
      ],
      remoteRoutes: [],
    });
    assert.throws(
      () => validateConfig(config('..')),
      /ports\[0\]\.attach\.ifname: must be a Linux interface name/,
    );
    assert.equal(validateConfig(config('eth@0')).ports[0]?.attach.type, 'veth');
  });
});
