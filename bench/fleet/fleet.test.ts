/**
 * The parts of bench/fleet that can be wrong without the benchmark noticing: the layout's counts,
 * the loader writing exactly the layout's records (every one valid) into a real etcd, the
 * expected steering agreeing with what the agent's own derivation makes of those records, and
 * the simulator's event stream and the read-back the final check relies on.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { deriveAgentConfig, type NodeView } from '../../src/datastore/derive.js';
import { EtcdStore } from '../../src/datastore/etcd-store.js';
import { KeySchema } from '../../src/datastore/keys.js';
import {
  parseRecord,
  type EndpointRecord,
  type NodeRecord,
  type PortRecord,
  type VpcRecord,
} from '../../src/datastore/records.js';
import type { KeyValue } from '../../src/datastore/store.js';
import { EtcdServer } from '../../src/datastore/testing/etcd-server.js';
import { vppPrefix } from '../../src/dataplane/ip-values.js';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import { msg } from '../../src/vpp/messages/index.js';
import { bareRead, scopeOf } from './bare-read.js';
import { EndpointChangeGenerator, steeringKey } from './changes.js';
import { FleetLayout, type FleetSize } from './layout.js';
import { loadRecords } from './loader.js';
import { startSimulator } from './processes.js';
import { diffSteering, dumpSteering } from './vpp-steering.js';

const SMALL: FleetSize = {
  nodes: 30,
  vpcs: 40,
  endpoints: 400,
  agents: 4,
  hv0Vpcs: 2,
  hv0Endpoints: 100,
  hostsPerVpc: 5,
  smallVpcsPerAgent: 1,
};

describe('fleet layout', () => {
  const layout = new FleetLayout(SMALL);
  const schema = new KeySchema('/t/v1/');

  test('the records are as many as the size says, each key once', () => {
    const keys = new Set<string>();
    const kinds = { node: 0, vpc: 0, port: 0, endpoint: 0 };
    for (const r of layout.records(schema)) {
      keys.add(r.key);
      const k = schema.parse(r.key);
      assert.ok(!('error' in k), r.key);
      kinds[k.kind]++;
    }
    assert.deepEqual(kinds, { node: 30, vpc: 40, port: 2 + 3 * 2, endpoint: 400 });
    assert.equal(keys.size, layout.recordCount);
  });

  test("hv0's VPCs hold hv0Endpoints, the other agents share them", () => {
    assert.deepEqual(layout.agentVpcs(0), [0, 1]);
    assert.equal(layout.endpointCount(0) + layout.endpointCount(1), 100);
    assert.deepEqual(layout.members(0), [0, 2]);
    assert.deepEqual(layout.members(1), [0, 1, 3]);
    let rest = 0;
    for (let j = 2; j < 40; j++) rest += layout.endpointCount(j);
    assert.equal(rest, 300);
    // hv0 steers to every endpoint of its VPCs but its own two ports' /32s.
    assert.equal(new EndpointChangeGenerator(layout, schema).expected(0).size, 100 - 2);
  });

  test('a size that cannot hold its agents is refused, naming the field', () => {
    assert.throws(() => new FleetLayout({ ...SMALL, nodes: 4 }), /nodes must be an integer ≥ 5/);
    assert.throws(() => new FleetLayout({ ...SMALL, hv0Endpoints: 5 }), /hv0Endpoints must be/);
  });
});

describe('fleet records in a real etcd', () => {
  let etcd: EtcdServer;
  let store: EtcdStore;
  const schema = new KeySchema('/t/v1/');
  const layout = new FleetLayout(SMALL);

  before(async () => {
    etcd = await EtcdServer.start();
    store = new EtcdStore({ endpoints: [etcd.endpoint], pageSize: 100 });
  });
  after(async () => {
    await store?.close();
    await etcd?.stop();
  });

  test("the bare read reads hv0's scope: every node, its ports, its VPCs and their endpoints", async () => {
    await loadRecords(store, layout.records(schema), { batch: 50, inFlight: 2 });
    const read = await bareRead(etcd.endpoint, scopeOf(schema, layout, 0));
    const vpcs = layout.agentVpcs(0);
    const endpoints = vpcs.reduce((n, j) => n + layout.endpointCount(j), 0);
    assert.equal(read.keys, SMALL.nodes + vpcs.length + vpcs.length + endpoints);
    assert.ok(read.seconds > 0);
  });

  test('the loader writes exactly the records, every one valid, and derives to the expected steering', async () => {
    // 7 per transaction, 3 in flight: partial last batch and overlapping commits.
    const written = await loadRecords(store, layout.records(schema), { batch: 7, inFlight: 3 });
    assert.equal(written, layout.recordCount);
    const listed = await store.list(schema.allRange);
    const stored = new Map(listed.kvs.map((kv) => [kv.key, kv.value]));
    assert.equal(stored.size, layout.recordCount);
    for (const r of layout.records(schema)) assert.equal(stored.get(r.key), r.value, r.key);

    const changes = new EndpointChangeGenerator(layout, schema);
    const agree = (kvs: readonly KeyValue[]): void => {
      for (let a = 0; a < SMALL.agents; a++) {
        const got = derivedSteering(kvs, schema, layout.nodeName(a));
        const diff = diffSteering(changes.expected(a), got);
        assert.deepEqual(diff, { missing: 0, extra: 0, wrongSid: 0, examples: [] }, `agent ${a}`);
      }
    };
    agree(listed.kvs);
    // Ten changes: moves, a delete and an add, each reaching every member of its VPC.
    const kinds = new Set<string>();
    for (let i = 0; i < 10; i++) {
      const c = changes.next();
      kinds.add(c.kind);
      assert.deepEqual(c.agents, layout.members(c.vpc));
      await store.commit([c.op]);
    }
    assert.deepEqual([...kinds].sort(), ['add', 'delete', 'move']);
    agree((await store.list(schema.allRange)).kvs);
  });
});

/** What the agent's own derivation (derive.ts) steers for a node, from a listing. */
function derivedSteering(kvs: readonly KeyValue[], schema: KeySchema, nodeName: string): Map<string, string> {
  const nodes = new Map<string, NodeRecord>();
  const vpcs = new Map<string, VpcRecord>();
  const ports = new Map<string, PortRecord>();
  const endpoints = new Map<string, Map<string, EndpointRecord>>();
  for (const kv of kvs) {
    const r = parseRecord(schema, kv.key, kv.value);
    assert.ok(!Array.isArray(r), `${kv.key}: ${JSON.stringify(r)}`);
    if (r.kind === 'node') nodes.set(r.name, r);
    else if (r.kind === 'vpc') vpcs.set(r.name, r);
    else if (r.kind === 'port' && r.node === nodeName) ports.set(r.name, r);
    else if (r.kind === 'endpoint') {
      let m = endpoints.get(r.vpc);
      if (!m) endpoints.set(r.vpc, (m = new Map<string, EndpointRecord>()));
      m.set(kv.key, r);
    }
  }
  const view: NodeView = { nodes, vpcs, ports, endpoints };
  const { config, problems } = deriveAgentConfig(schema, nodeName, view);
  assert.deepEqual(problems, []);
  assert.ok(config);
  const tableOf = new Map(config.vpcs.map((v) => [v.name, v.table]));
  return new Map(
    config.remoteRoutes.map((r) => [
      steeringKey(tableOf.get(r.vpc) as number, `${r.prefix.address}/${r.prefix.len}`),
      r.sid,
    ]),
  );
}

describe('simulator steering events', () => {
  test('each steering reply is reported with its prefix, table and kind, and reads back with its SID', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-fleet-test-'));
    const sim = await startSimulator(path.join(dir, 'api.sock'), ['GigabitEthernet0/0/0']);
    const client = new VppClient({
      socketPath: sim.socketPath,
      healthCheckIntervalMs: 0,
      retryStrategy: () => null,
    });
    try {
      await client.connect();
      await client.call(msg.ip_table_add_del, {
        is_add: true,
        table: { table_id: 7, is_ip6: false, name: '' },
      });
      const bsid = 'fd00:b51d::1';
      const policy = await client.call(msg.sr_policy_add, {
        bsid_addr: bsid,
        weight: 1,
        is_encap: true,
        is_spray: false,
        fib_table: 0,
        sids: { num_sids: 1, weight: 1, sids: ['fc00:0:9::3'] },
      });
      assert.equal(policy.retval, 0);
      const key = steeringKey(7, '10.0.0.5/32');
      const added = sim.mirror.reply(key, false);
      const steer = (is_del: boolean): Promise<{ retval: number }> =>
        client.call(msg.sr_steering_add_del, {
          is_del,
          bsid_addr: bsid,
          sr_policy_index: 0,
          table_id: 7,
          prefix: vppPrefix('10.0.0.5/32'),
          sw_if_index: 0,
          traffic_type: 4,
        });
      const t0 = performance.timeOrigin + performance.now();
      assert.equal((await steer(false)).retval, 0);
      const e = await added;
      assert.ok(e.t >= t0 && e.is_del === false && e.bsid === bsid, JSON.stringify(e));
      assert.deepEqual([...sim.mirror.present], [key]);
      assert.deepEqual([...(await dumpSteering(sim.socketPath))], [[key, 'fc00:0:9::3']]);
      const deleted = sim.mirror.reply(key, true);
      assert.equal((await steer(true)).retval, 0);
      assert.equal((await deleted).is_del, true);
      assert.equal(sim.mirror.present.size, 0);
    } finally {
      await client.close();
      await sim.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
