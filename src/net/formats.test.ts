import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cidrFamily } from './cidr.js';
import { isMac, isUnicastMac } from './mac.js';
import { hostBitsProblem } from './network-prefix.js';

describe('shared formats', () => {
  it('MAC: the colon form in either case; unicast has the I/G bit clear', () => {
    for (const ok of ['52:54:00:12:34:56', '52:54:00:AB:cd:EF']) assert.ok(isUnicastMac(ok), ok);
    for (const multicast of ['01:00:5e:00:00:01', '33:33:00:00:00:01', 'ff:ff:ff:ff:ff:ff']) {
      assert.ok(isMac(multicast), multicast);
      assert.ok(!isUnicastMac(multicast), multicast);
    }
    for (const bad of ['52-54-00-12-34-56', '5254.0012.3456', '52:54:00:12:34', '52:54:00:12:34:5g', ''])
      assert.ok(!isMac(bad) && !isUnicastMac(bad), bad);
  });

  it('CIDR: address/len of either family, host bits allowed, no zone or leading zeros', () => {
    assert.equal(cidrFamily('10.0.0.5/24'), 4);
    assert.equal(cidrFamily('0.0.0.0/0'), 4);
    assert.equal(cidrFamily('2001:db8::5/64'), 6);
    for (const bad of [
      '10.0.0.5',
      '10.0.0.5/33',
      '010.0.0.5/24',
      'fe80::1%eth0/64',
      '2001:db8::/129',
      '10.0.0.5/2a',
    ])
      assert.equal(cidrFamily(bad), 0, bad);
  });

  it('network-only prefix: host bits named with the network they should be', () => {
    assert.equal(hostBitsProblem({ address: '10.0.0.0', len: 24 }, 4), undefined);
    assert.equal(hostBitsProblem({ address: '0.0.0.0', len: 0 }, 4), undefined);
    assert.equal(hostBitsProblem({ address: '10.0.0.1', len: 32 }, 4), undefined);
    assert.equal(
      hostBitsProblem({ address: '10.0.0.1', len: 24 }, 4),
      'host bits set: the network is 10.0.0.0/24',
    );
    assert.equal(hostBitsProblem({ address: '2001:db8::', len: 64 }, 6), undefined);
    assert.equal(
      hostBitsProblem({ address: '2001:db8::1', len: 64 }, 6),
      'host bits set: the network is 2001:db8::/64',
    );
    assert.equal(
      hostBitsProblem({ address: '2001:db8:0:1::', len: 48 }, 6),
      'host bits set: the network is 2001:db8::/48',
    );
  });
});
