import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planFresh } from '../../src/agent/reconciler.js';
import {
  fillAcls,
  handSteps,
  parseAclIndex,
  pathPlans,
  pgCreateCommands,
  pgMac,
  pgPeerMac,
  pgTopology,
  HAND,
  VPPNET,
  vppnetConfig,
  worldSteps,
  type Macs,
  type Peers,
} from './topology.js';

const t = pgTopology();
const macs: Macs = { macOf: (i) => pgMac(Number(i.slice(2))) };
const peers: Peers = { macBehind: (i) => pgPeerMac(Number(i.slice(2))) };

describe("vppnet's side: a config the agent accepts, and what its reconciler would do with it", () => {
  const config = vppnetConfig(t.vppnet, { vm1: pgPeerMac(10), vm2: pgPeerMac(11) });

  it('VM ports and the underlay are the pg interfaces, the service bridge is on', () => {
    assert.deepEqual(
      config.ports.map((p) => p.attach),
      [
        { type: 'interface', name: 'pg10' },
        { type: 'interface', name: 'pg11' },
      ],
    );
    assert.equal(config.node.underlay.interface, 'pg12');
    assert.equal(config.services?.table, VPPNET.servicesTable);
  });

  it('the fresh plan holds every object of the paths', () => {
    const created = planFresh(config)
      .ops.filter((o) => o.action === 'create')
      .map((o) => o.resource.key);
    for (const key of [
      'sr-localsid:fc00:1::a',
      'sr-policy:fc00:1:ff::1',
      'sr-steering:ip4:10:10.0.0.7/32',
      'route:ip4:10:10.0.0.5/32',
      'route:ip4:10:169.254.169.254/32',
      'nat-output:vppnet:services:bvi',
      'nat-static:10:10.0.0.5',
      'iface-table:ip4:pg10',
      'route:ip6:0:::/0',
    ]) {
      assert.ok(created.includes(key), `${key} in ${created.join(' ')}`);
    }
    assert.deepEqual(planFresh(config).pending, []);
  });
});

describe('the hand-made side', () => {
  it('mirrors the paths in its own tables, and fills ACL indexes from what VPP printed', () => {
    const steps = handSteps(t.hand, { globals: false });
    const cmds = steps.map((s) => s.cmd);
    assert.ok(
      !cmds.some((c) => c.startsWith('set sr encaps') || c.startsWith('nat44 plugin')),
      "globals are vppnet's in a shared VPP",
    );
    assert.ok(
      handSteps(t.hand, { globals: true }).some((s) => s.cmd === 'nat44 plugin enable sessions 16384'),
    );
    for (const c of [
      'sr localsid address fc00:11::6e fib-table 1 behavior end.dt4 110',
      'sr policy add bsid fc00:11:ff::1 next fc00:12::6e encap fib-table 1',
      'sr steer l3 10.0.0.7/32 via bsid fc00:11:ff::1 fib-table 110',
      'ip route add 169.254.169.254/32 table 110 via ip4-lookup-in-table 4100',
      'set interface nat44 out loop4100 output-feature',
      'set interface unnumbered pg20 use loop110',
    ]) {
      assert.ok(cmds.includes(c), c);
    }
    // Tables before the interfaces bound to them; the BVI bound to its table before its address.
    assert.ok(
      cmds.indexOf(`ip table add ${HAND.table}`) < cmds.indexOf(`set interface ip table pg20 ${HAND.table}`),
    );
    assert.ok(
      cmds.indexOf('set interface ip table loop4100 4100') <
        cmds.indexOf('set interface ip address loop4100 169.254.169.1/24'),
    );
    assert.ok(
      cmds.indexOf('sr policy add bsid fc00:11:ff::1 next fc00:12::6e encap fib-table 1') <
        cmds.indexOf('sr steer l3 10.0.0.7/32 via bsid fc00:11:ff::1 fib-table 110'),
    );
    assert.equal(cmds.filter((c) => c.startsWith('sr policy add')).length, 2, 'one policy per remote SID');

    const acls = new Map<string, number>();
    for (const s of steps) if (s.saveAcl) acls.set(s.saveAcl, parseAclIndex(`ACL index:${acls.size + 2}`)!);
    assert.equal(
      fillAcls('set acl-plugin interface pg23 output acl {acl:hand-pod-out}', acls),
      'set acl-plugin interface pg23 output acl 2',
    );
    assert.throws(() => fillAcls('x {acl:nope}', acls), /ACL nope was not created/);
  });

  it('the world: neighbours behind each port, the pod MAC in its bridge', () => {
    assert.deepEqual(worldSteps('hand', t.hand, 'loop4100', peers), [
      'set ip neighbor pg20 10.0.0.5 02:00:00:00:01:14 static',
      'set ip neighbor pg21 10.0.0.6 02:00:00:00:01:15 static',
      'set ip neighbor pg22 2001:db8:1::2 02:00:00:00:01:16 static',
      'set ip neighbor loop4100 169.254.169.254 02:00:00:00:01:17 static',
      'l2fib add 02:00:00:00:01:17 200 pg23 static',
    ]);
    assert.equal(
      pgCreateCommands([10])[0],
      'create packet-generator interface pg10 hw-addr 02:00:00:00:00:0a',
    );
  });
});

describe('pathPlans', () => {
  it('four paths per configuration plus the baseline, packets addressed to the right SID and MACs', () => {
    const plans = pathPlans(t, macs, peers, 256);
    assert.deepEqual(
      plans.map((p) => `${p.config}:${p.path}:${p.ingress}->${p.egress}`),
      [
        'vppnet:vm-to-remote:pg10->pg12',
        'vppnet:remote-to-vm:pg12->pg10',
        'vppnet:vm-to-metadata:pg10->pg13',
        'vppnet:vm-to-vm:pg10->pg11',
        'hand:vm-to-remote:pg20->pg22',
        'hand:remote-to-vm:pg22->pg20',
        'hand:vm-to-metadata:pg20->pg23',
        'hand:vm-to-vm:pg20->pg21',
        'baseline:baseline:pg30->pg31',
      ],
    );
    const remote = plans.filter((p) => p.path === 'remote-to-vm').map((p) => p.traffic);
    assert.deepEqual(
      remote.map((x) => (x.kind === 'srv6' ? x.sid : '')),
      ['fc00:1::a', 'fc00:11::6e'],
    );
    const first = plans[0]!.traffic;
    assert.equal(first.dstMac, '02:00:00:00:00:0a');
    assert.equal(first.srcMac, '02:00:00:00:01:0a');
  });
});
