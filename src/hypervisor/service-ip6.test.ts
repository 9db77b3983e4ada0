/**
 * Metadata and DNS over IPv6 (services.ip6, services/ip6-services.ts) as the reconciler programs
 * them: the BVI's IPv6 address, per VPC a services loopback in its own IPv6 services table (nat66's
 * only inside: no VM port is one) with the /128 routes via it and on into table 0, nat66 with one
 * mapping per VM in its VPC's services table, the fabric tables SRv6 decapsulates into, and all of
 * it read back (a second pass plans nothing) and removed again, per VPC and as a whole. Runs on the simulator, and against a real VPP with VPP_API_SOCKET;
 * the same with real packets is test/integration/service-plane-ip6.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startVppTarget, type VppTarget } from '../../test/support/vpp-target.js';
import { createUnderlay, removeUnderlay } from '../../test/support/underlay.js';
import { NO_HOST_LINKS } from '../../test/support/no-host-links.js';
import { fabricTableOf, services6TableOf } from '../config/defaults.js';
import { validateConfig } from '../config/validate.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { msg } from '../vpp/messages/index.js';
import { reconcile } from '../../test/support/host-reconcile.js';
import { memoryStore } from './reconcile.js';
import { ServiceAddresses } from '../services/service-addresses.js';
import type { AddressBook } from '../services/address-allocator.js';

const NAT_IS_INSIDE = msg.nat_config_flags_t.values.NAT_IS_INSIDE;

describe('services over IPv6 (nat66), reconciled', () => {
  let target: VppTarget;
  let client: VppClient;
  let dir: string;
  let uplink: { name: string; swIfIndex: number };
  const globals = memoryStore();
  let book: AddressBook | undefined;
  const addresses = new ServiceAddresses({
    load: () => Promise.resolve(book),
    save: (b) => {
      book = b;
      return Promise.resolve();
    },
  });

  const raw = (opts: { ip6?: boolean; ports?: number[]; vpcB?: boolean } = {}): Record<string, unknown> => ({
    node: {
      name: 'hv1',
      underlay: { interface: uplink.name, address: '2001:db8::1/64', gateway: '2001:db8::2' },
      vhostUser: { directory: dir },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs: [
      { name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24', '2001:db8:a::/64'], gateway: '10.0.0.1' },
      ...((opts.vpcB ?? true) ? [{ name: 'vpc-b', id: 20, subnets: ['2001:db8:a::/64'] }] : []),
    ],
    // vm1 (dual-stack) and vm3 (IPv6-only) hold one IPv6 address in two VPCs.
    ports: [
      { n: 1, vpc: 'vpc-a', ip: '10.0.0.5', ip6: '2001:db8:a::5' },
      { n: 2, vpc: 'vpc-a', ip: '10.0.0.6', ip6: '2001:db8:a::6' },
      { n: 3, vpc: 'vpc-b', ip6: '2001:db8:a::5' },
    ]
      .filter((p) => (opts.ports ?? [1, 2, 3]).includes(p.n))
      .map(({ n, ...p }) => ({
        name: `vm${n}`,
        mac: `52:54:00:00:0d:0${n}`,
        attach: { type: 'vhost-user', socket: path.join(dir, `vm${n}.sock`) },
        ...p,
      })),
    remoteRoutes: [],
    services: { dnsAddress: '169.254.169.53', ...((opts.ip6 ?? true) && { ip6: {} }) },
  });

  const apply = async (r: unknown): Promise<string[]> => {
    const outcome = await reconcile(validateConfig(r), {
      client,
      host: NO_HOST_LINKS,
      globals,
      services: { addresses },
    });
    assert.deepEqual(
      outcome.result?.failed.map((x) => `${x.op.action} ${x.op.resource.key}: ${x.error.message}`),
      [],
    );
    assert.deepEqual(outcome.plan.pending, []);
    return outcome.plan.ops.map((o) => `${o.action} ${o.resource.key}`);
  };

  const indexOf = async (tag: string): Promise<number | undefined> =>
    (await client.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff, name_filter_valid: false })).find(
      (i) => i.tag === tag,
    )?.sw_if_index;

  /** IPv6 API routes of a table (not VPP's own ::/0 and fe80::/10): prefix → "table N" or "via sw_if_index". */
  const routes6 = async (table: number): Promise<Map<string, string>> => {
    const all = await client.dump(msg.ip_route_dump, { table: { table_id: table, is_ip6: true } });
    return new Map(
      all
        .filter((r) => r.route.paths.every((p) => p.type === 0) && r.route.prefix.len > 10)
        .map((r) => {
          const p = r.route.paths[0];
          const where = p?.sw_if_index === 0xffffffff ? `table ${p.table_id}` : `via ${p?.sw_if_index}`;
          return [`${r.route.prefix.address.un.ip6}/${r.route.prefix.len}`, where];
        }),
    );
  };

  /** Where a table's ::/0 goes ("table N"), or undefined for VPP's own (drop). */
  const defaultRoute6 = async (table: number): Promise<string | undefined> => {
    const all = await client.dump(msg.ip_route_dump, { table: { table_id: table, is_ip6: true } });
    const p = all.find((r) => r.route.prefix.len === 0)?.route.paths[0];
    return p?.type === 0 && p.sw_if_index === 0xffffffff ? `table ${p.table_id}` : undefined;
  };

  before(async () => {
    target = await startVppTarget();
    dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-s6u-'));
    client = new VppClient({
      socketPath: target.socketPath,
      clientName: 'vppnet-test',
      healthCheckIntervalMs: 0,
    });
    await client.connect();
    uplink = await createUnderlay(client);
  });

  after(async () => {
    await apply({ ...raw({ ip6: false }), vpcs: [], ports: [], services: undefined }).catch(() => undefined);
    await removeUnderlay(client, uplink);
    await client.close();
    await target.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('gives each VM its own IPv6 service address through nat66, reads it all back, and a second pass plans nothing', async () => {
    await apply(raw());
    assert.deepEqual(await apply(raw()), []);

    const map = addresses.serviceMap();
    const entry = (port: string) => map.find((e) => e.port === port);
    // The IPv6 service address carries the IPv4 one's host number; vm3 (IPv6-only) has no vmIp.
    for (const port of ['vm1', 'vm2', 'vm3']) {
      const e = entry(port);
      const six = e?.serviceAddress6 ?? '';
      assert.ok(six.startsWith('fd00:ec2:0:ff::'), port);
      assert.equal(six.split(':').at(-1), Number(e?.serviceAddress.split('.')[3]).toString(16));
    }
    assert.equal(entry('vm3')?.vmIp, undefined);
    assert.equal(entry('vm3')?.vmIp6, '2001:db8:a::5');

    const [svcA, svcB] = [services6TableOf(10), services6TableOf(20)];
    const mappings = await client.dump(msg.nat66_static_mapping_dump, {});
    assert.deepEqual(
      mappings.map((m) => `${m.vrf_id} ${m.local_ip_address} ${m.external_ip_address}`).sort(),
      [
        `${svcA} 2001:db8:a::5 ${entry('vm1')?.serviceAddress6}`,
        `${svcA} 2001:db8:a::6 ${entry('vm2')?.serviceAddress6}`,
        `${svcB} 2001:db8:a::5 ${entry('vm3')?.serviceAddress6}`,
      ].sort(),
      "two VMs with one address in two VPCs: two mappings, two identities, each in its VPC's services table",
    );
    const bvi = await indexOf('vppnet:services:bvi');
    const loopA = await indexOf('vppnet:svc6:vpc-a');
    const loopB = await indexOf('vppnet:svc6:vpc-b');
    assert.ok(loopA !== undefined && loopB !== undefined, 'a services loopback per IPv6 VPC');
    // nat66-in2out runs on every packet an inside interface receives: the loopbacks are the only
    // inside ones, no VM port is.
    const nat66Ifs = await client.dump(msg.nat66_interface_dump, {});
    assert.deepEqual(
      nat66Ifs.map((i) => `${i.sw_if_index} ${(i.flags & NAT_IS_INSIDE) !== 0 ? 'in' : 'out'}`).sort(),
      [`${bvi} out`, `${loopA} in`, `${loopB} in`].sort(),
    );
    const bviAddresses = await client.dump(msg.ip_address_dump, { sw_if_index: bvi ?? 0, is_ipv6: true });
    assert.deepEqual(
      bviAddresses.map((a) => `${a.prefix.address.un.ip6}/${a.prefix.len}`),
      ['fd00:ec2::1/64'],
    );
    for (const [table, svc, loop] of [
      [10, svcA, loopA],
      [20, svcB, loopB],
    ] as const) {
      // The loopback is in the services table, with IPv6 on and its own MAC as fe80::1's.
      const bound = await client.call(msg.sw_interface_get_table, { sw_if_index: loop, is_ipv6: true });
      assert.equal(bound.vrf_id, svc);
      const [details] = await client.dump(msg.sw_interface_dump, {
        sw_if_index: loop,
        name_filter_valid: false,
      });
      const neighbors = await client.dump(msg.ip_neighbor_dump, { sw_if_index: loop, af: 1 });
      assert.deepEqual(
        neighbors.map((n) => `${n.neighbor.ip_address.un.ip6} ${n.neighbor.mac_address}`),
        [`fe80::1 ${details?.l2_address}`],
      );
      // The VPC's table sends metadata and DNS to the loopback; the services table on to table 0
      // and everything else back into the VPC's table.
      const r = await routes6(table);
      assert.equal(r.get('fd00:ec2::254/128'), `via ${loop}`, `metadata in table ${table}`);
      assert.equal(r.get('fd00:ec2::253/128'), `via ${loop}`, `DNS in table ${table}`);
      const rs = await routes6(svc);
      assert.equal(rs.get('fd00:ec2::254/128'), 'table 0', `metadata in table ${svc}`);
      assert.equal(rs.get('fd00:ec2::253/128'), 'table 0', `DNS in table ${svc}`);
      assert.equal(await defaultRoute6(svc), `table ${table}`, `the way back in table ${svc}`);
    }
    // SRv6 from other nodes lands in the fabric tables: the local VMs, and nothing else.
    const fabricA = await routes6(fabricTableOf(10));
    assert.deepEqual([...fabricA.keys()].sort(), ['2001:db8:a::5/128', '2001:db8:a::6/128']);
    const sids = await client.dump(msg.sr_localsids_dump, {});
    assert.equal(
      sids.find((s) => s.addr === 'fc00:1::100:14')?.xconnect_iface_or_vrf_table,
      fabricTableOf(20),
    );
  });

  it('follows a VM leaving and a VPC going, and takes everything back when services.ip6 goes', async () => {
    const svcA = services6TableOf(10);
    const svcB = services6TableOf(20);
    const ip6Tables = async (): Promise<number[]> =>
      (await client.dump(msg.ip_table_dump, {})).filter((t) => t.table.is_ip6).map((t) => t.table.table_id);
    await apply(raw({ ports: [1, 2] }));
    const mappings = await client.dump(msg.nat66_static_mapping_dump, {});
    assert.deepEqual(mappings.map((m) => `${m.vrf_id} ${m.local_ip_address}`).sort(), [
      `${svcA} 2001:db8:a::5`,
      `${svcA} 2001:db8:a::6`,
    ]);
    assert.deepEqual(await apply(raw({ ports: [1, 2] })), []);

    // vpc-b goes: its loopback, services table and routes go with it; vpc-a keeps its own.
    await apply(raw({ ports: [1, 2], vpcB: false }));
    assert.equal(await indexOf('vppnet:svc6:vpc-b'), undefined);
    assert.equal((await ip6Tables()).includes(svcB), false);
    assert.ok((await ip6Tables()).includes(svcA));
    assert.deepEqual(await apply(raw({ ports: [1, 2], vpcB: false })), []);

    await apply(raw({ ports: [1, 2], ip6: false }));
    // Disabled, nat66 answers its dumps with nothing; the routes, the address, the loopbacks and
    // the services tables are gone too.
    assert.deepEqual(await client.dump(msg.nat66_interface_dump, {}), []);
    assert.deepEqual(await client.dump(msg.nat66_static_mapping_dump, {}), []);
    assert.equal((await routes6(10)).has('fd00:ec2::254/128'), false);
    assert.equal(await indexOf('vppnet:svc6:vpc-a'), undefined);
    assert.equal(await indexOf('vppnet:svc6:vpc-b'), undefined);
    assert.deepEqual(
      (await ip6Tables()).filter((t) => t === svcA || t === svcB),
      [],
    );
    const bvi = await indexOf('vppnet:services:bvi');
    assert.deepEqual(await client.dump(msg.ip_address_dump, { sw_if_index: bvi ?? 0, is_ipv6: true }), []);
    assert.deepEqual(await apply(raw({ ports: [1, 2], ip6: false })), []);
    // And on again: the plugin comes back with its interfaces and mappings.
    await apply(raw({ ports: [1, 2] }));
    assert.equal((await client.dump(msg.nat66_static_mapping_dump, {})).length, 2);
    assert.deepEqual(await apply(raw({ ports: [1, 2] })), []);
  });
});
