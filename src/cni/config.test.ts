import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { parseNetworkConfig, type NetworkConfig } from './config.js';
import { CniError } from './errors.js';

const VALID = {
  cniVersion: '1.1.0',
  name: 'vppnet-services',
  type: 'vppnet-cni',
  ipam: { type: 'static', addresses: [{ address: '169.254.169.103/24' }] },
};

function parseWith(overrides: Record<string, unknown>, cniArgs = ''): NetworkConfig {
  return parseNetworkConfig(JSON.stringify({ ...VALID, ...overrides }), { cniArgs });
}

function expectCode(
  code: number,
  fieldPattern: RegExp,
  overrides: Record<string, unknown>,
  cniArgs = '',
): void {
  assert.throws(
    () => parseWith(overrides, cniArgs),
    (err: unknown) => {
      assert.ok(err instanceof CniError, 'a CniError');
      assert.equal(err.code, code, err.message);
      assert.match(err.msg + (err.details ?? ''), fieldPattern);
      return true;
    },
  );
}

void describe('parseNetworkConfig', () => {
  void it('applies defaults', () => {
    const config = parseNetworkConfig(JSON.stringify(VALID));
    assert.equal(config.agentSocket, '/run/vppnet-agent/agent.sock');
    assert.equal(config.mode, 'auto');
    assert.equal(config.mtu, undefined);
    assert.equal(config.mac, undefined);
    assert.deepEqual(config.ipam, { type: 'static' });
  });

  void it('keeps valid optional fields', () => {
    const config = parseNetworkConfig(
      JSON.stringify({
        ...VALID,
        agentSocket: '/tmp/a.sock',
        mode: 'veth',
        mtu: 1400,
        dns: { nameservers: ['169.254.169.53'] },
      }),
    );
    assert.equal(config.agentSocket, '/tmp/a.sock');
    assert.equal(config.mode, 'veth');
    assert.equal(config.mtu, 1400);
    assert.deepEqual(config.dns, { nameservers: ['169.254.169.53'] });
  });

  const bad: [string, number, RegExp, Record<string, unknown>][] = [
    ['cniVersion unsupported', 1, /config is "0\.2\.0"/, { cniVersion: '0.2.0' }],
    ['cniVersion missing', 1, /cniVersion missing/, { cniVersion: undefined }],
    ['cniVersion not a string', 6, /cniVersion/, { cniVersion: 1 }],
    ['name missing', 7, /name: is required/, { name: undefined }],
    ['name with bad characters', 7, /name: must start/, { name: '-bad name' }],
    ['type missing', 7, /type: is required/, { type: undefined }],
    ['type not a string', 7, /type: must be a string/, { type: 3 }],
    ['ipam missing', 7, /ipam: is required/, { ipam: undefined }],
    ['ipam not an object', 7, /ipam: must be an object/, { ipam: 'static' }],
    ['ipam.type missing', 7, /ipam\.type: is required/, { ipam: { subnet: '10.0.0.0/8' } }],
    ['ipam.type a path', 7, /ipam\.type: must be a plugin file name/, { ipam: { type: '../bin/static' } }],
    ['agentSocket relative', 7, /agentSocket: must be an absolute path/, { agentSocket: 'agent.sock' }],
    ['agentSocket too long', 7, /agentSocket: is longer/, { agentSocket: `/${'x'.repeat(120)}` }],
    ['agentSocket not a string', 7, /agentSocket: must be a string/, { agentSocket: true }],
    ['mode unknown', 7, /mode: must be one of auto, tap, veth/, { mode: 'macvlan' }],
    ['mtu too small', 7, /mtu: must be between 68 and 65535/, { mtu: 67 }],
    ['mtu too large', 7, /mtu: must be between 68 and 65535/, { mtu: 65536 }],
    ['mtu not an integer', 7, /mtu: must be an integer/, { mtu: 1500.5 }],
    ['mtu a string', 7, /mtu: must be an integer/, { mtu: '1500' }],
    ['dns not an object', 7, /dns: must be an object/, { dns: ['1.1.1.1'] }],
    ['dns nameserver not an IP', 7, /dns\.nameservers\[0\]/, { dns: { nameservers: ['dns.example'] } }],
    ['prevResult not an object', 7, /prevResult: must be an object/, { prevResult: 'x' }],
    [
      'prevResult bad address',
      7,
      /prevResult\.ips\[0\]\.address/,
      { prevResult: { ips: [{ address: '10.0.0.1' }] } },
    ],
    [
      'prevResult interface index out of range',
      7,
      /prevResult\.ips\[0\]\.interface/,
      { prevResult: { interfaces: [], ips: [{ address: '10.0.0.1/24', interface: 2 }] } },
    ],
    ['runtimeConfig not an object', 7, /runtimeConfig: must be an object/, { runtimeConfig: 1 }],
    ['runtimeConfig.mac multicast', 7, /runtimeConfig\.mac/, { runtimeConfig: { mac: '01:00:5e:00:00:01' } }],
    ['args not an object', 7, /args: must be an object/, { args: 'x' }],
    ['args.cni.mac malformed', 7, /args\.cni\.mac/, { args: { cni: { mac: 'zz' } } }],
    ['valid-attachments not a list', 7, /cni\.dev\/valid-attachments/, { 'cni.dev/valid-attachments': {} }],
    [
      'valid-attachment without ifname',
      7,
      /valid-attachments\[0\]\.ifname/,
      { 'cni.dev/valid-attachments': [{ containerID: 'a' }] },
    ],
  ];
  for (const [what, code, pattern, overrides] of bad) {
    void it(`rejects ${what} with code ${code}`, () => expectCode(code, pattern, overrides));
  }

  void it('rejects undecodable input with code 6', () => {
    assert.throws(
      () => parseNetworkConfig('[1,2'),
      (err: unknown) => err instanceof CniError && err.code === 6,
    );
    assert.throws(
      () => parseNetworkConfig('[1,2]'),
      (err: unknown) => err instanceof CniError && err.code === 6,
    );
  });

  void it('names every bad field in one error', () => {
    assert.throws(
      () => parseWith({ name: '', mode: 'x', mtu: 1, ipam: {} }),
      (err: unknown) => {
        assert.ok(err instanceof CniError);
        assert.equal(err.code, 7);
        for (const field of ['name', 'mode', 'mtu', 'ipam.type'])
          assert.match(err.msg, new RegExp(`${field}:`));
        return true;
      },
    );
  });

  void it('rejects a malformed MAC in CNI_ARGS with code 4', () => {
    expectCode(4, /CNI_ARGS/, {}, 'MAC=nope');
  });

  void it('takes the MAC from runtimeConfig, then args.cni, then CNI_ARGS', () => {
    const fromAll = parseWith(
      { runtimeConfig: { mac: '02:00:00:00:00:01' }, args: { cni: { mac: '02:00:00:00:00:02' } } },
      'MAC=02:00:00:00:00:03',
    );
    assert.equal(fromAll.mac, '02:00:00:00:00:01');
    const fromArgs = parseWith({ args: { cni: { mac: '02:00:00:00:00:02' } } }, 'MAC=02:00:00:00:00:03');
    assert.equal(fromArgs.mac, '02:00:00:00:00:02');
    const fromEnv = parseWith({}, 'K8S_POD_NAME=dhcp;MAC=02:AA:00:00:00:03');
    assert.equal(fromEnv.mac, '02:aa:00:00:00:03');
  });

  void it('reads prevResult of an old version into the current form', () => {
    const config = parseWith({
      cniVersion: '0.3.0',
      prevResult: {
        cniVersion: '0.3.0',
        interfaces: [{ name: 'eth1', sandbox: '/var/run/netns/p' }],
        ips: [{ version: '4', address: '169.254.169.103/24', interface: 0 }],
      },
    });
    assert.deepEqual(config.prevResult, {
      interfaces: [{ name: 'eth1', sandbox: '/var/run/netns/p' }],
      ips: [{ address: '169.254.169.103/24', interface: 0 }],
      routes: [],
      dns: {},
    });
  });
});
