import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AgentApiError, AgentErrorCode } from '../agent-api/errors.js';
import type { AttachIp, AttachRoute } from '../agent-api/protocol.js';
import type { ServicesConfig } from '../config/model.js';
import { checkAddressClaims, type AddressHolder } from './address-claims.js';

const services = {
  gateway: { address: '169.254.169.1', len: 24 },
  vmAddressRange: { address: '169.252.252.0', len: 24 },
  metadataAddress: '169.254.169.254',
  dnsAddress: '169.254.169.53',
  dhcpServer: '169.254.169.103',
  networks: undefined,
} as ServicesConfig;

const withNetworks: ServicesConfig = {
  ...services,
  networks: { metadata: 'vppnet-metadata', dns: 'vppnet-dns-proxy', dhcp: 'vppnet-dhcp' },
};

const metadataPod: AddressHolder = {
  id: 'vpn-meta',
  containerId: 'c-meta',
  ifname: 'net1',
  network: 'vppnet-metadata',
  ips: [{ address: '169.254.169.254/24', gateway: '169.254.169.1' }],
};

const VM_ROUTE: AttachRoute = { dst: '169.252.252.0/24', gw: '169.254.169.1' };

function claim(
  id: string,
  ips: readonly AttachIp[],
  opts: { network?: string; routes?: readonly AttachRoute[] } = {},
): { id: string; network: string; ips: readonly AttachIp[]; routes: readonly AttachRoute[] } {
  return { id, network: opts.network ?? 'services', ips, routes: opts.routes ?? [VM_ROUTE] };
}

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
        checkAddressClaims(claim('vpn-dns', [{ address: '169.254.169.53/24' }]), services, [metadataPod]),
      ),
      undefined,
    );
  });

  it('refuses an address another attachment holds, naming the holder', () => {
    const r = codeOf(() =>
      checkAddressClaims(claim('vpn-dns', [{ address: '169.254.169.254/24' }]), services, [metadataPod]),
    );
    assert.equal(r?.code, AgentErrorCode.ADDRESS_TAKEN);
    assert.match(r?.text ?? '', /169\.254\.169\.254 .*net1 of container c-meta \(network vppnet-metadata\)/);
    // The holder itself, again (a retried ADD of the same attachment), is no conflict.
    assert.equal(
      codeOf(() => checkAddressClaims(claim('vpn-meta', metadataPod.ips), services, [metadataPod])),
      undefined,
    );
  });

  for (const [address, why] of [
    ['169.254.169.1/24', /gateway/],
    ['10.0.0.5/24', /not a host address of the service bridge/],
    ['169.254.169.54/16', /not a host address of the service bridge/],
    ['169.254.169.0/24', /network or broadcast/],
    ['169.254.169.255/24', /network or broadcast/],
    ['fd00::1/64', /no IPv6 side/],
  ] as const) {
    it(`refuses ${address} with code 7`, () => {
      const r = codeOf(() => checkAddressClaims(claim('vpn-x', [{ address }]), services, []));
      assert.equal(r?.code, AgentErrorCode.INVALID_NETWORK_CONFIG);
      assert.match(r?.text ?? '', why);
    });
  }

  for (const [route, why] of [
    [{ dst: '0.0.0.0/0', gw: '169.254.169.1' }, /routes\[0\]\.dst 0\.0\.0\.0\/0/],
    [{ dst: '10.96.0.0/12', gw: '169.254.169.1' }, /routes\[0\]\.dst 10\.96/],
    [{ dst: '169.252.0.0/16', gw: '169.254.169.1' }, /routes\[0\]\.dst 169\.252\.0\.0\/16/],
    [{ dst: '169.252.252.0/24', gw: '169.254.169.53' }, /routes\[0\]\.gw 169\.254\.169\.53/],
    [{ dst: 'fd00::/8' }, /routes\[0\]\.dst fd00/],
  ] as const) {
    it(`refuses a route ${route.dst} via ${route.gw ?? 'none'} into the pod's namespace`, () => {
      const r = codeOf(() =>
        checkAddressClaims(
          claim('vpn-x', [{ address: '169.254.169.53/24' }], { routes: [route] }),
          services,
          [],
        ),
      );
      assert.equal(r?.code, AgentErrorCode.INVALID_NETWORK_CONFIG);
      assert.match(r?.text ?? '', why);
    });
  }

  it('accepts routes to the VM range and to part of the bridge through the gateway', () => {
    const routes = [
      VM_ROUTE,
      { dst: '169.252.252.128/25' },
      { dst: '169.254.169.0/24', gw: '169.254.169.1' },
    ];
    assert.equal(
      codeOf(() =>
        checkAddressClaims(claim('vpn-x', [{ address: '169.254.169.53/24' }], { routes }), services, []),
      ),
      undefined,
    );
  });

  it('refuses a pod without an address (its MACIP ACL would check nothing)', () => {
    const r = codeOf(() => checkAddressClaims(claim('vpn-x', []), services, []));
    assert.equal(r?.code, AgentErrorCode.INVALID_NETWORK_CONFIG);
    assert.match(r?.text ?? '', /holds an address/);
  });

  it("refuses an address whose gateway is not the bridge's", () => {
    const r = codeOf(() =>
      checkAddressClaims(
        claim('vpn-x', [{ address: '169.254.169.53/24', gateway: '169.254.169.254' }]),
        services,
        [],
      ),
    );
    assert.equal(r?.code, AgentErrorCode.INVALID_NETWORK_CONFIG);
    assert.match(r?.text ?? '', /ips\[0\]\.gateway 169\.254\.169\.254/);
  });

  describe('with services.networks', () => {
    it("lets a service network hold its own service's address", () => {
      for (const [network, address] of [
        ['vppnet-metadata', '169.254.169.254/24'],
        ['vppnet-dns-proxy', '169.254.169.53/24'],
        ['vppnet-dhcp', '169.254.169.103/24'],
      ] as const)
        assert.equal(
          codeOf(() => checkAddressClaims(claim('vpn-x', [{ address }], { network }), withNetworks, [])),
          undefined,
          network,
        );
    });

    it("refuses another service's address, a spare address, none, and an unknown network", () => {
      const cases = [
        [
          'vppnet-dns-proxy',
          ['169.254.169.254/24'],
          /169\.254\.169\.254: network vppnet-dns-proxy holds only the dns address 169\.254\.169\.53/,
        ],
        [
          'vppnet-dns-proxy',
          ['169.254.169.53/24', '169.254.169.60/24'],
          /169\.254\.169\.60: network vppnet-dns-proxy holds only/,
        ],
        ['vppnet-dhcp', [], /network vppnet-dhcp must hold the dhcp address 169\.254\.169\.103/],
        [
          'rogue',
          ['169.254.169.60/24'],
          /network rogue is not a service network of this node \(services\.networks: metadata: vppnet-metadata, dns: vppnet-dns-proxy, dhcp: vppnet-dhcp\)/,
        ],
      ] as const;
      for (const [network, addresses, why] of cases) {
        const r = codeOf(() =>
          checkAddressClaims(
            claim(
              'vpn-x',
              addresses.map((address) => ({ address })),
              { network },
            ),
            withNetworks,
            [],
          ),
        );
        assert.equal(r?.code, AgentErrorCode.INVALID_NETWORK_CONFIG, network);
        assert.match(r?.text ?? '', why);
      }
    });

    it('still refuses a second holder of the same service address', () => {
      const r = codeOf(() =>
        checkAddressClaims(
          claim('vpn-meta2', [{ address: '169.254.169.254/24' }], { network: 'vppnet-metadata' }),
          withNetworks,
          [metadataPod],
        ),
      );
      assert.equal(r?.code, AgentErrorCode.ADDRESS_TAKEN);
    });
  });
});

describe('service-bridge address claims over IPv6 (services.ip6)', () => {
  const ip6 = {
    gateway: { address: 'fd00:ec2::1', len: 64 },
    vmAddressRange: { address: 'fd00:ec2:0:ff::', len: 64 },
    metadataAddress: 'fd00:ec2::254',
    dnsAddress: 'fd00:ec2::253',
  };
  const dual: ServicesConfig = { ...withNetworks, ip6 };
  const ROUTES6: AttachRoute[] = [VM_ROUTE, { dst: 'fd00:ec2:0:ff::/64', gw: 'fd00:ec2::1' }];
  const metadata = (ips: AttachIp[], routes = ROUTES6) =>
    claim('vpn-meta6', ips, { network: 'vppnet-metadata', routes });

  it('lets the metadata network hold its IPv4 and its IPv6 address, with a route to the VMs over IPv6', () => {
    assert.equal(
      codeOf(() =>
        checkAddressClaims(
          metadata([
            { address: '169.254.169.254/24', gateway: '169.254.169.1' },
            { address: 'fd00:ec2::254/64', gateway: 'fd00:ec2::1' },
          ]),
          dual,
          [],
        ),
      ),
      undefined,
    );
    // Its IPv6 address alone is its role's too.
    assert.equal(
      codeOf(() => checkAddressClaims(metadata([{ address: 'fd00:ec2::254/64' }]), dual, [])),
      undefined,
    );
  });

  for (const [ips, routes, why] of [
    [
      [{ address: 'fd00:ec2::253/64' }],
      ROUTES6,
      /fd00:ec2::253: network vppnet-metadata holds only the metadata address/,
    ],
    [[{ address: 'fd00:ec2::1/64' }], ROUTES6, /is the bridge's gateway/],
    [[{ address: 'fd00:ec2::/64' }], ROUTES6, /subnet-router anycast/],
    [[{ address: 'fd00:ec2::254/80' }], ROUTES6, /not a host address of the service bridge fd00:ec2::\/64/],
    [
      [{ address: 'fd00:ec2::254/64', gateway: 'fd00:ec2::2' }],
      ROUTES6,
      /the bridge's IPv6 gateway is fd00:ec2::1/,
    ],
    [
      [{ address: 'fd00:ec2::254/64' }],
      [{ dst: '::/0', gw: 'fd00:ec2::1' }],
      /a pod routes only to the bridge/,
    ],
    [
      [{ address: 'fd00:ec2::254/64' }],
      [{ dst: 'fd00:ec2:0:ff::/64', gw: 'fd00:ec2::9' }],
      /the bridge's IPv6 gateway/,
    ],
  ] as const)
    it(`refuses ${JSON.stringify(ips)} with ${JSON.stringify(routes.at(-1))}`, () => {
      const got = codeOf(() => checkAddressClaims(metadata([...ips], [...routes]), dual, []));
      assert.equal(got?.code, AgentErrorCode.INVALID_NETWORK_CONFIG);
      assert.match(got?.text ?? '', why);
    });

  it('refuses a second holder of the IPv6 metadata address', () => {
    const holder: AddressHolder = { ...metadataPod, ips: [{ address: 'fd00:ec2::254/64' }] };
    const got = codeOf(() => checkAddressClaims(metadata([{ address: 'fd00:ec2::254/64' }]), dual, [holder]));
    assert.equal(got?.code, AgentErrorCode.ADDRESS_TAKEN);
  });
});
