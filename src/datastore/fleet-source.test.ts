/**
 * The fleet source over a store (the in-memory one, and a real etcd, Debian's etcd-server, where
 * one is installed): what one node's agent is told when records change, and that the incremental
 * routes always agree with a full derivation.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { deriveAgentConfig } from './derive.js';
import { FleetSource, type FleetChanges, type RemoteRouteChange } from './fleet-source.js';
import { KeySchema } from './keys.js';
import type { RecordProblem } from './records.js';
import type { KeyValueStore, WriteOp } from './store.js';
import { BACKENDS, type BackendKind, type StoreBackend } from './testing/store-backends.js';
import { until } from '../util/testing/until.js';

const nodeValue = (n: number, srv6: Record<string, string> = { locator: `fc00:${n}::/48` }) =>
  JSON.stringify({
    underlay: { interface: 'memif1/0', address: `2001:db8::${n}/64`, gateway: '2001:db8::ff' },
    srv6,
  });
const VPCS: Record<string, { id: number; subnets: string[]; gateway: string; sidIndex?: number }> = {
  'vpc-a': { id: 10, subnets: ['10.0.0.0/16'], gateway: '10.0.0.1' },
  'vpc-b': { id: 20, subnets: ['10.1.0.0/16'], gateway: '10.1.0.1' },
};
const portValue = (vpc: string, ip: string, mac: string) =>
  JSON.stringify({ vpc, mac, ip, attach: { type: 'interface', name: `tap-${ip}` } });
const epValue = (node: string) => JSON.stringify({ node });
const prefix32 = (address: string) => ({ address, len: 32 });

/** A route as a comparable string, and the routes of a config as a sorted list of them. */
const routeKey = (r: Omit<RemoteRouteChange, 'sid'>) => `${r.vpc} ${r.prefix.address}/${r.prefix.len}`;
const show = (r: RemoteRouteChange) => `${routeKey(r)} > ${r.sid ?? '-'}`;
const showProblems = (ps: readonly RecordProblem[]) =>
  ps.map((p) => `${p.key}: ${p.path}: ${p.message}`).sort();

async function commitAll(store: KeyValueStore, ops: readonly WriteOp[]): Promise<number> {
  let commits = 0;
  // etcd's --max-txn-ops is 128 by default (the memory store's too).
  for (let i = 0; i < ops.length; i += 100, commits++) await store.commit(ops.slice(i, i + 100));
  return commits;
}

for (const kind of BACKENDS)
  describe(`the fleet source on the ${kind.name} store`, { skip: kind.skip }, () => fleetSourceTests(kind));

/** The suite on one store. */
function fleetSourceTests(kind: BackendKind): void {
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

  test('an endpoint moving between two remote nodes is one route change, evaluated once', async () => {
    const schema = new KeySchema('/fs/move/');
    const { source, notified } = await sourceOver(
      schema.prefix,
      fleet(schema, [
        { type: 'put', key: schema.endpoint('vpc-a', prefix32('10.0.0.7')), value: epValue('hv2') },
        ...eps(schema, 'vpc-a', '10.0.3', 50, 'hv3'),
      ]),
    );
    assert.equal(source.derive().config?.remoteRoutes.length, 51);
    const seen = notified();
    const evaluated = source.routeEvaluations;
    await store.commit([
      { type: 'put', key: schema.endpoint('vpc-a', prefix32('10.0.0.7')), value: epValue('hv3') },
    ]);
    await until(() => notified() > seen, 'the change');
    const changes = source.takeChanges();
    assert.equal(changes.structural, false);
    assert.deepEqual(changes.routes, [{ vpc: 'vpc-a', prefix: prefix32('10.0.0.7'), sid: 'fc00:3::a' }]);
    assert.equal(source.routeEvaluations - evaluated, 1, 'the route rule ran for the one endpoint only');
    assert.deepEqual(source.takeChanges(), { structural: false, routes: [] }, 'taken once');
  });

  test('the audit finds what the held routes lost, gained or got wrong, and hands it over as changes', async () => {
    const schema = new KeySchema('/fs/audit/');
    const { source, notified } = await sourceOver(
      schema.prefix,
      fleet(schema, [
        ...eps(schema, 'vpc-a', '10.0.5', 20, 'hv2'),
        ...eps(schema, 'vpc-b', '10.1.5', 5, 'hv3'),
      ]),
    );
    const yields: number[] = [];
    const audit = (): Promise<string[]> =>
      source.audit(() => {
        yields.push(1);
        return Promise.resolve();
      }, 8);
    assert.deepEqual(await audit(), [], 'in sync: nothing');
    assert.ok(yields.length >= 3, `it yielded between slices (${yields.length})`);
    // What a missed change would leave behind (a bug the audit is the net for): the held routes,
    // reached from the test, lose one, gain one the records do not have, and get one SID wrong.
    const held = (source as unknown as { held: Map<string, string> }).held;
    const lost = schema.endpoint('vpc-a', prefix32('10.0.5.3'));
    const wrong = schema.endpoint('vpc-b', prefix32('10.1.5.2'));
    const gained = schema.endpoint('vpc-a', prefix32('10.0.9.9'));
    held.delete(lost);
    held.set(wrong, 'fc00:2::14');
    held.set(gained, 'fc00:2::a');
    const seen = notified();
    assert.deepEqual((await audit()).sort(), [lost, wrong, gained].sort());
    assert.equal(notified(), seen + 1, 'the owner is told once');
    const changes = source.takeChanges();
    assert.deepEqual(changes.routes.map(show).sort(), [
      'vpc-a 10.0.5.3/32 > fc00:2::a',
      'vpc-a 10.0.9.9/32 > -',
      'vpc-b 10.1.5.2/32 > fc00:3::14',
    ]);
    assert.deepEqual(await audit(), [], 'repaired');
    // A structural change while auditing ends it: the full derivation replaces what is held.
    held.delete(lost);
    await store.commit([
      {
        type: 'put',
        key: schema.port('hv1', 'vm3'),
        value: portValue('vpc-a', '10.0.0.6', '52:54:00:00:00:06'),
      },
    ]);
    await until(() => source.takeChanges().structural, 'the structural change');
    assert.deepEqual(await audit(), []);
  });

  test('a burst of 1,000 endpoint puts is coalesced to the latest state per endpoint', async () => {
    const schema = new KeySchema('/fs/burst/');
    const count = 250;
    const { source, notified } = await sourceOver(
      schema.prefix,
      fleet(schema, eps(schema, 'vpc-a', '10.0.4', count, 'hv2')),
    );
    const key = (i: number) => schema.endpoint('vpc-a', prefix32(`10.0.4.${i}`));
    // Four rounds over the 250 endpoints, each endpoint alternating between hv2 and hv3: the
    // last round leaves the odd ones on hv3 and the even ones back on hv2.
    const burst = (shift: number): WriteOp[] =>
      [0, 1, 2, 3].flatMap((round) =>
        Array.from({ length: count }, (_, i) => ({
          type: 'put' as const,
          key: key(i),
          value: epValue((round + i + shift) % 2 === 0 ? 'hv2' : 'hv3'),
        })),
      );
    const finalNode = (i: number, shift: number) => ((3 + i + shift) % 2 === 0 ? 'hv2' : 'hv3');
    const landed = (shift: number) => () =>
      Array.from({ length: count }, (_, i) => i).every(
        (i) => source.view.endpoints.get('vpc-a')?.get(key(i))?.node === finalNode(i, shift),
      );

    // A consumer busy during the whole burst: one take, one change per endpoint that ended elsewhere.
    const evaluated = source.routeEvaluations;
    const seen = notified();
    await commitAll(store, burst(0));
    await until(landed(0), 'the burst in the view');
    assert.equal(notified() - seen, 1, 'told once: nothing was taken in between');
    const taken = source.takeChanges();
    assert.equal(taken.structural, false);
    const moved = Array.from({ length: count }, (_, i) => i).filter((i) => finalNode(i, 0) === 'hv3');
    assert.deepEqual(
      taken.routes.map(show).sort(),
      moved.map((i) => `vpc-a 10.0.4.${i}/32 > fc00:3::a`).sort(),
    );
    assert.ok(source.routeEvaluations - evaluated <= count, 'each endpoint evaluated at most once');

    // A consumer that takes as soon as it is told: at most one take per etcd transaction, each
    // with one change per endpoint at most, and together the latest state.
    const held = new Map<string, string | undefined>();
    let takes = 0;
    const consumer = new FleetSource(store, schema, 'hv1', {
      onChange: () =>
        setImmediate(() => {
          const c: FleetChanges = consumer.takeChanges();
          if (c.structural || c.routes.length === 0) return;
          takes++;
          const keys = c.routes.map(routeKey);
          assert.equal(new Set(keys).size, keys.length, 'one change per endpoint in a take');
          for (const r of c.routes) held.set(routeKey(r), r.sid);
        }),
    });
    sources.push(consumer);
    consumer.start();
    await consumer.whenSynced();
    for (const r of consumer.derive().config?.remoteRoutes ?? []) held.set(routeKey(r), r.sid);
    const commits = await commitAll(store, burst(1));
    await until(
      () =>
        Array.from({ length: count }, (_, i) => i).every(
          (i) => held.get(`vpc-a 10.0.4.${i}/32`) === (finalNode(i, 1) === 'hv3' ? 'fc00:3::a' : 'fc00:2::a'),
        ),
      'the consumer holding the latest state',
    );
    assert.ok(takes >= 1 && takes <= commits, `${takes} takes for ${commits} transactions`);
  });

  test("a remote node's new locator re-points its routes; its record deleted removes them", async () => {
    const schema = new KeySchema('/fs/locator/');
    const { source, notified } = await sourceOver(
      schema.prefix,
      fleet(schema, [
        ...eps(schema, 'vpc-a', '10.0.2', 3, 'hv2'),
        ...eps(schema, 'vpc-b', '10.1.2', 2, 'hv2'),
        ...eps(schema, 'vpc-a', '10.0.3', 40, 'hv3'),
      ]),
    );
    const hv2Routes = (sid: (vpc: string) => string | undefined) => [
      ...[0, 1, 2].map((i) => `vpc-a 10.0.2.${i}/32 > ${sid('vpc-a') ?? '-'}`),
      ...[0, 1].map((i) => `vpc-b 10.1.2.${i}/32 > ${sid('vpc-b') ?? '-'}`),
    ];
    const step = async (value: string | undefined): Promise<FleetChanges> => {
      const seen = notified();
      await store.commit([
        value === undefined
          ? { type: 'delete', key: schema.node('hv2') }
          : { type: 'put', key: schema.node('hv2'), value },
      ]);
      await until(() => notified() > seen, 'the change');
      return source.takeChanges();
    };

    let evaluated = source.routeEvaluations;
    let c = await step(nodeValue(2, { locator: 'fc00:22::/48' }));
    assert.equal(c.structural, false);
    assert.deepEqual(
      c.routes.map(show).sort(),
      hv2Routes((vpc) => (vpc === 'vpc-a' ? 'fc00:22::a' : 'fc00:22::14')),
    );
    assert.equal(source.routeEvaluations - evaluated, 5, "hv2's five endpoints, not hv3's forty");

    // Another field of hv2's record: no route depends on it.
    const rewritten = await store.commit([
      {
        type: 'put',
        key: schema.node('hv2'),
        value: JSON.stringify({
          underlay: { interface: 'memif1/0', address: '2001:db8::22/64', gateway: '2001:db8::ff' },
          srv6: { locator: 'fc00:22::/48' },
        }),
      },
    ]);
    await until(() => source.revisionOf(schema.node('hv2')) === rewritten, 'the new underlay');
    assert.deepEqual(source.takeChanges(), { structural: false, routes: [] });

    evaluated = source.routeEvaluations;
    c = await step(undefined);
    assert.deepEqual(
      c.routes.map(show).sort(),
      hv2Routes(() => undefined),
    );
    assert.equal(source.routeEvaluations - evaluated, 5);
    const missing = 'node: node hv2 has no record (/fs/locator/nodes/hv2)';
    assert.deepEqual(
      showProblems(source.problems),
      [
        ...[0, 1, 2].map((i) => `/fs/locator/endpoints/vpc-a/10.0.2.${i}_32: ${missing}`),
        ...[0, 1].map((i) => `/fs/locator/endpoints/vpc-b/10.1.2.${i}_32: ${missing}`),
      ].sort(),
      'reported as the full derivation does',
    );
    assert.deepEqual(showProblems(source.problems), showProblems(source.derive().problems));

    c = await step(nodeValue(2));
    assert.deepEqual(
      c.routes.map(show).sort(),
      hv2Routes((vpc) => (vpc === 'vpc-a' ? 'fc00:2::a' : 'fc00:2::14')),
    );
    assert.deepEqual(source.problems, []);
  });

  test('own ports, own node record and VPC records are structural until derived again', async () => {
    const schema = new KeySchema('/fs/struct/');
    const { source, notified } = await sourceOver(
      schema.prefix,
      fleet(schema, eps(schema, 'vpc-a', '10.0.2', 3, 'hv2')),
    );
    const step = async (op: WriteOp): Promise<void> => {
      const seen = notified();
      await store.commit([op]);
      await until(() => notified() > seen, 'the change');
    };
    const structural = { structural: true, routes: [] };
    await step({
      type: 'put',
      key: schema.port('hv1', 'vm3'),
      value: portValue('vpc-a', '10.0.0.6', '52:54:00:00:00:06'),
    });
    assert.deepEqual(source.takeChanges(), structural, 'a port added');
    // A route change meanwhile is in the next derivation, not in a take.
    await store.commit([
      { type: 'put', key: schema.endpoint('vpc-a', prefix32('10.0.2.0')), value: epValue('hv3') },
    ]);
    await until(
      () =>
        source.view.endpoints.get('vpc-a')?.get(schema.endpoint('vpc-a', prefix32('10.0.2.0')))?.node ===
        'hv3',
      'the endpoint moved',
    );
    assert.deepEqual(source.takeChanges(), structural, 'still structural: nothing derived yet');
    const d = source.derive();
    assert.deepEqual(
      d.config?.ports.map((p) => p.name),
      ['vm1', 'vm2', 'vm3'],
    );
    assert.ok(d.config?.remoteRoutes.some((r) => r.prefix.address === '10.0.2.0' && r.sid === 'fc00:3::a'));
    assert.deepEqual(source.takeChanges(), { structural: false, routes: [] });

    await step({ type: 'delete', key: schema.port('hv1', 'vm3') });
    assert.deepEqual(source.takeChanges(), structural, 'a port removed');
    source.derive();
    await step({ type: 'put', key: schema.node('hv1'), value: nodeValue(1, { locator: 'fc00:11::/48' }) });
    assert.deepEqual(source.takeChanges(), structural, 'the own node record');
    source.derive();
    await step({
      type: 'put',
      key: schema.vpc('vpc-a'),
      value: JSON.stringify({ ...VPCS['vpc-a'], mtu: 1400 }),
    });
    assert.deepEqual(source.takeChanges(), structural, 'a VPC record');
    assert.equal(source.derive().config?.vpcs.find((v) => v.name === 'vpc-a')?.mtu, 1400);
  });

  test('an IPv6 endpoint change is a route change to the remote DT6 SID, as IPv4 ones are', async () => {
    const schema = new KeySchema('/fs/ip6/');
    const dual = { id: 10, subnets: ['10.0.0.0/16', '2001:db8:a::/64'], gateway: '10.0.0.1' };
    const { source, notified } = await sourceOver(
      schema.prefix,
      fleet(schema).map((op) =>
        op.key === schema.vpc('vpc-a') ? { ...op, value: JSON.stringify(dual) } : op,
      ),
    );
    const step = async (op: WriteOp): Promise<FleetChanges> => {
      const seen = notified();
      await store.commit([op]);
      await until(() => notified() > seen, 'the change');
      return source.takeChanges();
    };
    const prefix6 = { address: '2001:db8:a::7', len: 128 };
    const key6 = schema.endpoint('vpc-a', prefix6);
    assert.deepEqual(await step({ type: 'put', key: key6, value: epValue('hv2') }), {
      structural: false,
      routes: [{ vpc: 'vpc-a', prefix: prefix6, sid: 'fc00:2::100:a' }],
    });
    assert.deepEqual(await step({ type: 'put', key: key6, value: epValue('hv3') }), {
      structural: false,
      routes: [{ vpc: 'vpc-a', prefix: prefix6, sid: 'fc00:3::100:a' }],
    });
    assert.deepEqual(
      await step({ type: 'put', key: schema.endpoint('vpc-a', prefix32('10.0.0.7')), value: epValue('hv2') }),
      { structural: false, routes: [{ vpc: 'vpc-a', prefix: prefix32('10.0.0.7'), sid: 'fc00:2::a' }] },
    );
    assert.deepEqual(await source.audit(), [], 'what was handed over is what the records say');
    assert.deepEqual(
      source.derive().config?.remoteRoutes.filter((r) => r.family === 6),
      [{ vpc: 'vpc-a', prefix: prefix6, family: 6, sid: 'fc00:3::100:a' }],
      'a fresh derivation agrees',
    );
    assert.deepEqual(await step({ type: 'delete', key: key6 }), {
      structural: false,
      routes: [{ vpc: 'vpc-a', prefix: prefix6, sid: undefined }],
    });
  });

  test('an invalid endpoint record keeps the last good route', async () => {
    const schema = new KeySchema('/fs/invalid/');
    const key = schema.endpoint('vpc-a', prefix32('10.0.0.7'));
    const { source, notified } = await sourceOver(
      schema.prefix,
      fleet(schema, [{ type: 'put', key, value: epValue('hv2') }]),
    );
    await store.commit([{ type: 'put', key, value: JSON.stringify({ node: 'not a node name!' }) }]);
    await until(() => source.rejectedTotal === 1, 'the rejection');
    assert.match(source.rejected.get(key) ?? '', /^node: /);
    assert.deepEqual(source.takeChanges(), { structural: false, routes: [] }, 'nothing changed');
    assert.deepEqual(
      source.derive().config?.remoteRoutes.map((r) => show(r)),
      ['vpc-a 10.0.0.7/32 > fc00:2::a'],
      'the last good route stays',
    );
    const seen = notified();
    await store.commit([{ type: 'put', key, value: epValue('hv3') }]);
    await until(() => notified() > seen, 'the good value');
    assert.deepEqual(source.takeChanges().routes.map(show), ['vpc-a 10.0.0.7/32 > fc00:3::a']);
    assert.equal(source.rejected.size, 0);
  });

  test('after a random sequence of changes, the last derivation plus the taken changes is a fresh derivation', async () => {
    const schema = new KeySchema('/fs/random/');
    // vpc-c: hv1's port there is outside its subnets, so the derivation leaves vpc-c out; vpc-b's
    // SID index does not fit a /112 locator.
    const extraVpcs: WriteOp[] = [
      {
        type: 'put',
        key: schema.vpc('vpc-b'),
        value: JSON.stringify({ ...VPCS['vpc-b'], sidIndex: 0x10000 }),
      },
      {
        type: 'put',
        key: schema.vpc('vpc-c'),
        value: JSON.stringify({ id: 30, subnets: ['10.2.0.0/16'], gateway: '10.2.0.1' }),
      },
      {
        type: 'put',
        key: schema.port('hv1', 'vm-c'),
        value: portValue('vpc-c', '10.9.0.5', '52:54:00:00:02:05'),
      },
    ];
    const { source } = await sourceOver(schema.prefix, [
      ...fleet(schema).filter((op) => op.key !== schema.vpc('vpc-b')),
      ...extraVpcs,
    ]);
    assert.deepEqual(source.scope.filter((s) => s.includes('endpoints/')).length, 3);

    let seed = 0x9e3779b9;
    const random = (): number => {
      // mulberry32
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    const vpcs = ['vpc-a', 'vpc-b', 'vpc-c'];
    const nets: Record<string, string> = { 'vpc-a': '10.0.7', 'vpc-b': '10.1.7', 'vpc-c': '10.2.7' };
    const nodes = ['hv1', 'hv2', 'hv3', 'hv4', 'hv9'];
    // Mostly a node's own locators; now and then one inside hv1's (refused as this node's), one
    // too short for vpc-b's index, or, for hv3, hv2's first one (equal: both refused).
    const locatorsOf = (name: string): readonly Record<string, string>[] => {
      const n = Number(name.slice(2));
      return [
        { locator: `fc00:${n}::/48` },
        { locator: `fc00:${n}0::/48` },
        { locator: `fc00:${n}1::/48` },
        { locator: 'fc00:1:0:7::/64' },
        { locator: `fc00:a${n}::/112`, bsidPrefix: `fc00:b${n}::/64` },
        ...(name === 'hv3' ? [{ locator: 'fc00:2::/48' }] : []),
      ];
    };
    const held = new Map<string, string>();
    const reset = () => {
      held.clear();
      for (const r of source.derive().config?.remoteRoutes ?? []) held.set(routeKey(r), r.sid);
    };
    reset();
    let takes = 0;
    let structurals = 0;
    const refusals = new Set<string>();
    const takeAndCheck = (): void => {
      const c = source.takeChanges();
      takes++;
      if (c.structural) {
        structurals++;
        reset();
      } else
        for (const r of c.routes)
          if (r.sid === undefined) held.delete(routeKey(r));
          else held.set(routeKey(r), r.sid);
      const fresh = deriveAgentConfig(schema, 'hv1', source.view);
      for (const p of fresh.problems)
        if (p.key.includes('/endpoints/'))
          refusals.add(p.message.replace(/.* (has no record|cannot hold|is inside|is refused).*/, '$1'));
      assert.deepEqual(
        [...held].map(([k, sid]) => `${k} > ${sid}`).sort(),
        (fresh.config?.remoteRoutes ?? []).map(show).sort(),
        `after take ${takes}`,
      );
      assert.deepEqual(
        showProblems(source.problems),
        showProblems(fresh.problems),
        `problems after take ${takes}`,
      );
    };

    for (let step = 0; step < 300; step++) {
      const r = random();
      const vpc = pick(vpcs);
      const key = schema.endpoint(vpc, prefix32(`${nets[vpc]}.${Math.floor(random() * 12)}`));
      const endpoints = () => source.view.endpoints.get(vpc);
      if (r < 0.45) {
        const node = pick(nodes);
        await store.commit([{ type: 'put', key, value: epValue(node) }]);
        await until(() => endpoints()?.get(key)?.node === node, `step ${step}: endpoint put`);
      } else if (r < 0.6) {
        await store.commit([{ type: 'delete', key }]);
        await until(() => !endpoints()?.has(key), `step ${step}: endpoint delete`);
      } else if (r < 0.75) {
        const name = pick(nodes.slice(1));
        const srv6 = pick(locatorsOf(name));
        await store.commit([
          { type: 'put', key: schema.node(name), value: nodeValue(Number(name.slice(2)), srv6) },
        ]);
        const want = srv6.locator as string;
        await until(() => {
          const l = source.view.nodes.get(name)?.locator;
          return l !== undefined && `${l.address}/${l.len}` === want;
        }, `step ${step}: node put`);
      } else if (r < 0.85) {
        const name = pick(nodes.slice(1));
        await store.commit([{ type: 'delete', key: schema.node(name) }]);
        await until(() => !source.view.nodes.has(name), `step ${step}: node delete`);
      } else if (r < 0.92) {
        const rejected = source.rejectedTotal;
        await store.commit([{ type: 'put', key, value: JSON.stringify({ node: `bad name ${step}` }) }]);
        await until(() => source.rejectedTotal === rejected + 1, `step ${step}: rejection`);
      } else {
        const has = source.view.ports.has('vm4');
        await store.commit([
          has
            ? { type: 'delete', key: schema.port('hv1', 'vm4') }
            : {
                type: 'put',
                key: schema.port('hv1', 'vm4'),
                value: portValue('vpc-a', '10.0.0.9', '52:54:00:00:00:09'),
              },
        ]);
        await until(() => source.view.ports.has('vm4') !== has, `step ${step}: port toggle`);
      }
      if (random() < 0.3) takeAndCheck();
    }
    takeAndCheck();
    assert.ok(
      takes > 50 && structurals > 3 && structurals < takes / 2,
      `${takes} takes, ${structurals} structural`,
    );
    assert.deepEqual(
      [...refusals].sort(),
      ['cannot hold', 'has no record', 'is refused'],
      'every refusal met',
    );
    assert.ok(held.size > 5, `${held.size} routes held at the end`);
  });

  test('hostile records stay in their lane on the incremental path, as in a full derivation', async () => {
    const schema = new KeySchema('/fs/lanes/');
    const { source } = await sourceOver(
      schema.prefix,
      fleet(schema, [
        { type: 'put', key: schema.endpoint('vpc-a', prefix32('10.0.0.7')), value: epValue('hv2') },
      ]),
    );
    const localClaim = schema.endpoint('vpc-a', prefix32('10.0.0.5'));
    const metadata = schema.endpoint('vpc-a', prefix32('169.254.169.254'));
    // An endpoint naming hv2 for vm1's own address (local wins), one for the metadata address.
    await store.commit([
      { type: 'put', key: localClaim, value: epValue('hv2') },
      { type: 'put', key: metadata, value: epValue('hv2') },
    ]);
    await until(
      () => source.view.endpoints.get('vpc-a')?.has(localClaim) === true && source.rejected.has(metadata),
      'the two endpoints',
    );
    assert.match(source.rejected.get(metadata) ?? '', /169\.254\.0\.0\/16/, 'refused as it is put');
    const changes = source.takeChanges();
    assert.deepEqual(changes, { structural: false, routes: [] }, "vm1's local route stays the only one");
    assert.match(
      showProblems(source.problems).join('\n'),
      /10\.0\.0\.5_32: node: 10\.0\.0\.5\/32 is held by port vm1 on this node: the local route wins/,
    );
    // A node record whose locator covers the fleet's: a full derivation, and it alone is refused.
    await store.commit([
      { type: 'put', key: schema.node('hv9'), value: nodeValue(9, { locator: 'fc00::/16' }) },
      { type: 'put', key: schema.endpoint('vpc-a', prefix32('10.0.0.9')), value: epValue('hv9') },
    ]);
    // Nodes and endpoints are watched apart: wait for both, the changes accumulate meanwhile.
    const nine = schema.endpoint('vpc-a', prefix32('10.0.0.9'));
    await until(
      () => source.view.nodes.has('hv9') && source.view.endpoints.get('vpc-a')?.has(nine) === true,
      'the node record and its endpoint',
    );
    assert.equal(source.takeChanges().structural, true, 'a new refusal is structural');
    const d = source.derive();
    assert.deepEqual(
      d.config?.remoteRoutes.map((r) => `${r.prefix.address} > ${r.sid}`),
      ['10.0.0.7 > fc00:2::a'],
    );
    assert.ok(
      showProblems(d.problems).some((p) =>
        p.startsWith(`${schema.node('hv9')}: srv6: its locator fc00::/16 covers`),
      ),
      showProblems(d.problems).join('\n'),
    );
    // The incremental path agrees with a fresh derivation, and the refusal lifts when fixed.
    await store.commit([{ type: 'put', key: schema.node('hv9'), value: nodeValue(9) }]);
    await until(() => source.view.nodes.get('hv9')?.locator.address === 'fc00:9::', 'the fixed node record');
    assert.equal(source.takeChanges().structural, true, 'a lifted refusal is structural too');
    const fixed = source.derive();
    assert.deepEqual(fixed.config?.remoteRoutes.map((r) => `${r.prefix.address} > ${r.sid}`).sort(), [
      '10.0.0.7 > fc00:2::a',
      '10.0.0.9 > fc00:9::a',
    ]);
    assert.deepEqual(
      showProblems(fixed.problems),
      showProblems(deriveAgentConfig(schema, 'hv1', source.view).problems),
    );
  });
}
