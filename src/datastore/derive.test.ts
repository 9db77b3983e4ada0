/** The records' validation and one node's derivation, without a store. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deriveAgentConfig, type NodeView } from './derive.js';
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
      '/vppnet/v1/vpcs/blue: (value).name: unknown field (allowed: id, table, subnets, gateway, mtu, sidIndex)',
      '/vppnet/v1/vpcs/blue: id: must be an integer from 1 to 16777215',
      '/vppnet/v1/vpcs/blue: table: must be an integer from 1 to 4294967294',
      '/vppnet/v1/vpcs/blue: subnets[0]: host bits set: the network is 10.0.0.0/24',
    ],
  );
  assert.deepEqual(parseRecord(schema, '/vppnet/v1/endpoints/blue/10.0.0.5', '{"node":"hv1"}'), [
    {
      key: '/vppnet/v1/endpoints/blue/10.0.0.5',
      path: '(key)',
      message: 'must end in an IPv4 prefix written a.b.c.d_len',
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
  assert.deepEqual(d.config?.remoteRoutes, [
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

test("a remote SID inside the own locator, or beyond the remote's locator, is that endpoint's problem", () => {
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
      "/vppnet/v1/endpoints/blue/10.0.0.8_32: node: node hv3's SID for VPC blue, fc00:1:0:3::1:0, is inside this node's own locator fc00:1::/48",
      "/vppnet/v1/endpoints/blue/10.0.0.9_32: node: node hv4's locator fc00:4::/112 cannot hold VPC blue's SID index 65536",
    ],
  );
});
