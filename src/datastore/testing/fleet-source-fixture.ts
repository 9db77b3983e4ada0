/**
 * The fleet source's test fixture: records as the datastore holds them, and one store's suite
 * setup (a started backend, a client, hv1's sources over it, stopped after the suite).
 */
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { FleetSource, type RemoteRouteChange } from '../fleet-source.js';
import { KeySchema } from '../keys.js';
import type { RecordProblem } from '../records.js';
import type { KeyValueStore, WriteOp } from '../store.js';
import { type BackendKind, type StoreBackend } from './store-backends.js';

export const nodeValue = (n: number, srv6: Record<string, string> = { locator: `fc00:${n}::/48` }) =>
  JSON.stringify({
    underlay: { interface: 'memif1/0', address: `2001:db8::${n}/64`, gateway: '2001:db8::ff' },
    srv6,
  });
export const VPCS: Record<string, { id: number; subnets: string[]; gateway: string; sidIndex?: number }> = {
  'vpc-a': { id: 10, subnets: ['10.0.0.0/16'], gateway: '10.0.0.1' },
  'vpc-b': { id: 20, subnets: ['10.1.0.0/16'], gateway: '10.1.0.1' },
};
export const portValue = (vpc: string, ip: string, mac: string) =>
  JSON.stringify({ vpc, mac, ip, attach: { type: 'interface', name: `tap-${ip}` } });
export const epValue = (node: string) => JSON.stringify({ node });
export const prefix32 = (address: string) => ({ address, len: 32 });

/** A route as a comparable string, and the routes of a config as a sorted list of them. */
export const routeKey = (r: Omit<RemoteRouteChange, 'sid'>) => `${r.vpc} ${r.prefix.address}/${r.prefix.len}`;
export const show = (r: RemoteRouteChange) => `${routeKey(r)} > ${r.sid ?? '-'}`;
export const showProblems = (ps: readonly RecordProblem[]) =>
  ps.map((p) => `${p.key}: ${p.path}: ${p.message}`).sort();

export async function commitAll(store: KeyValueStore, ops: readonly WriteOp[]): Promise<number> {
  let commits = 0;
  // etcd's --max-txn-ops is 128 by default (the memory store's too).
  for (let i = 0; i < ops.length; i += 100, commits++) await store.commit(ops.slice(i, i + 100));
  return commits;
}

/** What each test of the suite on one store uses: the store, and hv1's sources over it. */
export interface FleetSourceFixture {
  readonly store: KeyValueStore;
  readonly sources: FleetSource[];
  readonly sourceOver: (
    prefix: string,
    ops: readonly WriteOp[],
  ) => Promise<{ source: FleetSource; schema: KeySchema; notified: () => number }>;
  readonly fleet: (schema: KeySchema, extra?: WriteOp[]) => WriteOp[];
  readonly eps: (schema: KeySchema, vpc: string, base: string, count: number, node: string) => WriteOp[];
}

/**
 * Registers the suite's before/after hooks on one store (call it inside the describe) and gives
 * the helpers its tests share.
 */
export function fleetSourceFixture(kind: BackendKind): FleetSourceFixture {
  let backend: StoreBackend;
  let store: KeyValueStore;
  const sources: FleetSource[] = [];
  before(async () => {
    backend = await kind.start();
    store = backend.client({ backoff: { initialMs: 20, maxMs: 200 } });
  });
  after(async () => {
    for (const s of sources) s.stop();
    await store?.close();
    await backend?.stop();
  });

  /** hv1's source over `ops` (written first), synced and derived once; `notified` counts onChange. */
  async function sourceOver(
    prefix: string,
    ops: readonly WriteOp[],
  ): Promise<{ source: FleetSource; schema: KeySchema; notified: () => number }> {
    const schema = new KeySchema(prefix);
    await commitAll(store, ops);
    let notified = 0;
    const source = new FleetSource(store, schema, 'hv1', { onChange: () => notified++ });
    sources.push(source);
    source.start();
    await source.whenSynced();
    assert.equal(notified, 1, 'told once before the first derive(), however many batches the sync took');
    source.derive();
    return { source, schema, notified: () => notified };
  }

  /** The basic fleet: hv1 (this node) with vm1 in vpc-a and vm2 in vpc-b, hv2 and hv3. */
  function fleet(schema: KeySchema, extra: WriteOp[] = []): WriteOp[] {
    const put = (key: string, value: string): WriteOp => ({ type: 'put', key, value });
    return [
      put(schema.node('hv1'), nodeValue(1)),
      put(schema.node('hv2'), nodeValue(2)),
      put(schema.node('hv3'), nodeValue(3)),
      ...Object.entries(VPCS).map(([name, v]) => put(schema.vpc(name), JSON.stringify(v))),
      put(schema.port('hv1', 'vm1'), portValue('vpc-a', '10.0.0.5', '52:54:00:00:00:05')),
      put(schema.port('hv1', 'vm2'), portValue('vpc-b', '10.1.0.5', '52:54:00:00:01:05')),
      put(schema.endpoint('vpc-a', prefix32('10.0.0.5')), epValue('hv1')),
      put(schema.endpoint('vpc-b', prefix32('10.1.0.5')), epValue('hv1')),
      ...extra,
    ];
  }
  const eps = (schema: KeySchema, vpc: string, base: string, count: number, node: string): WriteOp[] =>
    Array.from({ length: count }, (_, i) => ({
      type: 'put' as const,
      key: schema.endpoint(vpc, prefix32(`${base}.${i}`)),
      value: epValue(node),
    }));
  return {
    get store() {
      return store;
    },
    sources,
    sourceOver,
    fleet,
    eps,
  };
}
