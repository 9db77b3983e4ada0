/** IPv4 steering as a bulk kind: its plans equal those of plain Resources (test/support/steering-plan.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keys } from '../dataplane/keys.js';
import type { Resource } from '../reconcile/resource.js';
import { canonicalIp6 } from '../net/ip.js';
import {
  type Steer,
  table,
  encap,
  hopLimit,
  policy,
  bulkPlan,
  assertSamePlan,
  B1,
  B2,
  B3,
  base,
  opsOf,
} from '../../test/support/steering-plan.js';

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

describe('steering ops are in key order without their keys (SteeringResources.keyOrder)', () => {
  it('orders tables and octets of every digit count as their keys do', () => {
    // Tables 9, 10, 99, 100, 1000 (`100:` sorts before `10:`), octets and lengths of one to
    // three digits (`2.` before `20` before `3`): the plan equals the plain Resources' plan, op
    // order included, for creates, deletes and updates across levels.
    const ids = [9, 10, 99, 100, 1000];
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const octets = [0, 1, 2, 9, 10, 19, 20, 100, 199, 200, 255];
    const pick = <T>(list: readonly T[]): T => list[random(list.length)] as T;
    const steer = (n: number): Steer[] => {
      const out = new Map<string, Steer>();
      for (let i = 0; i < n; i++) {
        const s: Steer = {
          table: pick(ids),
          prefix: `${pick(octets)}.${pick(octets)}.${pick(octets)}.${pick(octets)}/${pick([1, 8, 10, 24, 32])}`,
          bsid: pick([B1, B2]),
        };
        out.set(`${s.table} ${s.prefix}`, s);
      }
      return [...out.values()];
    };
    const tables = [...ids.map((id) => table(id)), table(10, true)];
    const want = steer(400);
    // Half of what is wanted is there already, some of it with the other BSID; the rest is extra.
    const have = [
      ...want
        .filter((_, i) => i % 2 === 0)
        .map((s, i) => (i % 3 === 0 ? { ...s, bsid: s.bsid === B1 ? B2 : B1 } : s)),
      ...steer(200),
    ];
    const haveUnique = [...new Map(have.map((s) => [`${s.table} ${s.prefix}`, s])).values()];
    const p = assertSamePlan({
      desired: [encap('2001:db8::1'), hopLimit, ...tables, policy(B1), policy(B2)],
      actual: [encap('2001:db8::1'), hopLimit, ...tables, policy(B1)],
      wantSteering: want,
      haveSteering: haveUnique,
      wantSteering6: [
        { table: 10, prefix: '2001:db8::10/128', bsid: B1 },
        { table: 10, prefix: '2001:db8::9/128', bsid: B1 },
      ],
    });
    const kinds = new Set(p.ops.map((o) => `${o.action} ${o.kind}`));
    for (const k of ['create sr-steering', 'delete sr-steering', 'update sr-steering', 'create sr-steering6'])
      assert.ok(kinds.has(k), k);
  });
  it('orders IPv6 tables and prefixes as their keys do', () => {
    // The same tables; prefixes whose canonical text sorts unlike their numbers ("::" where the
    // zero run is, groups of one to four digits, lengths of one to three).
    const ids = [9, 10, 99, 100, 1000];
    let seed = 11;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const groups = ['0', '1', 'a', '10', 'ff', '100', 'db8', 'fff', '1000', 'abcd', 'ffff'];
    const pick = <T>(list: readonly T[]): T => list[random(list.length)] as T;
    const steer6 = (n: number): Steer[] => {
      const out = new Map<string, Steer>();
      for (let i = 0; i < n; i++) {
        const words = Array.from({ length: 8 }, () => (random(3) === 0 ? '0' : pick(groups)));
        const s: Steer = {
          table: pick(ids),
          prefix: `${canonicalIp6(words.join(':'))}/128`,
          bsid: pick([B1, B2]),
        };
        out.set(`${s.table} ${s.prefix}`, s);
      }
      return [...out.values()];
    };
    const tables = ids.map((id) => table(id, true));
    const want = steer6(400);
    const have = [
      ...want
        .filter((_, i) => i % 2 === 0)
        .map((s, i) => (i % 3 === 0 ? { ...s, bsid: s.bsid === B1 ? B2 : B1 } : s)),
      ...steer6(200),
    ];
    const haveUnique = [...new Map(have.map((s) => [`${s.table} ${s.prefix}`, s])).values()];
    const p = assertSamePlan({
      desired: [encap('2001:db8::1'), hopLimit, ...tables, policy(B1), policy(B2)],
      actual: [encap('2001:db8::1'), hopLimit, ...tables, policy(B1)],
      wantSteering: [],
      haveSteering: [],
      wantSteering6: want,
      haveSteering6: haveUnique,
    });
    const kinds = new Set(p.ops.map((o) => `${o.action} ${o.kind}`));
    for (const k of ['create sr-steering6', 'delete sr-steering6', 'update sr-steering6'])
      assert.ok(kinds.has(k), k);
  });
});
