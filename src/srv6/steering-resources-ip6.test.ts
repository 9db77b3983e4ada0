/** IPv6 steering as a bulk kind: its plans equal those of plain Resources (test/support/steering-plan.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keys } from '../dataplane/keys.js';
import type { Plan } from '../reconcile/resource.js';
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
