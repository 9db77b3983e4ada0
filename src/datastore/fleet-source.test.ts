/**
 * The fleet source over a store (the in-memory one, and a real etcd, Debian's etcd-server, where
 * one is installed): what one node's agent is told when records change.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FleetSource, type FleetChanges } from './fleet-source.js';
import { KeySchema } from './keys.js';
import type { WriteOp } from './store.js';
import { BACKENDS, type BackendKind } from './testing/store-backends.js';
import { until } from '../util/testing/until.js';
import {
  nodeValue,
  VPCS,
  portValue,
  epValue,
  prefix32,
  routeKey,
  show,
  showProblems,
  commitAll,
  fleetSourceFixture,
} from './testing/fleet-source-fixture.js';

for (const kind of BACKENDS)
  describe(`the fleet source on the ${kind.name} store`, { skip: kind.skip }, () => fleetSourceTests(kind));

/** The suite on one store. */
function fleetSourceTests(kind: BackendKind): void {
  const fx = fleetSourceFixture(kind);
  const { sources, sourceOver, fleet, eps } = fx;

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
    await fx.store.commit([
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
    // reached through the test seam, lose one, gain one the records do not have, and get one SID wrong.
    const lost = schema.endpoint('vpc-a', prefix32('10.0.5.3'));
    const wrong = schema.endpoint('vpc-b', prefix32('10.1.5.2'));
    const gained = schema.endpoint('vpc-a', prefix32('10.0.9.9'));
    source.setHeldRouteForTest(lost, 'vpc-a', undefined);
    source.setHeldRouteForTest(wrong, 'vpc-b', 'fc00:2::14');
    source.setHeldRouteForTest(gained, 'vpc-a', 'fc00:2::a');
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
    source.setHeldRouteForTest(lost, 'vpc-a', undefined);
    await fx.store.commit([
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
    await commitAll(fx.store, burst(0));
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
    const consumer = new FleetSource(fx.store, schema, 'hv1', {
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
    const commits = await commitAll(fx.store, burst(1));
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
      await fx.store.commit([
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
    const rewritten = await fx.store.commit([
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
      await fx.store.commit([op]);
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
    await fx.store.commit([
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
      await fx.store.commit([op]);
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
      source
        .derive()
        .config?.remoteRoutes.filter((r) => r.family === 6)
        .map(({ vpc, prefix, family, sid }) => ({ vpc, prefix, family, sid })),
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
    await fx.store.commit([{ type: 'put', key, value: JSON.stringify({ node: 'not a node name!' }) }]);
    await until(() => source.rejectedTotal === 1, 'the rejection');
    assert.match(source.rejected.get(key) ?? '', /^node: /);
    assert.deepEqual(source.takeChanges(), { structural: false, routes: [] }, 'nothing changed');
    assert.deepEqual(
      source.derive().config?.remoteRoutes.map((r) => show(r)),
      ['vpc-a 10.0.0.7/32 > fc00:2::a'],
      'the last good route stays',
    );
    const seen = notified();
    await fx.store.commit([{ type: 'put', key, value: epValue('hv3') }]);
    await until(() => notified() > seen, 'the good value');
    assert.deepEqual(source.takeChanges().routes.map(show), ['vpc-a 10.0.0.7/32 > fc00:3::a']);
    assert.equal(source.rejected.size, 0);
  });
}
