/**
 * vppnet-agent in fleet mode: two agents, each with its own VPP simulator, take their desired
 * state from one store and converge; a VM that moves re-points steering on both; a node's last
 * port in a VPC takes the VPC with it; a store outage changes nothing in VPP; an invalid record is
 * rejected and counted; a missing node record never flushes VPP. The store is a real etcd
 * (Debian's etcd-server on a loopback port) where one is installed, else the in-memory store with
 * etcd's rules; VPPNET_TEST_STORE=etcd|memory chooses (datastore/testing/store-backends.ts).
 */
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { KeySchema } from '../datastore/keys.js';
import type { KeyValueStore, WriteOp } from '../datastore/store.js';
import { TEST_BACKEND, type StoreBackend } from '../datastore/testing/store-backends.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { msg } from '../vpp/messages/index.js';
import { VppSimulator } from '../vpp/sim/index.js';
import { REAL_VPP_SOCKET } from '../../test/support/vpp-target.js';
import { deleteDumpedSteering } from '../../test/support/steering.js';
import { until as waitUntil } from '../util/testing/until.js';
import { Agent } from './agent.js';
import { agentVppClient } from './agent-vpp-client.js';
import { socketAuditReaders } from './audit-reader.js';
import { storeSource } from './datastore-source.js';
import { FleetConfigSource } from './fleet-config-source.js';
import type { ReconcileSummary } from './status.js';

const skip =
  TEST_BACKEND.skip || (REAL_VPP_SOCKET ? 'two agents need two VPPs: runs against simulators only' : false);

/** Waits for a condition, VPP dumps included: up to 20 s, checked every 10 ms. */
const until = (cond: () => boolean | Promise<boolean>, what: string): Promise<void> =>
  waitUntil(cond, what, { timeoutMs: 20_000, everyMs: 10 });

const PREFIX = '/fleet-test/v1/';
const schema = new KeySchema(PREFIX);
/** Node n's record; its VMs' sockets live under the test's temporary root. */
const nodeRecordIn = (root: string, n: number) =>
  JSON.stringify({
    underlay: { interface: 'loop0', address: `2001:db8::${n}/64`, gateway: '2001:db8::ff' },
    vhostUser: { directory: root },
    srv6: { locator: `fc00:${n}::/48` },
  });
const vpcA = JSON.stringify({ id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' });

interface Hypervisor {
  readonly name: string;
  readonly sim: VppSimulator;
  readonly observer: VppClient;
  readonly dir: string;
  agent: Agent;
}

describe(`vppnet-agent in fleet mode, two nodes on one ${TEST_BACKEND.name} store`, { skip }, () => {
  let store: StoreBackend;
  let writer: KeyValueStore;
  let root: string;
  const hvs: Hypervisor[] = [];
  const nodeRecord = (n: number) => nodeRecordIn(root, n);
  const port = (hv: Hypervisor, vm: string, ip: string) =>
    JSON.stringify({
      vpc: 'vpc-a',
      mac: `52:54:00:00:00:${ip.split('.')[3]?.padStart(2, '0')}`,
      ip,
      attach: { type: 'vhost-user', socket: path.join(hv.dir, 'vhost', `${vm}.sock`) },
    });
  const ep = (ip: string) => schema.endpoint('vpc-a', { address: ip, len: 32 });
  const commit = (ops: WriteOp[]) => writer.commit(ops);

  const newAgent = (hv: { name: string; sim: VppSimulator; dir: string }, driftIntervalMs = 0): Agent =>
    new Agent({
      source: new FleetConfigSource({
        fleet: storeSource(
          store.client({ backoff: { initialMs: 50, maxMs: 500 }, callTimeoutMs: 2000 }),
          schema,
          hv.name,
          `${store.description} ${PREFIX} node ${hv.name}`,
        ),
        openAuditReader: socketAuditReaders(hv.sim.socketPath),
      }),
      stateDir: path.join(hv.dir, 'state'),
      client: agentVppClient(hv.sim.socketPath),
      vppSocketPath: hv.sim.socketPath,
      driftIntervalMs,
      retryInitialMs: 50,
    });

  /** What a node's VPP steers: "prefix>remote SID", sorted. */
  const steering = async (hv: Hypervisor): Promise<string[]> => {
    const [policies, entries] = await Promise.all([
      hv.observer.dump(msg.sr_policies_v2_dump, {}),
      hv.observer.dump(msg.sr_steering_pol_dump, {}),
    ]);
    const sidOf = new Map(policies.map((p) => [p.bsid, p.sid_lists[0]?.sids[0] ?? '?']));
    return entries
      .map((e) => `${e.prefix.address.un.ip4}/${e.prefix.len}>${sidOf.get(e.bsid) ?? 'no policy'}`)
      .sort();
  };
  const policies = async (hv: Hypervisor): Promise<number> =>
    (await hv.observer.dump(msg.sr_policies_v2_dump, {})).length;
  const tables = async (hv: Hypervisor): Promise<number[]> =>
    (await hv.observer.dump(msg.ip_table_dump, {}))
      .filter((t) => !t.table.is_ip6)
      .map((t) => t.table.table_id)
      .sort();
  const idle = async (): Promise<void> => {
    for (const hv of hvs) await hv.agent.whenIdle();
  };
  const steeringIs = async (hv: Hypervisor, want: string[]): Promise<boolean> =>
    JSON.stringify(await steering(hv)) === JSON.stringify(want);

  before(async () => {
    store = await TEST_BACKEND.start();
    writer = store.client({ backoff: { initialMs: 50, maxMs: 500 } });
    root = await mkdtemp(path.join(os.tmpdir(), 'vppnet-fleet-'));
    for (const name of ['hv1', 'hv2']) {
      const dir = path.join(root, name);
      const sim = await VppSimulator.start({ socketPath: path.join(root, `${name}.api.sock`) });
      const observer = new VppClient({
        socketPath: sim.socketPath,
        clientName: 'observer',
        healthCheckIntervalMs: 0,
        retryStrategy: () => 20,
      });
      await observer.connect();
      await observer.call(msg.create_loopback_instance, {}); // the underlay NIC: loop0
      hvs.push({ name, sim, observer, dir, agent: newAgent({ name, sim, dir }) });
    }
  });
  after(async () => {
    for (const hv of hvs) {
      await hv.agent.stop();
      await hv.observer.close();
      await hv.sim.close();
    }
    await writer?.close();
    await store?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('converges both nodes from shared records, each steering to the other', async () => {
    const [hv1, hv2] = hvs as [Hypervisor, Hypervisor];
    await commit([
      { type: 'put', key: schema.node('hv1'), value: nodeRecord(1) },
      { type: 'put', key: schema.node('hv2'), value: nodeRecord(2) },
      { type: 'put', key: schema.vpc('vpc-a'), value: vpcA },
      { type: 'put', key: schema.port('hv1', 'vm1'), value: port(hv1, 'vm1', '10.0.0.5') },
      { type: 'put', key: schema.port('hv2', 'vm2'), value: port(hv2, 'vm2', '10.0.0.7') },
      { type: 'put', key: schema.port('hv2', 'vm3'), value: port(hv2, 'vm3', '10.0.0.9') },
      { type: 'put', key: ep('10.0.0.5'), value: JSON.stringify({ node: 'hv1' }) },
      { type: 'put', key: ep('10.0.0.7'), value: JSON.stringify({ node: 'hv2' }) },
      { type: 'put', key: ep('10.0.0.9'), value: JSON.stringify({ node: 'hv2' }) },
    ]);
    for (const hv of hvs) await hv.agent.start();
    await until(
      async () =>
        (await steeringIs(hv1, ['10.0.0.7/32>fc00:2::a', '10.0.0.9/32>fc00:2::a'])) &&
        (await steeringIs(hv2, ['10.0.0.5/32>fc00:1::a'])),
      'both nodes steering to each other',
    );
    await until(() => hvs.every((hv) => hv.agent.readiness().ready), 'both Ready');
    // Each has VPC a's table and its local SID, End.DT4 at its locator + the VPC id, decapsulating
    // into that table (IPv4 has no fabric table).
    for (const [hv, sid] of [
      [hv1, 'fc00:1::a'],
      [hv2, 'fc00:2::a'],
    ] as const) {
      assert.deepEqual(await tables(hv), [0, 10]);
      const sids = (await hv.observer.dump(msg.sr_localsids_dump, {})).map((s) => s.addr);
      assert.deepEqual(sids, [sid]);
      const status = hv.agent.status();
      assert.equal(status.datastore?.synced, true);
      assert.equal(status.datastore?.stale, false);
      assert.equal(status.config.valid, true);
    }
  });

  it('an endpoint change elsewhere is a delta on every node of the VPC: no dump, one or two ops', async () => {
    const [hv1, hv2] = hvs as [Hypervisor, Hypervisor];
    await idle();
    const requests: string[] = [];
    const onRequest = (m: unknown): void => void requests.push((m as { name: string }).name);
    diagnostics.subscribe('vppnet:vpp:request', onRequest);
    const passes: ReconcileSummary[] = [];
    const onPass = (s: ReconcileSummary): void => void passes.push(s);
    for (const hv of hvs) hv.agent.on('reconcile', onPass);
    try {
      // hv3 runs no agent here: a VM there is a remote route for both.
      await commit([
        { type: 'put', key: schema.node('hv3'), value: nodeRecord(3) },
        { type: 'put', key: ep('10.0.0.20'), value: JSON.stringify({ node: 'hv3' }) },
      ]);
      await until(
        async () =>
          (await steering(hv1)).includes('10.0.0.20/32>fc00:3::a') &&
          (await steering(hv2)).includes('10.0.0.20/32>fc00:3::a'),
        'both steering to hv3',
      );
      await idle();
      const sent = requests.filter((n) => n !== 'sr_steering_pol_dump' && n !== 'sr_policies_v2_dump');
      assert.deepEqual(
        passes.map((p) => [p.kind, p.outcome, p.planned]),
        [
          ['routes', 'ok', 2],
          ['routes', 'ok', 2],
        ],
      );
      assert.deepEqual(sent.sort(), [
        'sr_policy_add',
        'sr_policy_add',
        'sr_steering_add_del',
        'sr_steering_add_del',
      ]);
      // The VM moves from hv3 to hv2: hv1 re-points it (policy to hv2 exists), hv3's policy goes;
      // on hv2 the route becomes local: its steering entry and hv3's policy go.
      passes.length = 0;
      requests.length = 0;
      await commit([{ type: 'put', key: ep('10.0.0.20'), value: JSON.stringify({ node: 'hv2' }) }]);
      await until(
        async () =>
          (await steering(hv1)).includes('10.0.0.20/32>fc00:2::a') &&
          !(await steering(hv2)).some((e) => e.startsWith('10.0.0.20/')),
        'the move',
      );
      await idle();
      assert.deepEqual(
        passes.map((p) => [p.kind, p.outcome]),
        [
          ['routes', 'ok'],
          ['routes', 'ok'],
        ],
      );
      assert.equal(
        requests.filter(
          (n) => n.endsWith('_dump') && !['sr_steering_pol_dump', 'sr_policies_v2_dump'].includes(n),
        ).length,
        0,
      );
      assert.deepEqual(requests.filter((n) => !n.endsWith('_dump')).sort(), [
        'sr_policy_del',
        'sr_policy_del',
        'sr_steering_add_del',
        'sr_steering_add_del',
      ]);
      assert.equal(await policies(hv1), 1, 'hv1: only the policy to hv2 is left');
      // The endpoint goes back to how it was for the tests below.
      await commit([
        { type: 'delete', key: ep('10.0.0.20') },
        { type: 'delete', key: schema.node('hv3') },
      ]);
      await idle();
    } finally {
      diagnostics.unsubscribe('vppnet:vpp:request', onRequest);
      for (const hv of hvs) hv.agent.off('reconcile', onPass);
    }
  });

  it('a drift check reads VPP beside the deltas: nothing to repair, no full pass; drift, repaired', async () => {
    const [hv1] = hvs as [Hypervisor, Hypervisor];
    await hv1.agent.stop();
    hv1.agent = newAgent(hv1, 200);
    const checks: number[] = [];
    const passes: ReconcileSummary[] = [];
    const onCheck = (r: { differences: number }): void => void checks.push(r.differences);
    const onPass = (p: ReconcileSummary): void => void passes.push(p);
    hv1.agent.on('driftCheck', onCheck).on('reconcile', onPass);
    await hv1.agent.start();
    await until(() => checks.length >= 3, 'three drift checks');
    assert.deepEqual(checks.slice(0, 3), [0, 0, 0]);
    // The one full pass of the start is the listing's or VPP's connection's, whichever came last
    // (an in-memory store lists before the simulator's VPP connects, etcd after).
    assert.deepEqual(
      passes.map((p) => p.triggers.filter((t) => t !== 'datastore' && t !== 'vpp-connect')),
      [[]],
      'only the first pass: in-sync drift checks run no full pass',
    );
    // Something else removes a steering entry: the next check finds it, a full pass repairs it.
    const before = await steering(hv1);
    const [entry] = await hv1.observer.dump(msg.sr_steering_pol_dump, {});
    assert.ok(entry);
    await deleteDumpedSteering(hv1.observer, entry);
    assert.notDeepEqual(await steering(hv1), before);
    await until(() => checks.some((d) => d > 0), 'a check that finds the drift');
    await until(async () => JSON.stringify(await steering(hv1)) === JSON.stringify(before), 'the repair');
    assert.ok(
      passes.some((p) => p.triggers.includes('drift') && p.applied === 1),
      'one full pass with the one re-created entry',
    );
    hv1.agent.off('driftCheck', onCheck).off('reconcile', onPass);
    await hv1.agent.stop();
    hv1.agent = newAgent(hv1);
    await hv1.agent.start();
    await until(() => hv1.agent.readiness().ready, 'hv1 Ready');
  });

  it('a VM that moves re-points steering on every node; the old host drops its port', async () => {
    const [hv1, hv2] = hvs as [Hypervisor, Hypervisor];
    await commit([
      { type: 'delete', key: schema.port('hv2', 'vm2') },
      { type: 'put', key: schema.port('hv1', 'vm2'), value: port(hv1, 'vm2', '10.0.0.7') },
      { type: 'put', key: ep('10.0.0.7'), value: JSON.stringify({ node: 'hv1' }) },
    ]);
    await until(
      async () =>
        (await steeringIs(hv1, ['10.0.0.9/32>fc00:2::a'])) &&
        (await steeringIs(hv2, ['10.0.0.5/32>fc00:1::a', '10.0.0.7/32>fc00:1::a'])),
      'steering follows vm2 to hv1',
    );
    await idle();
    const vhostPorts = async (hv: Hypervisor) =>
      (await hv.observer.dump(msg.sw_interface_vhost_user_dump, { sw_if_index: 0xffffffff }))
        .map((d) => path.basename(d.sock_filename))
        .sort();
    assert.deepEqual(await vhostPorts(hv1), ['vm1.sock', 'vm2.sock']);
    assert.deepEqual(await vhostPorts(hv2), ['vm3.sock']);
  });

  it("a node's last port in a VPC takes the VPC, its routes and its watch with it", async () => {
    const [hv1, hv2] = hvs as [Hypervisor, Hypervisor];
    await commit([
      { type: 'delete', key: schema.port('hv2', 'vm3') },
      { type: 'delete', key: ep('10.0.0.9') },
    ]);
    await until(
      async () => (await steeringIs(hv1, [])) && (await steeringIs(hv2, [])),
      'no steering left on either node',
    );
    await idle();
    assert.deepEqual(await tables(hv2), [0], 'hv2 has no VPC left');
    assert.equal(await policies(hv1), 0, "hv1's policy to hv2 went with its last entry");
    // hv2 no longer watches vpc-a: an endpoint written there now is not its business.
    const passes: ReconcileSummary[] = [];
    const on = (s: ReconcileSummary): void => void passes.push(s);
    hv2.agent.on('reconcile', on);
    await commit([{ type: 'put', key: ep('10.0.0.11'), value: JSON.stringify({ node: 'hv1' }) }]);
    await commit([{ type: 'put', key: schema.port('hv1', 'vm4'), value: port(hv1, 'vm4', '10.0.0.11') }]);
    await until(
      async () =>
        (await hv1.observer.dump(msg.sw_interface_vhost_user_dump, { sw_if_index: 0xffffffff })).length === 3,
      'vm4 on hv1',
    );
    await idle();
    hv2.agent.off('reconcile', on);
    assert.deepEqual(passes, [], 'hv2 saw nothing of vpc-a');
  });

  it('an invalid record is rejected with its key, counted and logged; the last good value stays', async () => {
    const [hv1] = hvs as [Hypervisor, Hypervisor];
    const before = hv1.agent.status().datastore?.rejectedTotal ?? 0;
    await commit([
      {
        type: 'put',
        key: schema.port('hv1', 'vm1'),
        value: JSON.stringify({
          vpc: 'vpc-a',
          mac: 'nope',
          ip: '10.0.0.5',
          attach: { type: 'interface', name: 'x' },
        }),
      },
    ]);
    await until(() => (hv1.agent.status().datastore?.rejectedTotal ?? 0) === before + 1, 'the rejection');
    const status = hv1.agent.status();
    assert.deepEqual(status.datastore?.rejected, [
      { key: `${PREFIX}ports/hv1/vm1`, reason: 'mac: must be a MAC address like 52:54:00:12:34:56' },
    ]);
    assert.match(await hv1.agent.metrics.text(), /^vppnet_datastore_rejected_total 1$/m);
    assert.match(await hv1.agent.metrics.text(), /^vppnet_datastore_rejected_keys 1$/m);
    await hv1.agent.reconcileNow();
    const vhost = await hv1.observer.dump(msg.sw_interface_vhost_user_dump, { sw_if_index: 0xffffffff });
    assert.ok(
      vhost.some((d) => d.sock_filename.endsWith('/vm1.sock')),
      'vm1 keeps its port: its last good record stays in force',
    );
    await commit([{ type: 'put', key: schema.port('hv1', 'vm1'), value: port(hv1, 'vm1', '10.0.0.5') }]);
    await until(() => hv1.agent.status().datastore?.rejected.length === 0, 'the record valid again');
    assert.match(await hv1.agent.metrics.text(), /^vppnet_datastore_rejected_keys 0$/m);
  });

  it("an endpoint naming another node for a local VM's address never takes its traffic; it is counted", async () => {
    const [hv1] = hvs as [Hypervisor, Hypervisor];
    await idle();
    const steeredBefore = await steering(hv1);
    assert.ok(!steeredBefore.some((e) => e.startsWith('10.0.0.5/')), 'vm1 is local to hv1');
    // A full pass first: the agent then holds VPP's steering, and the change below is a route
    // delta, which must report the endpoint it leaves out as a full derivation does.
    await hv1.agent.reconcileNow();
    await idle();
    await commit([{ type: 'put', key: ep('10.0.0.5'), value: JSON.stringify({ node: 'hv2' }) }]);
    await until(
      () => hv1.agent.status().config.problems.some((p) => p.path.startsWith(`${ep('10.0.0.5')}:`)),
      'the conflict reported',
    );
    await hv1.agent.reconcileNow();
    await idle();
    assert.deepEqual(await steering(hv1), steeredBefore, "hv1 steers nothing to hv2 for vm1's address");
    assert.match(
      hv1.agent.status().config.problems.find((p) => p.path.startsWith(ep('10.0.0.5')))?.message ?? '',
      /is held by port vm1 on this node: the local route wins/,
    );
    assert.match(await hv1.agent.metrics.text(), /^vppnet_datastore_records_left_out 1$/m);
    await commit([{ type: 'put', key: ep('10.0.0.5'), value: JSON.stringify({ node: 'hv1' }) }]);
    await until(
      async () => /^vppnet_datastore_records_left_out 0$/m.test(await hv1.agent.metrics.text()),
      'the conflict gone',
    );
  });

  it('the store down for 30 s: no VPP operation meanwhile, Ready says so, convergence after', async () => {
    const [hv1, hv2] = hvs as [Hypervisor, Hypervisor];
    // Agents with a drift check, so that passes do run during the outage.
    for (const hv of hvs) {
      await hv.agent.stop();
      hv.agent = newAgent(hv, 1000);
      await hv.agent.start();
    }
    await until(() => hvs.every((hv) => hv.agent.readiness().ready), 'both Ready again');
    const want1 = await steering(hv1);
    const want2 = await steering(hv2);
    const during: ReconcileSummary[] = [];
    const checks: number[] = [];
    const on = (s: ReconcileSummary): void => void during.push(s);
    const onCheck = (r: { differences: number }): void => void checks.push(r.differences);
    for (const hv of hvs) hv.agent.on('reconcile', on).on('driftCheck', onCheck);

    await store.interrupt();
    const downAt = Date.now();
    await until(
      () => hvs.every((hv) => hv.agent.status().datastore?.stale === true),
      'both see the store gone',
    );
    for (const hv of hvs) {
      const r = hv.agent.readiness();
      assert.equal(r.ready, false);
      assert.match(
        r.reasons.join('\n'),
        /datastore .* unreachable since .*the last good state stays in force/,
      );
    }
    assert.match(await hv1.agent.metrics.text(), /^vppnet_datastore_stale 1$/m);
    // The outage lasts 30 s of wall time: the drift checks run meanwhile and find nothing to do.
    await delay(Math.max(0, 30_000 - (Date.now() - downAt)));
    for (const hv of hvs) hv.agent.off('reconcile', on).off('driftCheck', onCheck);
    // Each read VPP and compared it with the last good records, finding nothing to do.
    assert.ok(checks.length >= 4, `drift checks ran during the outage (${checks.length})`);
    assert.deepEqual(
      checks.filter((d) => d !== 0),
      [],
    );
    assert.deepEqual(
      during.filter((s) => s.planned > 0 || s.outcome !== 'ok'),
      [],
      'no VPP operation while the store is down',
    );
    assert.deepEqual(await steering(hv1), want1);
    assert.deepEqual(await steering(hv2), want2);

    await store.restore();
    await until(() => hvs.every((hv) => hv.agent.status().datastore?.stale === false), 'the store back');
    // A change made after the outage reaches both nodes.
    await commit([
      { type: 'put', key: schema.port('hv2', 'vm5'), value: port(hv2, 'vm5', '10.0.0.13') },
      { type: 'put', key: ep('10.0.0.13'), value: JSON.stringify({ node: 'hv2' }) },
    ]);
    await until(
      async () =>
        (await steering(hv1)).includes('10.0.0.13/32>fc00:2::a') &&
        (await steering(hv2)).includes('10.0.0.5/32>fc00:1::a'),
      'convergence after the outage',
    );
    await until(() => hvs.every((hv) => hv.agent.readiness().ready), 'both Ready after the outage');
  });

  it('a missing node record never flushes VPP', async () => {
    const [hv1] = hvs as [Hypervisor, Hypervisor];
    await idle();
    const kept = await steering(hv1);
    assert.ok(kept.length > 0);
    // An agent of hv1 started on a wrong (empty) prefix: nothing listed, nothing removed.
    await hv1.agent.stop();
    const wrong = new Agent({
      source: new FleetConfigSource({
        fleet: storeSource(
          store.client(),
          new KeySchema('/nothing-here/v1/'),
          'hv1',
          'the store (wrong prefix)',
        ),
        openAuditReader: socketAuditReaders(hv1.sim.socketPath),
      }),
      stateDir: path.join(hv1.dir, 'state'),
      client: agentVppClient(hv1.sim.socketPath),
      vppSocketPath: hv1.sim.socketPath,
      driftIntervalMs: 0,
    });
    await wrong.start();
    await until(() => wrong.status().datastore?.synced === true, 'the empty scope listed');
    const pass = await wrong.reconcileNow();
    assert.equal(pass.outcome, 'skipped');
    assert.match(wrong.readiness().reasons.join('\n'), /node has no record/);
    assert.deepEqual(await steering(hv1), kept);
    await wrong.stop();
    // And the record deleted under a running agent: its last good config stays in force.
    hv1.agent = newAgent(hv1);
    await hv1.agent.start();
    await until(() => hv1.agent.readiness().ready, 'hv1 Ready');
    await commit([{ type: 'delete', key: schema.node('hv1') }]);
    await until(() => hv1.agent.status().config.valid === false, 'the node record gone');
    const after = await hv1.agent.reconcileNow();
    assert.equal(after.outcome, 'ok');
    assert.equal(after.planned, 0);
    assert.deepEqual(await steering(hv1), kept);
    await commit([{ type: 'put', key: schema.node('hv1'), value: nodeRecord(1) }]);
    await until(() => hv1.agent.status().config.valid, 'the node record back');
  });
});
