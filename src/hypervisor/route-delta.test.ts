/**
 * Route deltas against a VPP: the simulator by default, a real VPP 26.06 when VPP_API_SOCKET is
 * set. Every test starts from a full pass over the base config, whose SteeringModel the deltas
 * then use; the key property is that a full pass right after any delta plans nothing.
 */
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createUnderlay, removeUnderlay, type TestUnderlay } from '../../test/support/underlay.js';
import { startVppTarget, type VppTarget } from '../../test/support/vpp-target.js';
import type { AgentConfig } from '../config/model.js';
import { validateConfig } from '../config/validate.js';
import { NO_HOST_FILES } from '../dataplane/context.js';
import { SteeringEntries } from '../srv6/steering-entries.js';
import { parseIp4Prefix } from '../net/ip.js';
import { VppClient, type RequestDiagnostic } from '../vpp/client/vpp-client.js';
import { msg } from '../vpp/messages/index.js';
import { memoryStore, reconcile, type ReconcileOutcome, type SrGlobalsStore } from './reconcile.js';
import { auditSteering } from './steering-audit.js';
import {
  reconcileRouteChanges,
  RouteChangeError,
  SteeringModel,
  SteeringModelError,
  type RemoteRouteChange,
  type RouteDeltaOutcome,
} from './route-delta.js';
import { NO_HOST_LINKS } from '../../test/support/no-host-links.js';
import { applied, type Routes } from './testing/remote-routes.js';

/** vpc-1 (table 100) and vpc-2 (table 101); hv2 and hv3 host VMs of vpc-1, hv2 one of vpc-2. */
const BASE: Routes = new Map([
  ['vpc-1 10.1.0.0/24', 'fc00:2::64'],
  ['vpc-1 10.1.1.0/24', 'fc00:2::64'],
  ['vpc-1 10.1.2.0/24', 'fc00:3::64'],
  ['vpc-2 10.1.0.0/24', 'fc00:2::65'],
]);

function configOf(underlay: string, routes: Routes, vpcs = true): AgentConfig {
  return validateConfig({
    node: {
      name: 'hv1',
      underlay: { interface: underlay, address: '2001:db8::1/64', gateway: '2001:db8::2' },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs: vpcs
      ? [
          { name: 'vpc-1', id: 100, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' },
          { name: 'vpc-2', id: 101, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' },
        ]
      : [],
    ports: [],
    remoteRoutes: [...routes].map(([key, sid]) => {
      const [vpc, prefix] = key.split(' ');
      return { vpc, prefix, sid };
    }),
  });
}

function change(vpc: string, prefix: string, sid: string | undefined): RemoteRouteChange {
  return { vpc, prefix: parseIp4Prefix(prefix)!, sid };
}

describe('route deltas', () => {
  let target: VppTarget;
  let client: VppClient;
  let other: VppClient;
  let underlay: TestUnderlay;
  let globals: SrGlobalsStore;
  let model: SteeringModel;

  const full = async (routes: Routes): Promise<ReconcileOutcome> => {
    const outcome = await reconcile(configOf(underlay.name, routes), {
      client,
      host: NO_HOST_LINKS,
      files: NO_HOST_FILES,
      globals,
    });
    assert.deepEqual(
      outcome.result?.failed.map((x) => `${x.op.action} ${x.op.key}: ${x.error.message}`),
      [],
    );
    assert.deepEqual(outcome.plan.pending, []);
    return outcome;
  };
  const fullPlan = async (routes: Routes): Promise<string[]> => {
    const { plan } = await reconcile(configOf(underlay.name, routes), {
      client,
      host: NO_HOST_LINKS,
      files: NO_HOST_FILES,
      globals,
      planOnly: true,
    });
    return plan.ops.map((o) => `${o.action} ${o.key}`);
  };
  /** Runs a delta, returning the names of the requests it sent (to any VPP from this process). */
  const delta = async (
    changes: readonly RemoteRouteChange[],
    routes: Routes = BASE,
    opts: { shouldStop?: () => boolean } = {},
  ): Promise<{ outcome: RouteDeltaOutcome; requests: string[] }> => {
    const requests: string[] = [];
    const onRequest = (m: unknown): void => {
      requests.push((m as RequestDiagnostic).name);
    };
    const handledBefore = target.sim?.handled ?? 0;
    diagnostics.subscribe('vppnet:vpp:request', onRequest);
    try {
      const outcome = await reconcileRouteChanges(configOf(underlay.name, routes), model, changes, {
        client,
        ...opts,
      });
      if (target.sim) {
        // The simulator saw exactly these requests: nothing went around the client's diagnostics.
        await target.sim.whenHandled(handledBefore + requests.length);
        assert.equal(target.sim.handled, handledBefore + requests.length);
      }
      return { outcome, requests };
    } finally {
      diagnostics.unsubscribe('vppnet:vpp:request', onRequest);
    }
  };
  /** VPP's steering entries of vppnet: "table prefix → remote SID" (through the policies). */
  const steeringInVpp = async (): Promise<string[]> => {
    const policies = await client.dump(msg.sr_policies_v2_dump, {});
    const sidOf = new Map(policies.map((p) => [p.bsid, p.sid_lists[0]?.sids[0]]));
    const steering = await client.dump(msg.sr_steering_pol_dump, {});
    return steering
      .filter((s) => s.bsid.startsWith('fc00:1:ff::'))
      .map((s) => `${s.fib_table} ${s.prefix.address.un.ip4}/${s.prefix.len} → ${sidOf.get(s.bsid)}`)
      .sort();
  };
  const steeringInModel = (): string[] =>
    [...model.entries()].map((e) => `${e.table} ${e.prefix} → ${e.sid}`).sort();

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
    // Leave a real VPP as found: an empty desired state removes all vppnet owns.
    try {
      const empty = configOf(underlay.name, new Map(), false);
      await reconcile(empty, { client, host: NO_HOST_LINKS, files: NO_HOST_FILES, globals });
      await removeUnderlay(other, underlay);
    } finally {
      await client.close();
      await other.close();
      await target.close();
    }
  });
  beforeEach(async () => {
    const base = await full(BASE);
    assert.ok(base.steering, 'the full pass converged and built its steering model');
    model = base.steering;
  });

  it('builds the steering model of a converged full pass as VPP has it', async () => {
    assert.equal(model.size, 4);
    assert.equal(model.policyCount, 3);
    assert.deepEqual(steeringInModel(), await steeringInVpp());
  });

  it('moves an endpoint between two nodes with one steering update and no dump', async () => {
    const move = [change('vpc-1', '10.1.0.0/24', 'fc00:3::64')];
    const { outcome, requests } = await delta(move);
    assert.deepEqual(requests, ['sr_steering_add_del']);
    assert.deepEqual(
      outcome.plan.ops.map((o) => `${o.action} ${o.key}`),
      ['update sr-steering:ip4:100:10.1.0.0/24'],
    );
    assert.equal(outcome.modelValid, true);
    assert.deepEqual(await steeringInVpp(), steeringInModel());
    assert.ok(steeringInModel().includes('100 10.1.0.0/24 → fc00:3::64'));
    assert.deepEqual(await fullPlan(applied(BASE, move)), []);
  });

  it("gives a new remote node's SID its policy first, with the lowest free BSID", async () => {
    const add = [change('vpc-2', '10.2.0.0/24', 'fc00:4::65')];
    const { outcome, requests } = await delta(add);
    assert.deepEqual(requests, ['sr_policy_add', 'sr_steering_add_del']);
    assert.equal(outcome.modelValid, true);
    // fc00:1:ff::1-3 are the base's three policies.
    assert.equal(model.bsidOf('fc00:4::65'), 'fc00:1:ff::4');
    assert.deepEqual(await steeringInVpp(), steeringInModel());
    assert.deepEqual(await fullPlan(applied(BASE, add)), []);
  });

  it('deletes a policy after its last entry, and a later SID takes the freed BSID', async () => {
    const freed = model.bsidOf('fc00:3::64');
    const remove = [change('vpc-1', '10.1.2.0/24', undefined)];
    const { outcome, requests } = await delta(remove);
    assert.deepEqual(requests, ['sr_steering_add_del', 'sr_policy_del']);
    assert.deepEqual(
      outcome.plan.ops.map((o) => `${o.action} ${o.key}`),
      ['delete sr-steering:ip4:100:10.1.2.0/24', `delete sr-policy:${freed}`],
    );
    assert.equal(model.bsidOf('fc00:3::64'), undefined);
    const routes = applied(BASE, remove);
    assert.deepEqual(await fullPlan(routes), []);

    const add = [change('vpc-1', '10.1.7.0/24', 'fc00:5::64')];
    const second = await delta(add, routes);
    assert.deepEqual(second.requests, ['sr_policy_add', 'sr_steering_add_del']);
    assert.equal(model.bsidOf('fc00:5::64'), freed);
    assert.deepEqual(await fullPlan(applied(routes, add)), []);
  });

  it('re-points every entry of a node whose SID changed in place, then deletes the old policy', async () => {
    // hv2's vpc-1 SID changes (a new locator): both of its entries move to the new SID's policy
    // by updates, without a gap; the old policy goes after them, by a second plan (deleting it in
    // the first would take its entries along: the planner deletes a policy's dependents first).
    const old = model.bsidOf('fc00:2::64');
    const moves = [
      change('vpc-1', '10.1.0.0/24', 'fc00:12::64'),
      change('vpc-1', '10.1.1.0/24', 'fc00:12::64'),
    ];
    const { outcome, requests } = await delta(moves);
    assert.deepEqual(
      outcome.plan.ops.map((o) => `${o.action} ${o.key}`),
      [
        'create sr-policy:fc00:1:ff::4',
        'update sr-steering:ip4:100:10.1.0.0/24',
        'update sr-steering:ip4:100:10.1.1.0/24',
        `delete sr-policy:${old}`,
      ],
    );
    assert.deepEqual(requests, [
      'sr_policy_add',
      'sr_steering_add_del',
      'sr_steering_add_del',
      'sr_policy_del',
    ]);
    assert.equal(outcome.modelValid, true);
    assert.equal(model.bsidOf('fc00:2::64'), undefined);
    assert.deepEqual(await steeringInVpp(), steeringInModel());
    assert.deepEqual(await fullPlan(applied(BASE, moves)), []);
  });

  it('builds no model from a full pass whose policies or steering did not converge', async () => {
    const routes = applied(BASE, [change('vpc-2', '10.2.0.0/24', 'fc00:4::65')]);
    const stopped = await reconcile(configOf(underlay.name, routes), {
      client,
      host: NO_HOST_LINKS,
      files: NO_HOST_FILES,
      globals,
      shouldStop: () => true,
    });
    assert.ok((stopped.result?.skipped.length ?? 0) >= 2);
    assert.equal(stopped.steering, undefined);
    const planned = await reconcile(configOf(underlay.name, routes), {
      client,
      host: NO_HOST_LINKS,
      files: NO_HOST_FILES,
      globals,
      planOnly: true,
    });
    assert.equal(planned.steering, undefined, 'a plan applies nothing');
  });

  it('costs nothing for changes VPP already has, and the last of several changes to one entry wins', async () => {
    const same = [change('vpc-1', '10.1.0.0/24', 'fc00:2::64'), change('vpc-2', '10.9.0.0/24', undefined)];
    const { outcome, requests } = await delta(same);
    assert.deepEqual(requests, []);
    assert.deepEqual(outcome.plan.ops, []);
    assert.equal(outcome.modelValid, true);

    const flapping = [
      change('vpc-1', '10.1.0.0/24', 'fc00:3::64'),
      change('vpc-1', '10.1.0.0/24', undefined),
      change('vpc-1', '10.1.0.0/24', 'fc00:2::64'),
    ];
    assert.deepEqual((await delta(flapping)).requests, []);
  });

  it('refuses bad input naming it, and does nothing', async () => {
    const before = steeringInModel();
    const cases: [RemoteRouteChange[], RegExp][] = [
      [
        [change('vpc-1', '10.1.5.0/24', 'fc00:3::64'), change('vpc-9', '10.1.0.0/24', 'fc00:2::64')],
        /route change 1 .*vpc: no VPC named "vpc-9" in this node's config/,
      ],
      [
        [change('vpc-1', '10.1.5.7/24', 'fc00:3::64')],
        /prefix: host bits set: the network is 10\.1\.5\.0\/24/,
      ],
      [[change('vpc-1', '10.1.5.0/24', 'fc00:1::99')], /sid: is inside this node's own locator/],
      [[change('vpc-1', '10.1.5.0/24', 'not-an-address')], /sid: must be an IPv6 address/],
    ];
    for (const [changes, message] of cases) {
      const requests: string[] = [];
      const onRequest = (m: unknown): void => void requests.push((m as RequestDiagnostic).name);
      diagnostics.subscribe('vppnet:vpp:request', onRequest);
      try {
        await assert.rejects(
          delta(changes),
          (err: Error) => err instanceof RouteChangeError && message.test(err.message),
        );
      } finally {
        diagnostics.unsubscribe('vppnet:vpp:request', onRequest);
      }
      assert.deepEqual(requests, []);
    }
    assert.equal(model.valid, true);
    assert.deepEqual(steeringInModel(), before);
    assert.deepEqual(await steeringInVpp(), before);
  });

  it('agrees with the full pass after every batch of a seeded random sequence', async () => {
    let seed = 0x9e3779b9;
    const random = (n: number): number => {
      // xorshift32: the same sequence on every run.
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    const vpcs = ['vpc-1', 'vpc-2'];
    const prefixes = Array.from({ length: 8 }, (_, i) => `10.1.${i}.0/24`);
    // Per VPC, the SIDs of four remote nodes (hv2..hv5): fc00:N::64 for vpc-1, ::65 for vpc-2.
    const sids = (vpc: string): string[] =>
      [2, 3, 4, 5].map((n) => `fc00:${n}::${vpc === 'vpc-1' ? '64' : '65'}`);
    let routes: Routes = BASE;
    let ops = 0;
    for (let batch = 0; batch < 25; batch++) {
      const changes = Array.from({ length: 1 + random(4) }, () => {
        const vpc = vpcs[random(2)] as string;
        const sid = random(4) === 0 ? undefined : sids(vpc)[random(4)];
        return change(vpc, prefixes[random(prefixes.length)] as string, sid);
      });
      const { outcome } = await delta(changes, routes);
      assert.equal(outcome.modelValid, true, `batch ${batch}`);
      ops += outcome.plan.ops.length;
      routes = applied(routes, changes);
      assert.deepEqual(await fullPlan(routes), [], `batch ${batch}: the full pass plans nothing`);
      assert.deepEqual((await auditSteering(client, model)).differences, [], `batch ${batch}: audit`);
      assert.equal(model.size, routes.size);
    }
    assert.ok(ops > 25, `the sequence did change VPP (${ops} ops)`);
    assert.deepEqual(await steeringInVpp(), steeringInModel());
  });

  it('audits VPP against the model: nothing when in sync, else what someone else changed, by key', async () => {
    assert.deepEqual(await auditSteering(client, model), { policies: 3, entries: 4, differences: [] });
    const hv2 = model.bsidOf('fc00:2::64') as string;
    const hv3 = model.bsidOf('fc00:3::64') as string;
    const steer = (isDel: boolean, table: number, prefix: string, bsid: string): Promise<unknown> => {
      const p = parseIp4Prefix(prefix)!;
      return other.call(msg.sr_steering_add_del, {
        is_del: isDel,
        bsid_addr: bsid,
        sr_policy_index: 0,
        table_id: table,
        prefix: { address: { af: 0, un: { ip4: p.address } }, len: p.len },
        sw_if_index: 0,
        traffic_type: msg.sr_steer_t.values.SR_STEER_API_IPV4,
      });
    };
    // Someone else removes hv3's policy (its one entry first), re-points vpc-2's entry at hv2's
    // vpc-1 policy and steers a prefix of their own into vpc-1's table through hv2's policy.
    await steer(true, 100, '10.1.2.0/24', hv3);
    await other.call(msg.sr_policy_del, { bsid_addr: hv3, sr_policy_index: 0 });
    await steer(false, 101, '10.1.0.0/24', hv2);
    await steer(false, 100, '10.9.0.0/16', hv2);
    const audit = await auditSteering(client, model);
    assert.deepEqual(
      audit.differences.map((d) => `${d.key}: ${d.what}`).sort(),
      [
        `sr-policy:${hv3}: missing (to fc00:3::64)`,
        'sr-steering:ip4:100:10.1.2.0/24: missing',
        `sr-steering:ip4:100:10.9.0.0/16: to ${hv2}, not in the model`,
        `sr-steering:ip4:101:10.1.0.0/24: to ${hv2}, the model to fc00:2::65 (${model.bsidOf('fc00:2::65')})`,
      ].sort(),
    );
    // A full pass repairs it all; a new model then audits clean.
    const repaired = await full(BASE);
    assert.ok(repaired.steering);
    assert.deepEqual((await auditSteering(client, repaired.steering)).differences, []);
  });

  it('invalidates the model when VPP refuses an op mid-delta, naming the message and retval', async () => {
    // Someone removes hv3's policy behind the agent's back (its one steering entry first).
    const bsid = model.bsidOf('fc00:3::64') as string;
    await other.call(msg.sr_steering_add_del, {
      is_del: true,
      bsid_addr: bsid,
      table_id: 100,
      prefix: { address: { af: 0, un: { ip4: '10.1.2.0' } }, len: 24 },
      traffic_type: 4,
    });
    await other.call(msg.sr_policy_del, { bsid_addr: bsid });

    const changes = [
      change('vpc-1', '10.1.0.0/24', 'fc00:3::64'),
      change('vpc-2', '10.1.5.0/24', 'fc00:2::65'),
    ];
    const { outcome, requests } = await delta(changes);
    assert.deepEqual(requests, ['sr_steering_add_del', 'sr_steering_add_del']);
    assert.equal(outcome.modelValid, false);
    const failures = outcome.result.failed.map((x) => `${x.op.action} ${x.op.key}: ${x.error.message}`);
    assert.equal(failures.length, 1);
    assert.match(
      failures[0]!,
      /^update sr-steering:ip4:100:10\.1\.0\.0\/24: sr_steering_add_del: VPP returned -2 /,
    );
    assert.equal(model.valid, false);
    assert.match(model.invalidReason ?? '', /sr_steering_add_del: VPP returned -2/);
    // An invalid model serves no further delta, and nothing is sent.
    const next = delta([change('vpc-1', '10.1.6.0/24', 'fc00:2::64')]);
    await assert.rejects(
      next,
      (err: Error) => err instanceof SteeringModelError && /invalid/.test(err.message),
    );

    // The full pass repairs VPP and gives a new model.
    const routes = applied(BASE, changes);
    const repaired = await full(routes);
    assert.ok(repaired.steering);
    model = repaired.steering;
    assert.deepEqual(await fullPlan(routes), []);
    assert.deepEqual(await steeringInVpp(), steeringInModel());
  });

  it('invalidates the model when the pass is stopped before its ops', async () => {
    const { outcome, requests } = await delta([change('vpc-1', '10.1.6.0/24', 'fc00:4::64')], BASE, {
      shouldStop: () => true,
    });
    assert.deepEqual(requests, []);
    assert.equal(outcome.modelValid, false);
    assert.equal(outcome.result.skipped.length, 2);
    assert.match(model.invalidReason ?? '', /skipped: stopped/);
  });

  it('refuses a model of another VPP process or another SRv6 config', async () => {
    const config = configOf(underlay.name, BASE);
    const stale = SteeringModel.converged(config, client.vppPid + 1, new Map(), new SteeringEntries());
    await assert.rejects(
      reconcileRouteChanges(config, stale, [change('vpc-1', '10.1.6.0/24', 'fc00:2::64')], { client }),
      (err: Error) => err instanceof SteeringModelError && /VPP process/.test(err.message),
    );
    assert.equal(stale.valid, false);
    const otherSource = validateConfig({
      node: {
        name: 'hv1',
        underlay: { interface: underlay.name, address: '2001:db8::1/64', gateway: '2001:db8::2' },
        srv6: { locator: 'fc00:1::/48', encapSource: '2001:db8::99' },
      },
      vpcs: [{ name: 'vpc-1', id: 100, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' }],
      ports: [],
      remoteRoutes: [],
    });
    await assert.rejects(
      reconcileRouteChanges(otherSource, model, [change('vpc-1', '10.1.6.0/24', 'fc00:2::64')], { client }),
      (err: Error) => err instanceof SteeringModelError && /encap source/.test(err.message),
    );
    assert.equal(model.valid, true);
  });
});
