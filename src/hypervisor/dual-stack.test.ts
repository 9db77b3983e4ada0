/**
 * Dual-stack VPCs through the reconciler (docs/dual-stack.md): against the simulator by default,
 * a real VPP 26.06 when VPP_API_SOCKET is set. The IPv6 fields are laid over validated IPv4
 * configs here, as the model contract gives them (src/config/model.ts), so these tests do not
 * depend on how the config file spells them.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createUnderlay, removeUnderlay, type TestUnderlay } from '../../test/support/underlay.js';
import { deleteDumpedSteering } from '../../test/support/steering.js';
import { startVppTarget, type VppTarget } from '../../test/support/vpp-target.js';
import type { AgentConfig, PortConfig, RemoteRouteConfig, VpcConfig } from '../config/model.js';
import { auditSteering } from './steering-audit.js';
import { validateConfig } from '../config/validate.js';
import { VppRetvalError } from '../vpp/client/retval-error.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { fabricTableOf } from '../config/defaults.js';
import { msg } from '../vpp/messages/index.js';
import { reconcileRouteChanges, RouteChangeError, type RemoteRouteChange } from './route-delta.js';
import { reconcile } from '../../test/support/host-reconcile.js';
import { memoryStore, type SrGlobalsStore } from './reconcile.js';
import { NO_HOST_LINKS } from '../../test/support/no-host-links.js';

const SUBNET6 = { address: '2001:db8:a::', len: 64 };

interface Fixture {
  target: VppTarget;
  client: VppClient;
  other: VppClient;
  underlay: TestUnderlay;
  dir: string;
}

/** How a VPC of the test config is: IPv4 only, dual-stack, or IPv6 only. */
type Family = '4' | '46' | '6';

interface Shape {
  /** Per VPC (vpc-1 table 100, vpc-2 table 101, …). */
  readonly vpcs: readonly Family[];
  /** Which VPC each VM port is in (vm-1, vm-2, …), by index. */
  readonly ports: readonly number[];
  /** Remote routes per VPC and family the VPC has. */
  readonly routes?: number;
  /** The IPv6 remote routes instead of the default ones. */
  readonly routes6?: readonly RemoteRouteConfig[];
}

function vpcSid6(i: number): string {
  return `fc00:1::100:${(100 + i).toString(16)}`;
}

/** EUI-64 of 52:54:00:00:00:0k in 2001:db8:a::/64, what SLAAC gives vm-k. */
function vmIp6(k: number): string {
  return `2001:db8:a:0:5054:ff:fe00:${k.toString(16)}`;
}

function makeConfig(f: Fixture, shape: Shape): AgentConfig {
  const routes = shape.routes ?? 1;
  const base = validateConfig({
    node: {
      name: 'hv1',
      underlay: { interface: f.underlay.name, address: '2001:db8::1/64', gateway: '2001:db8::2' },
      vhostUser: { directory: f.dir },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs: shape.vpcs.map((_, i) => ({
      name: `vpc-${i + 1}`,
      id: 100 + i,
      subnets: ['10.0.0.0/24'],
      gateway: '10.0.0.1',
    })),
    ports: shape.ports.map((v, k) => ({
      name: `vm-${k + 1}`,
      vpc: `vpc-${v + 1}`,
      mac: `52:54:00:00:00:${(k + 1).toString(16).padStart(2, '0')}`,
      ip: `10.0.0.${5 + k}`,
      attach: { type: 'vhost-user', socket: path.join(f.dir, `vm-${k + 1}.sock`) },
    })),
    remoteRoutes: shape.vpcs.flatMap((fam, i) =>
      fam.includes('4')
        ? Array.from({ length: routes }, (_, j) => ({
            vpc: `vpc-${i + 1}`,
            prefix: `10.1.${j}.0/24`,
            sid: `fc00:2::${(100 + i).toString(16)}`,
          }))
        : [],
    ),
  });
  const vpcs: VpcConfig[] = base.vpcs.map((v, i) => {
    const fam = shape.vpcs[i] as Family;
    const ip4 = fam.includes('4');
    const ip6 = fam.includes('6');
    return {
      ...v,
      subnets: ip4 ? v.subnets : [],
      gateway: ip4 ? v.gateway : undefined,
      subnets6: ip6 ? [SUBNET6] : [],
      sid6: ip6 ? vpcSid6(i) : undefined,
      gatewayLinkLocal: 'fe80::1',
    };
  });
  const ports: PortConfig[] = base.ports.map((p, k) => {
    const fam = shape.vpcs[shape.ports[k] as number] as Family;
    return {
      ...p,
      ip: fam.includes('4') ? p.ip : undefined,
      ip6: fam.includes('6') ? vmIp6(k + 1) : undefined,
    };
  });
  const routes6: readonly RemoteRouteConfig[] =
    shape.routes6 ??
    shape.vpcs.flatMap((fam, i) =>
      fam.includes('6')
        ? Array.from({ length: routes }, (_, j) => ({
            vpc: `vpc-${i + 1}`,
            prefix: { address: `2001:db8:a:0:5054:ff:fe62:${(j + 1).toString(16)}`, len: 128 },
            family: 6 as const,
            sid: `fc00:2::100:${(100 + i).toString(16)}`,
          }))
        : [],
    );
  return { ...base, vpcs, ports, remoteRoutes: [...base.remoteRoutes, ...routes6] };
}

async function apply(f: Fixture, cfg: AgentConfig, globals: SrGlobalsStore): Promise<number> {
  const outcome = await reconcile(cfg, { client: f.client, host: NO_HOST_LINKS, globals });
  assert.deepEqual(
    outcome.result?.failed.map((x) => `${x.op.action} ${x.op.resource.key}: ${x.error.message}`),
    [],
    'no operation failed',
  );
  assert.deepEqual(outcome.plan.pending, []);
  return outcome.result?.applied ?? 0;
}

async function planOps(f: Fixture, cfg: AgentConfig, globals: SrGlobalsStore): Promise<string[]> {
  const { plan } = await reconcile(cfg, { client: f.client, host: NO_HOST_LINKS, globals, planOnly: true });
  return plan.ops.map((o) => `${o.action} ${o.resource.key}`);
}

/** The index of `op` in `ops`, which must hold it. */
function at(ops: readonly string[], op: string): number {
  const i = ops.indexOf(op);
  assert.notEqual(i, -1, `${op} in the plan:\n${ops.join('\n')}`);
  return i;
}

async function swIfIndexOf(f: Fixture, tag: string): Promise<number> {
  const all = await f.other.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff });
  const d = all.find((i) => i.tag === tag);
  assert.ok(d, `interface ${tag}`);
  return d.sw_if_index;
}

/** The port's link-local address, or undefined when IPv6 is off on it (VPP answers -62). */
async function linkLocalOf(f: Fixture, swIfIndex: number): Promise<string | undefined> {
  try {
    return (await f.other.call(msg.sw_interface_ip6_get_link_local_address, { sw_if_index: swIfIndex })).ip;
  } catch (err) {
    if (err instanceof VppRetvalError && err.retval === -62) return undefined;
    throw err;
  }
}

describe('dual-stack reconciler', () => {
  let f: Fixture;
  let globals: SrGlobalsStore;
  before(async () => {
    const target = await startVppTarget();
    const other = new VppClient({
      socketPath: target.socketPath,
      clientName: 'someone-else',
      healthCheckIntervalMs: 0,
    });
    await other.connect();
    const underlay = await createUnderlay(other);
    const client = new VppClient({
      socketPath: target.socketPath,
      clientName: 'vppnet-test',
      healthCheckIntervalMs: 0,
      retryStrategy: () => 20,
    });
    await client.connect();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-ds-'));
    f = { target, client, other, underlay, dir };
  });
  after(async () => {
    if (f.target.real) {
      await reconcile(makeConfig(f, { vpcs: [], ports: [] }), {
        client: f.client,
        host: NO_HOST_LINKS,
        globals: memoryStore(),
      });
      await removeUnderlay(f.other, f.underlay);
    }
    await f.client.close();
    await f.other.close();
    await f.target.close();
    await rm(f.dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    globals = memoryStore();
    // Each test starts from a VPP without vppnet's objects.
    await apply(f, makeConfig(f, { vpcs: [], ports: [] }), globals);
  });

  it('converges a dual-stack and an IPv6-only VPC, and a second pass plans nothing', async () => {
    const cfg = makeConfig(f, { vpcs: ['46', '6'], ports: [0, 1] });
    assert.ok((await apply(f, cfg, globals)) > 30);
    assert.deepEqual(await planOps(f, cfg, globals), []);

    // Tables: vpc-1 has both families under one id, vpc-2 only IPv6.
    const tables = (await f.other.dump(msg.ip_table_dump, {})).map((t) => t.table);
    const has = (id: number, ip6: boolean): boolean =>
      tables.some((t) => t.table_id === id && t.is_ip6 === ip6 && t.name === `vppnet:vpc:vpc-${id - 99}`);
    assert.ok(has(100, false) && has(100, true) && has(101, true));
    assert.ok(!has(101, false), 'no IPv4 table for the IPv6-only VPC');
    const all = await f.other.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff });
    assert.ok(all.some((i) => i.tag === 'vppnet:gw:vpc-1'));
    assert.ok(!all.some((i) => i.tag === 'vppnet:gw:vpc-2'), 'no IPv4 gateway for the IPv6-only VPC');

    // End.DT6 SIDs into the VPCs' IPv6 fabric tables.
    const sids = await f.other.dump(msg.sr_localsids_dump, {});
    for (const [i, table] of [
      [0, fabricTableOf(100)],
      [1, fabricTableOf(101)],
    ] as const) {
      const sid = sids.find((s) => s.addr === vpcSid6(i));
      assert.equal(sid?.behavior, msg.sr_behavior_t.values.SR_BEHAVIOR_API_DT6);
      assert.equal(sid?.xconnect_iface_or_vrf_table, table);
    }
    // IPv6 steering (traffic type 6) in each VPC's table, to a policy of its own (the DT6 SID).
    const steering = await f.other.dump(msg.sr_steering_pol_dump, {});
    const steering6 = steering.filter((s) => s.traffic_type === 6);
    assert.deepEqual(steering6.map((s) => s.fib_table).sort(), [100, 101]);
    const policies = await f.other.dump(msg.sr_policies_v2_dump, {});
    const sidOfBsid = new Map(policies.map((p) => [p.bsid, p.sid_lists[0]?.sids[0]]));
    assert.deepEqual(steering6.map((s) => sidOfBsid.get(s.bsid)).sort(), [
      'fc00:2::100:64',
      'fc00:2::100:65',
    ]);
    assert.equal(policies.filter((p) => p.bsid.startsWith('fc00:1:ff::')).length, 3, 'DT4 + 2 DT6 policies');

    // The VM port's IPv6 link.
    const vm1 = await swIfIndexOf(f, 'vppnet:vm:vm-1');
    assert.equal(
      (await f.other.call(msg.sw_interface_get_table, { sw_if_index: vm1, is_ipv6: true })).vrf_id,
      100,
    );
    assert.equal(await linkLocalOf(f, vm1), 'fe80::1');
    const [ra] = await f.other.dump(msg.sw_interface_ip6nd_ra_dump, { sw_if_index: vm1 });
    assert.ok(ra);
    assert.equal(ra.send_radv, true);
    assert.equal(ra.max_radv_interval, 30);
    assert.equal(ra.min_radv_interval, 10);
    assert.equal(ra.adv_router_lifetime, 600);
    assert.equal(ra.adv_link_mtu, 1460, 'the RA carries the VPC MTU: set before the enable');
    assert.deepEqual(
      ra.prefixes.map((p) => [
        p.prefix.address.un.ip6,
        p.prefix.len,
        p.onlink_flag,
        p.autonomous_flag,
        p.val_lifetime,
        p.pref_lifetime,
      ]),
      // Infinite: VPP counts finite lifetimes down (and reports what is left).
      [['2001:db8:a::', 64, false, true, 0xffffffff, 0xffffffff]],
    );
    const neighbors = await f.other.dump(msg.ip_neighbor_dump, {
      sw_if_index: vm1,
      af: msg.address_family_t.values.ADDRESS_IP6,
    });
    assert.deepEqual(
      neighbors.map((n) => [n.neighbor.ip_address.un.ip6, n.neighbor.mac_address, n.neighbor.flags & 1]),
      [[vmIp6(1), '52:54:00:00:00:01', 1]],
    );
    const routes = await f.other.dump(msg.ip_route_dump, { table: { table_id: 100, is_ip6: true } });
    const vmRoute = routes.find(
      (r) => r.route.prefix.address.un.ip6 === vmIp6(1) && r.route.prefix.len === 128,
    );
    assert.equal(vmRoute?.route.paths[0]?.sw_if_index, vm1);

    // IPv6 was enabled exactly once: one disable turns it off (the enable is lock-counted).
    await f.other.call(msg.sw_interface_ip6_enable_disable, { sw_if_index: vm1, enable: false });
    assert.equal(await linkLocalOf(f, vm1), undefined);
  });

  it('orders tables before the SIDs and steering that use them, the MTU before the IPv6 enable, and deletes in reverse', async () => {
    const cfg = makeConfig(f, { vpcs: ['46'], ports: [0] });
    const ops = await planOps(f, cfg, globals);
    const table6 = at(ops, 'create ip-table:ip6:100');
    assert.ok(table6 < at(ops, `create sr-localsid:${vpcSid6(0)}`));
    const steer = at(ops, 'create sr-steering:ip6:100:2001:db8:a:0:5054:ff:fe62:1/128');
    assert.ok(table6 < steer);
    const port = 'vppnet:vm:vm-1';
    const binding = at(ops, `create iface-table:ip6:${port}`);
    const enable = at(ops, `create ip6-enable:${port}`);
    assert.ok(binding < enable && at(ops, `create interface-mtu:${port}`) < enable);
    for (const k of ['ip6-link-local', 'ip6-ra-config', 'ip6-nd-mirror-proxy'])
      assert.ok(enable < at(ops, `create ${k}:${port}`), k);
    const raPrefix = at(ops, `create ip6-ra-prefix:${port}:2001:db8:a::/64`);
    assert.ok(enable < raPrefix && raPrefix < at(ops, `create ip6-ra-config:${port}`));
    await apply(f, cfg, globals);

    // Removing the VPC: everything that uses the IPv6 table goes first, the table last.
    const gone = await planOps(f, makeConfig(f, { vpcs: [], ports: [] }), globals);
    assert.ok(gone.every((o) => o.startsWith('delete ')));
    const tableGone = at(gone, 'delete ip-table:ip6:100');
    assert.ok(at(gone, `delete sr-localsid:${vpcSid6(0)}`) < tableGone);
    assert.ok(at(gone, 'delete sr-steering:ip6:100:2001:db8:a:0:5054:ff:fe62:1/128') < tableGone);
    assert.ok(at(gone, `delete ip6-enable:${port}`) < at(gone, `delete iface-table:ip6:${port}`));
  });

  it('removes a VPC’s IPv6 side and leaves its IPv4 side as it was', async () => {
    await apply(f, makeConfig(f, { vpcs: ['46'], ports: [0] }), globals);
    const vm1 = await swIfIndexOf(f, 'vppnet:vm:vm-1');
    const ipv4Only = makeConfig(f, { vpcs: ['4'], ports: [0] });
    const ops = await planOps(f, ipv4Only, globals);
    assert.ok(
      ops.every((o) => o.startsWith('delete ')),
      ops.join('\n'),
    );
    assert.ok(ops.includes('delete ip-table:ip6:100'));
    assert.ok(ops.includes(`delete ip6-enable:vppnet:vm:vm-1`));
    // Of the IPv4 side, only the gateway's IPv6 table binding (the unnumbered same-tables rule).
    assert.deepEqual(
      ops.filter((o) => o.includes(':ip4:') || o.includes('gw:vpc-1')),
      ['delete iface-table:ip6:vppnet:gw:vpc-1'],
    );
    await apply(f, ipv4Only, globals);
    assert.deepEqual(await planOps(f, ipv4Only, globals), []);
    assert.equal(await linkLocalOf(f, vm1), undefined, 'IPv6 is off on the port');
    assert.equal(
      (await f.other.call(msg.sw_interface_get_table, { sw_if_index: vm1, is_ipv6: true })).vrf_id,
      0,
    );
    const tables = (await f.other.dump(msg.ip_table_dump, {})).map((t) => t.table);
    assert.ok(!tables.some((t) => t.is_ip6 && t.table_id === 100));
    const steering = await f.other.dump(msg.sr_steering_pol_dump, {});
    assert.ok(!steering.some((s) => s.traffic_type === 6));
    assert.equal((await f.other.dump(msg.sr_localsids_dump, {})).filter((s) => s.behavior === 8).length, 0);
  });

  it('moves a VM port between dual-stack VPCs', async () => {
    await apply(f, makeConfig(f, { vpcs: ['46', '46'], ports: [0] }), globals);
    const moved = makeConfig(f, { vpcs: ['46', '46'], ports: [1] });
    await apply(f, moved, globals);
    assert.deepEqual(await planOps(f, moved, globals), []);
    const vm1 = await swIfIndexOf(f, 'vppnet:vm:vm-1');
    assert.equal(
      (await f.other.call(msg.sw_interface_get_table, { sw_if_index: vm1, is_ipv6: true })).vrf_id,
      101,
    );
    const in100 = await f.other.dump(msg.ip_route_dump, { table: { table_id: 100, is_ip6: true } });
    const in101 = await f.other.dump(msg.ip_route_dump, { table: { table_id: 101, is_ip6: true } });
    const isVm = (r: (typeof in100)[number]): boolean =>
      r.route.prefix.address.un.ip6 === vmIp6(1) && r.route.prefix.len === 128;
    assert.ok(!in100.some(isVm));
    assert.ok(in101.some(isVm));
    // Re-enabled after the move, with its RA state again, and still exactly one lock.
    const [ra] = await f.other.dump(msg.sw_interface_ip6nd_ra_dump, { sw_if_index: vm1 });
    assert.equal(ra?.send_radv, true);
    assert.equal(ra?.prefixes.length, 1);
    await f.other.call(msg.sw_interface_ip6_enable_disable, { sw_if_index: vm1, enable: false });
    assert.equal(await linkLocalOf(f, vm1), undefined);
  });

  it('re-creates a port’s IPv6 link when IPv6 was turned off under it', async () => {
    const cfg = makeConfig(f, { vpcs: ['46'], ports: [0] });
    await apply(f, cfg, globals);
    const vm1 = await swIfIndexOf(f, 'vppnet:vm:vm-1');
    await f.other.call(msg.sw_interface_ip6_enable_disable, { sw_if_index: vm1, enable: false });
    const port = 'vppnet:vm:vm-1';
    // Disabling dropped the RA state with it (trap 5): all of it is planned again.
    assert.deepEqual((await planOps(f, cfg, globals)).sort(), [
      `create ip6-enable:${port}`,
      `create ip6-link-local:${port}`,
      `create ip6-nd-mirror-proxy:${port}`,
      `create ip6-ra-config:${port}`,
      `create ip6-ra-prefix:${port}:2001:db8:a::/64`,
    ]);
    await apply(f, cfg, globals);
    assert.deepEqual(await planOps(f, cfg, globals), []);
    assert.equal(await linkLocalOf(f, vm1), 'fe80::1');
  });

  it('plans only IPv4 kinds for an IPv4-only config', async () => {
    const ops = await planOps(f, makeConfig(f, { vpcs: ['4', '4'], ports: [0, 1] }), globals);
    assert.ok(ops.length > 20);
    assert.deepEqual(
      ops.filter(
        (o) =>
          /ip6|sr-steering:ip6|ip-table:ip6:1/.test(o) ||
          (o.includes('static-neighbor') && !/:\d+\.\d+\.\d+\.\d+$/.test(o)),
      ),
      [],
    );
  });

  it('applies IPv6 route deltas that a full pass then agrees with', async () => {
    const route6 = (host: string, sid: string): RemoteRouteConfig => ({
      vpc: 'vpc-1',
      prefix: { address: `2001:db8:a:0:5054:ff:fe62:${host}`, len: 128 },
      family: 6,
      sid,
    });
    const shape = { vpcs: ['46', '4'] as Family[], ports: [0] };
    const first = await reconcile(makeConfig(f, { ...shape, routes6: [route6('1', 'fc00:2::100:64')] }), {
      client: f.client,
      host: NO_HOST_LINKS,
      globals,
    });
    const model = first.steering;
    assert.ok(model);
    const changeOf = (r: RemoteRouteConfig, sid: string | undefined): RemoteRouteChange => ({
      vpc: r.vpc,
      prefix: r.prefix,
      sid,
    });
    // A new remote VM (on a node without a policy yet), one moved there, and an IPv4 change alike.
    const moved = route6('1', 'fc00:3::100:64');
    const added = route6('2', 'fc00:3::100:64');
    const cfg = makeConfig(f, { ...shape, routes6: [moved, added] });
    const { plan, modelValid } = await reconcileRouteChanges(
      cfg,
      model,
      [changeOf(added, added.sid), changeOf(moved, moved.sid)],
      { client: f.client },
    );
    assert.ok(modelValid);
    assert.deepEqual(
      plan.ops.map((o) => `${o.action} ${o.key}`),
      [
        // BSIDs in SID order: fc00:2::100:64 has ::1 (DT4 ones ::2, ::3); the new SID takes ::4.
        'create sr-policy:fc00:1:ff::4',
        'update sr-steering:ip6:100:2001:db8:a:0:5054:ff:fe62:1/128',
        'create sr-steering:ip6:100:2001:db8:a:0:5054:ff:fe62:2/128',
        // Its last entry moved away: by a second plan.
        'delete sr-policy:fc00:1:ff::1',
      ],
    );
    assert.deepEqual(await planOps(f, cfg, globals), [], 'the full pass agrees');
    assert.equal(model.sidAt(100, added.prefix), 'fc00:3::100:64');
    // The fleet drift check's audit agrees too, and names an IPv6 entry someone else removed.
    assert.deepEqual((await auditSteering(f.client, model)).differences, []);
    const [entry] = (await f.other.dump(msg.sr_steering_pol_dump, {})).filter(
      (e) => e.traffic_type === 6 && e.prefix.address.un.ip6 === added.prefix.address,
    );
    assert.ok(entry);
    await deleteDumpedSteering(f.other, entry);
    assert.deepEqual((await auditSteering(f.client, model)).differences, [
      { key: 'sr-steering:ip6:100:2001:db8:a:0:5054:ff:fe62:2/128', what: 'missing' },
    ]);
    await reconcile(cfg, { client: f.client, host: NO_HOST_LINKS, globals });

    // Both gone: their entries, then the policy.
    const none = makeConfig(f, { ...shape, routes6: [] });
    const gone = await reconcileRouteChanges(
      none,
      model,
      [changeOf(moved, undefined), changeOf(added, undefined)],
      {
        client: f.client,
      },
    );
    assert.ok(gone.modelValid);
    assert.deepEqual(await planOps(f, none, globals), []);
    assert.equal(
      (await f.other.dump(msg.sr_steering_pol_dump, {})).filter((e) => e.traffic_type === 6).length,
      0,
    );

    // An IPv6 route into a VPC without IPv6 is refused before anything is sent (its table is
    // missing: VPP would crash).
    await assert.rejects(
      reconcileRouteChanges(none, model, [{ ...changeOf(added, 'fc00:3::100:65'), vpc: 'vpc-2' }], {
        client: f.client,
      }),
      (err: unknown) => err instanceof RouteChangeError && /vpc-2 has no IPv6 subnet/.test(err.message),
    );
  });
});
