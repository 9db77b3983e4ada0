import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eui64Address, eui64InterfaceId } from './eui64.js';

describe('EUI-64', () => {
  // RFC 5952 spelling, as `ip -6 addr` showed it in the VM: a lone zero group is not `::`.
  it('forms the address Linux SLAAC (addr_gen_mode 0) gives, as seen on the test bed', () => {
    const subnet = { address: '2001:db8:a::', len: 64 };
    assert.equal(eui64Address(subnet, '52:54:00:61:0a:01'), '2001:db8:a:0:5054:ff:fe61:a01');
    assert.equal(eui64Address(subnet, '52:54:00:62:0a:01'), '2001:db8:a:0:5054:ff:fe62:a01');
  });

  it('flips the universal/local bit both ways and inserts ff:fe, case-insensitively', () => {
    assert.equal(eui64InterfaceId('00:00:00:00:00:00'), 0x020000fffe000000n);
    assert.equal(eui64InterfaceId('02:FE:C9:3D:74:F7'), 0x00fec9fffe3d74f7n);
    assert.equal(
      eui64Address({ address: 'fe80::', len: 64 }, '02:fe:c9:3d:74:f7'),
      'fe80::fe:c9ff:fe3d:74f7',
      "VPP's link-local for that port MAC",
    );
  });

  it('keeps only the network part of the /64 and refuses other lengths and non-MACs', () => {
    assert.equal(
      eui64Address({ address: '2001:db8:a::1', len: 64 }, '52:54:00:61:0a:01'),
      '2001:db8:a:0:5054:ff:fe61:a01',
    );
    assert.throws(() => eui64Address({ address: '2001:db8::', len: 48 }, '52:54:00:61:0a:01'), RangeError);
    assert.throws(() => eui64InterfaceId('52:54:00:61:0a'), TypeError);
  });
});
