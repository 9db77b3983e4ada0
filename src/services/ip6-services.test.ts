/**
 * The desired state of services.ip6 (ip6-services.ts), as resources: nat66 translates on one
 * services loopback per IPv6 VPC, in the VPC's IPv6 services table, and on no VM port (an inside
 * interface runs nat66-in2out, ~16,000 clocks, on every IPv6 packet it receives). The same on the
 * simulator and a real VPP, read back, is src/hypervisor/service-ip6.test.ts; with real packets,
 * test/integration/service-plane-ip6.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { services6TableOf } from '../config/defaults.js';
import { validateConfig } from '../config/validate.js';
import type { InterfaceValue } from '../dataplane/interface-descriptors.js';
import type { RouteValue } from '../dataplane/ip-descriptors.js';
import type { StaticNeighborValue } from '../dataplane/neighbor-descriptors.js';
import { keys, tableNames, tags } from '../dataplane/keys.js';
import type { Resource } from '../reconcile/resource.js';
import { desiredServicesIp6, SERVICES_LOOPBACK_NEXT_HOP } from './ip6-services.js';
import type { Nat66InterfaceValue, Nat66StaticMappingValue } from './nat66-descriptors.js';

const config = validateConfig({
  node: {
    name: 'hv1',
    underlay: { interface: 'memif1/0', address: '2001:db8::1/64', gateway: '2001:db8::2' },
    srv6: { locator: 'fc00:1::/48' },
  },
  vpcs: [
    { name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24', '2001:db8:a::/64'], gateway: '10.0.0.1' },
    { name: 'vpc-b', id: 20, subnets: ['2001:db8:a::/64'], table: 200 },
    { name: 'vpc-c', id: 30, subnets: ['10.0.3.0/24'], gateway: '10.0.3.1' },
  ],
  ports: [
    { name: 'vm1', vpc: 'vpc-a', ip: '10.0.0.5', ip6: '2001:db8:a::5' },
    { name: 'vm3', vpc: 'vpc-b', ip6: '2001:db8:a::5' },
    { name: 'vm4', vpc: 'vpc-c', ip: '10.0.3.5' },
  ].map((p, i) => ({
    ...p,
    mac: `52:54:00:00:0e:0${i + 1}`,
    attach: { type: 'vhost-user', socket: `/run/vppnet/vhost/${p.name}.sock` },
  })),
  remoteRoutes: [],
  services: { dnsAddress: '169.254.169.53', ip6: {} },
});
const services = config.services;
const ip6 = services?.ip6;
assert.ok(services && ip6);
const addresses = new Map([
  ['vm1', '169.252.252.1'],
  ['vm3', '169.252.252.3'],
  ['vm4', '169.252.252.4'],
]);
const desired = desiredServicesIp6(config, services, ip6, addresses, []);
const ofKind = <V>(kind: string): V[] =>
  desired.filter((r: Resource) => r.kind === kind).map((r) => r.value as V);
const route = (table: number, prefix: string): RouteValue | undefined =>
  ofKind<RouteValue>('route').find((r) => r.table === table && r.prefix === prefix);

describe('services.ip6 desired: nat66 on a services loopback per IPv6 VPC, never on a VM port', () => {
  const loopA = tags.vpcServices6('vpc-a');
  const loopB = tags.vpcServices6('vpc-b');

  it('makes nat66 inside only the IPv6 VPCs’ services loopbacks, the BVI outside', () => {
    assert.deepEqual(
      ofKind<Nat66InterfaceValue>('nat66-interface')
        .map((i) => `${i.iface} ${i.inside ? 'in' : 'out'}`)
        .sort(),
      [`${loopA} in`, `${loopB} in`, `${tags.servicesBvi()} out`].sort(),
    );
  });

  it("maps each VM in its VPC's services table: one address in two VPCs, two identities", () => {
    assert.deepEqual(
      ofKind<Nat66StaticMappingValue>('nat66-static').map((m) => `${m.vrf} ${m.local} ${m.external}`),
      [
        `${services6TableOf(10)} 2001:db8:a::5 fd00:ec2:0:ff::1`,
        `${services6TableOf(20)} 2001:db8:a::5 fd00:ec2:0:ff::3`,
      ],
    );
  });

  it("routes the service /128s via the loopback, on into table 0, and back into the VPC's table", () => {
    for (const [vpc, table, loop] of [
      [10, 10, loopA],
      [20, 200, loopB],
    ] as const) {
      const svc = services6TableOf(vpc);
      for (const address of ['fd00:ec2::254', 'fd00:ec2::253']) {
        assert.deepEqual(route(table, `${address}/128`)?.paths, [
          { iface: loop, nh: SERVICES_LOOPBACK_NEXT_HOP },
        ]);
        assert.deepEqual(route(svc, `${address}/128`)?.paths, [{ lookupTable: 0 }]);
      }
      assert.deepEqual(route(svc, '::/0')?.paths, [{ lookupTable: table }]);
    }
  });

  it('gives each loopback its table, IPv6, and fe80::1 with its own MAC', () => {
    const loops = ofKind<InterfaceValue>('interface');
    assert.deepEqual(
      loops.map((l) => `${l.type} ${l.name}`),
      [`loopback ${loopA}`, `loopback ${loopB}`],
    );
    const tables = desired.filter((r) => r.kind === 'ip-table').map((r) => r.value);
    assert.deepEqual(tables, [
      { table: services6TableOf(10), ip6: true, name: tableNames.vpcServices6('vpc-a') },
      { table: services6TableOf(20), ip6: true, name: tableNames.vpcServices6('vpc-b') },
    ]);
    for (const [loop, table] of [
      [loopA, services6TableOf(10)],
      [loopB, services6TableOf(20)],
    ] as const) {
      const found = loops.find((l) => l.name === loop);
      const mac = found?.type === 'loopback' ? found.mac : undefined;
      assert.ok(mac);
      assert.deepEqual(
        ofKind<StaticNeighborValue>('static-neighbor').find((n) => n.iface === loop),
        { iface: loop, address: SERVICES_LOOPBACK_NEXT_HOP, mac },
      );
      const keysOf = new Set(desired.map((r) => r.key));
      for (const key of [keys.ifaceTable(loop, true), keys.ip6Enable(loop), keys.adminUp(loop)])
        assert.ok(keysOf.has(key), key);
      assert.deepEqual(desired.find((r) => r.key === keys.ifaceTable(loop, true))?.value, {
        iface: loop,
        table,
        ip6: true,
      });
    }
  });

  it('orders what goes with a VPC so that routes go before their tables and the loopback', () => {
    const svcRoute = desired.find((r) => r.key === keys.route(services6TableOf(10), '::/0', true));
    assert.ok(svcRoute?.deps.includes(keys.ipTable(services6TableOf(10), true)));
    assert.ok(svcRoute?.deps.includes(keys.ipTable(10, true)));
    const vpcRoute = desired.find((r) => r.key === keys.route(10, 'fd00:ec2::254/128', true));
    for (const dep of [
      keys.interface(loopA),
      keys.staticNeighbor(loopA, SERVICES_LOOPBACK_NEXT_HOP),
      keys.ipTable(10, true),
    ])
      assert.ok(vpcRoute?.deps.includes(dep), dep);
  });
});
