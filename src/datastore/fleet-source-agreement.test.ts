/**
 * The fleet source over a store (the in-memory one, and a real etcd, Debian's etcd-server, where
 * one is installed): the incremental routes always agree with a full derivation, after random
 * changes and with hostile records.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { deriveAgentConfig } from './derive.js';
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
  fleetSourceFixture,
} from './testing/fleet-source-fixture.js';
import { seededRandom, pickWith } from '../util/testing/seeded-random.js';

for (const kind of BACKENDS)
  describe(`the fleet source on the ${kind.name} store`, { skip: kind.skip }, () => fleetSourceTests(kind));

/** The suite on one store. */
function fleetSourceTests(kind: BackendKind): void {
  const fx = fleetSourceFixture(kind);
  const { sourceOver, fleet } = fx;

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

    const random = seededRandom(0x9e3779b9);
    const pick = <T>(xs: readonly T[]): T => pickWith(random, xs);
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
        await fx.store.commit([{ type: 'put', key, value: epValue(node) }]);
        await until(() => endpoints()?.get(key)?.node === node, `step ${step}: endpoint put`);
      } else if (r < 0.6) {
        await fx.store.commit([{ type: 'delete', key }]);
        await until(() => !endpoints()?.has(key), `step ${step}: endpoint delete`);
      } else if (r < 0.75) {
        const name = pick(nodes.slice(1));
        const srv6 = pick(locatorsOf(name));
        await fx.store.commit([
          { type: 'put', key: schema.node(name), value: nodeValue(Number(name.slice(2)), srv6) },
        ]);
        const want = srv6.locator as string;
        await until(() => {
          const l = source.view.nodes.get(name)?.locator;
          return l !== undefined && `${l.address}/${l.len}` === want;
        }, `step ${step}: node put`);
      } else if (r < 0.85) {
        const name = pick(nodes.slice(1));
        await fx.store.commit([{ type: 'delete', key: schema.node(name) }]);
        await until(() => !source.view.nodes.has(name), `step ${step}: node delete`);
      } else if (r < 0.92) {
        const rejected = source.rejectedTotal;
        await fx.store.commit([{ type: 'put', key, value: JSON.stringify({ node: `bad name ${step}` }) }]);
        await until(() => source.rejectedTotal === rejected + 1, `step ${step}: rejection`);
      } else {
        const has = source.view.ports.has('vm4');
        await fx.store.commit([
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
    await fx.store.commit([
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
    await fx.store.commit([
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
    await fx.store.commit([{ type: 'put', key: schema.node('hv9'), value: nodeValue(9) }]);
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
