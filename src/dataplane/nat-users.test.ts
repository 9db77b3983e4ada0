import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateConfig } from '../config/validate.js';
import { RecordingVppApi } from '../vpp/client/testing/recording-vpp-api.js';
import { msg } from '../vpp/messages/index.js';
import { readNatSessionsPerPort } from './nat-users.js';

const config = validateConfig({
  node: {
    name: 'hv1',
    underlay: { interface: 'eth0', address: '2001:db8::1/64', gateway: '2001:db8::2' },
    srv6: { locator: 'fc00:1::/48' },
  },
  vpcs: [
    { name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' },
    { name: 'vpc-b', id: 20, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' },
  ],
  ports: [
    {
      name: 'vm1',
      vpc: 'vpc-a',
      mac: '52:54:00:00:0e:01',
      ip: '10.0.0.5',
      attach: { type: 'interface', name: 'eth1' },
    },
    {
      name: 'vm2',
      vpc: 'vpc-b',
      mac: '52:54:00:00:0e:02',
      ip: '10.0.0.5',
      attach: { type: 'interface', name: 'eth2' },
    },
  ],
  remoteRoutes: [],
  services: {},
});

describe('NAT sessions per VM port', () => {
  it('names each user by its table and address: equal addresses in two VPCs are two VMs', async () => {
    const vpp = new RecordingVppApi({ state: 'ready' }).answerDump(msg.nat44_ei_user_dump, () => [
      { vrf_id: 10, ip_address: '10.0.0.5', nsessions: 250, nstaticsessions: 6 },
      { vrf_id: 20, ip_address: '10.0.0.5', nsessions: 0, nstaticsessions: 2 },
      // Not a VM port of this config (a VPC table without that address): left out.
      { vrf_id: 10, ip_address: '10.0.0.9', nsessions: 4, nstaticsessions: 0 },
    ]);
    assert.deepEqual(
      [...(await readNatSessionsPerPort(vpp, config))],
      [
        ['vm1', 256],
        ['vm2', 2],
      ],
    );
  });

  it('asks nothing without a service bridge', async () => {
    const vpp = new RecordingVppApi({ state: 'ready' });
    assert.equal((await readNatSessionsPerPort(vpp, { ...config, services: undefined })).size, 0);
    assert.equal(vpp.requestsFor(msg.nat44_ei_user_dump).length, 0);
  });
});
