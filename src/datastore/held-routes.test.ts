import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EndpointRoute } from './endpoint-route.js';
import { HeldRoutes } from './held-routes.js';
import { KeySchema } from './keys.js';

const schema = new KeySchema('/held/v1/');
const key = (vpc: string, address: string, len = 32): string => schema.endpoint(vpc, { address, len });
const route = (vpc: string, address: string, sid: string, len = 32): EndpointRoute =>
  new EndpointRoute(vpc, key(vpc, address, len), sid);

/** A derivation's routes as deriveAgentConfig lists them: VPC by VPC, each one's keys sorted. */
const derived = (): EndpointRoute[] => {
  const routes = [
    ...['10.0.0.7', '10.0.0.10', '10.0.0.9', '10.0.1.1'].map((a, i) => route('vpc', a, `fc00:${i + 2}::a`)),
    ...['10.0.0.7', '2001:db8::5'].map((a) => route('vpc-a', a, 'fc00:9::b', a.includes(':') ? 128 : 32)),
  ];
  // 'vpc' sorts after 'vpc-a' in keys ('/' > '-') but before it by name: runs, not one order.
  return [
    ...routes.filter((r) => r.vpc === 'vpc').sort((a, b) => (a.key < b.key ? -1 : 1)),
    ...routes.slice(4),
  ];
};

describe('held routes', () => {
  it('finds every route of the derivation, and no other key', () => {
    const held = new HeldRoutes();
    const routes = derived();
    held.reset(routes);
    for (const r of routes) assert.equal(held.get(r.key, r.vpc), r.sid, r.key);
    assert.equal(held.get(key('vpc', '10.0.0.8'), 'vpc'), undefined);
    assert.equal(held.get(key('vpc-a', '10.0.0.9'), 'vpc-a'), undefined);
    assert.equal(held.get(key('vpc-b', '10.0.0.7'), 'vpc-b'), undefined, 'a VPC without routes');
    assert.deepEqual(
      [...held.keys()],
      routes.map((r) => r.key),
    );
  });

  it('holds the changes taken since on top: re-pointed, gone, new; a reset forgets them', () => {
    const held = new HeldRoutes();
    const routes = derived();
    held.reset(routes);
    const [first, second] = routes as [EndpointRoute, EndpointRoute];
    const added = key('vpc-a', '10.0.0.1');
    held.set(first.key, first.vpc, 'fc00:7::a');
    held.set(second.key, second.vpc, undefined);
    held.set(added, 'vpc-a', 'fc00:8::b');
    held.set(key('vpc', '10.9.9.9'), 'vpc', undefined);
    assert.equal(held.get(first.key, first.vpc), 'fc00:7::a');
    assert.equal(held.get(second.key, second.vpc), undefined);
    assert.equal(held.get(added, 'vpc-a'), 'fc00:8::b');
    assert.deepEqual(
      [...held.keys()].sort(),
      [added, ...routes.filter((r) => r !== second).map((r) => r.key)].sort(),
    );
    held.set(second.key, second.vpc, second.sid);
    held.set(added, 'vpc-a', undefined);
    assert.equal(held.get(second.key, second.vpc), second.sid);
    assert.equal([...held.keys()].includes(added), false);
    held.reset(routes);
    assert.equal(held.get(first.key, first.vpc), first.sid);
    assert.deepEqual(
      [...held.keys()],
      routes.map((r) => r.key),
    );
  });

  it('refuses a list it cannot search: a VPC unsorted or in two runs', () => {
    const routes = derived();
    assert.throws(() => new HeldRoutes().reset([routes[1]!, routes[0]!]), /is not after/);
    assert.throws(() => new HeldRoutes().reset([routes[0]!, routes[4]!, routes[1]!]), /not in one run/);
  });
});
