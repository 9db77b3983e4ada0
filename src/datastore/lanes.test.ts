/**
 * Records stay in their lane (config/lanes.ts, node-lanes.ts): what one node derives from
 * hostile or conflicting records, without a store. The same rules against a real etcd and the
 * incremental path are in fleet-source.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deriveAgentConfig, type NodeView } from './derive.js';
import { KeySchema } from './keys.js';
import {
  parseRecord,
  type EndpointRecord,
  type NodeRecord,
  type PortRecord,
  type VpcRecord,
} from './records.js';

const schema = new KeySchema();

function record<T>(key: string, value: unknown): T {
  const r = parseRecord(schema, key, JSON.stringify(value));
  if (Array.isArray(r)) throw new Error(JSON.stringify(r));
  return r as T;
}

const nodeRecord = (name: string, n: number, srv6: Record<string, unknown> = { locator: `fc00:${n}::/48` }) =>
  record<NodeRecord>(schema.node(name), {
    underlay: { interface: 'memif1/0', address: `2001:db8::${n}/64`, gateway: '2001:db8::ff' },
    srv6,
  });

const blue = record<VpcRecord>(schema.vpc('blue'), {
  id: 10,
  subnets: ['10.0.0.0/24', '2001:db8:a::/64'],
  gateway: '10.0.0.1',
});

/** hv1 (this node) with vm1 at 10.0.0.5 and, by EUI-64, 2001:db8:a:0:5054:ff:fe00:5. */
function view(endpoints: EndpointRecord[], nodes: NodeRecord[] = []): NodeView {
  const byVpc = new Map<string, Map<string, EndpointRecord>>([['blue', new Map()]]);
  for (const e of endpoints) byVpc.get('blue')?.set(schema.endpoint('blue', e.prefix), e);
  const vm1 = record<PortRecord>(schema.port('hv1', 'vm1'), {
    vpc: 'blue',
    mac: '52:54:00:00:00:05',
    ip: '10.0.0.5',
    attach: { type: 'interface', name: 'if-vm1' },
  });
  return {
    nodes: new Map([nodeRecord('hv1', 1), nodeRecord('hv2', 2), ...nodes].map((n) => [n.name, n] as const)),
    vpcs: new Map([['blue', blue]]),
    ports: new Map([['vm1', vm1]]),
    endpoints: byVpc,
  };
}

const ep = (prefix: string, node: string): EndpointRecord => {
  const [address, len] = prefix.split('/');
  return record<EndpointRecord>(schema.endpoint('blue', { address: address as string, len: Number(len) }), {
    node,
  });
};

const routes = (v: NodeView) =>
  deriveAgentConfig(schema, 'hv1', v).config?.remoteRoutes.map(
    (r) => `${r.prefix.address}/${r.prefix.len} > ${r.sid}`,
  );
const problems = (v: NodeView) =>
  deriveAgentConfig(schema, 'hv1', v).problems.map((p) => `${p.key}: ${p.path}: ${p.message}`);

test('an endpoint in link-local or service space is refused when it is put, naming its key', () => {
  for (const [key, why] of [
    ['/vppnet/v1/endpoints/blue/169.254.169.254_32', /169\.254\.0\.0\/16/],
    ['/vppnet/v1/endpoints/blue/169.254.0.0_16', /169\.254\.0\.0\/16/],
    ['/vppnet/v1/endpoints/blue/0.0.0.0_0', /169\.254\.0\.0\/16/],
    ['/vppnet/v1/endpoints/blue/127.0.0.1_32', /loopback/],
    ['/vppnet/v1/endpoints/blue/fe80::1_128', /link-local/],
    ['/vppnet/v1/endpoints/blue/ff02::1_128', /multicast/],
  ] as const) {
    const r = parseRecord(schema, key, '{"node":"hv2"}');
    assert.ok(Array.isArray(r), `${key} is refused`);
    assert.equal(r[0]?.key, key);
    assert.equal(r[0]?.path, '(key) prefix');
    assert.match(r[0]?.message ?? '', why);
  }
});

test("an endpoint on the VPC's gateway or this node's underlay, locator or BSIDs gets no route, the rest applies", () => {
  const v = view([
    ep('10.0.0.7/32', 'hv2'),
    ep('10.0.0.1/32', 'hv2'),
    ep('10.0.0.0/28', 'hv2'),
    ep('2001:db8::1/128', 'hv2'),
    ep('fc00:1::a/128', 'hv2'),
    ep('fc00:1:ff::/64', 'hv2'),
  ]);
  assert.deepEqual(routes(v), ['10.0.0.7/32 > fc00:2::a']);
  assert.deepEqual(problems(v).sort(), [
    "/vppnet/v1/endpoints/blue/10.0.0.0_28: (key) prefix: covers the VPC's gateway 10.0.0.1",
    "/vppnet/v1/endpoints/blue/10.0.0.1_32: (key) prefix: covers the VPC's gateway 10.0.0.1",
    '/vppnet/v1/endpoints/blue/2001:db8::1_128: (key) prefix: lies inside the underlay prefix 2001:db8::/64 (node.underlay.address)',
    '/vppnet/v1/endpoints/blue/fc00:1::a_128: (key) prefix: lies inside the locator fc00:1::/48 (node.srv6.locator)',
    '/vppnet/v1/endpoints/blue/fc00:1:ff::_64: (key) prefix: lies inside the BSID prefix fc00:1:ff::/64 (node.srv6.bsidPrefix)',
  ]);
});

test('an IPv6 endpoint covering them (::/0 to an appliance) routes: in a VPC table they lie elsewhere', () => {
  const v = view([ep('::/0', 'hv2'), ep('fc00::/16', 'hv2')]);
  assert.deepEqual((routes(v) ?? []).sort(), ['::/0 > fc00:2::100:a', 'fc00::/16 > fc00:2::100:a']);
  assert.deepEqual(problems(v), []);
});

test("a remote endpoint for a local VM's address never overrides its local route, IPv4 and IPv6", () => {
  const v = view([
    ep('10.0.0.5/32', 'hv2'),
    ep('2001:db8:a:0:5054:ff:fe00:5/128', 'hv2'),
    ep('10.0.0.0/29', 'hv2'), // shorter: loses to vm1's /32 by longest match, but covers the gateway
    ep('10.0.0.4/30', 'hv2'), // shorter and clear of the gateway: vm1's /32 still wins in the FIB
  ]);
  assert.deepEqual(routes(v), ['10.0.0.4/30 > fc00:2::a']);
  assert.deepEqual(
    problems(v)
      .filter((p) => p.includes('local route wins'))
      .sort(),
    [
      '/vppnet/v1/endpoints/blue/10.0.0.5_32: node: 10.0.0.5/32 is held by port vm1 on this node: the local route wins, the remote one is ignored',
      '/vppnet/v1/endpoints/blue/2001:db8:a:0:5054:ff:fe00:5_128: node: 2001:db8:a:0:5054:ff:fe00:5/128 is held by port vm1 on this node: the local route wins, the remote one is ignored',
    ],
  );
});

test("a node record whose locator covers this node's is refused, and routes to it with it", () => {
  const v = view(
    [ep('10.0.0.7/32', 'hv2'), ep('10.0.0.8/32', 'hv9')],
    [nodeRecord('hv9', 9, { locator: 'fc00::/16' })],
  );
  assert.deepEqual(routes(v), ['10.0.0.7/32 > fc00:2::a'], 'hv2 keeps its route, hv9 gets none');
  const found = problems(v);
  assert.ok(
    found.some((p) =>
      /^\/vppnet\/v1\/nodes\/hv9: srv6: its locator fc00::\/16 covers (this node's|node hv2's) .*: a prefix covering another node's is refused$/.test(
        p,
      ),
    ),
    found.join('\n'),
  );
  assert.ok(found.some((p) => p.startsWith('/vppnet/v1/endpoints/blue/10.0.0.8_32: node: node hv9')));
  assert.ok(!found.some((p) => p.startsWith('/vppnet/v1/nodes/hv1')), 'this node keeps its own record');
});

test('of two other nodes, the one whose prefix covers the other is refused; equal ones both', () => {
  const v = view(
    [ep('10.0.0.7/32', 'hv2'), ep('10.0.0.8/32', 'hv3'), ep('10.0.0.9/32', 'hv4'), ep('10.0.0.10/32', 'hv5')],
    [
      // hv3's BSID prefix covers hv4's locator: hv3's agent would take hv4's SIDs as its own.
      nodeRecord('hv3', 3, { locator: 'fc00:3::/48', bsidPrefix: 'fc00:4::/32' }),
      nodeRecord('hv4', 4, { locator: 'fc00:4:1::/48' }),
      // hv5 copies hv2's locator exactly: nobody can tell which is right.
      nodeRecord('hv5', 5, { locator: 'fc00:2::/48' }),
    ],
  );
  assert.deepEqual(routes(v), ['10.0.0.9/32 > fc00:4:1::a']);
  const nodeProblems = problems(v).filter((p) => p.startsWith('/vppnet/v1/nodes/'));
  assert.deepEqual(nodeProblems, [
    "/vppnet/v1/nodes/hv2: srv6: its locator fc00:2::/48 is also node hv5's locator fc00:2::/48 (/vppnet/v1/nodes/hv5): both records are refused",
    "/vppnet/v1/nodes/hv3: srv6: its BSID prefix fc00:4::/32 covers node hv4's locator fc00:4:1::/48 (/vppnet/v1/nodes/hv4): a prefix covering another node's is refused",
    "/vppnet/v1/nodes/hv5: srv6: its locator fc00:2::/48 is also node hv2's locator fc00:2::/48 (/vppnet/v1/nodes/hv2): both records are refused",
  ]);
});

test('nodes may share a BSID prefix: binding SIDs never leave their node', () => {
  const shared = { bsidPrefix: 'fd00:b51d::/64' };
  const v = view(
    [ep('10.0.0.7/32', 'hv3'), ep('10.0.0.8/32', 'hv4')],
    [
      nodeRecord('hv3', 3, { locator: 'fc00:3::/48', ...shared }),
      nodeRecord('hv4', 4, { locator: 'fc00:4::/48', ...shared }),
    ],
  );
  assert.deepEqual(routes(v), ['10.0.0.7/32 > fc00:3::a', '10.0.0.8/32 > fc00:4::a']);
  assert.deepEqual(problems(v), []);
});

test("a port record's allowed prefixes: routed to it, winning over an endpoint for the same prefix, refused inside reserved space", () => {
  const base = view([ep('192.168.0.0/16', 'hv2'), ep('192.168.7.0/24', 'hv2')]);
  const v: NodeView = {
    ...base,
    ports: new Map([
      [
        'vm1',
        record<PortRecord>(schema.port('hv1', 'vm1'), {
          vpc: 'blue',
          mac: '52:54:00:00:00:05',
          ip: '10.0.0.5',
          attach: { type: 'interface', name: 'if-vm1' },
          allowedPrefixes: ['192.168.0.0/16'],
        }),
      ],
    ]),
  };
  const derived = deriveAgentConfig(schema, 'hv1', v);
  assert.deepEqual(derived.config?.ports[0]?.allowedPrefixes, [
    { address: '192.168.0.0', len: 16, family: 4 },
  ]);
  // The same prefix elsewhere loses (local wins); a more specific one inside it is another node's.
  assert.deepEqual(routes(v), ['192.168.7.0/24 > fc00:2::a']);
  assert.ok(
    problems(v).some((p) =>
      /192\.168\.0\.0_16: node: 192\.168\.0\.0\/16 is held by port vm1 on this node/.test(p),
    ),
    problems(v).join('\n'),
  );
  const bad = parseRecord(
    schema,
    schema.port('hv1', 'vm9'),
    JSON.stringify({
      vpc: 'blue',
      mac: '52:54:00:00:00:09',
      ip: '10.0.0.9',
      attach: { type: 'interface', name: 'if-vm9' },
      allowedPrefixes: ['169.254.169.254/32'],
    }),
  );
  assert.ok(Array.isArray(bad));
  assert.match(bad[0]?.message ?? '', /lies inside the link-local and service range/);
  assert.equal(bad[0]?.path, 'allowedPrefixes[0]');
});

test("the SRv6 ingress filter's sources are the fleet's underlay prefixes, unless the node record names its own", () => {
  const far = nodeRecord('hv3', 3);
  const other = record<NodeRecord>(schema.node('hv4'), {
    underlay: { interface: 'memif1/0', address: '2001:db8:4::4/64', gateway: '2001:db8:4::ff' },
    srv6: { locator: 'fc00:4::/48', encapSource: '2001:db8:99::4' },
  });
  const sources = (v: NodeView) =>
    deriveAgentConfig(schema, 'hv1', v).config?.node.srv6.allowedSources.map((p) => `${p.address}/${p.len}`);
  // hv1, hv2 and hv3 share 2001:db8::/64; hv4 brings its prefix and an encapsulation source outside it.
  assert.deepEqual(sources(view([], [far, other])), [
    '2001:db8::/64',
    '2001:db8:4::/64',
    '2001:db8:99::4/128',
  ]);
  const base = view([], [other]);
  const own: NodeView = {
    ...base,
    nodes: new Map([
      ...base.nodes,
      ['hv1', nodeRecord('hv1', 1, { locator: 'fc00:1::/48', allowedSources: ['2001:db8::/48'] })],
    ]),
  };
  assert.deepEqual(sources(own), ['2001:db8::/48']);
});
