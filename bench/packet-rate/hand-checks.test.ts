/**
 * The hand configuration's source checks against vppnet's design: the checks and the routes of the
 * tables they look in must be what vppnet's own planner makes for its side of the same topology,
 * role for role (its interfaces, tables, underlay and VM MACs replaced by the hand side's).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sourceTableOf, UNDERLAY_SOURCE_TABLE } from '../../src/config/defaults.js';
import type { SourceCheckValue } from '../../src/dataplane/source-check-descriptors.js';
import { planFresh } from '../../src/hypervisor/desired-state.js';
import { eui64Address } from '../../src/net/eui64.js';
import { ip6Network, parseIp6Prefix } from '../../src/net/ip.js';
import { handSteps } from './hand-config.js';
import {
  ALL_CHECK_NODES,
  handCheckRoutes,
  handChecks,
  handCheckTableSteps,
  handCheckToggle,
  type CheckRoute,
  type HandCheck,
} from './hand-checks.js';
import { checkNodeOf, handChecksPlans, ip6PathPlans, pathPlans } from './paths.js';
import {
  HAND,
  HAND_CHECKS,
  HAND6,
  pgIdOf,
  pgMac,
  pgPeerMac,
  pgTopology,
  VPPNET,
  type Macs,
  type Peers,
  type PortSet,
} from './topology.js';
import { vppnetDualStackConfig } from './vppnet-config.js';

const t = pgTopology();
const peers: Peers = { macBehind: (i) => pgPeerMac(pgIdOf(i) ?? -1) };
const macs: Macs = { macOf: (i) => pgMac(pgIdOf(i) ?? -1) };
const roles = Object.keys(t.vppnet) as (keyof PortSet)[];

const handIface = new Map(roles.map((r) => [t.vppnet[r], t.hand[r]]));
/** vppnet's side of the topology, in the hand side's names. */
const toHand = {
  iface: handIface,
  table: new Map<number, number>([
    [VPPNET.table, HAND.table],
    [sourceTableOf(VPPNET.vpcId), HAND_CHECKS.ip6SourceTable],
    [UNDERLAY_SOURCE_TABLE, HAND_CHECKS.underlaySourceTable],
  ]),
  address: new Map<string, string>([
    [VPPNET.underlayGateway, HAND.underlayGateway],
    [underlayPrefix(VPPNET.underlayAddress), underlayPrefix(HAND.underlayAddress)],
    ...[t.vppnet.vm1, t.vppnet.vm2].map((port): [string, string] => [
      `${linkLocalOf(port)}/128`,
      `${linkLocalOf(handIface.get(port) ?? '')}/128`,
    ]),
  ]),
};

function underlayPrefix(address: string): string {
  const p = parseIp6Prefix(address);
  assert.ok(p, address);
  return `${ip6Network(p)}/${p.len}`;
}

function linkLocalOf(port: string): string {
  return eui64Address({ address: 'fe80::', len: 64 }, peers.macBehind(port));
}

function mapped<K, V>(m: ReadonlyMap<K, V>, k: K): V {
  const v = m.get(k);
  assert.ok(v !== undefined, `no hand counterpart for ${String(k)}`);
  return v;
}

const byText = (a: unknown, b: unknown): number => JSON.stringify(a).localeCompare(JSON.stringify(b));

describe("hand+checks: vppnet's source checks, by hand", () => {
  const config = vppnetDualStackConfig(t.vppnet, {
    vm1: peers.macBehind(t.vppnet.vm1),
    vm2: peers.macBehind(t.vppnet.vm2),
  });
  const created = planFresh(config)
    .ops.filter((o) => o.action === 'create')
    .map((o) => o.resource);
  const sourceTables = [sourceTableOf(VPPNET.vpcId), UNDERLAY_SOURCE_TABLE];

  it("the same checks as vppnet's planner makes, on the hand side's ports and tables", () => {
    const vppnet = created
      .filter((r) => r.kind === 'source-check')
      .map((r) => r.value as SourceCheckValue)
      .map((v): HandCheck => ({
        iface: mapped(toHand.iface, v.iface),
        family: v.family,
        mode: v.mode,
        table: mapped(toHand.table, v.table),
      }));
    assert.equal(vppnet.length, 5, 'both VM ports, both families, and the uplink');
    assert.deepEqual([...handChecks(t.hand)].sort(byText), vppnet.sort(byText));
  });

  it("the same routes in the checks' tables as vppnet's, through the same ports and next hops", () => {
    interface RouteValue {
      readonly table: number;
      readonly prefix: string;
      readonly paths: readonly { readonly iface: string; readonly nh: string }[];
    }
    const vppnet = created
      .filter((r) => r.kind === 'route' && sourceTables.includes((r.value as RouteValue).table))
      .map((r) => r.value as RouteValue)
      .map((v): CheckRoute => {
        assert.equal(v.paths.length, 1);
        const [path] = v.paths;
        return {
          table: mapped(toHand.table, v.table),
          prefix: toHand.address.get(v.prefix) ?? v.prefix,
          nh: toHand.address.get(path?.nh ?? '') ?? path?.nh ?? '',
          iface: mapped(toHand.iface, path?.iface ?? ''),
        };
      });
    assert.equal(vppnet.length, 6, "each VM's /128 and link-local, the underlay prefix and fe80::/64");
    assert.deepEqual([...handCheckRoutes(t.hand, peers)].sort(byText), vppnet.sort(byText));
    // The link-local is the guest's own EUI-64 one (pg20's VM has MAC 02:00:00:00:01:14).
    assert.ok(
      handCheckRoutes(t.hand, peers).some(
        (r) => r.prefix === 'fe80::ff:fe00:114/128' && r.iface === t.hand.vm1,
      ),
    );
  });

  it("four distinct source tables: neither side's check looks in the other's", () => {
    const tables = [
      sourceTableOf(VPPNET.vpcId),
      UNDERLAY_SOURCE_TABLE,
      HAND_CHECKS.ip6SourceTable,
      HAND_CHECKS.underlaySourceTable,
    ];
    assert.equal(new Set(tables).size, 4);
    assert.ok(
      ![HAND.ip6Table, HAND6.table, 0, VPPNET.table].some((x) => tables.includes(x)),
      'no forwarding table',
    );
  });

  it('the tables are made before their routes; the IPv4 check uses the VPC table handSteps makes', () => {
    const steps = handCheckTableSteps(t.hand, peers);
    const routes = handCheckRoutes(t.hand, peers);
    const ip6Tables = [HAND_CHECKS.ip6SourceTable, HAND_CHECKS.underlaySourceTable];
    for (const table of ip6Tables) {
      const add = steps.indexOf(`ip6 table add ${table}`);
      assert.ok(add >= 0, `ip6 table add ${table}`);
      const first = steps.findIndex((s) => s.includes(` table ${table} via `));
      assert.ok(first > add, `a route of ${table} before its table`);
    }
    assert.equal(steps.length, ip6Tables.length + routes.length);
    assert.ok(
      steps.includes(
        `ip route add ${routes[0]?.prefix} table ${HAND_CHECKS.ip6SourceTable} via ${routes[0]?.nh} ${t.hand.vm1}`,
      ),
    );
    assert.ok(
      handSteps(t.hand, { globals: false }).some((s) => s.cmd === `ip table add ${HAND_CHECKS.ip4Table}`),
    );
  });

  it('turns every check on with its mode and table, and off again naming no table, in reverse', () => {
    const { on, off } = handCheckToggle(t.hand);
    const checks = handChecks(t.hand);
    assert.deepEqual(
      on,
      checks.map((c) => `set urpf ip${c.family} rx ${c.mode} table ${c.table} ${c.iface}`),
    );
    assert.ok(on.includes(`set urpf ip4 rx strict table ${HAND.table} ${t.hand.vm1}`));
    assert.ok(
      on.includes(`set urpf ip6 rx loose table ${HAND_CHECKS.underlaySourceTable} ${t.hand.underlay}`),
    );
    assert.deepEqual(
      off,
      [...checks].reverse().map((c) => `set urpf ip${c.family} rx off ${c.iface}`),
    );
    assert.ok(
      off.every((c) => !c.includes('table')),
      'off follows the interface, like urpf_update_v2 with ~0',
    );
    assert.ok(
      [...on, ...off].every((c) => Object.values(t.hand).some((i) => c.endsWith(` ${i}`))),
      'only the hand ports',
    );
  });
});

describe('hand+checks plans', () => {
  const two = [...pathPlans(t, macs, peers, 256), ...ip6PathPlans(t, macs, peers, 256)];
  const toggle = handCheckToggle(t.hand);
  const plans = handChecksPlans(two, toggle);

  it('every hand path again, the checks turned on around its runs, and its packets through the check', () => {
    const hand = two.filter((p) => p.config === 'hand');
    assert.equal(hand.length, 7);
    assert.deepEqual(
      plans.map((p) => [p.path, p.ingress, p.egress, p.traffic]),
      hand.map((p) => [p.path, p.ingress, p.egress, p.traffic]),
    );
    for (const p of plans) {
      assert.equal(p.config, 'hand-checks');
      assert.equal(p.toggle, toggle);
      assert.deepEqual(p.forbid, []);
      // The node the path's packets must pass is the one of the check turned on at its ingress.
      const check = handChecks(t.hand).find(
        (c) => c.iface === p.ingress && checkNodeOf(p.traffic) === `ip${c.family}-rx-urpf-${c.mode}`,
      );
      assert.ok(check, `${p.path}: ${checkNodeOf(p.traffic)} is turned on at ${p.ingress}`);
      assert.ok(p.expect.includes(checkNodeOf(p.traffic)), p.path);
    }
  });

  it('the plain hand paths and the baseline must not meet a check; vppnet must meet its own', () => {
    for (const p of two) {
      if (p.config === 'vppnet') {
        assert.ok(p.expect.includes(checkNodeOf(p.traffic)), p.path);
        assert.deepEqual(p.forbid, []);
      } else {
        assert.deepEqual(p.forbid, ALL_CHECK_NODES, `${p.config} ${p.path}`);
        assert.equal(p.toggle, undefined);
      }
    }
  });
});
