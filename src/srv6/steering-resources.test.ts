import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hypervisorKinds as descriptors } from '../hypervisor/kinds.js';
import { keys } from '../dataplane/keys.js';
import { emptySnapshot } from '../hypervisor/snapshot.js';
import { SteeringEntries } from '../dataplane/steering-entries.js';
import { plan } from '../reconcile/planner.js';
import type { Plan, Resource } from '../reconcile/resource.js';
import type { IpTableValue } from '../dataplane/ip-descriptors.js';
import { actualSteering } from './actual.js';
import type { EncapSourceValue, HopLimitValue, PolicyValue, SteeringValue } from './descriptors.js';
import { compareSteeringSides, SteeringResources } from './steering-resources.js';
import { steering6Descriptor, steeringDescriptor } from './descriptors.js';
import type { DataplaneContext } from '../dataplane/context.js';
import { decodeMessage, encodeMessage } from '../vpp/codec/message-codec.js';
import { FRAME_HEADER_LENGTH } from '../vpp/wire/frame.js';
import { canonicalIp6 } from '../net/ip.js';
import { msg } from '../vpp/messages/index.js';
import type { MessageDef } from '../vpp/codec/schema.js';
import type { AgentConfig } from '../config/model.js';

interface Steer {
  readonly table: number;
  readonly prefix: string;
  readonly bsid: string;
}

function entries(list: readonly Steer[], family: 4 | 6 = 4): SteeringEntries {
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
function plainSteering(s: Steer, ip6 = false): Resource<SteeringValue> {
  return {
    kind: ip6 ? 'sr-steering6' : 'sr-steering',
    key: keys.srSteering(s.table, s.prefix, ip6),
    deps: [keys.srPolicy(s.bsid), keys.ipTable(s.table, ip6)],
    value: { ...s },
  };
}

const table = (id: number, ip6 = false): Resource<IpTableValue> => ({
  kind: 'ip-table',
  key: keys.ipTable(id, ip6),
  deps: [],
  value: { table: id, ip6, name: `vppnet:vpc:t${id}` },
});
const encap = (address: string): Resource<EncapSourceValue> => ({
  kind: 'sr-encap-source',
  key: keys.srEncapSource(),
  deps: [],
  value: { address },
});
const hopLimit: Resource<HopLimitValue> = {
  kind: 'sr-hop-limit',
  key: keys.srHopLimit(),
  deps: [],
  value: { hopLimit: 64 },
};
const policy = (
  bsid: string,
  encapSource = '2001:db8::1',
  deps = [keys.srEncapSource(), keys.srHopLimit()],
): Resource<PolicyValue> => ({
  kind: 'sr-policy',
  key: keys.srPolicy(bsid),
  deps,
  value: { bsid, sids: ['fc00:2::1'], encapSource, fibTable: 0 },
});

interface Scenario {
  readonly desired: readonly Resource[];
  readonly actual: readonly Resource[];
  readonly wantSteering: readonly Steer[];
  readonly haveSteering: readonly Steer[];
  /** IPv6 entries beside them (in IPv6 tables). */
  readonly wantSteering6?: readonly Steer[];
  readonly haveSteering6?: readonly Steer[];
}

function bulkPlan(s: Scenario): Plan {
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

function plainPlan(s: Scenario): Plan {
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

function assertSamePlan(s: Scenario): Plan {
  const bulk = bulkPlan(s);
  assert.deepEqual(describePlan(bulk), describePlan(plainPlan(s)));
  return bulk;
}

const B1 = 'fc00:1:ff::1';
const B2 = 'fc00:1:ff::2';
const B3 = 'fc00:1:ff::3';
const base = [encap('2001:db8::1'), hopLimit, table(10), table(11), policy(B1), policy(B2)];

const opsOf = (p: Plan): string[] => p.ops.map((o) => `${o.action} ${o.resource.key} (${o.reason})`);

describe('steering as a bulk kind plans exactly what plain resources plan', () => {
  it('creates missing entries after their policy and table', () => {
    const p = assertSamePlan({
      desired: base,
      actual: [],
      wantSteering: [
        { table: 10, prefix: '10.1.0.0/24', bsid: B1 },
        { table: 11, prefix: '10.1.0.0/24', bsid: B2 },
      ],
      haveSteering: [],
    });
    const ops = opsOf(p);
    assert.ok(
      ops.indexOf(`create ${keys.srPolicy(B1)} (missing in VPP)`) <
        ops.indexOf('create sr-steering:ip4:10:10.1.0.0/24 (missing in VPP)'),
    );
    assert.ok(
      ops.indexOf('create ip-table:ip4:11 (missing in VPP)') <
        ops.indexOf('create sr-steering:ip4:11:10.1.0.0/24 (missing in VPP)'),
    );
  });

  it('plans nothing when VPP matches', () => {
    const steer = [{ table: 10, prefix: '10.1.0.0/24', bsid: B1 }];
    const p = assertSamePlan({ desired: base, actual: base, wantSteering: steer, haveSteering: steer });
    assert.deepEqual(p.ops, []);
    assert.equal(p.unchanged, base.length + 1);
  });

  it('removes entries no longer desired, before their policy', () => {
    const p = assertSamePlan({
      desired: [encap('2001:db8::1'), hopLimit, table(10), policy(B1)],
      actual: base,
      wantSteering: [{ table: 10, prefix: '10.1.0.0/24', bsid: B1 }],
      haveSteering: [
        { table: 10, prefix: '10.1.0.0/24', bsid: B1 },
        { table: 10, prefix: '10.2.0.0/24', bsid: B2 },
        { table: 11, prefix: '10.1.0.0/24', bsid: B2 },
      ],
    });
    const ops = opsOf(p);
    assert.deepEqual(ops.slice(0, 2), [
      'delete sr-steering:ip4:10:10.2.0.0/24 (not in the desired state)',
      'delete sr-steering:ip4:11:10.1.0.0/24 (not in the desired state)',
    ]);
    assert.ok(ops.includes(`delete ${keys.srPolicy(B2)} (not in the desired state)`));
  });

  it('re-points an entry at another policy in place', () => {
    const p = assertSamePlan({
      desired: base,
      actual: base,
      wantSteering: [{ table: 10, prefix: '10.1.0.0/24', bsid: B2 }],
      haveSteering: [{ table: 10, prefix: '10.1.0.0/24', bsid: B1 }],
    });
    assert.deepEqual(opsOf(p), ['update sr-steering:ip4:10:10.1.0.0/24 (differs from VPP)']);
    assert.deepEqual(p.ops[0]?.previous?.value, { table: 10, prefix: '10.1.0.0/24', bsid: B1 });
  });

  it('deletes and recreates the entries of a policy that is recreated, and drops those of a removed table', () => {
    const p = assertSamePlan({
      desired: [
        encap('2001:db8::9'),
        hopLimit,
        table(10),
        policy(B1, '2001:db8::9'),
        policy(B2, '2001:db8::9'),
      ],
      actual: base,
      wantSteering: [
        { table: 10, prefix: '10.1.0.0/24', bsid: B1 },
        { table: 10, prefix: '10.2.0.0/24', bsid: B2 },
      ],
      haveSteering: [
        { table: 10, prefix: '10.1.0.0/24', bsid: B1 },
        { table: 10, prefix: '10.2.0.0/24', bsid: B1 },
        { table: 11, prefix: '10.1.0.0/24', bsid: B2 },
      ],
    });
    const ops = opsOf(p);
    assert.ok(
      ops.includes(`delete sr-steering:ip4:10:10.1.0.0/24 (recreated with ${keys.srPolicy(B1)})`),
      ops.join('\n'),
    );
    assert.ok(
      ops.includes(`create sr-steering:ip4:10:10.2.0.0/24 (recreated with ${keys.srPolicy(B1)})`),
      ops.join('\n'),
    );
    assert.ok(
      ops.includes('delete sr-steering:ip4:11:10.1.0.0/24 (not in the desired state)'),
      ops.join('\n'),
    );
  });

  it('keeps entries pending whose policy cannot be created, saying why', () => {
    const nic: Resource = {
      kind: 'interface',
      key: keys.interface('nic0'),
      deps: [],
      value: { type: 'external', name: 'nic0' },
      external: true,
    };
    const p = assertSamePlan({
      desired: [...base, nic, policy(B3, '2001:db8::1', [keys.interface('nic0')])],
      actual: base,
      wantSteering: [
        { table: 10, prefix: '10.1.0.0/24', bsid: B3 },
        { table: 10, prefix: '10.9.0.0/24', bsid: 'fc00:1:ff::77' },
      ],
      haveSteering: [{ table: 10, prefix: '10.1.0.0/24', bsid: B1 }],
    });
    assert.deepEqual(
      p.pending.map((x) => `${x.resource.key}: ${x.waitingFor}`),
      [
        'interface:nic0: interface:nic0 does not exist in VPP (vppnet never creates it)',
        `${keys.srPolicy(B3)}: interface:nic0 does not exist in VPP (vppnet never creates it)`,
        `sr-steering:ip4:10:10.1.0.0/24: ${keys.srPolicy(B3)}, itself waiting for interface:nic0 does not exist in VPP (vppnet never creates it)`,
        `sr-steering:ip4:10:10.9.0.0/24: ${keys.srPolicy('fc00:1:ff::77')}: not part of the desired state`,
      ],
    );
    assert.deepEqual(opsOf(p), [], 'a pending entry keeps what VPP has');
  });

  it("deletes a pending entry's old version with its policy, without creating it", () => {
    const p = assertSamePlan({
      desired: [encap('2001:db8::1'), hopLimit, table(10), policy(B1)],
      actual: base,
      wantSteering: [{ table: 10, prefix: '10.1.0.0/24', bsid: B3 }],
      haveSteering: [{ table: 10, prefix: '10.1.0.0/24', bsid: B2 }],
    });
    assert.deepEqual(opsOf(p), [
      `delete sr-steering:ip4:10:10.1.0.0/24 (removed with ${keys.srPolicy(B2)})`,
      `delete ${keys.srPolicy(B2)} (not in the desired state)`,
      'delete ip-table:ip4:11 (not in the desired state)',
    ]);
    assert.deepEqual(
      p.pending.map((x) => x.resource.key),
      ['sr-steering:ip4:10:10.1.0.0/24'],
    );
  });

  it('rejects two desired entries with one key, as for plain resources', () => {
    const dup = { table: 10, prefix: '10.1.0.0/24', bsid: B1 };
    assert.throws(
      () =>
        bulkPlan({ desired: base, actual: [], wantSteering: [dup, { ...dup, bsid: B2 }], haveSteering: [] }),
      /duplicate desired resource key sr-steering:ip4:10:10.1.0.0\/24/,
    );
  });

  it('agrees on random states (add, remove, re-point, recreated policies, removed tables, pending)', () => {
    let seed = 42;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return Math.floor(seed / 65536) % n; // an LCG's low bits repeat quickly
    };
    const bsids = [B1, B2, B3, 'fc00:1:ff::4'];
    const seen = new Set<string>();
    for (let round = 0; round < 200; round++) {
      const tables = [10, 11, 12, 13];
      const wantTables = tables.filter(() => random(4) > 0);
      const haveTables = tables.filter(() => random(4) > 0);
      const wantPolicies = bsids.filter(() => random(4) > 0);
      const havePolicies = bsids.filter(() => random(4) > 0);
      const desired = [
        encap('2001:db8::1'),
        hopLimit,
        ...wantTables.map((t) => table(t)),
        ...wantPolicies.map((b) => policy(b)),
      ];
      const actual = [
        encap('2001:db8::1'),
        hopLimit,
        ...haveTables.map((t) => table(t)),
        ...havePolicies.map((b) => policy(b, random(3) === 0 ? '2001:db8::2' : '2001:db8::1')),
      ];
      const steer = (from: readonly number[]): Steer[] => {
        const out = new Map<string, Steer>();
        for (let k = random(30); k > 0; k--) {
          const s = {
            table: from[random(from.length)] ?? 10,
            prefix: `10.${random(4)}.${random(3)}.0/24`,
            bsid: bsids[random(bsids.length)] as string,
          };
          out.set(`${s.table} ${s.prefix}`, s);
        }
        return [...out.values()];
      };
      const p = assertSamePlan({
        desired,
        actual,
        wantSteering: steer(tables),
        haveSteering: steer(haveTables),
      });
      for (const o of p.ops)
        if (o.resource.kind === 'sr-steering')
          seen.add(`${o.action} ${o.reason.replace(/ sr-.*| ip-.*/, '')}`);
      if (p.pending.some((x) => x.resource.kind === 'sr-steering')) seen.add('pending');
    }
    // The random states went through every path.
    assert.deepEqual([...seen].sort(), [
      'create missing in VPP',
      'create recreated with',
      'delete not in the desired state',
      'delete recreated with',
      'delete removed with',
      'pending',
      'update differs from VPP',
    ]);
  });
});

describe('actualSteering', () => {
  it("keeps only entries, IPv4 and IPv6, that point into the node's BSID prefix", () => {
    const s = {
      ...emptySnapshot(),
      steering: entries([
        { table: 10, prefix: '10.1.0.0/24', bsid: B1 },
        { table: 77, prefix: '203.0.113.0/24', bsid: 'fd99::1' },
        { table: 10, prefix: '10.2.0.0/24', bsid: B2 },
      ]),
      steering6: entries(
        [
          { table: 77, prefix: '2001:db8:77::/64', bsid: 'fd99::1' },
          { table: 10, prefix: '2001:db8:a::5/128', bsid: B2 },
          { table: 10, prefix: '::/1', bsid: B1 },
        ],
        6,
      ),
    };
    const config = {
      node: { srv6: { bsidPrefix: { address: 'fc00:1:ff::', len: 64 } } },
    } as unknown as AgentConfig;
    const own = actualSteering(s, config);
    const list = (e: SteeringEntries): string[] =>
      Array.from({ length: e.size }, (_, i) => `${e.table(i)} ${e.prefix(i)} ${e.bsid(i)}`);
    assert.deepEqual(list(own.steering), [`10 10.1.0.0/24 ${B1}`, `10 10.2.0.0/24 ${B2}`]);
    assert.equal(own.steering6.family, 6);
    assert.deepEqual(list(own.steering6), [`10 2001:db8:a::5/128 ${B2}`, `10 ::/1 ${B1}`]);
  });
});

describe('SteeringEntries', () => {
  it('grows past its capacity and gives back what was added', () => {
    const e = new SteeringEntries(1);
    for (let i = 0; i < 300; i++) e.add(4_000_000_000 + i, `10.${i >> 8}.${i & 255}.0`, 24, i % 2 ? B1 : B2);
    assert.equal(e.size, 300);
    assert.equal(e.table(299), 4_000_000_299);
    assert.equal(e.prefix(299), '10.1.43.0/24');
    assert.equal(e.bsid(299), B1);
    assert.deepEqual(e.bsids, [B2, B1], 'each BSID stored once');
    assert.equal(e.prefix(0), '10.0.0.0/24');
  });

  it('gives the same entries with other BSIDs, neither side changed by adding to the other', () => {
    const bySid = new SteeringEntries(2);
    bySid.add(10, '10.1.0.0', 24, 'sid-a');
    bySid.add(10, '10.2.0.0', 24, 'sid-b');
    const withBsids = bySid.withBsids([B1, B2]);
    const list = (e: SteeringEntries): string[] =>
      Array.from({ length: e.size }, (_, i) => `${e.table(i)} ${e.prefix(i)} ${e.bsid(i)}`);
    assert.deepEqual(list(withBsids), [`10 10.1.0.0/24 ${B1}`, `10 10.2.0.0/24 ${B2}`]);
    withBsids.add(11, '10.3.0.0', 24, B2);
    bySid.add(12, '10.4.0.0', 24, 'sid-a');
    assert.deepEqual(list(withBsids), [
      `10 10.1.0.0/24 ${B1}`,
      `10 10.2.0.0/24 ${B2}`,
      `11 10.3.0.0/24 ${B2}`,
    ]);
    assert.deepEqual(list(bySid), ['10 10.1.0.0/24 sid-a', '10 10.2.0.0/24 sid-b', '12 10.4.0.0/24 sid-a']);
    assert.equal(withBsids.bsidIndex(2), 1, 'an added entry finds its BSID');
    assert.throws(() => bySid.withBsids([B1]), /1 BSIDs for 2/);
  });

  it('orders entries by table, address, then length', () => {
    const e = entries([
      { table: 11, prefix: '10.0.0.0/24', bsid: B1 },
      { table: 10, prefix: '192.168.0.0/16', bsid: B1 },
      { table: 10, prefix: '10.0.0.0/24', bsid: B1 },
      { table: 10, prefix: '10.0.0.0/8', bsid: B1 },
    ]);
    assert.deepEqual([...e.sortedOrder()], [3, 2, 1, 0]);
  });

  it('orders many entries as comparing them one by one does, stably for equal keys', () => {
    const e = new SteeringEntries(1);
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const tableChoices = [0, 1, 10, 2 ** 31, 2 ** 32 - 1];
    const addressChoices = ['0.0.0.0', '10.0.0.0', '10.0.1.0', '128.0.0.0', '255.255.255.255'];
    for (let i = 0; i < 2000; i++) {
      e.add(tableChoices[next(5)] as number, addressChoices[next(5)] as string, next(33), B1);
    }
    const expected = Array.from({ length: e.size }, (_, i) => i).sort((a, b) => e.compare(a, e, b) || a - b);
    assert.deepEqual([...e.sortedOrder()], expected);
  });
});

describe('a steering member applied from its columns', () => {
  it('sends the bytes the descriptor sends for its Resource, to create, delete and update', async () => {
    const sent: Buffer[] = [];
    const recorder = {
      client: {
        call: (def: MessageDef, input: Readonly<Record<string, unknown>>) => {
          sent.push(encodeMessage(def, 1, input));
          return Promise.resolve({ retval: 0 });
        },
      },
    } as unknown as DataplaneContext;
    const sides = [
      new SteeringResources(
        entries([
          { table: 4_000_000_000, prefix: '192.168.255.128/25', bsid: B1 },
          { table: 10, prefix: '0.0.0.0/0', bsid: 'fc00:1:ff:0:1:2:3:4' },
        ]),
      ),
      new SteeringResources(
        entries(
          [
            { table: 4_000_000_000, prefix: '2001:db8:a:0:5054:ff:fe62:a01/128', bsid: B1 },
            { table: 10, prefix: '::/1', bsid: 'fc00:1:ff:0:1:2:3:4' },
            { table: 10, prefix: '8000::/1', bsid: B2 },
            { table: 11, prefix: '::5/128', bsid: B2 },
            { table: 11, prefix: 'ffff:ffff:ffff:ffff::/64', bsid: B2 },
          ],
          6,
        ),
      ),
    ];
    for (const side of sides) {
      const descriptor = side.entries.family === 4 ? steeringDescriptor : steering6Descriptor;
      assert.equal(side.kind, descriptor.kind);
      for (let i = 0; i < side.size; i++) {
        for (const action of ['create', 'delete'] as const) {
          await side.apply(recorder, action, i);
          await descriptor[action](recorder, side.resource(i));
          const [fromColumns, fromResource] = sent.splice(0);
          assert.ok(fromColumns && fromResource);
          assert.equal(fromColumns.toString('hex'), fromResource.toString('hex'), `${action} ${side.key(i)}`);
        }
        // An update re-points the entry from another BSID: the desired member's request.
        const previous = descriptor.resource({ ...side.resource(i).value, bsid: 'fc00:1:ff::9' });
        await side.apply(recorder, 'update', i);
        await descriptor.update?.(recorder, side.resource(i), previous);
        const [fromColumns, fromResource] = sent.splice(0);
        assert.ok(fromColumns && fromResource);
        assert.equal(fromColumns.toString('hex'), fromResource.toString('hex'), `update ${side.key(i)}`);
        const request = decodeMessage(msg.sr_steering_add_del, fromColumns.subarray(FRAME_HEADER_LENGTH));
        assert.equal(request.is_del, false);
        assert.equal(request.traffic_type, side.entries.family);
      }
    }
  });
});

const base6 = [...base, table(10, true), table(11, true)];
const ip6Ops = (p: Plan): string[] => opsOf(p).filter((o) => o.includes('ip6'));

describe('IPv6 steering as a bulk kind plans exactly what plain resources plan', () => {
  it('creates missing entries after their policy and their IPv6 table, beside the IPv4 ones', () => {
    const p = assertSamePlan({
      desired: base6,
      actual: [],
      wantSteering: [{ table: 10, prefix: '10.1.0.0/24', bsid: B1 }],
      haveSteering: [],
      wantSteering6: [
        { table: 10, prefix: '2001:db8:a::5/128', bsid: B1 },
        { table: 11, prefix: '::/1', bsid: B2 },
        { table: 11, prefix: '8000::/1', bsid: B2 },
      ],
    });
    const ops = opsOf(p);
    const at = (op: string): number => {
      const i = ops.indexOf(op);
      assert.ok(i >= 0, `${op} in\n${ops.join('\n')}`);
      return i;
    };
    const entry = at('create sr-steering:ip6:10:2001:db8:a::5/128 (missing in VPP)');
    assert.ok(at(`create ${keys.srPolicy(B1)} (missing in VPP)`) < entry);
    assert.ok(at('create ip-table:ip6:10 (missing in VPP)') < entry);
    assert.ok(
      at('create ip-table:ip6:11 (missing in VPP)') < at('create sr-steering:ip6:11:::/1 (missing in VPP)'),
    );
    assert.ok(ops.includes('create sr-steering:ip4:10:10.1.0.0/24 (missing in VPP)'));
    assert.deepEqual(
      p.ops.filter((o) => o.kind === 'sr-steering6').map((o) => o.deps),
      [
        [keys.srPolicy(B1), 'ip-table:ip6:10'],
        [keys.srPolicy(B2), 'ip-table:ip6:11'],
        [keys.srPolicy(B2), 'ip-table:ip6:11'],
      ],
    );
  });

  it('plans nothing when VPP matches, however the addresses are spelled', () => {
    const p = bulkPlan({
      desired: base6,
      actual: base6,
      wantSteering: [],
      haveSteering: [],
      wantSteering6: [
        { table: 10, prefix: '2001:DB8:A:0:0::5/128', bsid: B1 },
        { table: 10, prefix: '::/1', bsid: B1 },
      ],
      // As the dump spells them, in another order.
      haveSteering6: [
        { table: 10, prefix: '::/1', bsid: B1 },
        { table: 10, prefix: '2001:db8:a::5/128', bsid: B1 },
      ],
    });
    assert.deepEqual(p.ops, []);
    assert.equal(p.unchangedByKind.get('sr-steering6'), 2);
  });

  it('re-points in place, deletes before the policy, recreates with a recreated policy, drops with a removed IPv6 table', () => {
    const p = assertSamePlan({
      desired: [
        encap('2001:db8::9'),
        hopLimit,
        table(10, true),
        policy(B1, '2001:db8::9'),
        policy(B2, '2001:db8::1'),
      ],
      actual: [...base6, policy(B3)],
      wantSteering: [],
      haveSteering: [],
      wantSteering6: [
        { table: 10, prefix: '2001:db8:a::5/128', bsid: B2 },
        { table: 10, prefix: '2001:db8:a::6/128', bsid: B1 },
      ],
      haveSteering6: [
        { table: 10, prefix: '2001:db8:a::5/128', bsid: B1 },
        { table: 10, prefix: '2001:db8:a::6/128', bsid: B1 },
        { table: 10, prefix: '2001:db8:a::7/128', bsid: B3 },
        { table: 11, prefix: '2001:db8:b::5/128', bsid: B3 },
      ],
    });
    const ops = ip6Ops(p);
    for (const op of [
      `delete sr-steering:ip6:10:2001:db8:a::6/128 (recreated with ${keys.srPolicy(B1)})`,
      `create sr-steering:ip6:10:2001:db8:a::6/128 (recreated with ${keys.srPolicy(B1)})`,
      'delete sr-steering:ip6:10:2001:db8:a::7/128 (not in the desired state)',
      'delete sr-steering:ip6:11:2001:db8:b::5/128 (not in the desired state)',
      'delete ip-table:ip6:11 (not in the desired state)',
    ])
      assert.ok(ops.includes(op), `${op} in\n${ops.join('\n')}`);
    // Moved off the recreated policy: deleted with it, then created on its new one (no update).
    assert.ok(
      ops.includes(`delete sr-steering:ip6:10:2001:db8:a::5/128 (recreated with ${keys.srPolicy(B1)})`),
    );
    assert.ok(
      ops.includes(`create sr-steering:ip6:10:2001:db8:a::5/128 (recreated with ${keys.srPolicy(B1)})`),
    );
    const all = opsOf(p);
    assert.ok(
      all.indexOf('delete sr-steering:ip6:11:2001:db8:b::5/128 (not in the desired state)') <
        all.indexOf('delete ip-table:ip6:11 (not in the desired state)'),
    );
    const update = assertSamePlan({
      desired: base6,
      actual: base6,
      wantSteering: [],
      haveSteering: [],
      wantSteering6: [{ table: 10, prefix: '2001:db8:a::5/128', bsid: B2 }],
      haveSteering6: [{ table: 10, prefix: '2001:db8:a::5/128', bsid: B1 }],
    });
    assert.deepEqual(opsOf(update), ['update sr-steering:ip6:10:2001:db8:a::5/128 (differs from VPP)']);
  });

  it('never creates an entry whose IPv6 table is not desired (steering into a missing table crashes VPP)', () => {
    const p = assertSamePlan({
      desired: [...base6, table(12)],
      actual: base6,
      wantSteering: [],
      haveSteering: [],
      // Table 12 is desired for IPv4 only.
      wantSteering6: [{ table: 12, prefix: '2001:db8:c::5/128', bsid: B1 }],
      haveSteering6: [],
    });
    assert.deepEqual(ip6Ops(p), []);
    assert.deepEqual(
      p.pending.map((x) => `${x.resource.key}: ${x.waitingFor}`),
      ['sr-steering:ip6:12:2001:db8:c::5/128: ip-table:ip6:12: not part of the desired state'],
    );
  });

  it('rejects two desired entries with one key, however spelled', () => {
    assert.throws(
      () =>
        bulkPlan({
          desired: base6,
          actual: [],
          wantSteering: [],
          haveSteering: [],
          wantSteering6: [
            { table: 10, prefix: '2001:db8:a::5/128', bsid: B1 },
            { table: 10, prefix: '2001:db8:a::6/128', bsid: B1 },
            { table: 10, prefix: '2001:db8:a:0:0:0:0:5/128', bsid: B2 },
          ],
        }),
      /duplicate desired resource key sr-steering:ip6:10:2001:db8:a::5\/128/,
    );
  });

  it('agrees on random states (add, remove, re-point, recreated policies, removed tables, pending)', () => {
    let seed = 4242;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return Math.floor(seed / 65536) % n;
    };
    const bsids = [B1, B2, B3, 'fc00:1:ff::4'];
    const prefixes = (): string => {
      switch (random(4)) {
        case 0:
          return `${canonicalIp6(`2001:db8:${random(3)}::${random(4)}`)}/128`;
        case 1:
          return `${canonicalIp6(`2001:db8:${random(3)}:${random(2)}::`)}/64`;
        case 2:
          return `${random(2) ? '8000' : ''}::/1`;
        default:
          return `${canonicalIp6(`2001:db8:a:0:5054:ff:fe${random(3)}:${random(5)}`)}/128`;
      }
    };
    const seen = new Set<string>();
    for (let round = 0; round < 200; round++) {
      const tables = [10, 11, 12, 13];
      const wantTables = tables.filter(() => random(4) > 0);
      const haveTables = tables.filter(() => random(4) > 0);
      const wantPolicies = bsids.filter(() => random(4) > 0);
      const havePolicies = bsids.filter(() => random(4) > 0);
      const desired = [
        encap('2001:db8::1'),
        hopLimit,
        ...wantTables.map((t) => table(t, true)),
        ...wantPolicies.map((b) => policy(b)),
      ];
      const actual = [
        encap('2001:db8::1'),
        hopLimit,
        ...haveTables.map((t) => table(t, true)),
        ...havePolicies.map((b) => policy(b, random(3) === 0 ? '2001:db8::2' : '2001:db8::1')),
      ];
      const steer = (from: readonly number[]): Steer[] => {
        const out = new Map<string, Steer>();
        for (let k = random(30); k > 0; k--) {
          const s = {
            table: from[random(from.length)] ?? 10,
            prefix: prefixes(),
            bsid: bsids[random(bsids.length)] as string,
          };
          out.set(`${s.table} ${s.prefix}`, s);
        }
        return [...out.values()];
      };
      const p = assertSamePlan({
        desired,
        actual,
        wantSteering: [],
        haveSteering: [],
        wantSteering6: steer(tables),
        haveSteering6: steer(haveTables),
      });
      for (const o of p.ops)
        if (o.resource.kind === 'sr-steering6')
          seen.add(`${o.action} ${o.reason.replace(/ sr-.*| ip-.*/, '')}`);
      if (p.pending.some((x) => x.resource.kind === 'sr-steering6')) seen.add('pending');
    }
    assert.deepEqual([...seen].sort(), [
      'create missing in VPP',
      'create recreated with',
      'delete not in the desired state',
      'delete recreated with',
      'delete removed with',
      'pending',
      'update differs from VPP',
    ]);
  });
});

describe('IPv6 SteeringEntries', () => {
  const list = (e: SteeringEntries): string[] =>
    Array.from({ length: e.size }, (_, i) => `${e.table(i)} ${e.prefix(i)} ${e.bsid(i)}`);

  it('grows past its capacity and gives back canonical prefixes, however added', () => {
    const e = new SteeringEntries(1, 6);
    for (let i = 0; i < 300; i++)
      e.add(
        4_000_000_000 + i,
        `2001:DB8:${i.toString(16)}:0:0:0:0:${(i * 7).toString(16)}`,
        128,
        i % 2 ? B1 : B2,
      );
    assert.equal(e.family, 6);
    assert.equal(e.size, 300);
    assert.equal(e.table(299), 4_000_000_299);
    assert.equal(e.prefix(299), '2001:db8:12b::82d/128');
    assert.equal(e.prefix(0), '2001:db8::/128');
    assert.equal(e.bsid(299), B1);
    assert.deepEqual(e.bsids, [B2, B1], 'each BSID stored once');
    assert.deepEqual(
      [...e.addressBytes(299)],
      [0x20, 0x01, 0x0d, 0xb8, 0x01, 0x2b, ...Array<number>(8).fill(0), 0x08, 0x2d],
    );
    assert.equal(e.addressWord(299, 1), 0x012b0000);

    // The same entry from its bytes, and ::/1 as VPP reports it (0.0.0.0/1: addNumber).
    const other = new SteeringEntries(1, 6);
    other.addBytes(7, e.addressBytes(299), 128, B1);
    other.addNumber(7, 0, 1, B1);
    other.addNumber(7, 5, 128, B1);
    other.add(7, '::ffff:10.0.0.1', 96, B1);
    assert.deepEqual(list(other), [
      `7 2001:db8:12b::82d/128 ${B1}`,
      `7 ::/1 ${B1}`,
      `7 ::5/128 ${B1}`,
      `7 ::ffff:a00:1/96 ${B1}`,
    ]);
    assert.throws(() => other.add(7, '10.0.0.1', 32, B1), /not an IPv6 address/);
    assert.throws(() => new SteeringEntries(1).addBytes(7, new Uint8Array(16), 128, B1), /IPv4 set/);
  });

  it('shares its columns with other BSIDs, and filters them by BSID whole', () => {
    const bySid = new SteeringEntries(2, 6);
    bySid.add(10, '2001:db8:a::5', 128, 'sid-a');
    bySid.add(10, '2001:db8:a::6', 128, 'sid-b');
    bySid.add(11, '8000::', 1, 'sid-a');
    const withBsids = bySid.withBsids([B1, B2]);
    assert.equal(withBsids.family, 6);
    withBsids.add(12, '2001:db8:c::7', 128, B2);
    bySid.add(13, '2001:db8:d::8', 128, 'sid-b');
    assert.deepEqual(list(withBsids), [
      `10 2001:db8:a::5/128 ${B1}`,
      `10 2001:db8:a::6/128 ${B2}`,
      `11 8000::/1 ${B1}`,
      `12 2001:db8:c::7/128 ${B2}`,
    ]);
    assert.deepEqual(list(bySid.filterByBsid((sid) => sid === 'sid-b')), [
      '10 2001:db8:a::6/128 sid-b',
      '13 2001:db8:d::8/128 sid-b',
    ]);
    assert.deepEqual(list(bySid.filterByBsid(() => true)), list(bySid));
  });

  it('orders many entries as comparing them one by one does, stably for equal keys', () => {
    let seed = 11;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return Math.floor(seed / 256) % n;
    };
    // Few choices per word, so that keys share words (and whole keys repeat) as a VPC's do.
    const groups = ['0', '1', '2001', 'db8', '8000', 'ffff', 'fe62'];
    const e = new SteeringEntries(1, 6);
    for (let i = 0; i < 3000; i++) {
      const address = Array.from({ length: 8 }, (_, g) =>
        g % 2 === 0 && next(3) === 0 ? '0' : groups[next(groups.length)],
      );
      e.add(
        [10, 11, 2 ** 32 - 1][next(3)] as number,
        address.join(':'),
        [1, 64, 127, 128][next(4)] as number,
        B1,
      );
    }
    const expected = Array.from({ length: e.size }, (_, i) => i).sort((a, b) => e.compare(a, e, b) || a - b);
    assert.deepEqual([...e.sortedOrder()], expected);
    // Sorted already: the same order, without sorting.
    const sorted = new SteeringEntries(e.size, 6);
    for (const i of expected) sorted.addBytes(e.table(i), e.addressBytes(i), e.prefixLength(i), B1);
    const again = [...sorted.sortedOrder()];
    assert.deepEqual(
      again,
      expected.map((_, k) => k),
    );
  });

  it('matches keys across sides, finds a repeated one, and refuses the other family', () => {
    const want = entries(
      [
        { table: 10, prefix: '2001:db8:a::6/128', bsid: B1 },
        { table: 10, prefix: '2001:db8:a::5/128', bsid: B1 },
        { table: 11, prefix: '2001:db8:a::5/128', bsid: B1 },
        { table: 10, prefix: '2001:db8:a::5/127', bsid: B1 },
      ],
      6,
    );
    const have = entries(
      [
        { table: 11, prefix: '2001:db8:a::5/128', bsid: B2 },
        { table: 10, prefix: '2001:db8:a::6/128', bsid: B2 },
        { table: 10, prefix: '2001:db8:a::4/128', bsid: B2 },
      ],
      6,
    );
    const { counterpart, duplicate } = want.matchKeys(have);
    assert.equal(duplicate, undefined);
    assert.deepEqual([...counterpart], [1, -1, 0, -1]);
    const twice = entries(
      [
        { table: 10, prefix: '2001:db8:a::5/128', bsid: B1 },
        { table: 10, prefix: '2001:db8:a:0::5/128', bsid: B2 },
      ],
      6,
    );
    assert.equal(twice.matchKeys(have).duplicate, 1);
    assert.throws(() => want.matchKeys(new SteeringEntries()), /IPv6 matched with IPv4/);
  });
});
