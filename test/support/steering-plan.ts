/**
 * Steering scenarios planned both ways: as the bulk kind (SteeringEntries compared by
 * compareSteeringSides) and as plain Resources, as the planner got them before; the tests compare the two.
 */
import assert from 'node:assert/strict';
import { hypervisorKinds as descriptors } from '../../src/hypervisor/kinds.js';
import { keys } from '../../src/dataplane/keys.js';
import { SteeringEntries } from '../../src/srv6/steering-entries.js';
import { plan } from '../../src/reconcile/planner.js';
import type { Plan, Resource } from '../../src/reconcile/resource.js';
import type { IpTableValue } from '../../src/dataplane/ip-descriptors.js';
import type {
  EncapSourceValue,
  HopLimitValue,
  PolicyValue,
  SteeringValue,
} from '../../src/srv6/descriptors.js';
import { compareSteeringSides } from '../../src/srv6/steering-resources.js';

export interface Steer {
  readonly table: number;
  readonly prefix: string;
  readonly bsid: string;
}

export function entries(list: readonly Steer[], family: 4 | 6 = 4): SteeringEntries {
  const e = new SteeringEntries(1, family);
  for (const s of list) {
    const [address, len] = s.prefix.split('/') as [string, string];
    e.add(s.table, address, Number(len), s.bsid);
  }
  return e;
}

/**
 * A steering entry as a plain Resource, as the planner got them before steering became a bulk
 * kind (IPv4), or before IPv6 steering did (with the policy and the IPv6 table as its deps).
 */
export function plainSteering(s: Steer, ip6 = false): Resource<SteeringValue> {
  return {
    kind: ip6 ? 'sr-steering6' : 'sr-steering',
    key: keys.srSteering(s.table, s.prefix, ip6),
    deps: [keys.srPolicy(s.bsid), keys.ipTable(s.table, ip6)],
    value: { ...s },
  };
}

export const table = (id: number, ip6 = false): Resource<IpTableValue> => ({
  kind: 'ip-table',
  key: keys.ipTable(id, ip6),
  deps: [],
  value: { table: id, ip6, name: `vppnet:vpc:t${id}` },
});
export const encap = (address: string): Resource<EncapSourceValue> => ({
  kind: 'sr-encap-source',
  key: keys.srEncapSource(),
  deps: [],
  value: { address },
});
export const hopLimit: Resource<HopLimitValue> = {
  kind: 'sr-hop-limit',
  key: keys.srHopLimit(),
  deps: [],
  value: { hopLimit: 64 },
};
export const policy = (
  bsid: string,
  encapSource = '2001:db8::1',
  deps = [keys.srEncapSource(), keys.srHopLimit()],
): Resource<PolicyValue> => ({
  kind: 'sr-policy',
  key: keys.srPolicy(bsid),
  deps,
  value: { bsid, sids: ['fc00:2::1'], encapSource, fibTable: 0 },
});

export interface Scenario {
  readonly desired: readonly Resource[];
  readonly actual: readonly Resource[];
  readonly wantSteering: readonly Steer[];
  readonly haveSteering: readonly Steer[];
  /** IPv6 entries beside them (in IPv6 tables). */
  readonly wantSteering6?: readonly Steer[];
  readonly haveSteering6?: readonly Steer[];
}

export function bulkPlan(s: Scenario): Plan {
  return plan(
    s.desired,
    s.actual,
    descriptors,
    compareSteeringSides(
      { steering: entries(s.wantSteering), steering6: entries(s.wantSteering6 ?? [], 6) },
      { steering: entries(s.haveSteering), steering6: entries(s.haveSteering6 ?? [], 6) },
    ),
  );
}

export function plainPlan(s: Scenario): Plan {
  const plain6 = (list: readonly Steer[] = []): Resource[] => list.map((x) => plainSteering(x, true));
  return plan(
    [...s.desired, ...s.wantSteering.map((x) => plainSteering(x)), ...plain6(s.wantSteering6)],
    [...s.actual, ...s.haveSteering.map((x) => plainSteering(x)), ...plain6(s.haveSteering6)],
    descriptors,
  );
}

/** Everything a plan says, in order. */
function describePlan(p: Plan): unknown {
  return {
    ops: p.ops.map((o) => ({
      action: o.action,
      key: o.resource.key,
      level: o.level,
      reason: o.reason,
      deps: o.resource.deps,
      value: o.resource.value,
      previous: o.previous?.value,
    })),
    pending: p.pending.map((x) => ({
      key: x.resource.key,
      waitingFor: x.waitingFor,
      value: x.resource.value,
    })),
    unchanged: p.unchanged,
  };
}

export function assertSamePlan(s: Scenario): Plan {
  const bulk = bulkPlan(s);
  assert.deepEqual(describePlan(bulk), describePlan(plainPlan(s)));
  return bulk;
}

export const B1 = 'fc00:1:ff::1';
export const B2 = 'fc00:1:ff::2';
export const B3 = 'fc00:1:ff::3';
export const base = [encap('2001:db8::1'), hopLimit, table(10), table(11), policy(B1), policy(B2)];

export const opsOf = (p: Plan): string[] => p.ops.map((o) => `${o.action} ${o.resource.key} (${o.reason})`);
