/** The records' validation and one node's derivation, without a store. */
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RemoteRouteConfig } from '../config/model.js';
import { deriveAgentConfig, type Derivation, type NodeView } from './derive.js';
import { KeySchema } from './keys.js';
import {
  parseRecord,
  type EndpointRecord,
  type NodeRecord,
  type PortRecord,
  type RecordProblem,
  type VpcRecord,
} from './records.js';

const schema = new KeySchema();

function record<T>(key: string, value: unknown): T {
  const r = parseRecord(schema, key, JSON.stringify(value));
  if (Array.isArray(r)) throw new Error(JSON.stringify(r));
  return r as T;
}

const nodeValue = (n: number) => ({
  underlay: { interface: 'memif1/0', address: `2001:db8::${n}/64`, gateway: '2001:db8::ff' },
  srv6: { locator: `fc00:${n}::/48` },
});

/** The derived routes as the config file writes them (a derived route reads its prefix from its key). */
const plainRoutes = (d: Derivation): RemoteRouteConfig[] =>
  (d.config?.remoteRoutes ?? []).map(({ vpc, prefix, family, sid }) => ({ vpc, prefix, family, sid }));

function view(parts: { ports: PortRecord[]; endpoints: EndpointRecord[]; vpcs?: VpcRecord[] }): NodeView {
  const endpoints = new Map<string, Map<string, EndpointRecord>>();
  for (const e of parts.endpoints) {
    let m = endpoints.get(e.vpc);
    if (!m) endpoints.set(e.vpc, (m = new Map<string, EndpointRecord>()));
    m.set(schema.endpoint(e.vpc, e.prefix), e);
  }
  const vpcs = parts.vpcs ?? [
    record<VpcRecord>(schema.vpc('blue'), { id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' }),
  ];
  return {
    nodes: new Map([1, 2].map((n) => [`hv${n}`, record<NodeRecord>(schema.node(`hv${n}`), nodeValue(n))])),
    vpcs: new Map(vpcs.map((v) => [v.name, v])),
    ports: new Map(parts.ports.map((p) => [p.name, p])),
    endpoints,
  };
}

const port = (name: string, ip: string, mac: string) =>
  record<PortRecord>(schema.port('hv1', name), {
    vpc: 'blue',
    mac,
    ip,
    attach: { type: 'interface', name: `if-${name}` },
  });
const ep = (ip: string, node: string) =>
  record<EndpointRecord>(schema.endpoint('blue', { address: ip, len: 32 }), { node });

test('a record is validated as its config file section is, with the key and the field', () => {
  const problems = parseRecord(
    schema,
    '/vppnet/v1/vpcs/blue',
    JSON.stringify({ name: 'blue', id: 0, subnets: ['10.0.0.1/24'], gateway: '10.0.0.1' }),
  ) as RecordProblem[];
  assert.deepEqual(
    problems.map((p) => `${p.key}: ${p.path}: ${p.message}`),
    [
      '/vppnet/v1/vpcs/blue: (value).name: unknown field (allowed: id, table, subnets, gateway, gatewayLinkLocal, mtu, sidIndex)',
      '/vppnet/v1/vpcs/blue: id: must be an integer from 1 to 16777215',
      '/vppnet/v1/vpcs/blue: subnets[0]: host bits set: the network is 10.0.0.0/24',
    ],
  );
  assert.deepEqual(parseRecord(schema, '/vppnet/v1/endpoints/blue/10.0.0.5', '{"node":"hv1"}'), [
    {
      key: '/vppnet/v1/endpoints/blue/10.0.0.5',
      path: '(key)',
      message: 'must end in an IPv4 prefix written a.b.c.d_len or an IPv6 one written x:y::z_len',
    },
  ]);
});

test('remote routes steer to the hosting node SID; a VPC sidIndex overrides the id', () => {
  const v = view({
    ports: [port('vm1', '10.0.0.5', '52:54:00:00:00:05')],
    endpoints: [ep('10.0.0.5', 'hv1'), ep('10.0.0.7', 'hv2')],
  });
  const d = deriveAgentConfig(schema, 'hv1', v);
  assert.deepEqual(d.problems, []);
  assert.deepEqual(plainRoutes(d), [
    { vpc: 'blue', prefix: { address: '10.0.0.7', len: 32 }, family: 4, sid: 'fc00:2::a' },
  ]);
  const indexed = view({
    ports: [port('vm1', '10.0.0.5', '52:54:00:00:00:05')],
    endpoints: [ep('10.0.0.7', 'hv2')],
    vpcs: [
      record<VpcRecord>(schema.vpc('blue'), {
        id: 10,
        sidIndex: 0x100,
        subnets: ['10.0.0.0/24'],
        gateway: '10.0.0.1',
      }),
    ],
  });
  const di = deriveAgentConfig(schema, 'hv1', indexed);
  assert.equal(di.config?.vpcs[0]?.sid, 'fc00:1::100');
  assert.equal(di.config?.remoteRoutes[0]?.sid, 'fc00:2::100');
});

test('a record that breaks a cross-record rule is left out with its key; the rest applies', () => {
  const v = view({
    ports: [port('vm1', '10.0.0.5', '52:54:00:00:00:05'), port('vm9', '10.9.0.5', '52:54:00:00:00:09')],
    endpoints: [ep('10.0.0.7', 'hv2'), ep('10.0.0.8', 'hv7')],
  });
  const d = deriveAgentConfig(schema, 'hv1', v);
  assert.deepEqual(
    d.config?.ports.map((p) => p.name),
    ['vm1'],
  );
  assert.deepEqual(
    d.config?.remoteRoutes.map((r) => r.prefix.address),
    ['10.0.0.7'],
  );
  assert.deepEqual(d.problems.map((p) => `${p.key}: ${p.path}: ${p.message}`).sort(), [
    '/vppnet/v1/endpoints/blue/10.0.0.8_32: node: node hv7 has no record (/vppnet/v1/nodes/hv7)',
    '/vppnet/v1/ports/hv1/vm9: ip: is not a host address in a subnet of VPC blue',
  ]);
});

test('without its node record a node derives nothing', () => {
  const d = deriveAgentConfig(schema, 'hv3', view({ ports: [], endpoints: [] }));
  assert.equal(d.config, undefined);
  assert.deepEqual(d.problems, [
    { key: '/vppnet/v1/nodes/hv3', path: '(record)', message: 'is missing: the node has no record' },
  ]);
});

test("a remote locator inside the own one refuses that node; a SID beyond the remote's locator is that endpoint's problem", () => {
  const v = view({
    ports: [port('vm1', '10.0.0.5', '52:54:00:00:00:05')],
    endpoints: [ep('10.0.0.7', 'hv2'), ep('10.0.0.8', 'hv3'), ep('10.0.0.9', 'hv4')],
  });
  const nodes = new Map(v.nodes);
  // hv3's locator lies inside hv1's fc00:1::/48; hv4's /112 has 16 bits, too few for 0x10000.
  nodes.set(
    'hv3',
    record<NodeRecord>(schema.node('hv3'), { ...nodeValue(3), srv6: { locator: 'fc00:1:0:3::/64' } }),
  );
  nodes.set(
    'hv4',
    record<NodeRecord>(schema.node('hv4'), {
      ...nodeValue(4),
      srv6: { locator: 'fc00:4::/112', bsidPrefix: 'fc00:44::/64' },
    }),
  );
  const vpcs = new Map([
    [
      'blue',
      record<VpcRecord>(schema.vpc('blue'), {
        id: 10,
        sidIndex: 0x10000,
        subnets: ['10.0.0.0/24'],
        gateway: '10.0.0.1',
      }),
    ],
  ]);
  const d = deriveAgentConfig(schema, 'hv1', { ...v, nodes, vpcs });
  assert.deepEqual(
    d.config?.remoteRoutes.map((r) => `${r.prefix.address} > ${r.sid}`),
    ['10.0.0.7 > fc00:2::1:0'],
  );
  assert.deepEqual(
    d.problems.map((p) => `${p.key}: ${p.path}: ${p.message}`),
    [
      "/vppnet/v1/nodes/hv3: srv6: its locator fc00:1:0:3::/64 lies inside this node's locator fc00:1::/48 (/vppnet/v1/nodes/hv1): this node keeps its own",
      "/vppnet/v1/endpoints/blue/10.0.0.8_32: node: node hv3's record (/vppnet/v1/nodes/hv3) is refused: its locator fc00:1:0:3::/64 lies inside this node's locator fc00:1::/48 (/vppnet/v1/nodes/hv1): this node keeps its own",
      "/vppnet/v1/endpoints/blue/10.0.0.9_32: node: node hv4's locator fc00:4::/112 cannot hold VPC blue's SID index 65536",
    ],
  );
});

describe('dual-stack records', () => {
  const dualVpc = (value: Record<string, unknown> = {}) =>
    record<VpcRecord>(schema.vpc('blue'), {
      id: 10,
      subnets: ['10.0.0.0/24', '2001:db8:a::/64'],
      gateway: '10.0.0.1',
      ...value,
    });
  const v6only = record<VpcRecord>(schema.vpc('blue'), { id: 10, subnets: ['2001:db8:a::/64'] });
  const ep6 = (address: string, node: string, len = 128) =>
    record<EndpointRecord>(schema.endpoint('blue', { address, len }), { node });
  const port6 = (value: Record<string, unknown>) =>
    record<PortRecord>(schema.port('hv1', 'vm1'), {
      vpc: 'blue',
      mac: '52:54:00:61:0a:01',
      attach: { type: 'interface', name: 'if-vm1' },
      ...value,
    });

  it('keys an IPv6 endpoint by its canonical prefix, and refuses other spellings', () => {
    const key = schema.endpoint('vpc1', { address: '2001:db8:a:0:5054:ff:fe61:a01', len: 128 });
    assert.equal(key, '/vppnet/v1/endpoints/vpc1/2001:db8:a:0:5054:ff:fe61:a01_128');
    assert.deepEqual(schema.parse(key), {
      kind: 'endpoint',
      vpc: 'vpc1',
      prefix: { address: '2001:db8:a:0:5054:ff:fe61:a01', len: 128 },
      family: 6,
    });
    assert.deepEqual(schema.parse('/vppnet/v1/endpoints/vpc1/10.0.0.5_32'), {
      kind: 'endpoint',
      vpc: 'vpc1',
      prefix: { address: '10.0.0.5', len: 32 },
      family: 4,
    });
    for (const odd of ['2001:db8:a::5054:ff:fe61:a01_128', '2001:DB8:A:0:5054:ff:fe61:a01_128'])
      assert.deepEqual(schema.parse(`/vppnet/v1/endpoints/vpc1/${odd}`), {
        error: 'must spell the IPv6 prefix canonically (RFC 5952): 2001:db8:a:0:5054:ff:fe61:a01_128',
      });
    assert.deepEqual(parseRecord(schema, '/vppnet/v1/endpoints/vpc1/2001:db8:a::1_64', '{"node":"hv1"}'), [
      {
        key: '/vppnet/v1/endpoints/vpc1/2001:db8:a::1_64',
        path: '(key) prefix',
        message: 'host bits set: the network is 2001:db8:a::/64',
      },
    ]);
  });

  it('validates VPC and port records with the file rules for IPv6', () => {
    assert.equal(dualVpc().hasSubnets6, true);
    assert.equal(dualVpc().hasSubnets4, true);
    assert.equal(v6only.hasSubnets4, false);
    const bad = (key: string, value: unknown): string[] =>
      (parseRecord(schema, key, JSON.stringify(value)) as RecordProblem[]).map(
        (p) => `${p.path}: ${p.message}`,
      );
    assert.deepEqual(bad(schema.vpc('blue'), { id: 10, subnets: ['2001:db8:a::/48'], gateway: '10.0.0.1' }), [
      'subnets[0]: an IPv6 subnet must be a /64',
      'gateway: is the IPv4 gateway, but the VPC has no IPv4 subnet',
    ]);
    assert.deepEqual(
      bad(schema.vpc('blue'), { id: 10, subnets: ['2001:db8:a::/64'], gatewayLinkLocal: '2001::1' }),
      ['gatewayLinkLocal: must be a link-local unicast address (fe80::/10)'],
    );
    assert.deepEqual(
      bad(schema.port('hv1', 'vm1'), {
        vpc: 'blue',
        mac: '52:54:00:61:0a:01',
        ip6: 'ff02::1',
        attach: { type: 'interface', name: 'x' },
      }),
      ['ip6: overlaps the multicast range ff00::/8'],
    );
    assert.equal(port6({ ip6: '2001:db8:a::7' }).ip, undefined, 'a port record may carry ip6 alone');
  });

  it('steers a remote IPv6 endpoint to its node DT6 SID, family 6; the port gets its EUI-64 ip6', () => {
    const v = view({
      vpcs: [dualVpc({ sidIndex: 0x20 })],
      ports: [port6({ ip: '10.0.0.5' })],
      endpoints: [
        ep('10.0.0.7', 'hv2'),
        ep6('2001:db8:a:0:5054:ff:fe62:a01', 'hv2'),
        ep6('2001:db8:a:0:5054:ff:fe61:a01', 'hv1'),
      ],
    });
    const d = deriveAgentConfig(schema, 'hv1', v);
    assert.deepEqual(d.problems, []);
    assert.equal(d.config?.vpcs[0]?.sid, 'fc00:1::20');
    assert.equal(d.config?.vpcs[0]?.sid6, 'fc00:1::100:20', 'own DT6 SID from the sidIndex');
    assert.equal(d.config?.ports[0]?.ip6, '2001:db8:a:0:5054:ff:fe61:a01');
    assert.deepEqual(plainRoutes(d), [
      { vpc: 'blue', prefix: { address: '10.0.0.7', len: 32 }, family: 4, sid: 'fc00:2::20' },
      {
        vpc: 'blue',
        prefix: { address: '2001:db8:a:0:5054:ff:fe62:a01', len: 128 },
        family: 6,
        sid: 'fc00:2::100:20',
      },
    ]);
    assert.deepEqual(
      d.routes.map((r) => r.key),
      [
        '/vppnet/v1/endpoints/blue/10.0.0.7_32',
        '/vppnet/v1/endpoints/blue/2001:db8:a:0:5054:ff:fe62:a01_128',
      ],
    );
  });

  it('derives an IPv6-only VPC and port: no gateway, no IPv4 address', () => {
    const d = deriveAgentConfig(
      schema,
      'hv1',
      view({ vpcs: [v6only], ports: [port6({})], endpoints: [ep6('2001:db8:a::7', 'hv2')] }),
    );
    assert.deepEqual(d.problems, []);
    assert.equal(d.config?.vpcs[0]?.gateway, undefined);
    assert.equal(d.config?.ports[0]?.ip, undefined);
    assert.equal(d.config?.remoteRoutes[0]?.sid, 'fc00:2::100:a');
  });

  it('makes a wrong-family endpoint, a reserved prefix or a too long remote locator one endpoint problem', () => {
    const v = view({
      vpcs: [v6only],
      ports: [port6({})],
      endpoints: [
        ep('10.0.0.7', 'hv2'),
        ep6('2001:db8:a::7', 'hv2'),
        ep6('2001:db8:a::8', 'hv5'),
        ep6('fc00:1:0:1::', 'hv2', 64),
      ],
    });
    const nodes = new Map(v.nodes);
    nodes.set(
      'hv5',
      record<NodeRecord>(schema.node('hv5'), {
        ...nodeValue(5),
        srv6: { locator: 'fc00:5::/112', bsidPrefix: 'fc00:55::/64' },
      }),
    );
    const d = deriveAgentConfig(schema, 'hv1', { ...v, nodes });
    assert.deepEqual(
      d.config?.remoteRoutes.map((r) => `${r.prefix.address} > ${r.sid}`),
      ['2001:db8:a::7 > fc00:2::100:a'],
    );
    assert.deepEqual(
      d.problems.map((p) => `${p.key}: ${p.path}: ${p.message}`),
      [
        '/vppnet/v1/endpoints/blue/10.0.0.7_32: (key) prefix: is IPv4, but VPC blue has no IPv4 subnet',
        "/vppnet/v1/endpoints/blue/2001:db8:a::8_128: node: node hv5's locator fc00:5::/112 is longer than /103: it cannot hold End.DT6 SIDs (locator + 2^24 + the SID index)",
        '/vppnet/v1/endpoints/blue/fc00:1:0:1::_64: (key) prefix: lies inside the locator fc00:1::/48 (node.srv6.locator)',
      ],
    );
    const v4 = view({
      ports: [port('vm1', '10.0.0.5', '52:54:00:00:00:05')],
      endpoints: [ep6('2001:db8:a::7', 'hv2')],
    });
    assert.deepEqual(
      deriveAgentConfig(schema, 'hv1', v4).problems.map((p) => `${p.path}: ${p.message}`),
      ['(key) prefix: is IPv6, but VPC blue has no IPv6 subnet'],
    );
  });

  it("leaves out an IPv6 VPC when the node's own locator is too long for DT6 SIDs, not the node", () => {
    const v = view({
      vpcs: [
        v6only,
        record<VpcRecord>(schema.vpc('red'), { id: 11, subnets: ['10.1.0.0/24'], gateway: '10.1.0.1' }),
      ],
      ports: [
        port6({}),
        record<PortRecord>(schema.port('hv1', 'vm2'), {
          vpc: 'red',
          mac: '52:54:00:00:00:06',
          ip: '10.1.0.6',
          attach: { type: 'interface', name: 'if-vm2' },
        }),
      ],
      endpoints: [],
    });
    const nodes = new Map(v.nodes);
    nodes.set(
      'hv1',
      record<NodeRecord>(schema.node('hv1'), {
        ...nodeValue(1),
        srv6: { locator: 'fc00:1::/112', bsidPrefix: 'fc00:11::/64' },
      }),
    );
    const d = deriveAgentConfig(schema, 'hv1', { ...v, nodes });
    assert.deepEqual(
      d.config?.vpcs.map((x) => x.name),
      ['red'],
    );
    assert.deepEqual(
      d.problems.map((p) => `${p.key}: ${p.path}: ${p.message}`),
      [
        "/vppnet/v1/vpcs/blue: subnets: has an IPv6 subnet, but node hv1's locator fc00:1::/112 is longer than /103: it cannot hold the VPC's End.DT6 SID",
      ],
    );
  });
});
