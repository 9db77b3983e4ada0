/**
 * Metadata and DNS over IPv6 (services.ip6, nat66) against real packets on a real VPP 26.06: VMs
 * are network namespaces on veth ports, in a dual-stack VPC and in an IPv6-only VPC with the same
 * IPv6 subnet and the same address; the metadata and DNS pods are namespaces attached by the
 * attachment manager with an IPv4 and an IPv6 address each; the underlay is a veth pair whose peer
 * plays the fabric. Checked: each VM reaches both pods as its own IPv6 service address (two VMs
 * with one address in two VPCs are two sources), answers come back (ping6), a pod cannot open a
 * flow to a VM, and nothing from the underlay reaches a pod: neither a fabric host with a VM's
 * service address as its source nor an SRv6 packet from another hypervisor decapsulated into a VPC.
 * nat66-in2out runs on each VPC's services loopback and on no VM port. And one VM flooding the IPv6 DNS address is held to its rate by its own policer (the one its
 * IPv4 packets pass, at the service BVI's L2 input past nat66) while another VM's requests all get
 * through.
 *
 * Needs VPP_API_SOCKET (a VPP of its own, left as found), root, iproute2, ping and /usr/bin/python3
 * with scapy. CI has no VPP: src/services/ip6-services.test.ts checks the same resources and ACL
 * verdicts on the simulator.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { linuxHostLinks } from '../../src/agent/host-links.js';
import { reconcile } from '../../src/agent/reconciler.js';
import { memoryStore } from '../../src/hypervisor/reconcile.js';
import { AddressBookFileStore } from '../../src/attachments/address-book-file-store.js';
import { AsyncLock } from '../../src/attachments/async-lock.js';
import { AttachmentManager } from '../../src/attachments/attachment-manager.js';
import { AttachmentFileStore } from '../../src/attachments/attachment-store.js';
import type { AgentConfig } from '../../src/config/model.js';
import { validateConfig } from '../../src/config/validate.js';
import { ServiceAddresses } from '../../src/services/service-addresses.js';
import { DROP_COUNTERS, parseShowErrors } from '../../src/dataplane/drop-counters.js';
import { tags } from '../../src/dataplane/keys.js';
import { readPolicerCounts } from '../../src/dataplane/policer-counters.js';
import { until } from '../../src/util/testing/until.js';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import { msg } from '../../src/vpp/messages/index.js';
import { createVethUplink, removeVethUplink, type VethUplink } from '../support/veth-uplink.js';
import { Listener, realPacketsSkip, run, send, sh, udpReceiveBufferErrors } from '../support/packets.js';

const SOCKET = process.env.VPP_API_SOCKET;
const skip = realPacketsSkip(SOCKET);

const tag = randomBytes(2).toString('hex');
const ns = (what: string): string => `s6${tag}${what}`;
const VM_MAC = (n: number): string => `52:54:00:00:0c:0${n}`;
const PORT = 9999;
const METADATA6 = 'fd00:ec2::254';
const DNS6 = 'fd00:ec2::253';
const GATEWAY6 = 'fd00:ec2::1';
const VM_RANGE6 = 'fd00:ec2:0:ff::/64';
/** vm1 (dual-stack vpc-a) and vm3 (IPv6-only vpc-b) share this address; vm2 is in vpc-a. */
const VM6 = (n: number): string => (n === 2 ? '2001:db8:a::6' : '2001:db8:a::5');
const PODS = [
  {
    name: 'md',
    network: 'vppnet-metadata',
    address: '169.254.169.254',
    address6: METADATA6,
    mac: '0a:58:a9:fe:a9:fe',
  },
  {
    name: 'dns',
    network: 'vppnet-dns-proxy',
    address: '169.254.169.53',
    address6: DNS6,
    mac: '0a:58:a9:fe:a9:35',
  },
] as const;

describe('the service plane over IPv6 against real packets', { skip }, () => {
  let client: VppClient;
  let dir: string;
  let manager: AttachmentManager;
  let addresses: ServiceAddresses;
  let uplink: VethUplink;
  let uplinkMac = '';
  const lock = new AsyncLock();
  const owner = `s6${tag}`;
  const host = linuxHostLinks(owner);
  const vmPortMac = new Map<number, string>();
  const listeners = new Map<string, Listener>();
  const globals = memoryStore();

  const raw = (): Record<string, unknown> => ({
    node: {
      name: 'hv1',
      underlay: { interface: uplink.name, address: '2001:db8::1/64', gateway: '2001:db8::2' },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs: [
      { name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24', '2001:db8:a::/64'], gateway: '10.0.0.1' },
      { name: 'vpc-b', id: 20, subnets: ['2001:db8:a::/64'] },
    ],
    ports: [
      { n: 1, vpc: 'vpc-a', ip: '10.0.0.5' },
      { n: 2, vpc: 'vpc-a', ip: '10.0.0.6' },
      { n: 3, vpc: 'vpc-b' },
    ].map(({ n, ...p }) => ({
      name: `vm${n}`,
      mac: VM_MAC(n),
      ip6: VM6(n),
      attach: { type: 'veth', netns: ns(`vm${n}`), ifname: 'eth0' },
      ...p,
    })),
    remoteRoutes: [],
    services: {
      dnsAddress: '169.254.169.53',
      networks: { metadata: PODS[0].network, dns: PODS[1].network },
      ip6: {},
    },
  });
  const config = (): AgentConfig => validateConfig(raw());

  const apply = async (cfg = config()): Promise<void> => {
    const outcome = await reconcile(cfg, {
      client,
      host,
      globals,
      services: { addresses, attachments: manager, lock },
    });
    assert.deepEqual(
      outcome.result?.failed.map((x) => `${x.op.action} ${x.op.resource.key}: ${x.error.message}`),
      [],
    );
    assert.deepEqual(outcome.plan.pending, []);
  };

  const pings6 = (netns: string, to: string): boolean =>
    spawnSync('ip', ['netns', 'exec', netns, 'ping', '-6', '-c', '1', '-W', '1', to]).status === 0;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'vppnet-s6-'));
    client = new VppClient({
      socketPath: SOCKET as string,
      clientName: 'vppnet-s6',
      healthCheckIntervalMs: 0,
    });
    await client.connect();
    uplink = await createVethUplink(client, `s6u${tag}`);
    addresses = new ServiceAddresses(new AddressBookFileStore(path.join(dir, 'state')));
    manager = await AttachmentManager.open({
      client,
      host,
      hostLinkOwner: owner,
      lock,
      store: new AttachmentFileStore(path.join(dir, 'state')),
      services: () => config().services,
    });
    for (const n of [1, 2, 3]) sh('ip', 'netns', 'add', ns(`vm${n}`));
    for (const p of PODS) sh('ip', 'netns', 'add', ns(p.name));
    await apply();
    for (const p of PODS) {
      await manager.attach({
        network: p.network,
        containerId: `c-${tag}-${p.name}`,
        ifname: 'net1',
        netns: `/run/netns/${ns(p.name)}`,
        mode: 'veth',
        mac: p.mac,
        ips: [
          { address: `${p.address}/24`, gateway: '169.254.169.1' },
          { address: `${p.address6}/64`, gateway: GATEWAY6 },
        ],
        routes: [
          { dst: '169.252.252.0/24', gw: '169.254.169.1' },
          { dst: VM_RANGE6, gw: GATEWAY6 },
        ],
      });
    }
    await apply();
    const all = await client.dump(msg.sw_interface_dump, {
      sw_if_index: 0xffffffff,
      name_filter_valid: false,
    });
    uplinkMac = all.find((i) => i.sw_if_index === uplink.swIfIndex)?.l2_address ?? '';
    for (const n of [1, 2, 3]) {
      vmPortMac.set(n, all.find((i) => i.tag === `vppnet:vm:vm${n}`)?.l2_address ?? '');
      const v = ns(`vm${n}`);
      sh('ip', '-n', v, 'link', 'set', 'lo', 'up');
      // Static guests: the port's RAs (every 10–30 s) must not add a SLAAC address beside VM6(n),
      // or the kernel may send from it, which the port's source check rightly drops (the RA's
      // prefix gives the EUI-64 of the guest's own MAC, not VM6(n)).
      sh('ip', 'netns', 'exec', v, 'sysctl', '-qw', 'net.ipv6.conf.eth0.autoconf=0');
      sh('ip', '-n', v, 'link', 'set', 'eth0', 'up');
      sh('ip', '-n', v, 'addr', 'add', `${VM6(n)}/64`, 'dev', 'eth0', 'nodad');
      sh('ip', '-n', v, '-6', 'route', 'replace', 'default', 'via', 'fe80::1', 'dev', 'eth0');
      const l = new Listener(v, PORT);
      listeners.set(`vm${n}`, l);
      await l.ready;
    }
    for (const p of PODS) {
      const l = new Listener(ns(p.name), PORT);
      listeners.set(p.name, l);
      await l.ready;
    }
    for (const [n, to] of [
      [1, METADATA6],
      [3, METADATA6],
      [2, DNS6],
    ] as const)
      await until(() => pings6(ns(`vm${n}`), to), `vm${n} pings ${to}`, { timeoutMs: 20_000, everyMs: 300 });
  });

  after(async () => {
    for (const l of listeners.values()) l.close();
    if (process.env.VPPNET_KEEP_TEST_STATE === '1') return await client.close();
    for (const p of PODS)
      await manager
        .detach({ containerId: `c-${tag}-${p.name}`, ifname: 'net1', netns: `/run/netns/${ns(p.name)}` })
        .catch(() => undefined);
    const empty = validateConfig({ ...raw(), vpcs: [], ports: [], services: undefined });
    await reconcile(empty, { client, host, globals: memoryStore() }).catch(() => undefined);
    await removeVethUplink(client, uplink);
    for (const n of ['vm1', 'vm2', 'vm3', ...PODS.map((p) => p.name)])
      spawnSync('ip', ['netns', 'del', ns(n)]);
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A UDP datagram from VM n (its own IPv6 address) to a service address. */
  const fromVm = (n: number, dst: string, payload: string): void =>
    send(
      ns(`vm${n}`),
      'eth0',
      `Ether(src='${VM_MAC(n)}', dst='${vmPortMac.get(n)}')/IPv6(src='${VM6(n)}', dst='${dst}')/UDP(sport=4000, dport=${PORT})/Raw(b'${payload}')`,
    );
  const listener = (name: string): Listener => listeners.get(name) as Listener;
  const sourceOf = (l: Listener, text: string): string =>
    l.got.find((line) => line.endsWith(` ${text}`))?.split(' ')[0] ?? '';

  it('each VM reaches metadata and DNS over IPv6 as its own service address, equal addresses in two VPCs as two', async () => {
    fromVm(1, METADATA6, 'md6-from-vm1');
    fromVm(3, METADATA6, 'md6-from-vm3');
    fromVm(2, DNS6, 'dns6-from-vm2');
    fromVm(3, DNS6, 'dns6-from-vm3');
    await listener('md').receives('md6-from-vm1');
    await listener('md').receives('md6-from-vm3');
    await listener('dns').receives('dns6-from-vm2');
    await listener('dns').receives('dns6-from-vm3');
    const map = addresses.serviceMap();
    const of = (port: string): string | undefined => map.find((e) => e.port === port)?.serviceAddress6;
    assert.equal(sourceOf(listener('md'), 'md6-from-vm1'), of('vm1'));
    assert.equal(sourceOf(listener('md'), 'md6-from-vm3'), of('vm3'));
    assert.equal(sourceOf(listener('dns'), 'dns6-from-vm2'), of('vm2'));
    assert.notEqual(of('vm1'), of('vm3'));
    // vm3's VPC has no IPv4: its entry names only its IPv6 side.
    const vm3 = map.find((e) => e.port === 'vm3');
    assert.equal(vm3?.vmIp, undefined);
    assert.equal(vm3?.vmIp6, VM6(3));
    // Answers come back through nat66 to the right VM (and its VPC).
    // (a ping answered within 1 s, a few tries: one echo lost on a loaded machine is no failure)
    for (const vm of ['vm3', 'vm1'])
      await until(() => pings6(ns(vm), DNS6), `${vm} pings ${DNS6}`, { timeoutMs: 10_000, everyMs: 100 });
  });

  it("runs nat66-in2out on each VPC's services loopback and on no VM port", async () => {
    // nat66-in2out costs every packet its interface receives (two FIB lookups each): a VM's
    // traffic to other VMs must never meet it, only what the services loopback echoes.
    const all = await client.dump(msg.sw_interface_dump, {
      sw_if_index: 0xffffffff,
      name_filter_valid: false,
    });
    const nameOf = (tagged: string): string => all.find((i) => i.tag === tagged)?.interface_name ?? '';
    const unicast6 = async (iface: string): Promise<string> => {
      const out = await client.cli(`show interface features ${iface}`);
      return /ip6-unicast:\n([\s\S]*?)\n\n/.exec(out)?.[1] ?? '';
    };
    for (const n of [1, 2, 3]) {
      const features = await unicast6(nameOf(`vppnet:vm:vm${n}`));
      assert.match(features, /ip6-rx-urpf-strict/, `vm${n}'s port: its source check`);
      assert.doesNotMatch(features, /nat66/, `vm${n}'s port`);
    }
    for (const vpc of ['vpc-a', 'vpc-b'])
      assert.match(await unicast6(nameOf(tags.vpcServices6(vpc))), /nat66-in2out/, vpc);
  });

  it('a VM cannot ask as another VM: its source check runs before nat66 on its port', async () => {
    // vm1 sends as vm2 (same VPC): the uRPF source check on vm1's port must drop it before
    // nat66-in2out, which would translate it to vm2's service address (nothing in VPP orders the
    // two features: this checks the order VPP picked).
    send(
      ns('vm1'),
      'eth0',
      `Ether(src='${VM_MAC(1)}', dst='${vmPortMac.get(1)}')/IPv6(src='${VM6(2)}', dst='${METADATA6}')/UDP(sport=4000, dport=${PORT})/Raw(b'vm1-as-vm2')`,
    );
    fromVm(1, METADATA6, 'md6-after-spoof');
    await listener('md').receives('md6-after-spoof');
    assert.equal(listener('md').has('vm1-as-vm2'), false);
  });

  it('a pod cannot open a flow to a VM over IPv6', async () => {
    const vm1 = addresses.serviceMap().find((e) => e.port === 'vm1')?.serviceAddress6 ?? '';
    const md = PODS[0];
    // Through the pod's kernel (route via the gateway) and as a crafted frame to the BVI.
    spawnSync('ip', [
      'netns',
      'exec',
      ns('md'),
      '/usr/bin/python3',
      '-c',
      `import socket; s=socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s.sendto(b'pod-to-vm1', ('${vm1}', ${PORT}))`,
    ]);
    const bviMac = (
      await client.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff, name_filter_valid: false })
    ).find((i) => i.tag === 'vppnet:services:bvi')?.l2_address;
    send(
      ns('md'),
      'net1',
      `Ether(src='${md.mac}', dst='${bviMac}')/IPv6(src='${md.address6}', dst='${vm1}')/UDP(sport=${PORT}, dport=${PORT})/Raw(b'pod-to-vm1-crafted')`,
    );
    // The VM's own request afterwards still arrives: the path works, the pod's packets did not.
    fromVm(1, METADATA6, 'md6-after-pod');
    await listener('md').receives('md6-after-pod');
    assert.equal(listener('vm1').has('pod-to-vm1'), false);
    assert.equal(listener('vm1').has('pod-to-vm1-crafted'), false);
  });

  it('nothing from the underlay reaches a pod over IPv6, not even as a VM service address', async () => {
    const vm2 = addresses.serviceMap().find((e) => e.port === 'vm2')?.serviceAddress6 ?? '';
    const fabric = (src: string, dst: string, payload: string): string =>
      `Ether(dst='${uplinkMac}')/IPv6(src='${src}', dst='${dst}')/UDP(sport=4000, dport=${PORT})/Raw(b'${payload}')`;
    // A fabric host, as itself and as vm2's service address; and another hypervisor's SRv6 packet
    // into vpc-a's End.DT6 SID carrying a VM's request with a forged service-address source.
    const dt6 = 'fc00:1::100:a';
    send(
      uplink.netns,
      uplink.peer,
      fabric('2001:db8::2', METADATA6, 'from-fabric'),
      fabric(vm2, METADATA6, 'from-fabric-as-vm2'),
      `Ether(dst='${uplinkMac}')/IPv6(src='2001:db8::2', dst='${dt6}')/IPv6(src='${vm2}', dst='${METADATA6}')/UDP(sport=4000, dport=${PORT})/Raw(b'decap-as-vm2')`,
      `Ether(dst='${uplinkMac}')/IPv6(src='2001:db8::2', dst='${dt6}')/IPv6(src='2001:db8:a::77', dst='${METADATA6}')/UDP(sport=4000, dport=${PORT})/Raw(b'decap-as-remote-vm')`,
      // IPv4 the same way: into vpc-a's End.DT4 SID as vm1 (10.0.0.5).
      `Ether(dst='${uplinkMac}')/IPv6(src='2001:db8::2', dst='fc00:1::a')/IP(src='10.0.0.5', dst='169.254.169.254')/UDP(sport=4000, dport=${PORT})/Raw(b'decap4-as-vm1')`,
    );
    fromVm(2, METADATA6, 'md6-after-fabric');
    await listener('md').receives('md6-after-fabric');
    // vm1 itself over IPv4 still gets through, as itself.
    send(
      ns('vm1'),
      'eth0',
      `Ether(src='${VM_MAC(1)}', dst='${vmPortMac.get(1)}')/IP(src='10.0.0.5', dst='169.254.169.254')/UDP(sport=4000, dport=${PORT})/Raw(b'md4-from-vm1')`,
    );
    await listener('md').receives('md4-from-vm1');
    const vm1 = addresses.serviceMap().find((e) => e.port === 'vm1')?.serviceAddress;
    assert.equal(sourceOf(listener('md'), 'md4-from-vm1').replace(/^::ffff:/, ''), vm1);
    for (const text of [
      'from-fabric',
      'from-fabric-as-vm2',
      'decap-as-vm2',
      'decap-as-remote-vm',
      'decap4-as-vm1',
    ])
      assert.equal(listener('md').has(text), false, text);
  });

  it("one VM flooding the IPv6 DNS address is held to its rate by its one policer; another VM's requests all get through", async (t) => {
    const SECONDS = 12;
    const FLOOD_PPS = 20_000;
    const limits = config().services?.vmLimits;
    assert.ok(limits);
    const dns = listener('dns');
    const md = listener('md');
    const policersBefore = await readPolicerCounts(client);
    const errorsBefore = parseShowErrors(await client.cli('show errors'));
    const [dnsFrom, mdFrom] = [dns.got.length, md.got.length];
    const socketDropsBefore = udpReceiveBufferErrors(ns('dns')) + udpReceiveBufferErrors(ns('md'));
    // vm1 floods over IPv6 from random source ports; vm2, in the same VPC, asks DNS and metadata
    // over IPv6 ten times a second, each time from a new source port.
    const [flood, paced] = await Promise.all([
      run(
        ns('vm1'),
        'flood.py',
        'eth0',
        VM_MAC(1),
        vmPortMac.get(1) ?? '',
        VM6(1),
        DNS6,
        String(PORT),
        String(FLOOD_PPS),
        String(SECONDS),
        'flood6',
      ),
      run(
        ns('vm2'),
        'paced-client.py',
        '100',
        String(SECONDS),
        'fair6',
        `${DNS6}:${PORT}`,
        `${METADATA6}:${PORT}`,
      ),
    ]);
    const offered = Number(/sent (\d+)/.exec(flood)?.[1]);
    const asked = Number(/sent (\d+)/.exec(paced)?.[1]);
    const vm2Source = (l: string): boolean => / fair6-\d+$/.test(l);
    const answered = (l: Listener, from: number): number => l.got.slice(from).filter(vm2Source).length;
    // Whatever is still on its way arrives within a moment; the count is then final either way.
    await until(() => answered(dns, dnsFrom) >= asked && answered(md, mdFrom) >= asked, 'vm2 heard', {
      timeoutMs: 3000,
      everyMs: 100,
    }).catch(() => undefined);
    const floodIn = dns.got.slice(dnsFrom).filter((l) => l.endsWith(' flood6')).length;
    const policers = await readPolicerCounts(client);
    const dropsOf = (port: string): number => {
      const name = tags.vmRatePolicer(port);
      const [now, was] = [policers.get(name), policersBefore.get(name)];
      return (
        (now?.exceedPackets ?? 0) +
        (now?.violatePackets ?? 0) -
        (was?.exceedPackets ?? 0) -
        (was?.violatePackets ?? 0)
      );
    };
    const errors = parseShowErrors(await client.cli('show errors'));
    const grew = (counter: readonly [string, string]): number =>
      (errors.get(counter.join('\t')) ?? 0) - (errorsBefore.get(counter.join('\t')) ?? 0);
    const floodBytes = floodIn * FLOOD6_FRAME_BYTES;
    const rows = [
      ['vm1 IPv6 flood offered', `${Math.round(offered / SECONDS)} pps`],
      [
        'vm1 IPv6 flood reaching the DNS pod',
        `${Math.round(floodIn / SECONDS)} pps (${Math.round((floodIn * FLOOD6_IP_BYTES * 8) / SECONDS / 1000)} kbit/s of IP bytes, ${Math.round((floodBytes * 8) / SECONDS / 1000)} of frames; limit ${limits.rateKbps})`,
      ],
      ['vm1 dropped by its policer', `${dropsOf('vm1')} packets`],
      ['l2-policer-classify drops (the BVI)', `${grew(DROP_COUNTERS.vmServiceRate6)}`],
      ['vm2 IPv6 DNS requests answered', `${answered(dns, dnsFrom)} / ${asked}`],
      ['vm2 IPv6 metadata requests answered', `${answered(md, mdFrom)} / ${asked}`],
      [
        'VPP errors during the flood',
        [...errors]
          .filter(([k, v]) => v !== (errorsBefore.get(k) ?? 0))
          .map(([k, v]) => `${k.replace('\t', ': ')} ${v - (errorsBefore.get(k) ?? 0)}`)
          .join('; '),
      ],
    ];
    const socketDrops =
      udpReceiveBufferErrors(ns('dns')) + udpReceiveBufferErrors(ns('md')) - socketDropsBefore;
    rows.push(["datagrams the pods' listeners dropped (socket buffer full)", `${socketDrops}`]);
    for (const [what, value] of rows) t.diagnostic(`${what}: ${value}`);
    // A loss there comes after VPP delivered the packet: the test's own receiver fell behind.
    assert.equal(socketDrops, 0, "the pods' listeners kept up with what VPP delivered");
    assert.ok(asked >= SECONDS * 9, `vm2 asked ${asked} times`);
    assert.equal(answered(dns, dnsFrom), asked, "every one of vm2's DNS requests reached the DNS pod");
    assert.equal(
      answered(md, mdFrom),
      asked,
      "every one of vm2's metadata requests reached the metadata pod",
    );
    assert.ok(dropsOf('vm1') > 0, "vm1's policer dropped the excess");
    assert.equal(dropsOf('vm2'), 0, "vm2's policer dropped nothing");
    assert.equal(
      grew(DROP_COUNTERS.vmServiceRate6),
      dropsOf('vm1'),
      "l2-policer-classify's drops are vm1's policer's",
    );
    assert.equal(grew(DROP_COUNTERS.vmServiceRate4), 0, 'nothing dropped over IPv4');
    // The rate, plus the burst, plus a tenth for the policer's clock and rounding (in frames).
    const allowed = ((limits.rateKbps * 1000) / 8) * SECONDS + limits.burstBytes;
    assert.ok(
      floodBytes <= allowed * 1.1,
      `${floodBytes} bytes of flood reached the pod, ${allowed} allowed`,
    );
    assert.ok(
      floodBytes >= allowed * 0.5,
      `the flood's allowance went through (${floodBytes} of ${allowed} bytes)`,
    );
  });
});

/**
 * The IPv6 flood's packets: 40 + 8 + "flood6" = 54 IP bytes; its policer sees them at the bridge,
 * as frames of 68 (l2-policer-classify on the BVI counts the Ethernet header too).
 */
const FLOOD6_IP_BYTES = 54;
const FLOOD6_FRAME_BYTES = FLOOD6_IP_BYTES + 14;
