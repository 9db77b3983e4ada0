/**
 * The reconciler against a VPP: the simulator by default, a real VPP 26.06 when VPP_API_SOCKET
 * is set (fault-injection tests are skipped there). The "underlay NIC" is a loopback that a
 * second client creates, as someone else's interface would be.
 */
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createUnderlay, removeUnderlay } from '../../test/support/underlay.js';
import { SIM_ONLY, startVppTarget, type VppTarget } from '../../test/support/vpp-target.js';
import type { AgentConfig } from '../config/model.js';
import { validateConfig } from '../config/validate.js';
import { VppClient, type RequestDiagnostic } from '../vpp/client/vpp-client.js';
import { fabricTableOf } from '../config/defaults.js';
import { msg } from '../vpp/messages/index.js';
import { reconcile } from '../../test/support/host-reconcile.js';
import { memoryStore, type SrGlobalsStore } from './reconcile.js';
import { NO_HOST_LINKS } from '../../test/support/no-host-links.js';

/** No veth ports in these tests: host links must never be touched. */
interface Fixture {
  target: VppTarget;
  client: VppClient;
  other: VppClient;
  underlay: string;
  dir: string;
}

function rawConfig(
  f: Fixture,
  opts: { vpcs?: number; routesPerVpc?: number; ports?: boolean } = {},
): Record<string, unknown> {
  const nVpcs = opts.vpcs ?? 2;
  const vpcs = Array.from({ length: nVpcs }, (_, i) => ({
    name: `vpc-${i + 1}`,
    id: 100 + i,
    subnets: ['10.0.0.0/24'],
    gateway: '10.0.0.1',
  }));
  const ports =
    opts.ports === false
      ? []
      : vpcs.map((v, i) => ({
          name: `vm-${i + 1}`,
          vpc: v.name,
          mac: `52:54:00:00:00:${(i + 1).toString(16).padStart(2, '0')}`,
          ip: '10.0.0.5',
          attach: { type: 'vhost-user', socket: path.join(f.dir, `vm-${i + 1}.sock`) },
        }));
  const remoteRoutes = vpcs.flatMap((v, i) =>
    Array.from({ length: opts.routesPerVpc ?? 2 }, (_, j) => ({
      vpc: v.name,
      prefix: `10.${1 + Math.floor(j / 250)}.${j % 250}.0/24`,
      sid: `fc00:2::${(100 + i).toString(16)}`,
    })),
  );
  return {
    node: {
      name: 'hv1',
      underlay: { interface: f.underlay, address: '2001:db8::1/64', gateway: '2001:db8::2' },
      vhostUser: { directory: f.dir },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs,
    ports,
    remoteRoutes,
  };
}

function config(f: Fixture, opts?: Parameters<typeof rawConfig>[1]): AgentConfig {
  return validateConfig(rawConfig(f, opts));
}

async function apply(
  f: Fixture,
  cfg: AgentConfig,
  globals: SrGlobalsStore,
): Promise<Awaited<ReturnType<typeof reconcile>>> {
  const outcome = await reconcile(cfg, { client: f.client, host: NO_HOST_LINKS, globals });
  assert.deepEqual(
    outcome.result?.failed.map((x) => `${x.op.action} ${x.op.resource.key}: ${x.error.message}`),
    [],
    'no operation failed',
  );
  assert.deepEqual(outcome.plan.pending, []);
  return outcome;
}

async function planOps(f: Fixture, cfg: AgentConfig, globals: SrGlobalsStore): Promise<string[]> {
  const { plan } = await reconcile(cfg, { client: f.client, host: NO_HOST_LINKS, globals, planOnly: true });
  return plan.ops.map((o) => `${o.action} ${o.resource.key}`);
}

async function setup(opts: { fresh?: boolean } = {}): Promise<Fixture> {
  void opts;
  const target = await startVppTarget();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-rec-'));
  const other = new VppClient({
    socketPath: target.socketPath,
    clientName: 'someone-else',
    healthCheckIntervalMs: 0,
  });
  await other.connect();
  const lo = await other.call(msg.create_loopback_instance, {});
  const [details] = await other.dump(msg.sw_interface_dump, {
    sw_if_index: lo.sw_if_index,
    name_filter_valid: false,
  });
  const client = new VppClient({
    socketPath: target.socketPath,
    clientName: 'vppnet-test',
    healthCheckIntervalMs: 0,
    retryStrategy: () => 20,
  });
  await client.connect();
  return { target, client, other, underlay: details!.interface_name, dir };
}

async function teardown(f: Fixture, cleanup: boolean): Promise<void> {
  if (cleanup && f.target.real) {
    // Leave a real VPP as we found it: an empty desired state removes everything vppnet owns.
    const empty = validateConfig({ ...rawConfig(f, { vpcs: 0 }), vpcs: [], ports: [], remoteRoutes: [] });
    await reconcile(empty, { client: f.client, host: NO_HOST_LINKS, globals: memoryStore() });
    // And someone else's "NIC", with the default route vppnet put through it.
    const all = await f.other.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff });
    const lo = all.find((i) => i.interface_name === f.underlay);
    if (lo) await removeUnderlay(f.other, { name: lo.interface_name, swIfIndex: lo.sw_if_index });
  }
  await f.client.close();
  await f.other.close();
  await f.target.close();
  await rm(f.dir, { recursive: true, force: true });
}

describe('reconciler', () => {
  let f: Fixture;
  let globals: SrGlobalsStore;
  before(async () => {
    f = await setup();
  });
  after(async () => {
    await teardown(f, true);
  });
  beforeEach(() => {
    globals = memoryStore();
  });

  it('converges from empty and a second pass plans nothing', async () => {
    const cfg = config(f);
    const first = await apply(f, cfg, globals);
    assert.ok((first.result?.applied ?? 0) > 20);
    assert.deepEqual(await planOps(f, cfg, globals), []);

    // What VPP reports is the design: tables, End.DT4 SIDs into them, policies and steering.
    const tables = await f.client.dump(msg.ip_table_dump, {});
    assert.ok(tables.some((t) => t.table.table_id === 100 && t.table.name === 'vppnet:vpc:vpc-1'));
    const sids = await f.client.dump(msg.sr_localsids_dump, {});
    const sid = sids.find((s) => s.addr === 'fc00:1::64');
    assert.equal(sid?.behavior, msg.sr_behavior_t.values.SR_BEHAVIOR_API_DT4);
    // Into the VPC table: IPv4 has no fabric table (overlay.ts fabricRoutes says why).
    assert.equal(sid?.xconnect_iface_or_vrf_table, 100, 'DT4 decapsulates into the VPC table');
    assert.ok(!tables.some((t) => t.table.table_id === fabricTableOf(100) && !t.table.is_ip6));
    const policies = await f.client.dump(msg.sr_policies_v2_dump, {});
    const own = policies.filter((p) => p.bsid.startsWith('fc00:1:ff::'));
    assert.equal(own.length, 2);
    assert.ok(own.every((p) => p.is_encap && p.encap_src === '2001:db8::1'));
    const steering = await f.client.dump(msg.sr_steering_pol_dump, {});
    assert.equal(steering.filter((s) => s.fib_table === 100 && s.traffic_type === 4).length, 2);
    const routes = await f.client.dump(msg.ip_route_dump, { table: { table_id: 100, is_ip6: false } });
    assert.ok(routes.some((r) => r.route.prefix.address.un.ip4 === '10.0.0.5' && r.route.prefix.len === 32));
  });

  it('takes a VM port on an existing VPP interface: its /32 route is read back, a second pass plans nothing', async () => {
    // A NIC the operator made (SR-IOV, a memif): vppnet configures it but never creates it.
    const lo = await f.other.call(msg.create_loopback_instance, {});
    const [nic] = await f.other.dump(msg.sw_interface_dump, {
      sw_if_index: lo.sw_if_index,
      name_filter_valid: false,
    });
    try {
      const raw = rawConfig(f, { vpcs: 1 });
      const port = (raw.ports as { attach: unknown }[])[0]!;
      port.attach = { type: 'interface', name: nic!.interface_name };
      const cfg = validateConfig(raw);
      await apply(f, cfg, globals);
      // The route via the operator's interface was read back as not vppnet's before, and
      // planned again by every pass.
      assert.deepEqual(await planOps(f, cfg, globals), []);
    } finally {
      await reconcile(validateConfig({ ...rawConfig(f, { vpcs: 1 }), ports: [] }), {
        client: f.client,
        host: NO_HOST_LINKS,
        globals,
      });
      await f.other.call(msg.delete_loopback, { sw_if_index: lo.sw_if_index });
    }
  });

  it("never takes another program's interface for a VM port: it waits, saying whose it is", async () => {
    const lo = await f.other.call(msg.create_loopback_instance, {});
    await f.other.call(msg.sw_interface_tag_add_del, {
      is_add: true,
      sw_if_index: lo.sw_if_index,
      tag: 'calico:uplink',
    });
    const [nic] = await f.other.dump(msg.sw_interface_dump, {
      sw_if_index: lo.sw_if_index,
      name_filter_valid: false,
    });
    try {
      const raw = rawConfig(f, { vpcs: 1 });
      const port = (raw.ports as { attach: unknown }[])[0]!;
      port.attach = { type: 'interface', name: nic!.interface_name };
      const { plan } = await reconcile(validateConfig(raw), {
        client: f.client,
        host: NO_HOST_LINKS,
        globals,
        planOnly: true,
      });
      const waiting = plan.pending.filter((p) => p.resource.key.includes(nic!.interface_name));
      assert.ok(waiting.length > 0, 'the port waits');
      assert.ok(
        waiting.every((p) => p.waitingFor.includes('belongs to something else (VPP tag "calico:uplink")')),
        waiting.map((p) => p.waitingFor).join('\n'),
      );
      assert.ok(!plan.ops.some((o) => o.resource.key.includes(nic!.interface_name)), 'nothing touches it');
    } finally {
      await f.other.call(msg.delete_loopback, { sw_if_index: lo.sw_if_index });
    }
  });

  it("sets the uplink's source check again on a new interface that inherited it from a deleted one", async () => {
    // An operator's NIC is replaced behind vppnet's back: the old one goes without its uRPF
    // setting being undone, the new one gets its sw_if_index and name, and VPP lists the old
    // setting on it while nothing runs it.
    const first = await createUnderlay(f.other);
    const raw = (u: string): AgentConfig =>
      validateConfig({
        ...rawConfig(f, { vpcs: 1, routesPerVpc: 0 }),
        node: {
          ...(rawConfig(f).node as object),
          underlay: { interface: u, address: '2001:db8:77::1/64', gateway: '2001:db8:77::2' },
        },
      });
    try {
      await apply(f, raw(first.name), globals);
      const running = async (name: string): Promise<boolean> =>
        (await f.client.cli(`show interface features ${name}`)).includes('ip6-rx-urpf-loose');
      assert.ok(await running(first.name), 'the filter runs on the uplink');
      await f.other.call(msg.delete_loopback, { sw_if_index: first.swIfIndex });
      const second = await createUnderlay(f.other);
      assert.equal(second.swIfIndex, first.swIfIndex, 'the new NIC reuses the index');
      const listed = await f.client.dump(msg.urpf_interface_dump, { sw_if_index: second.swIfIndex });
      assert.ok(
        listed.some((u) => u.af === 1 && u.mode === 1),
        'VPP lists the old setting on it',
      );
      assert.equal(await running(second.name), false, 'and does not run it');
      const ops = await planOps(f, raw(second.name), globals);
      assert.ok(ops.includes(`create source-check:ip6:${second.name}`), ops.join('\n'));
      await apply(f, raw(second.name), globals);
      assert.ok(await running(second.name), 'the filter runs again');
      assert.deepEqual(await planOps(f, raw(second.name), globals), []);
      await apply(f, config(f), globals);
      await removeUnderlay(f.other, second, '2001:db8:77::2');
    } catch (err) {
      await removeUnderlay(f.other, first, '2001:db8:77::2').catch(() => undefined);
      throw err;
    }
  });

  it('adds and removes a VPC, a VM port and a remote route with exactly the needed operations', async () => {
    await apply(f, config(f), globals);
    // Remove one remote route of vpc-1: its steering entry only (the policy still serves the other).
    const raw = rawConfig(f);
    (raw.remoteRoutes as unknown[]).splice(0, 1);
    assert.deepEqual(await planOps(f, validateConfig(raw), globals), [
      'delete sr-steering:ip4:100:10.1.0.0/24',
    ]);
    await apply(f, validateConfig(raw), globals);

    // Add a third VPC with a port and a route.
    const three = config(f, { vpcs: 3 });
    const ops = await planOps(f, three, globals);
    assert.ok(ops.includes('create ip-table:ip4:102'));
    assert.ok(ops.includes('create interface:vppnet:vm:vm-3'));
    assert.ok(ops.includes('create sr-steering:ip4:102:10.1.0.0/24'));
    assert.ok(
      ops.every((o) => o.startsWith('create') || o === 'create sr-steering:ip4:100:10.1.0.0/24'),
      ops.join('\n'),
    );
    await apply(f, three, globals);
    assert.deepEqual(await planOps(f, three, globals), []);

    // Remove the port of vpc-3, then the whole VPC.
    const noPort = rawConfig(f, { vpcs: 3 });
    (noPort.ports as unknown[]).splice(2, 1);
    const portOps = await planOps(f, validateConfig(noPort), globals);
    assert.ok(
      portOps.every((o) => o.startsWith('delete ')),
      portOps.join('\n'),
    );
    assert.ok(portOps.includes('delete interface:vppnet:vm:vm-3'));
    assert.ok(
      portOps.indexOf('delete route:ip4:102:10.0.0.5/32') <
        portOps.indexOf('delete interface:vppnet:vm:vm-3'),
    );
    await apply(f, validateConfig(noPort), globals);

    const two = config(f, { vpcs: 2 });
    await apply(f, two, globals);
    assert.deepEqual(await planOps(f, two, globals), []);
    const tables = await f.client.dump(msg.ip_table_dump, {});
    assert.ok(!tables.some((t) => t.table.table_id === 102), 'VPC table removed');
    const ifs = await f.client.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff });
    assert.ok(!ifs.some((i) => i.tag.endsWith(':vpc-3') || i.tag.endsWith(':vm-3')), 'no leaked interface');
  });

  it('re-creates the policies when the encap source changes (VPP copies it at creation)', async () => {
    await apply(f, config(f), globals);
    const raw = rawConfig(f);
    (raw.node as { srv6: Record<string, unknown> }).srv6.encapSource = '2001:db8::99';
    const ops = await planOps(f, validateConfig(raw), globals);
    assert.ok(ops.includes('update sr-encap-source'));
    assert.equal(ops.filter((o) => o.startsWith('create sr-policy')).length, 2);
    assert.ok(
      ops.indexOf('delete sr-steering:ip4:100:10.1.0.0/24') < ops.indexOf('delete sr-policy:fc00:1:ff::1'),
    );
    await apply(f, validateConfig(raw), globals);
    const policies = await f.client.dump(msg.sr_policies_v2_dump, {});
    assert.ok(
      policies.filter((p) => p.bsid.startsWith('fc00:1:ff::')).every((p) => p.encap_src === '2001:db8::99'),
    );
    await apply(f, config(f), globals);
  });

  it('adopts the state after an agent restart: a new client and the persisted globals plan nothing', async () => {
    const cfg = config(f);
    await apply(f, cfg, globals);
    const restarted = new VppClient({ socketPath: f.target.socketPath, healthCheckIntervalMs: 0 });
    await restarted.connect();
    try {
      const { plan } = await reconcile(cfg, {
        client: restarted,
        host: NO_HOST_LINKS,
        globals,
        planOnly: true,
      });
      assert.deepEqual(plan.ops, []);
      // Without the persisted globals, VPP's CLI still reports both (show sr encaps hop-limit /
      // source addr); only the underlay's neighbour advertisement, which leaves no trace in VPP, is
      // sent again.
      const fresh = await reconcile(cfg, {
        client: restarted,
        host: NO_HOST_LINKS,
        globals: memoryStore(),
        planOnly: true,
      });
      assert.deepEqual(
        fresh.plan.ops.map((o) => o.resource.key),
        [`neighbor-announcement:${f.underlay}:2001:db8::1`],
      );
    } finally {
      await restarted.close();
    }
  });

  it('converges with the service bridge, and a second pass plans nothing', async () => {
    const raw = {
      ...rawConfig(f),
      services: { dhcpServer: '169.254.169.103', dnsAddress: '169.254.169.53' },
    };
    const cfg = validateConfig(raw);
    const first = await apply(f, cfg, globals);
    assert.ok(first.plan.ops.some((o) => o.resource.kind === 'nat-ei-static'));
    assert.deepEqual(await planOps(f, cfg, globals), []);
    const bds = await f.client.dump(msg.bridge_domain_dump, { bd_id: 0xffffffff, sw_if_index: 0xffffffff });
    assert.ok(bds.some((b) => b.bd_tag === 'vppnet:services' && b.bvi_sw_if_index !== 0xffffffff));
    const statics = await f.client.dump(msg.nat44_ei_static_mapping_dump, {});
    assert.equal(statics.filter((m) => m.tag.startsWith('vppnet:vm:')).length, 2, 'one identity per VM');
    assert.ok(statics.every((m) => m.external_ip_address.startsWith('169.252.252.')));
    const proxies = await f.client.dump(msg.dhcp_proxy_dump, { is_ip6: false });
    assert.deepEqual(proxies.map((p) => p.rx_vrf_id).sort(), [100, 101]);
  });

  it("leaves other clients' VPP configuration alone", async () => {
    const o = f.other;
    await o.call(msg.ip_table_add_del, {
      is_add: true,
      table: { table_id: 77, is_ip6: false, name: 'not-vppnet' },
    });
    const lo = await o.call(msg.create_loopback_instance, {});
    await o.call(msg.sw_interface_tag_add_del, {
      is_add: true,
      sw_if_index: lo.sw_if_index,
      tag: 'other:lo',
    });
    await o.call(msg.sw_interface_set_table, { sw_if_index: lo.sw_if_index, is_ipv6: false, vrf_id: 77 });
    await o.call(msg.sw_interface_add_del_address, {
      sw_if_index: lo.sw_if_index,
      is_add: true,
      prefix: { address: { af: 0, un: { ip4: '192.0.2.1' } }, len: 24 },
    });
    await o.call(msg.ip_route_add_del, {
      is_add: true,
      route: {
        table_id: 77,
        prefix: { address: { af: 0, un: { ip4: '198.51.100.0' } }, len: 24 },
        paths: [{ sw_if_index: lo.sw_if_index, proto: 0, nh: { address: { ip4: '192.0.2.2' } } }],
      },
    });
    await o.call(msg.sr_policy_add, {
      bsid_addr: 'fd99::1',
      is_encap: true,
      sids: { num_sids: 1, weight: 1, sids: ['fd98::1'] },
    });
    await o.call(msg.sr_steering_add_del, {
      is_del: false,
      bsid_addr: 'fd99::1',
      table_id: 77,
      prefix: { address: { af: 0, un: { ip4: '203.0.113.0' } }, len: 24 },
      traffic_type: 4,
    });
    await o.call(msg.sr_localsid_add_del, {
      is_del: false,
      localsid: 'fd97::1',
      behavior: 1,
      sw_if_index: 0xffffffff,
    });

    await apply(f, config(f), globals);
    // An empty desired state deletes everything vppnet owns and nothing else.
    const empty = validateConfig({ ...rawConfig(f, { vpcs: 0 }), vpcs: [], ports: [], remoteRoutes: [] });
    await apply(f, empty, globals);

    const tables = await o.dump(msg.ip_table_dump, {});
    assert.ok(tables.some((t) => t.table.table_id === 77));
    // Only the node's own: the uplink's source table (the SRv6 ingress filter) stays with the node.
    assert.deepEqual(
      tables.filter((t) => t.table.name.startsWith('vppnet:')).map((t) => t.table.name),
      ['vppnet:underlay-sources'],
    );
    const ifs = await o.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff });
    assert.ok(ifs.some((i) => i.tag === 'other:lo'));
    assert.ok(!ifs.some((i) => i.tag.startsWith('vppnet:')));
    const routes = await o.dump(msg.ip_route_dump, { table: { table_id: 77, is_ip6: false } });
    assert.ok(routes.some((r) => r.route.prefix.address.un.ip4 === '198.51.100.0'));
    assert.ok((await o.dump(msg.sr_policies_v2_dump, {})).some((p) => p.bsid === 'fd99::1'));
    assert.ok((await o.dump(msg.sr_steering_pol_dump, {})).some((s) => s.bsid === 'fd99::1'));
    assert.ok((await o.dump(msg.sr_localsids_dump, {})).some((s) => s.addr === 'fd97::1'));
    // The underlay interface is someone else's: configured, never deleted.
    assert.ok(ifs.some((i) => i.interface_name === f.underlay));

    // Clean up someone else's objects for the next tests, routes before their table: VPP leaks the
    // API routes of a deleted table, and they resurface in the next table to reuse its index.
    await o.call(msg.ip_route_add_del, {
      is_add: false,
      route: {
        table_id: 77,
        prefix: { address: { af: 0, un: { ip4: '198.51.100.0' } }, len: 24 },
        paths: [{ sw_if_index: lo.sw_if_index, proto: 0, nh: { address: { ip4: '192.0.2.2' } } }],
      },
    });
    await o.call(msg.sr_steering_add_del, {
      is_del: true,
      bsid_addr: 'fd99::1',
      table_id: 77,
      prefix: { address: { af: 0, un: { ip4: '203.0.113.0' } }, len: 24 },
      traffic_type: 4,
    });
    await o.call(msg.sr_policy_del, { bsid_addr: 'fd99::1' });
    await o.call(msg.sr_localsid_add_del, {
      is_del: true,
      localsid: 'fd97::1',
      behavior: 1,
      sw_if_index: 0xffffffff,
    });
    await o.call(msg.delete_loopback, { sw_if_index: lo.sw_if_index });
    await o.call(msg.ip_table_add_del, { is_add: false, table: { table_id: 77, is_ip6: false } });
  });
});

describe('reconciler across VPP restarts (simulator)', { skip: SIM_ONLY }, () => {
  let f: Fixture;
  before(async () => {
    f = await setup();
  });
  after(async () => {
    await teardown(f, false);
  });

  it('converges after VPP restarts in the middle of a reconcile', async () => {
    const globals = memoryStore();
    const big = config(f, { vpcs: 4, routesPerVpc: 500 });
    const sim = f.target.sim!;
    const ready = new Promise<void>((resolve) => f.client.on('ready', (info) => info.reconnect && resolve()));
    // Pull VPP from under the pass once it is programming: its first steering entry was answered.
    const steeringStarted = new Promise<void>((resolve) => {
      const onRequest = (m: unknown): void => {
        if ((m as RequestDiagnostic).name !== 'sr_steering_add_del') return;
        diagnostics.unsubscribe('vppnet:vpp:request', onRequest);
        resolve();
      };
      diagnostics.subscribe('vppnet:vpp:request', onRequest);
    });
    const interrupted = reconcile(big, { client: f.client, host: NO_HOST_LINKS, globals });
    await steeringStarted;
    await sim.restart({ reshuffleIds: true, downtimeMs: 50 });
    const partial = await interrupted.catch((err: unknown) => err as Error);
    if (!(partial instanceof Error)) {
      assert.ok(
        (partial.result?.failed.length ?? 0) > 0 ||
          (partial.result?.skipped.length ?? 0) > 0 ||
          partial.plan.ops.length > 0,
      );
    }
    await ready;
    // The underlay loopback was lost with VPP's state: someone else recreates it, as a NIC would reappear.
    const lo = await f.other.call(msg.create_loopback_instance, {}).catch(async () => {
      await f.other.whenReady(5000);
      return f.other.call(msg.create_loopback_instance, {});
    });
    const [d] = await f.other.dump(msg.sw_interface_dump, { sw_if_index: lo.sw_if_index });
    f.underlay = d!.interface_name;
    const cfg = config(f, { vpcs: 4, routesPerVpc: 500 });
    await apply(f, cfg, globals);
    assert.deepEqual(await planOps(f, cfg, globals), []);
    const steering = await f.client.dump(msg.sr_steering_pol_dump, {});
    assert.equal(steering.length, 2000, 'every steering entry exactly once');
    const policies = await f.client.dump(msg.sr_policies_v2_dump, {});
    assert.equal(policies.length, 4, 'no duplicate policies');
  });
});
