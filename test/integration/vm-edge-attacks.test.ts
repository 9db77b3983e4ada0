/**
 * Attacks from inside a tenant VM against the tenant edge, on a real VPP 26.06, beyond the source
 * spoofing of tenant-edge-traffic.test.ts: ARP and neighbour-discovery poisoning, a rogue router
 * and DHCP server, SRv6 from inside a VPC, fragments and IPv6 extension headers from a spoofed
 * source, hop limits, packets to the node itself, broadcast and multicast. VMs are network
 * namespaces on veth ports; attacks are frames crafted with scapy. After every attack a legitimate
 * packet on the same path is sent and awaited (a UDP listener's datagram, or a sniffer that reads
 * everything up to a marker frame), so "not received" is never a timeout alone.
 *
 * Needs VPP_API_SOCKET (a VPP of its own, left as found), root, iproute2, ping and /usr/bin/python3
 * with scapy.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { linuxHostLinks } from '../../src/agent/host-links.js';
import { reconcile } from '../../src/agent/reconciler.js';
import { memoryStore } from '../../src/hypervisor/reconcile.js';
import { validateConfig } from '../../src/config/validate.js';
import { readDropCounts, type DropCounts } from '../../src/dataplane/drop-counters.js';
import { eui64Address } from '../../src/net/eui64.js';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import { msg } from '../../src/vpp/messages/index.js';
import { until } from '../../src/util/testing/until.js';
import { createVethUplink, removeVethUplink, type VethUplink } from '../support/veth-uplink.js';
import {
  hex,
  Listener,
  PACKETS,
  PY,
  pings,
  realPacketsSkip,
  run,
  send,
  sh,
  sniff,
} from '../support/packets.js';

const SOCKET = process.env.VPP_API_SOCKET;
const skip = realPacketsSkip(SOCKET);

const tag = randomBytes(2).toString('hex');
const MAC = (n: number): string => `52:54:00:00:0c:${n.toString(16).padStart(2, '0')}`;
const SUBNET6 = { address: '2001:db8:a::', len: 64 };
const ip6Of = (n: number): string => eui64Address(SUBNET6, MAC(n));
const linkLocalOf = (n: number): string => eui64Address({ address: 'fe80::', len: 64 }, MAC(n));
const ns = (n: number | string): string => `va${tag}${n}`;
const PORT = 9999;
const IP4: Record<number, string> = { 1: '10.0.0.5', 2: '10.0.0.6', 3: '10.0.0.7', 4: '10.0.0.5' };

describe('attacks from a tenant VM against the tenant edge', { skip }, () => {
  let client: VppClient;
  let uplink: VethUplink;
  const portMac = new Map<number, string>();
  const portName = new Map<number, string>();
  const ifIndex = new Map<number, number>();
  const listeners = new Map<number, Listener>();
  const host = linuxHostLinks(`va${tag}`);
  const vms = [1, 2, 3, 4];

  const raw = (): unknown => ({
    node: {
      name: 'hv1',
      underlay: { interface: uplink.name, address: '2001:db8::1/64', gateway: '2001:db8::2' },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs: [
      { name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24', '2001:db8:a::/64'], gateway: '10.0.0.1' },
      { name: 'vpc-b', id: 20, subnets: ['10.0.0.0/24', '2001:db8:a::/64'], gateway: '10.0.0.1' },
    ],
    ports: vms.map((n) => ({
      name: `vm${n}`,
      vpc: n === 4 ? 'vpc-b' : 'vpc-a',
      ip: IP4[n],
      mac: MAC(n),
      attach: { type: 'veth', netns: ns(n), ifname: 'eth0' },
    })),
    remoteRoutes: [
      { vpc: 'vpc-a', prefix: '10.0.1.0/24', sid: 'fc00:2::a' },
      { vpc: 'vpc-a', prefix: '2001:db8:1::/64', sid: 'fc00:2::100:a' },
    ],
  });

  const counts = (): Promise<DropCounts> => readDropCounts(client);
  const cli = (cmd: string): Promise<string> => client.cli(cmd);

  before(async () => {
    client = new VppClient({
      socketPath: SOCKET as string,
      clientName: 'vppnet-va',
      healthCheckIntervalMs: 0,
    });
    await client.connect();
    for (const n of vms) sh('ip', 'netns', 'add', ns(n));
    uplink = await createVethUplink(client, `vau${tag}`);
    const outcome = await reconcile(validateConfig(raw()), { client, host, globals: memoryStore() });
    assert.deepEqual(
      outcome.result?.failed.map((x) => `${x.op.resource.key}: ${x.error.message}`),
      [],
    );
    const all = await client.dump(msg.sw_interface_dump, {
      sw_if_index: 0xffffffff,
      name_filter_valid: false,
    });
    for (const n of vms) {
      const port = all.find((i) => i.tag === `vppnet:vm:vm${n}`);
      portMac.set(n, port?.l2_address ?? '');
      portName.set(n, port?.interface_name ?? '');
      if (port) ifIndex.set(n, port.sw_if_index);
      const v = ns(n);
      sh(
        'ip',
        'netns',
        'exec',
        v,
        'sysctl',
        '-qw',
        'net.ipv4.conf.all.rp_filter=0',
        'net.ipv4.conf.default.rp_filter=0',
      );
      sh('ip', '-n', v, 'link', 'set', 'lo', 'up');
      sh('ip', '-n', v, 'link', 'set', 'eth0', 'up');
      sh('ip', '-n', v, 'addr', 'add', `${IP4[n]}/24`, 'dev', 'eth0');
      sh('ip', '-n', v, 'addr', 'replace', `${ip6Of(n)}/64`, 'dev', 'eth0', 'nodad');
      sh('ip', '-n', v, 'route', 'add', 'default', 'via', '10.0.0.1');
      const listener = new Listener(v, PORT);
      listeners.set(n, listener);
      await listener.ready;
    }
    // VPP drops the packet that makes it resolve a neighbour: resolve the VMs first.
    for (const [from, to] of [
      [1, IP4[2]],
      [2, IP4[1]],
      [1, IP4[3]],
      [2, ip6Of(1)],
      [1, ip6Of(2)],
      [1, ip6Of(3)],
    ] as const)
      await until(() => pings(ns(from), to as string), `vm${from} reaches ${to}`, {
        timeoutMs: 15_000,
        everyMs: 200,
      });
  });

  after(async () => {
    for (const l of listeners.values()) l.close();
    if (process.env.VPPNET_KEEP_TEST_STATE === '1') return await client.close();
    const empty = validateConfig({ ...(raw() as object), vpcs: [], ports: [], remoteRoutes: [] });
    await reconcile(empty, { client, host, globals: memoryStore() }).catch(() => undefined);
    await removeVethUplink(client, uplink);
    for (const n of vms.map(String)) spawnSync('ip', ['netns', 'del', ns(n)]);
    await client.close();
  });

  const eth = (n: number, dst = portMac.get(n)): string => `Ether(src='${MAC(n)}', dst='${dst}')`;
  const udp4 = (n: number, src: string, dst: string, payload: string, extra = ''): string =>
    `${eth(n)}/IP(src='${src}', dst='${dst}'${extra})/UDP(sport=4000, dport=${PORT})/Raw(b'${payload}')`;
  const udp6 = (n: number, src: string, dst: string, payload: string, hlim = 64): string =>
    `${eth(n)}/IPv6(src='${src}', dst='${dst}', hlim=${hlim})/UDP(sport=4000, dport=${PORT})/Raw(b'${payload}')`;
  /** The interface VPP forwards `prefix` to in VPC table 10 (its FIB's forwarding section). */
  const forwardsTo = async (prefix: string, family: 'ip' | 'ip6' = 'ip'): Promise<string> => {
    const out = await cli(`show ${family} fib table 10 ${prefix}`);
    const forwarding = out.slice(out.indexOf('forwarding:'));
    return [...vms].find((n) => forwarding.includes(portName.get(n) as string))?.toString() ?? forwarding;
  };
  /** VPP's dynamic neighbour entries on VM `n`'s port, as addresses. */
  const learnedOn = async (n: number): Promise<string[]> =>
    [await cli('show ip neighbors'), await cli('show ip6 neighbors')]
      .join('\n')
      .split('\n')
      .filter((l) => l.includes(portName.get(n) as string) && / D /.test(l))
      .map((l) => l.trim().split(/\s+/)[1] as string);
  const forget = async (n: number, addresses: string[]): Promise<void> => {
    for (const a of addresses) await cli(`ip neighbor del ${portName.get(n)} ${a} ${MAC(n)}`);
  };

  const arp = (
    op: number,
    psrc: string,
    pdst: string,
    dst = 'ff:ff:ff:ff:ff:ff',
    hwdst = '00:00:00:00:00:00',
  ) => `${eth(1, dst)}/ARP(op=${op}, hwsrc='${MAC(1)}', psrc='${psrc}', hwdst='${hwdst}', pdst='${pdst}')`;

  it("ARP spoofing: VM1 claiming VM2's address or the gateway's diverts nothing", async () => {
    // The attacker also takes the address itself, so a packet it got would reach its listener.
    sh('ip', '-n', ns(1), 'addr', 'add', `${IP4[2]}/32`, 'dev', 'lo');
    try {
      send(
        ns(1),
        'eth0',
        arp(1, '10.0.0.6', '10.0.0.6'), // gratuitous request
        arp(2, '10.0.0.6', '10.0.0.6', 'ff:ff:ff:ff:ff:ff', 'ff:ff:ff:ff:ff:ff'), // gratuitous reply
        arp(2, '10.0.0.6', '10.0.0.1', portMac.get(1), portMac.get(1)), // unsolicited reply to VPP
        arp(1, '10.0.0.6', '10.0.0.1'), // a request for the gateway "from vm2"
        arp(2, '10.0.0.1', '10.0.0.1'), // the gateway's own address
        arp(2, '10.0.0.1', '10.0.0.7', portMac.get(1), MAC(3)),
      );
      send(ns(3), 'eth0', udp4(3, '10.0.0.7', '10.0.0.6', 'after-arp-spoof'));
      await listeners.get(2)?.receives('after-arp-spoof');
      assert.ok(!listeners.get(1)?.has('after-arp-spoof'), "vm1 got vm3's packet for vm2");
      assert.ok(pings(ns(3), '10.0.0.1'), 'vm3 still reaches the gateway');
      // VPP learns 10.0.0.6 as a neighbour on vm1's port (an adjacency-sourced /32), but vppnet's
      // API-sourced /32 to vm2's port outranks it, for forwarding and for the source check.
      assert.equal(await forwardsTo('10.0.0.6/32'), '2');
      const before = await counts();
      send(
        ns(1),
        'eth0',
        udp4(1, '10.0.0.6', '10.0.0.7', 'as-vm2-after-arp'),
        udp4(1, '10.0.0.5', '10.0.0.7', 'own-after-arp'),
      );
      await listeners.get(3)?.receives('own-after-arp');
      assert.ok(!listeners.get(3)?.has('as-vm2-after-arp'));
      assert.equal((await counts()).spoofedSource4 - before.spoofedSource4, 1);
    } finally {
      sh('ip', '-n', ns(1), 'addr', 'del', `${IP4[2]}/32`, 'dev', 'lo');
      await forget(
        1,
        (await learnedOn(1)).filter((a) => a !== IP4[1] && !a.includes(':')),
      );
    }
  });

  it('ARP spoofing: VM1 claiming an unassigned address of its subnet neither receives its traffic nor sends as it', async () => {
    sh('ip', '-n', ns(1), 'addr', 'add', '10.0.0.99/32', 'dev', 'lo');
    try {
      send(
        ns(1),
        'eth0',
        arp(2, '10.0.0.99', '10.0.0.1', portMac.get(1), portMac.get(1)),
        arp(1, '10.0.0.98', '10.0.0.1'),
      );
      // Traffic for the squatted address from vm3, then vm3's packet for vm1's own address on
      // the same path: awaited, so the first had its chance.
      send(
        ns(3),
        'eth0',
        udp4(3, '10.0.0.7', '10.0.0.99', 'to-squatted'),
        udp4(3, '10.0.0.7', '10.0.0.5', 'to-vm1-own'),
      );
      await listeners.get(1)?.receives('to-vm1-own');
      // vm1 sending as the squatted addresses, then as itself.
      send(
        ns(1),
        'eth0',
        udp4(1, '10.0.0.99', '10.0.0.6', 'as-squatted'),
        udp4(1, '10.0.0.98', '10.0.0.6', 'as-squatted-98'),
        udp4(1, '10.0.0.5', '10.0.0.6', 'own-after-squat'),
      );
      await listeners.get(2)?.receives('own-after-squat');
      const learned = await learnedOn(1);
      const fib = await cli('show ip fib table 10 10.0.0.99/32');
      assert.ok(
        !listeners.get(1)?.has('to-squatted'),
        `vm1 got vm3's packet for 10.0.0.99 (learned on its port: ${learned.join(', ')}): ${fib}`,
      );
      assert.ok(!listeners.get(2)?.has('as-squatted'), 'vm1 sent as 10.0.0.99 past uRPF');
      assert.ok(!listeners.get(2)?.has('as-squatted-98'), 'vm1 sent as 10.0.0.98 past uRPF');
    } finally {
      sh('ip', '-n', ns(1), 'addr', 'del', '10.0.0.99/32', 'dev', 'lo');
      await forget(
        1,
        (await learnedOn(1)).filter((a) => a !== IP4[1] && !a.includes(':')),
      );
    }
  });

  it("IPv6 ND spoofing: VM1's advertisements for VM2, the gateway or an unassigned address divert nothing", async () => {
    const na = (tgt: string, dst = 'ff02::1', dstMac = '33:33:00:00:00:01') =>
      `${eth(1, dstMac)}/IPv6(src='${linkLocalOf(1)}', dst='${dst}', hlim=255)/ICMPv6ND_NA(tgt='${tgt}', R=0, S=0, O=1)/ICMPv6NDOptDstLLAddr(lladdr='${MAC(1)}')`;
    sh('ip', '-n', ns(1), 'addr', 'add', `${ip6Of(2)}/128`, 'dev', 'lo', 'nodad');
    sh('ip', '-n', ns(1), 'addr', 'add', '2001:db8:a::99/128', 'dev', 'lo', 'nodad');
    try {
      send(
        ns(1),
        'eth0',
        na(ip6Of(2)),
        na(ip6Of(2), 'fe80::1', portMac.get(1)),
        na('fe80::1'),
        na('2001:db8:a::99'),
        // A solicitation to the gateway's solicited-node group from the unassigned address: a
        // multicast destination, which uRPF passes.
        `${eth(1, '33:33:ff:00:00:01')}/IPv6(src='2001:db8:a::99', dst='ff02::1:ff00:1', hlim=255)/ICMPv6ND_NS(tgt='fe80::1')/ICMPv6NDOptSrcLLAddr(lladdr='${MAC(1)}')`,
      );
      send(
        ns(3),
        'eth0',
        udp6(3, ip6Of(3), ip6Of(2), 'after-nd-spoof'),
        udp6(3, ip6Of(3), '2001:db8:a::99', 'to-squatted-v6'),
        udp6(3, ip6Of(3), ip6Of(1), 'to-vm1-own-v6'),
      );
      await listeners.get(2)?.receives('after-nd-spoof');
      await listeners.get(1)?.receives('to-vm1-own-v6');
      assert.ok(!listeners.get(1)?.has('after-nd-spoof'), "vm1 got vm3's packet for vm2");
      assert.ok(!listeners.get(1)?.has('to-squatted-v6'), "vm1 got vm3's packet for an unassigned address");
      // VPP learns them on vm1's port, but the VPC's IPv6 table forwards none of them there:
      // vm2's /128 outranks, and an unassigned address's adjacency has no attached cover.
      assert.ok((await learnedOn(1)).includes('2001:db8:a::99'));
      assert.equal(await forwardsTo(`${ip6Of(2)}/128`, 'ip6'), '2');
      const before = await counts();
      send(
        ns(1),
        'eth0',
        udp6(1, '2001:db8:a::99', ip6Of(2), 'as-squatted-v6'),
        udp6(1, ip6Of(1), ip6Of(2), 'own-after-nd'),
      );
      await listeners.get(2)?.receives('own-after-nd');
      assert.ok(!listeners.get(2)?.has('as-squatted-v6'));
      assert.equal((await counts()).spoofedSource6 - before.spoofedSource6, 1);
    } finally {
      sh('ip', '-n', ns(1), 'addr', 'del', `${ip6Of(2)}/128`, 'dev', 'lo');
      sh('ip', '-n', ns(1), 'addr', 'del', '2001:db8:a::99/128', 'dev', 'lo');
      await forget(
        1,
        (await learnedOn(1)).filter((a) => a.includes(':') && a !== ip6Of(1) && a !== linkLocalOf(1)),
      );
    }
  });

  it('a rogue router, DHCP server, broadcasts and multicasts from VM1 reach no other VM', async () => {
    const dhcp = (type: string, dst: string, dstMac = portMac.get(1)) =>
      `${eth(1, dstMac)}/IP(src='10.0.0.5', dst='${dst}')/UDP(sport=67, dport=68)/BOOTP(op=2, xid=0x1234, yiaddr='10.0.0.6', siaddr='10.0.0.5', chaddr=bytes.fromhex('${MAC(2).replaceAll(':', '')}'))/DHCP(options=[('message-type','${type}'), ('server_id','10.0.0.5'), ('router','10.0.0.5'), ('name_server','10.0.0.5'), 'end'])/Raw(b'rogue-${type}-${dst}')`;
    const attacks: [string, string][] = [
      [
        `${eth(1, '33:33:00:00:00:01')}/IPv6(src='${linkLocalOf(1)}', dst='ff02::1', hlim=255)/ICMPv6ND_RA(routerlifetime=1800)/ICMPv6NDOptPrefixInfo(prefix='2001:db8:bad::', prefixlen=64)/ICMPv6NDOptSrcLLAddr(lladdr='${MAC(1)}')`,
        '20010db80bad',
      ],
      [dhcp('offer', '255.255.255.255', 'ff:ff:ff:ff:ff:ff'), hex('rogue-offer-255.255.255.255')],
      [dhcp('ack', '255.255.255.255', 'ff:ff:ff:ff:ff:ff'), hex('rogue-ack-255.255.255.255')],
      [dhcp('ack', '10.0.0.255'), hex('rogue-ack-10.0.0.255')],
      [udp4(1, '10.0.0.5', '255.255.255.255', 'bcast'), hex('bcast')],
      [udp4(1, '10.0.0.5', '10.0.0.255', 'subnet-bcast'), hex('subnet-bcast')],
      [
        udp4(1, '10.0.0.5', '224.0.0.1', 'mcast4').replace(
          `dst='${portMac.get(1)}'`,
          "dst='01:00:5e:00:00:01'",
        ),
        hex('mcast4'),
      ],
      [
        udp4(1, '10.0.0.5', '239.1.1.1', 'mcast4-site').replace(
          `dst='${portMac.get(1)}'`,
          "dst='01:00:5e:01:01:01'",
        ),
        hex('mcast4-site'),
      ],
      [
        udp6(1, ip6Of(1), 'ff02::1', 'mcast6').replace(`dst='${portMac.get(1)}'`, "dst='33:33:00:00:00:01'"),
        hex('mcast6'),
      ],
      [
        udp6(1, ip6Of(1), 'ff05::1:3', 'mcast6-site').replace(
          `dst='${portMac.get(1)}'`,
          "dst='33:33:00:01:00:03'",
        ),
        hex('mcast6-site'),
      ],
    ];
    const seen = [2, 3].map((n) => sniff(ns(n), 'eth0', `marker-to-vm${n}`));
    await Promise.all(seen.map((s) => s.ready));
    send(
      ns(1),
      'eth0',
      ...attacks.map(([frame]) => frame),
      udp4(1, '10.0.0.5', '10.0.0.6', 'marker-to-vm2'),
      udp4(1, '10.0.0.5', '10.0.0.7', 'marker-to-vm3'),
    );
    for (const s of seen) {
      const frames = await s.done;
      for (const [frame, mark] of attacks)
        assert.ok(!frames.some((f) => f.includes(mark)), `arrived: ${frame}`);
    }
    assert.ok(
      !sh('ip', '-n', ns(2), '-6', 'route').includes('2001:db8:bad') &&
        !sh('ip', '-n', ns(2), '-6', 'addr').includes('2001:db8:bad'),
      'vm2 took the rogue prefix',
    );
  });

  it(
    'a rogue DHCP ACK unicast from VM1 to VM2 (UDP 67 to 68) does not reach VM2',
    { todo: 'VM ports filter nothing between VMs of a VPC: UDP from port 67 to 68 is routed like any other' },
    async () => {
      const seen = sniff(ns(2), 'eth0', 'marker-dhcp-unicast');
      await seen.ready;
      send(
        ns(1),
        'eth0',
        `${eth(1)}/IP(src='10.0.0.5', dst='10.0.0.6')/UDP(sport=67, dport=68)/BOOTP(op=2, xid=0x1234, yiaddr='10.0.0.6', chaddr=bytes.fromhex('${MAC(2).replaceAll(':', '')}'))/DHCP(options=[('message-type','ack'), ('server_id','10.0.0.5'), ('router','10.0.0.5'), 'end'])/Raw(b'rogue-unicast-ack')`,
        udp4(1, '10.0.0.5', '10.0.0.6', 'marker-dhcp-unicast'),
      );
      const frames = await seen.done;
      assert.ok(!frames.some((f) => f.includes(hex('rogue-unicast-ack'))), 'the unicast ACK reached vm2');
    },
  );

  it("SRv6 from inside a VPC: the node's SIDs, another VPC's SIDs, a BSID, an SRH and the underlay stay out of reach", async () => {
    const inner4 = (dst: string, payload: string) =>
      `IP(src='10.0.0.99', dst='${dst}')/UDP(sport=4000, dport=${PORT})/Raw(b'${payload}')`;
    const inner6 = (dst: string, payload: string) =>
      `IPv6(src='2001:db8:a::99', dst='${dst}')/UDP(sport=4000, dport=${PORT})/Raw(b'${payload}')`;
    const outer = (dst: string) => `${eth(1)}/IPv6(src='${ip6Of(1)}', dst='${dst}')`;
    const attacks: [string, string][] = [
      [`${outer('fc00:1::a')}/${inner4('10.0.0.6', 'own-dt4')}`, 'own-dt4'],
      [`${outer('fc00:1::14')}/${inner4('10.0.0.5', 'other-dt4')}`, 'other-dt4'],
      [`${outer('fc00:1::100:a')}/${inner6(ip6Of(2), 'own-dt6')}`, 'own-dt6'],
      [`${outer('fc00:1::100:14')}/${inner6(ip6Of(4), 'other-dt6')}`, 'other-dt6'],
      [`${outer('fc00:1:ff::2')}/${inner4('10.0.1.9', 'to-bsid4')}`, 'to-bsid4'],
      [`${outer('fc00:1:ff::1')}/${inner6('2001:db8:1::9', 'to-bsid6')}`, 'to-bsid6'],
      [
        `${outer('fc00:1::a')}/IPv6ExtHdrSegmentRouting(addresses=['fc00:1::14', 'fc00:1::a'], segleft=1, nh=4)/${inner4('10.0.0.5', 'srh-dt4')}`,
        'srh-dt4',
      ],
      [
        `${eth(1)}/IPv6(src='${ip6Of(1)}', dst='${ip6Of(2)}')/IPv6ExtHdrSegmentRouting(addresses=['fc00:1::14', '${ip6Of(2)}'], segleft=1, nh=4)/${inner4('10.0.0.5', 'srh-via-vm2')}`,
        'srh-via-vm2',
      ],
      [udp6(1, ip6Of(1), '2001:db8::1', 'to-underlay-self'), 'to-underlay-self'],
      [udp6(1, ip6Of(1), '2001:db8::2', 'to-fabric'), 'to-fabric'],
      [udp6(1, ip6Of(1), 'fc00:2::a', 'to-remote-sid'), 'to-remote-sid'],
    ];
    const uplinkSeen = sniff(uplink.netns, uplink.peer, 'marker-encap');
    await uplinkSeen.ready;
    const before = await counts();
    send(ns(1), 'eth0', ...attacks.map(([frame]) => frame), udp4(1, '10.0.0.5', '10.0.0.6', 'after-srv6'));
    await listeners.get(2)?.receives('after-srv6');
    // What the fabric gets from this node, up to a legitimate encapsulated packet of vm1's (the
    // first may be spent on resolving the fabric's address).
    await until(
      () => {
        if (!uplinkSeen.exited()) send(ns(1), 'eth0', udp4(1, '10.0.0.5', '10.0.1.9', 'marker-encap'));
        return uplinkSeen.exited();
      },
      'an encapsulated packet on the uplink',
      { timeoutMs: 15_000, everyMs: 300 },
    );
    const onUplink = await uplinkSeen.done;
    for (const [frame, mark] of attacks) {
      assert.ok(!onUplink.some((f) => f.includes(hex(mark))), `left on the uplink: ${frame}`);
      for (const n of [1, 2, 3, 4]) assert.ok(!listeners.get(n)?.has(mark), `vm${n} got ${frame}`);
    }
    assert.equal((await counts()).srv6Ingress, before.srv6Ingress, 'nothing reached the uplink filter');
    assert.match(await cli('show sr localsids'), /Good traffic: \t\[0 packets/);
    assert.doesNotMatch(await cli('show sr localsids'), /Good traffic: \t\[[1-9]/);
  });

  it('fragments and IPv6 extension headers from a spoofed source are dropped; from its own source they pass', async () => {
    const big = 'F'.repeat(64);
    const frag4 = (src: string, payload: string, id: number) =>
      [0, 1].map(
        (i) =>
          `fragment(${eth(1)}/IP(src='${src}', dst='10.0.0.6', id=${id})/UDP(sport=4000, dport=${PORT})/Raw(b'${payload}'), fragsize=48)[${i}]`,
      );
    // IPv6 fragments of a destination-options header and UDP, split after `split` bytes: 8 puts
    // the UDP header in the second fragment alone (which Linux, after RFC 7112, drops on receipt
    // whoever sends it), 16 keeps it in the first.
    const frag6 = (src: string, payload: string, id: number, split: 8 | 16) => {
      const whole = `bytes(IPv6(src='${src}', dst='${ip6Of(2)}')/IPv6ExtHdrDestOpt(nh=17)/UDP(sport=4000, dport=${PORT})/Raw(b'${payload}'))`;
      const fragment = (offset: number, more: number, bytes: string) =>
        `${eth(1)}/IPv6(src='${src}', dst='${ip6Of(2)}', nh=44)/IPv6ExtHdrFragment(nh=60, offset=${offset}, m=${more}, id=${id})/Raw(${whole}[${bytes}])`;
      return [fragment(0, 1, `40:${40 + split}`), fragment(split / 8, 0, `${40 + split}:`)];
    };
    const ext6 = (src: string, header: string, payload: string) =>
      `${eth(1)}/IPv6(src='${src}', dst='${ip6Of(2)}')/${header}/UDP(sport=4000, dport=${PORT})/Raw(b'${payload}')`;
    const before = await counts();
    send(
      ns(1),
      'eth0',
      ...frag4('10.0.0.7', `spoofed-frag4${big}`, 101),
      ...frag6(ip6Of(3), `spoofed-frag6${big}`, 102, 8),
      ext6(ip6Of(3), 'IPv6ExtHdrHopByHop()', 'spoofed-hbh'),
      ext6(ip6Of(3), 'IPv6ExtHdrDestOpt()', 'spoofed-dstopt'),
      ext6(ip6Of(3), 'IPv6ExtHdrHopByHop()/IPv6ExtHdrDestOpt()', 'spoofed-hbh-dstopt'),
      // A spoofed second fragment matching the id of a legitimate first one.
      frag4('10.0.0.7', `own-frag4-mixed${big}`, 103)[1] as string,
      ...frag4('10.0.0.5', `own-frag4${big}`, 104),
      ...frag6(ip6Of(1), `own-frag6${big}`, 105, 16),
      ext6(ip6Of(1), 'IPv6ExtHdrHopByHop()', 'own-hbh'),
      ext6(ip6Of(1), 'IPv6ExtHdrDestOpt()', 'own-dstopt'),
    );
    for (const p of [`own-frag4${big}`, `own-frag6${big}`, 'own-hbh', 'own-dstopt'])
      await listeners.get(2)?.receives(p);
    for (const p of [
      `spoofed-frag4${big}`,
      `spoofed-frag6${big}`,
      'spoofed-hbh',
      'spoofed-dstopt',
      'spoofed-hbh-dstopt',
    ])
      assert.ok(!listeners.get(2)?.has(p), `${p} reached vm2`);
    const now = await counts();
    assert.equal(now.spoofedSource4 - before.spoofedSource4, 3, 'each spoofed IPv4 fragment');
    assert.equal(now.spoofedSource6 - before.spoofedSource6, 5, 'each spoofed IPv6 packet and fragment');
  });

  it("forwards no TTL or hop limit 1, and lets nothing a VM sends to the gateway, the bridge, loopback or the node's underlay out of the node", async () => {
    const uplinkSeen = sniff(uplink.netns, uplink.peer, 'marker-encap-2');
    await uplinkSeen.ready;
    const toVpp: string[] = [
      udp4(1, '10.0.0.5', '10.0.0.1', 'to-gateway'),
      udp4(1, '10.0.0.5', '169.254.169.1', 'to-bridge'),
      udp4(1, '10.0.0.5', '127.0.0.1', 'to-loopback4'),
      udp6(1, ip6Of(1), '::1', 'to-loopback6'),
      udp6(1, ip6Of(1), 'fe80::1', 'to-gateway-ll'),
      udp6(1, ip6Of(1), '2001:db8::1', 'to-underlay'),
      udp4(1, '10.0.0.5', '10.0.0.6', 'ttl1', ', ttl=1'),
      udp6(1, ip6Of(1), ip6Of(2), 'hlim1', 1),
      udp4(1, '10.0.0.5', '10.0.0.6', 'ttl0', ', ttl=0'),
    ];
    send(
      ns(1),
      'eth0',
      ...toVpp,
      udp4(1, '10.0.0.5', '10.0.0.6', 'ttl2', ', ttl=2'),
      udp6(1, ip6Of(1), ip6Of(2), 'hlim2', 2),
    );
    await listeners.get(2)?.receives('ttl2');
    await listeners.get(2)?.receives('hlim2');
    for (const p of ['ttl1', 'hlim1', 'ttl0']) assert.ok(!listeners.get(2)?.has(p), `${p} forwarded`);
    await until(
      () => {
        if (!uplinkSeen.exited()) send(ns(1), 'eth0', udp4(1, '10.0.0.5', '10.0.1.9', 'marker-encap-2'));
        return uplinkSeen.exited();
      },
      'an encapsulated packet on the uplink',
      { timeoutMs: 15_000, everyMs: 300 },
    );
    const onUplink = await uplinkSeen.done;
    for (const p of [
      'to-gateway',
      'to-bridge',
      'to-loopback4',
      'to-loopback6',
      'to-gateway-ll',
      'to-underlay',
    ])
      assert.ok(!onUplink.some((f) => f.includes(hex(p))), `${p} left on the uplink`);
    assert.ok(pings(ns(1), '10.0.0.1'), 'the gateway answers echoes');
  });

  it("nothing a VM sends reaches the host's own network stack through its veth port's host end", async () => {
    const hostEnd = (portName.get(1) as string).replace(/^host-/, '');
    const hostMac = (JSON.parse(sh('ip', '-j', 'link', 'show', hostEnd)) as { address: string }[])[0]
      ?.address as string;
    // The host end's ingress chain (src/netns/host-end.ts) is what stops the broadcasts from 0.0.0.0.
    assert.match(sh('nft', 'list', 'chain', 'netdev', 'vppnet', `ingress_${hostEnd}`), /policy drop;/);
    // A UDP socket in the host's namespace (the test's own) on a port of its own, and a sniffer on
    // the host end: once the marker frame is there, the kernel has had every frame before it, and
    // a datagram to the socket over loopback sent after that is queued behind any that got in.
    const port = 20000 + Math.floor(Math.random() * 20000);
    const got: string[] = [];
    const listener = spawn(PY, [path.join(PACKETS, 'listen.py'), String(port), '--ipv4']);
    let loopbackSeen: () => void = () => undefined;
    const loopback = new Promise<void>((resolve) => (loopbackSeen = resolve));
    const ready = new Promise<void>((resolve) =>
      createInterface({ input: listener.stdout }).on('line', (l) =>
        l === 'ready' ? resolve() : l.endsWith(' loopback-host-end') ? loopbackSeen() : got.push(l),
      ),
    );
    try {
      await ready;
      const seen = sniff(null, hostEnd, 'marker-host-end');
      await seen.ready;
      const bcast = (src: string, dstMac: string, payload: string) =>
        `${eth(1, dstMac)}/IP(src='${src}', dst='255.255.255.255')/UDP(sport=68, dport=${port})/Raw(b'${payload}')`;
      const attacks = ['host-bcast-zero', 'host-mac-zero', 'host-bcast-own', 'host-loopback'];
      send(
        ns(1),
        'eth0',
        bcast('0.0.0.0', 'ff:ff:ff:ff:ff:ff', 'host-bcast-zero'),
        bcast('0.0.0.0', hostMac, 'host-mac-zero'),
        bcast('10.0.0.5', 'ff:ff:ff:ff:ff:ff', 'host-bcast-own'),
        `${eth(1, hostMac)}/IP(src='10.0.0.5', dst='127.0.0.1')/UDP(sport=68, dport=${port})/Raw(b'host-loopback')`,
        udp4(1, '10.0.0.5', '10.0.0.6', 'marker-host-end'),
      );
      const frames = await seen.done;
      // VPP's af_packet reads the host end as the sniffer does: every frame is there, and the
      // marker went on through VPP to vm2.
      for (const a of attacks)
        assert.ok(
          frames.some((f) => f.includes(hex(a))),
          `${a} on the host end`,
        );
      await listeners.get(2)?.receives('marker-host-end');
      sh('bash', '-c', `printf loopback-host-end > /dev/udp/127.0.0.1/${port}`);
      await Promise.race([
        loopback,
        new Promise((_, reject) =>
          setTimeout(() => reject(new Error('the loopback datagram never arrived')), 10_000).unref(),
        ),
      ]);
      assert.deepEqual(got, [], 'the host stack received these');
    } finally {
      listener.stdin.end();
      listener.kill();
    }
  });
  it("a VM that fills VPP's neighbour tables cuts off no other VM, not one started after it, nor the underlay", async () => {
    // VPP learns the sender of every ARP request it answers on a port unnumbered to the gateway,
    // and of every neighbour solicitation the mirror ND proxy sees (arp.c, ip6_nd_mirror_proxy.c):
    // one VM can offer it more addresses than its tables hold (50,000 a family: ip_neighbor.c).
    const LIMIT = 50_000;
    const swIfIndex = (n: number): number => {
      const i = ifIndex.get(n);
      assert.ok(i !== undefined, `vm${n}'s port`);
      return i;
    };
    const neighbours = async (af: 'ip4' | 'ip6'): Promise<number> =>
      (
        await client.dump(msg.ip_neighbor_dump, {
          sw_if_index: swIfIndex(1),
          af: msg.address_family_t.values[af === 'ip4' ? 'ADDRESS_IP4' : 'ADDRESS_IP6'],
        })
      ).length;
    const flood = (target: string, first: string): Promise<string> =>
      run(
        ns(1),
        'neighbour-flood.py',
        'eth0',
        MAC(1),
        portMac.get(1) as string,
        target,
        first,
        `${LIMIT + 2_000}`,
        '20000',
      );
    const vm5 = { n: 5, ip: '10.0.0.8' };
    try {
      await flood('10.0.0.1', '100.64.0.0');
      await flood('fe80::1', '2001:db8:ff::');
      // Both floods made VPP learn (the test's premise): far more entries on vm1's port than it has.
      assert.ok(
        (await neighbours('ip4')) > LIMIT / 2,
        `IPv4 entries on vm1's port: ${await neighbours('ip4')}`,
      );
      assert.ok(
        (await neighbours('ip6')) > LIMIT / 2,
        `IPv6 entries on vm1's port: ${await neighbours('ip6')}`,
      );

      // A VM started after the flood: its port is programmed whole, and it is reached both ways.
      sh('ip', 'netns', 'add', ns(vm5.n));
      const withVm5 = validateConfig({
        ...(raw() as object),
        ports: [
          ...(raw() as { ports: object[] }).ports,
          {
            name: 'vm5',
            vpc: 'vpc-a',
            ip: vm5.ip,
            mac: MAC(vm5.n),
            attach: { type: 'veth', netns: ns(vm5.n), ifname: 'eth0' },
          },
        ],
      });
      const outcome = await reconcile(withVm5, { client, host, globals: memoryStore() });
      assert.deepEqual(
        outcome.result?.failed.map((x) => `${x.op.resource.key}: ${x.error.message}`),
        [],
      );
      sh('ip', '-n', ns(vm5.n), 'link', 'set', 'lo', 'up');
      sh('ip', '-n', ns(vm5.n), 'link', 'set', 'eth0', 'up');
      sh('ip', '-n', ns(vm5.n), 'addr', 'add', `${vm5.ip}/24`, 'dev', 'eth0');
      sh('ip', '-n', ns(vm5.n), 'addr', 'replace', `${ip6Of(vm5.n)}/64`, 'dev', 'eth0', 'nodad');
      sh('ip', '-n', ns(vm5.n), 'route', 'add', 'default', 'via', '10.0.0.1');
      for (const to of [vm5.ip, ip6Of(vm5.n)])
        await until(() => pings(ns(2), to), `vm2 reaches vm5 at ${to}`, { timeoutMs: 15_000, everyMs: 300 });
      await until(() => pings(ns(vm5.n), '10.0.0.1'), 'vm5 reaches its gateway', {
        timeoutMs: 15_000,
        everyMs: 300,
      });
      // The VMs from before: reached as before.
      for (const [from, to] of [
        [3, IP4[2]],
        [2, IP4[3]],
        [3, ip6Of(2)],
      ] as const)
        assert.ok(pings(ns(from), to as string), `vm${from} reaches ${to}`);
      // The underlay: the fabric's address resolved again (a full table recycles its oldest entry
      // instead of refusing the fabric), so vm2's traffic to a remote VM leaves encapsulated.
      const uplinkSeen = sniff(uplink.netns, uplink.peer, 'marker-after-flood');
      await uplinkSeen.ready;
      for (const n of await client.dump(msg.ip_neighbor_dump, {
        sw_if_index: uplink.swIfIndex,
        af: msg.address_family_t.values.ADDRESS_IP6,
      }))
        await client.call(msg.ip_neighbor_add_del, { is_add: false, neighbor: n.neighbor });
      await until(
        () => {
          if (!uplinkSeen.exited())
            send(ns(2), 'eth0', udp4(2, '10.0.0.6', '10.0.1.9', 'marker-after-flood'));
          return uplinkSeen.exited();
        },
        'an encapsulated packet on the uplink after the flood',
        { timeoutMs: 15_000, everyMs: 300 },
      );
      await uplinkSeen.done;
    } finally {
      // Every neighbour goes (the CLI flushes all interfaces), static ones too: the pass puts
      // vppnet's back. Last in this suite: the VMs' first packets after it resolve them again.
      await cli('ip neighbor flush');
      await reconcile(validateConfig(raw()), { client, host, globals: memoryStore() });
      spawnSync('ip', ['netns', 'del', ns(vm5.n)]);
    }
  });
});
