import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { missingIp6Objects, type Ip6Found } from './ip6-presence.js';
import { pgPeerMac, pgTopology, VPPNET } from './topology.js';
import { vppnetConfig, vppnetDualStackConfig } from './vppnet-config.js';

const ports = pgTopology().vppnet;
const macs = { vm1: pgPeerMac(10), vm2: pgPeerMac(11) };
const config = vppnetDualStackConfig(ports, macs);

/** What VPP holds when vppnet's IPv6 kinds programmed everything (as dumps decode it). */
const complete: Ip6Found = {
  dt6Sids: ['fc00:1::100:a'],
  steering6: ['10 2001:db8:a::7/128', '10 2001:db8:a::8/128', '10 2001:db8:b::/64'],
  tables6: [0, 10],
  vpcRoutes6: ['::/0', '2001:db8:a::5/128', '2001:db8:a::6/128', 'fe80::/10'],
};

describe('missingIp6Objects: has vppnet programmed the IPv6 side the IPv6 paths need?', () => {
  it("nothing missing when VPP holds the table, the DT6 SID, the steering and the VMs' /128s", () => {
    assert.deepEqual(missingIp6Objects(config, VPPNET.vpc, complete), []);
  });

  it('a reconciler without IPv6 kinds: every object named', () => {
    const bare: Ip6Found = { dt6Sids: [], steering6: [], tables6: [0], vpcRoutes6: [] };
    assert.deepEqual(missingIp6Objects(config, VPPNET.vpc, bare), [
      'IPv6 table 10',
      'End.DT6 SID fc00:1::100:a',
      'IPv6 steering of 2001:db8:a::7/128 in table 10',
      'IPv6 steering of 2001:db8:a::8/128 in table 10',
      'IPv6 steering of 2001:db8:b::/64 in table 10',
      'route 2001:db8:a::5/128 in IPv6 table 10',
      'route 2001:db8:a::6/128 in IPv6 table 10',
    ]);
  });

  it('steering in another table, or a SID spelled otherwise, is told apart', () => {
    const found: Ip6Found = {
      ...complete,
      dt6Sids: ['fc00:1:0:0:0:0:100:a'],
      steering6: ['20 2001:db8:a::7/128', '10 2001:db8:a::8/128', '10 2001:db8:b::/64'],
    };
    assert.deepEqual(missingIp6Objects(config, VPPNET.vpc, found), [
      'IPv6 steering of 2001:db8:a::7/128 in table 10',
    ]);
  });

  it('the IPv4-only config has no DT6 SID to look for', () => {
    assert.ok(
      missingIp6Objects(vppnetConfig(ports, macs), VPPNET.vpc, complete).includes(
        'an End.DT6 SID in the config',
      ),
    );
    assert.throws(() => missingIp6Objects(config, 'nope', complete), /no VPC nope/);
  });
});
