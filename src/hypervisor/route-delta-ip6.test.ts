/**
 * IPv6 route deltas against a VPP: the simulator by default, a real VPP 26.06 when VPP_API_SOCKET
 * is set. As for IPv4 (route-delta.test.ts), every test starts from a full pass over the base
 * config, dual-stack here, and a full pass right after any delta plans nothing.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createUnderlay, removeUnderlay, type TestUnderlay } from '../../test/support/underlay.js';
import { startVppTarget, type VppTarget } from '../../test/support/vpp-target.js';
import type { AgentConfig } from '../config/model.js';
import { validateConfig } from '../config/validate.js';
import { NO_HOST_FILES } from '../dataplane/context.js';
import { parseIp6Prefix } from '../net/ip.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { memoryStore, reconcile, type ReconcileOutcome, type SrGlobalsStore } from './reconcile.js';
import { auditSteering } from './steering-audit.js';
import {
  reconcileRouteChanges,
  SteeringModel,
  type RemoteRouteChange,
  type RouteDeltaOutcome,
} from './route-delta.js';
import { NO_HOST_LINKS } from '../../test/support/no-host-links.js';
import { applied, type Routes } from './testing/remote-routes.js';

/** Dual-stack vpc-1 (tables 100) and vpc-2 (101): remote IPv6 VMs, and an appliance's ::/0. */
const BASE6: Routes = new Map([
  ['vpc-1 10.1.0.0/24', 'fc00:2::64'],
  ['vpc-1 2001:db8:a::7/128', 'fc00:2::100:64'],
  ['vpc-1 2001:db8:a::8/128', 'fc00:2::100:64'],
  ['vpc-1 ::/0', 'fc00:3::100:64'],
  ['vpc-2 2001:db8:b::7/128', 'fc00:2::100:65'],
]);

function dualStackConfigOf(underlay: string, routes: Routes, vpcs = true): AgentConfig {
  return validateConfig({
    node: {
      name: 'hv1',
      underlay: { interface: underlay, address: '2001:db8::1/64', gateway: '2001:db8::2' },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs: vpcs
      ? [
          { name: 'vpc-1', id: 100, subnets: ['10.0.0.0/24', '2001:db8:a::/64'], gateway: '10.0.0.1' },
          { name: 'vpc-2', id: 101, subnets: ['10.0.0.0/24', '2001:db8:b::/64'], gateway: '10.0.0.1' },
        ]
      : [],
    ports: [],
    remoteRoutes: [...routes].map(([key, sid]) => {
      const [vpc, prefix] = key.split(' ');
      return { vpc, prefix, sid };
    }),
  });
}

function change6(vpc: string, prefix: string, sid: string | undefined): RemoteRouteChange {
  return { vpc, prefix: parseIp6Prefix(prefix)!, sid };
}

describe('IPv6 route deltas', () => {
  let target: VppTarget;
  let client: VppClient;
  let other: VppClient;
  let underlay: TestUnderlay;
  let globals: SrGlobalsStore;
  let model: SteeringModel;

  const passOf = (routes: Routes, planOnly = false): Promise<ReconcileOutcome> =>
    reconcile(dualStackConfigOf(underlay.name, routes), {
      client,
      host: NO_HOST_LINKS,
      files: NO_HOST_FILES,
      globals,
      planOnly,
    });
  const fullPlan = async (routes: Routes): Promise<string[]> =>
    (await passOf(routes, true)).plan.ops.map((o) => `${o.action} ${o.key}`);
  const delta = async (changes: readonly RemoteRouteChange[]): Promise<RouteDeltaOutcome> => {
    const outcome = await reconcileRouteChanges(dualStackConfigOf(underlay.name, BASE6), model, changes, {
      client,
    });
    assert.equal(outcome.modelValid, true);
    return outcome;
  };
  const opsOf = (o: RouteDeltaOutcome): string[] => o.plan.ops.map((op) => `${op.action} ${op.key}`);
  /** The model's entries, IPv6 ones: "table prefix → SID". */
  const model6 = (): string[] =>
    [...model.entries()]
      .filter((e) => e.prefix.includes(':'))
      .map((e) => `${e.table} ${e.prefix} → ${e.sid}`)
      .sort();

  before(async () => {
    target = await startVppTarget();
    other = new VppClient({
      socketPath: target.socketPath,
      clientName: 'someone-else',
      healthCheckIntervalMs: 0,
    });
    await other.connect();
    underlay = await createUnderlay(other);
    client = new VppClient({
      socketPath: target.socketPath,
      clientName: 'vppnet-test',
      healthCheckIntervalMs: 0,
    });
    await client.connect();
    globals = memoryStore();
  });
  after(async () => {
    try {
      await reconcile(dualStackConfigOf(underlay.name, new Map(), false), {
        client,
        host: NO_HOST_LINKS,
        files: NO_HOST_FILES,
        globals,
      });
      await removeUnderlay(other, underlay);
    } finally {
      await client.close();
      await other.close();
      await target.close();
    }
  });
  beforeEach(async () => {
    const base = await passOf(BASE6);
    assert.deepEqual(
      base.result?.failed.map((x) => `${x.op.key}: ${x.error.message}`),
      [],
    );
    assert.ok(base.steering, 'the full pass converged and built its steering model');
    model = base.steering;
  });

  it('builds the model of the full pass: the IPv6 entries as VPP has them, ::/0 as its two halves', async () => {
    assert.equal(model.size, 6);
    assert.equal(model.size6, 5);
    assert.deepEqual(model6(), [
      '100 2001:db8:a::7/128 → fc00:2::100:64',
      '100 2001:db8:a::8/128 → fc00:2::100:64',
      '100 8000::/1 → fc00:3::100:64',
      '100 ::/1 → fc00:3::100:64',
      '101 2001:db8:b::7/128 → fc00:2::100:65',
    ]);
    assert.equal(model.sidAt(100, parseIp6Prefix('::/0')!), 'fc00:3::100:64');
    assert.equal(model.sidAt(100, parseIp6Prefix('2001:db8:a:0::7/128')!), 'fc00:2::100:64');
    assert.deepEqual((await auditSteering(client, model)).differences, []);
  });

  it('adds, re-points and removes IPv6 entries one request each, then the emptied policy; a full pass agrees', async () => {
    const oldBsid = model.bsidOf('fc00:2::100:64');
    const changes = [
      change6('vpc-2', '2001:db8:b::8/128', 'fc00:2::100:65'),
      change6('vpc-1', '2001:db8:a::7/128', 'fc00:3::100:64'),
      change6('vpc-1', '2001:db8:a::8/128', undefined),
    ];
    const outcome = await delta(changes);
    assert.deepEqual(opsOf(outcome).sort(), [
      'create sr-steering:ip6:101:2001:db8:b::8/128',
      `delete sr-policy:${oldBsid}`,
      'delete sr-steering:ip6:100:2001:db8:a::8/128',
      'update sr-steering:ip6:100:2001:db8:a::7/128',
    ]);
    assert.equal(model.bsidOf('fc00:2::100:64'), undefined);
    assert.deepEqual(model6(), [
      '100 2001:db8:a::7/128 → fc00:3::100:64',
      '100 8000::/1 → fc00:3::100:64',
      '100 ::/1 → fc00:3::100:64',
      '101 2001:db8:b::7/128 → fc00:2::100:65',
      '101 2001:db8:b::8/128 → fc00:2::100:65',
    ]);
    assert.deepEqual((await auditSteering(client, model)).differences, []);
    assert.deepEqual(await fullPlan(applied(BASE6, changes)), []);
  });

  it('moves ::/0 as its two halves to a new node, and deletes the policy they left', async () => {
    const oldBsid = model.bsidOf('fc00:3::100:64');
    const changes = [change6('vpc-1', '::/0', 'fc00:4::100:64')];
    const outcome = await delta(changes);
    const newBsid = model.bsidOf('fc00:4::100:64');
    assert.ok(newBsid !== undefined);
    assert.deepEqual(opsOf(outcome), [
      `create sr-policy:${newBsid}`,
      'update sr-steering:ip6:100:8000::/1',
      'update sr-steering:ip6:100:::/1',
      `delete sr-policy:${oldBsid}`,
    ]);
    assert.equal(model.bsidOf('fc00:3::100:64'), undefined);
    assert.equal(model.sidAt(100, parseIp6Prefix('::/0')!), 'fc00:4::100:64');
    assert.equal(model.size, 6);
    assert.deepEqual((await auditSteering(client, model)).differences, []);
    const routes = applied(BASE6, changes);
    assert.deepEqual(await fullPlan(routes), []);

    // And gone: both halves, then the policy.
    const gone = await delta([change6('vpc-1', '::/0', undefined)]);
    assert.deepEqual(opsOf(gone), [
      'delete sr-steering:ip6:100:8000::/1',
      'delete sr-steering:ip6:100:::/1',
      `delete sr-policy:${newBsid}`,
    ]);
    assert.equal(model.size, 4);
    assert.equal(model.size6, 3);
    assert.deepEqual((await auditSteering(client, model)).differences, []);
    assert.deepEqual(await fullPlan(applied(routes, [change6('vpc-1', '::/0', undefined)])), []);
  });
});
