import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { FieldProblems } from './json-fields.js';
import { formatResult, parseResult, type CniResult } from './result.js';
import { SUPPORTED_CNI_VERSIONS } from './version.js';

const RESULT: CniResult = {
  interfaces: [
    { name: 'vpn0123456789ab', mac: '02:00:00:00:00:01' },
    {
      name: 'eth1',
      mac: '02:00:00:00:00:02',
      mtu: 1400,
      sandbox: '/var/run/netns/pod',
      socketPath: '/s',
      pciID: '0:1',
    },
  ],
  ips: [
    { address: '169.254.169.103/24', gateway: '169.254.169.1', interface: 1 },
    { address: 'fd00::3/64', interface: 1 },
  ],
  routes: [{ dst: '169.252.252.0/24', gw: '169.254.169.1', mtu: 1400, table: 10 }],
  dns: { nameservers: ['169.254.169.53'] },
};

/** What each version must print: spelled out per version rather than derived, so the test is an oracle. */
const EXPECTED: Record<string, object> = {
  '1.1.0': {
    cniVersion: '1.1.0',
    interfaces: [
      { name: 'vpn0123456789ab', mac: '02:00:00:00:00:01' },
      {
        name: 'eth1',
        mac: '02:00:00:00:00:02',
        mtu: 1400,
        sandbox: '/var/run/netns/pod',
        socketPath: '/s',
        pciID: '0:1',
      },
    ],
    ips: [
      { address: '169.254.169.103/24', gateway: '169.254.169.1', interface: 1 },
      { address: 'fd00::3/64', interface: 1 },
    ],
    routes: [{ dst: '169.252.252.0/24', gw: '169.254.169.1', mtu: 1400, table: 10 }],
    dns: { nameservers: ['169.254.169.53'] },
  },
  '1.0.0': {
    cniVersion: '1.0.0',
    interfaces: [
      { name: 'vpn0123456789ab', mac: '02:00:00:00:00:01' },
      { name: 'eth1', mac: '02:00:00:00:00:02', sandbox: '/var/run/netns/pod' },
    ],
    ips: [
      { address: '169.254.169.103/24', gateway: '169.254.169.1', interface: 1 },
      { address: 'fd00::3/64', interface: 1 },
    ],
    routes: [{ dst: '169.252.252.0/24', gw: '169.254.169.1' }],
    dns: { nameservers: ['169.254.169.53'] },
  },
};
for (const version of ['0.4.0', '0.3.1', '0.3.0']) {
  EXPECTED[version] = {
    cniVersion: version,
    interfaces: [
      { name: 'vpn0123456789ab', mac: '02:00:00:00:00:01' },
      { name: 'eth1', mac: '02:00:00:00:00:02', sandbox: '/var/run/netns/pod' },
    ],
    ips: [
      { version: '4', address: '169.254.169.103/24', gateway: '169.254.169.1', interface: 1 },
      { version: '6', address: 'fd00::3/64', interface: 1 },
    ],
    routes: [{ dst: '169.252.252.0/24', gw: '169.254.169.1' }],
    dns: { nameservers: ['169.254.169.53'] },
  };
}

void describe('formatResult', () => {
  for (const version of SUPPORTED_CNI_VERSIONS) {
    void it(`prints the ${version} form`, () => {
      assert.deepEqual(formatResult(RESULT, version), EXPECTED[version]);
    });

    void it(`reads its own ${version} output back`, () => {
      const problems = new FieldProblems();
      const parsed = parseResult(formatResult(RESULT, version), 'r', problems);
      assert.deepEqual(problems.lines, []);
      assert.deepEqual(formatResult(parsed, version), EXPECTED[version]);
    });
  }

  void it('omits empty lists but always prints dns', () => {
    assert.deepEqual(formatResult({ interfaces: [], ips: [], routes: [], dns: {} }, '1.0.0'), {
      cniVersion: '1.0.0',
      dns: {},
    });
  });
});

void describe('parseResult', () => {
  void it('reads an IPAM result as host-local 0.4.0 prints it', () => {
    const problems = new FieldProblems();
    const result = parseResult(
      {
        cniVersion: '0.4.0',
        ips: [{ version: '4', address: '10.1.1.2/24', gateway: '10.1.1.1' }],
        routes: [{ dst: '1.2.3.0/24' }],
        dns: {},
      },
      'ipam',
      problems,
    );
    assert.deepEqual(problems.lines, []);
    assert.deepEqual(result, {
      interfaces: [],
      ips: [{ address: '10.1.1.2/24', gateway: '10.1.1.1' }],
      routes: [{ dst: '1.2.3.0/24' }],
      dns: {},
    });
  });

  void it('names each bad field', () => {
    const problems = new FieldProblems();
    parseResult({ ips: [{ address: 'x', gateway: 'y' }], routes: [{}], interfaces: [{}] }, 'r', problems);
    assert.deepEqual(
      problems.lines.map((line) => line.split(':')[0]),
      ['r.interfaces[0].name', 'r.ips[0].address', 'r.ips[0].gateway', 'r.routes[0].dst'],
    );
  });
});
