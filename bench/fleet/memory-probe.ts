/**
 * Where hv0's memory goes, without VPP: the fleet's records in a real etcd, one FleetSource over
 * them, then the derivation, the desired state and a cold start's plan, with the heap measured
 * after each (after a full GC; run with --expose-gc), and the heap V8 had committed before that
 * GC (what a step's garbage grew it to). A tool for bench/fleet's RSS target, not a benchmark row.
 */
import v8 from 'node:v8';
import { EtcdStore } from '../../src/datastore/etcd-store.js';
import { FleetSource } from '../../src/datastore/fleet-source.js';
import { KeySchema } from '../../src/datastore/keys.js';
import { EtcdServer } from '../../src/datastore/testing/etcd-server.js';
import { desiredState, planFresh } from '../../src/hypervisor/desired-state.js';
import { FleetLayout, DEFAULT_SIZE } from './layout.js';
import { loadRecords } from './loader.js';

const MiB = 1024 * 1024;
const gc = (globalThis as { gc?: () => void }).gc;
const heap = (what: string, base = 0): number => {
  const committed = v8.getHeapStatistics().total_heap_size;
  gc?.();
  const used = v8.getHeapStatistics().used_heap_size;
  console.log(
    `${what.padEnd(40)} heap ${(used / MiB).toFixed(1)} MiB (+${((used - base) / MiB).toFixed(1)}), committed before GC ${(committed / MiB).toFixed(1)} MiB, rss ${(process.memoryUsage().rss / MiB).toFixed(0)} MiB`,
  );
  return used;
};

const layout = new FleetLayout({ ...DEFAULT_SIZE, nodes: 2000, vpcs: 2000, endpoints: 110_000, agents: 2 });
const schema = new KeySchema('/probe/v1/');
const etcd = await EtcdServer.start({ extraArgs: ['--max-txn-ops=10000', '--max-request-bytes=33554432'] });
const writer = new EtcdStore({ endpoints: [etcd.endpoint] });
await loadRecords(writer, layout.records(schema), { batch: 5000, inFlight: 4 });
await writer.close();
const base = heap('start');
const store = new EtcdStore({ endpoints: [etcd.endpoint] });
let source!: FleetSource;
await new Promise<void>((resolve) => {
  source = new FleetSource(store, schema, 'hv0', { onChange: () => undefined });
  source.start();
  void source.whenSynced().then(resolve);
});
// A few turns first: the last listings' pages are still referenced when whenSynced resolves.
for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
const synced = heap('view synced', base);
if (process.env.PROBE_SNAPSHOT_VIEW) v8.writeHeapSnapshot(process.env.PROBE_SNAPSHOT_VIEW);
const d = source.derive();
const derived = heap(`derived (${d.config?.remoteRoutes.length} routes)`, synced);
if (process.env.PROBE_SNAPSHOT) v8.writeHeapSnapshot(process.env.PROBE_SNAPSHOT);
const desired = desiredState(d.config!, new Map());
const withDesired = heap(`desired state (${desired.steering.size} entries)`, derived);
const plan = planFresh(d.config!);
heap(`a cold start's plan (${plan.ops.length} ops)`, withDesired);
source.stop();
await store.close();
await etcd.stop();
