import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AgentApiError, AgentErrorCode } from '../agent-api/errors.js';
import type { ServicesConfig } from '../config/model.js';
import { checkAddressClaims, type AddressHolder } from './address-claims.js';

const services = {
  gateway: { address: '169.254.169.1', len: 24 },
} as ServicesConfig;

const metadataPod: AddressHolder = {
  id: 'vpn-meta',
  containerId: 'c-meta',
  ifname: 'net1',
  network: 'vppnet-metadata',
  ips: [{ address: '169.254.169.254/24', gateway: '169.254.169.1' }],
};

function codeOf(fn: () => void): { code: number; text: string } | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    assert.ok(err instanceof AgentApiError);
    return { code: err.code, text: `${err.msg}: ${err.details ?? ''}` };
  }
}

describe('service-bridge address claims', () => {
  it('lets a pod hold a free host address of the bridge', () => {
    assert.equal(
      codeOf(() =>
        checkAddressClaims('vpn-dns', [{ address: '169.254.169.53/24' }], services, [metadataPod]),
      ),
      undefined,
    );
  });

  it('refuses an address another attachment holds, naming the holder', () => {
    const r = codeOf(() =>
      checkAddressClaims('vpn-dns', [{ address: '169.254.169.254/24' }], services, [metadataPod]),
    );
    assert.equal(r?.code, AgentErrorCode.ADDRESS_TAKEN);
    assert.match(r?.text ?? '', /169\.254\.169\.254 .*net1 of container c-meta \(network vppnet-metadata\)/);
    // The holder itself, again (a retried ADD of the same attachment), is no conflict.
    assert.equal(
      codeOf(() => checkAddressClaims('vpn-meta', metadataPod.ips, services, [metadataPod])),
      undefined,
    );
  });

  for (const [address, why] of [
    ['169.254.169.1/24', /gateway/],
    ['10.0.0.5/24', /not a host address of the service bridge/],
    ['169.254.169.54/16', /not a host address of the service bridge/],
    ['169.254.169.0/24', /network or broadcast/],
    ['169.254.169.255/24', /network or broadcast/],
    ['fd00::1/64', /IPv4/],
  ] as const) {
    it(`refuses ${address} with code 7`, () => {
      const r = codeOf(() => checkAddressClaims('vpn-x', [{ address }], services, []));
      assert.equal(r?.code, AgentErrorCode.INVALID_NETWORK_CONFIG);
      assert.match(r?.text ?? '', why);
    });
  }
});
