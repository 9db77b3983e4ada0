import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planFresh } from '../../src/hypervisor/desired-state.js';
import { fillAcls, handIp6Neighbours, handIp6Steps, handSteps, parseAclIndex } from './hand-config.js';
import { ip6PathPlans, pathPlans, toleranceOf } from './paths.js';
import {
  pgCreateCommands,
  pgMac,
  pgPeerMac,
  pgTopology,
  HAND,
  HAND6,
  VM6,
  VPPNET,
  VPPNET6,
  type Macs,
  type Peers,
} from './topology.js';
import { vppnetConfig, vppnetDualStackConfig } from './vppnet-config.js';
import { worldSteps } from './world-steps.js';

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
      'nat-ei-output:vppnet:services:bvi',
      'nat-ei-static:10:10.0.0.5',
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
      !cmds.some((c) => c.startsWith('set sr encaps') || c.startsWith('nat44 ei plugin')),
      "globals are vppnet's in a shared VPP",
    );
    assert.ok(
      handSteps(t.hand, { globals: true }).some((s) =>
        s.cmd.startsWith('nat44 ei plugin enable users 254 sessions 65024 user-sessions 256'),
      ),
    );
    for (const c of [
      'sr localsid address fc00:11::6e fib-table 1 behavior end.dt4 110',
      'sr policy add bsid fc00:11:ff::1 next fc00:12::6e encap fib-table 1',
      'sr steer l3 10.0.0.7/32 via bsid fc00:11:ff::1 fib-table 110',
      'ip route add 169.254.169.254/32 table 110 via ip4-lookup-in-table 4100',
      'set interface nat44 ei out loop4100 output-feature',
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

describe("the dual-stack side: vppnet's config", () => {
  const ipv4 = vppnetConfig(t.vppnet, { vm1: pgPeerMac(10), vm2: pgPeerMac(11) });
  const config = vppnetDualStackConfig(t.vppnet, { vm1: pgPeerMac(10), vm2: pgPeerMac(11) });

  it("adds the VPC's /64, its End.DT6 SID (DT4 SID + 2^24) and the ports' IPv6 addresses", () => {
    const vpc = config.vpcs[0]!;
    assert.deepEqual(vpc.subnets6, [{ address: '2001:db8:a::', len: 64 }]);
    assert.equal(vpc.sid6, 'fc00:1::100:a');
    assert.equal(vpc.gatewayLinkLocal, 'fe80::1');
    assert.equal(vpc.table, VPPNET.table, 'one table id for both families');
    assert.ok(vpc.mtu >= 1500, `VPC MTU ${vpc.mtu}: IMIX's 1518 B frames reach the VMs whole`);
    assert.deepEqual(
      config.ports.map((p) => [p.name, p.ip, p.ip6]),
      [
        ['vm1', '10.0.0.5', '2001:db8:a::5'],
        ['vm2', '10.0.0.6', '2001:db8:a::6'],
      ],
    );
  });

  it('IPv6 remote routes go to the remote DT6 SIDs; the IPv4 side is the IPv4 config unchanged', () => {
    assert.deepEqual(
      config.remoteRoutes
        .filter((r) => r.family === 6)
        .map((r) => `${r.prefix.address}/${r.prefix.len} ${r.sid}`),
      ['2001:db8:a::7/128 fc00:2::100:a', '2001:db8:a::8/128 fc00:3::100:a', '2001:db8:b::/64 fc00:2::100:a'],
    );
    assert.deepEqual(
      config.remoteRoutes.filter((r) => r.family === 4),
      ipv4.remoteRoutes,
    );
    assert.equal(config.vpcs[0]!.sid, ipv4.vpcs[0]!.sid);
    assert.deepEqual(config.vpcs[0]!.subnets, ipv4.vpcs[0]!.subnets);
    assert.deepEqual(config.node, ipv4.node);
    // The service bridge gains its IPv6 side (metadata over IPv6), the rest as the IPv4 config's.
    assert.deepEqual({ ...config.services, ip6: undefined }, ipv4.services);
    assert.deepEqual(config.services?.ip6, {
      gateway: { address: 'fd00:ec2::1', len: 64 },
      vmAddressRange: { address: 'fd00:ec2:0:ff::', len: 64 },
      metadataAddress: 'fd00:ec2::254',
      dnsAddress: undefined,
    });
  });
});

describe('the dual-stack side: the hand-made IPv6 configuration', () => {
  const cmds = handIp6Steps(t.hand);

  it('IPv6 table 110, End.DT6 into it, one encap policy per remote DT6 SID, IPv6 steering in 110', () => {
    for (const c of [
      'ip6 table add 110',
      'sr localsid address fc00:11::100:6e fib-table 1 behavior end.dt6 110',
      'sr policy add bsid fc00:11:ff::3 next fc00:12::100:6e encap fib-table 1',
      'sr policy add bsid fc00:11:ff::4 next fc00:13::100:6e encap fib-table 1',
      'sr steer l3 2001:db8:a::7/128 via bsid fc00:11:ff::3 fib-table 110',
      'sr steer l3 2001:db8:b::/64 via bsid fc00:11:ff::3 fib-table 110',
      'ip route add 2001:db8:a::5/128 table 110 via 2001:db8:a::5 pg20',
    ]) {
      assert.ok(cmds.includes(c), c);
    }
    assert.equal(cmds.filter((c) => c.startsWith('sr policy add')).length, 2, 'one policy per remote SID');
    const dt4Bsids: readonly string[] = HAND.remoteRoutes.map((h) => h.bsid);
    assert.ok(
      HAND6.remoteRoutes.every((r) => !dt4Bsids.includes(r.bsid)),
      'the IPv6 policies are not the DT4 ones (End.DT4 drops inner IPv6)',
    );
  });

  it('a port in the order docs/dual-stack.md gives: table, IPv6 on, link-local, RA, ND proxy, /128', () => {
    const port = cmds.filter((c) => / pg20( |$)/.test(c) && !c.includes('nat66'));
    assert.deepEqual(port, [
      'set interface ip6 table pg20 110',
      'enable ip6 interface pg20',
      'set interface ip address pg20 fe80::1/128',
      'ip6 nd pg20 prefix 2001:db8:a::/64 infinite no-onlink',
      'ip6 nd pg20 ra-interval 30 10 ra-lifetime 600',
      'set interface ip6-nd proxy pg20 enable',
      'ip route add 2001:db8:a::5/128 table 110 via 2001:db8:a::5 pg20',
    ]);
    assert.ok(cmds.indexOf('ip6 table add 110') < cmds.indexOf('set interface ip6 table pg20 110'));
    assert.ok(
      cmds.indexOf('set interface ip6 table loop110 110') < cmds.indexOf('set interface ip6 table pg20 110'),
      'the gateway in the same IPv6 table as the ports it is unnumbered for',
    );
    assert.ok(
      cmds.indexOf('sr policy add bsid fc00:11:ff::3 next fc00:12::100:6e encap fib-table 1') <
        cmds.indexOf('sr steer l3 2001:db8:a::7/128 via bsid fc00:11:ff::3 fib-table 110'),
    );
    assert.deepEqual(handIp6Neighbours(t.hand, peers), [
      'set ip neighbor pg20 2001:db8:a::5 02:00:00:00:01:14 static',
      'set ip neighbor pg21 2001:db8:a::6 02:00:00:00:01:15 static',
    ]);
  });
});

describe('ip6PathPlans', () => {
  it("both IPv6 paths per configuration, to each side's DT6 SID, checked at the SRv6 nodes", () => {
    const plans = ip6PathPlans(t, macs, peers, 256);
    assert.deepEqual(
      plans.map((p) => `${p.config}:${p.path}:${p.ingress}->${p.egress}:${p.expect.join(',')}`),
      [
        // vppnet's packets pass its source check where they enter: a VM port's, the uplink's.
        'vppnet:vm-to-remote-ip6:pg10->pg12:sr-pl-rewrite-encaps,ip6-rx-urpf-strict',
        'vppnet:remote-to-vm-ip6:pg12->pg10:sr-localsid-d,ip6-rx-urpf-loose',
        'vppnet:vm-to-metadata-ip6:pg10->pg13:nat66-in2out,ip6-rx-urpf-strict',
        'hand:vm-to-remote-ip6:pg20->pg22:sr-pl-rewrite-encaps',
        'hand:remote-to-vm-ip6:pg22->pg20:sr-localsid-d',
        'hand:vm-to-metadata-ip6:pg20->pg23:nat66-in2out',
      ],
    );
    // Each side's metadata address, through its own nat66 mappings (handIp6Steps).
    const metadata = plans.filter((p) => p.path === 'vm-to-metadata-ip6').map((p) => p.traffic);
    assert.deepEqual(
      metadata.map((tr) => (tr.kind === 'ip6' ? `${tr.src}>${tr.dst}:${tr.dport}` : tr.kind)),
      ['2001:db8:a::5>fd00:ec2::254:80', '2001:db8:a::5>fd00:ec3::254:80'],
    );
    // As vppnet does it: through the services loopback, nat66's only inside, never the ports.
    const hand6 = handIp6Steps(t.hand);
    for (const c of [
      `nat66 add static mapping local 2001:db8:a::5 external fd00:ec3:0:ff::5 vrf ${HAND6.servicesTable}`,
      'set interface nat66 in loop4110 out loop4100',
      'ip route add fd00:ec3::254/128 table 110 via fe80::1 loop4110',
      `ip route add fd00:ec3::254/128 table ${HAND6.servicesTable} via ip6-lookup-in-table 0`,
      `ip route add ::/0 table ${HAND6.servicesTable} via ip6-lookup-in-table 110`,
      'set ip neighbor loop4110 fe80::1 02:00:00:00:02:0e static',
    ])
      assert.ok(hand6.includes(c), c);
    assert.equal(
      hand6.filter((c) => c.includes('nat66') && /pg2\d/.test(c)).length,
      0,
      'no port is a nat66 interface',
    );
    const encap = plans[0]!.traffic;
    assert.ok(encap.kind === 'ip6');
    assert.deepEqual([encap.src, encap.dst, encap.flows], [VM6.vm1, VM6.remoteVm, 256]);
    assert.ok(
      VPPNET6.remoteRoutes.some((r) => r.prefix === `${VM6.remoteVm}/128`),
      'the remote VM is steered',
    );
    const decap = plans.filter((p) => p.path === 'remote-to-vm-ip6').map((p) => p.traffic);
    assert.deepEqual(
      decap.map((x) => (x.kind === 'srv6-ip6' ? `${x.outerSrc} ${x.sid} ${x.dst}` : x.kind)),
      ['2001:db8::2 fc00:1::100:a 2001:db8:a::5', '2001:db8:1::2 fc00:11::100:6e 2001:db8:a::5'],
    );
  });

  it('the target for the IPv6 paths is 5 %, the IPv4 paths keep 10 %', () => {
    assert.equal(toleranceOf('vm-to-remote-ip6'), 0.05);
    assert.equal(toleranceOf('remote-to-vm-ip6'), 0.05);
    assert.equal(toleranceOf('vm-to-remote'), 0.1);
  });
});
