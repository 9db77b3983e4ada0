/**
 * The tenant edge against real packets on a real VPP 26.06: VMs are network namespaces on veth
 * ports, the underlay a veth pair whose VPP end is an af_packet interface; attacks are frames
 * crafted with scapy (Debian's python3-scapy) and sent from inside a VM or from the underlay, and
 * what arrives is what a UDP listener inside the target VM receives. After each attack a
 * legitimate packet on the same path is sent and awaited, so "not received" is never a timeout:
 * frames on one path arrive in order.
 *
 * Needs VPP_API_SOCKET (a VPP of its own, left as found), root, iproute2 and /usr/bin/python3 with
 * scapy. CI has no VPP: the same scenarios run there against the simulator's models
 * (src/hypervisor/source-validation.test.ts).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { linuxHostLinks } from '../../src/agent/host-links.js';
import { reconcile } from '../../src/agent/reconciler.js';
import { memoryStore } from '../../src/hypervisor/reconcile.js';
import { validateConfig } from '../../src/config/validate.js';
import { parseShowErrors, readDropCounts, type DropCounts } from '../../src/dataplane/drop-counters.js';
import { eui64Address } from '../../src/net/eui64.js';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import { msg } from '../../src/vpp/messages/index.js';
import { until } from '../../src/util/testing/until.js';
import { createVethUplink, removeVethUplink, type VethUplink } from '../support/veth-uplink.js';
import { Listener, PACKETS, PY, pings, realPacketsSkip, send, sh } from '../support/packets.js';

const SOCKET = process.env.VPP_API_SOCKET;
const skip = realPacketsSkip(SOCKET);

const tag = randomBytes(2).toString('hex');
const MAC = (n: number): string => `52:54:00:00:0a:${n.toString(16).padStart(2, '0')}`;
const SUBNET6 = { address: '2001:db8:a::', len: 64 };
const ip6Of = (n: number): string => eui64Address(SUBNET6, MAC(n));
const linkLocalOf = (n: number): string => eui64Address({ address: 'fe80::', len: 64 }, MAC(n));
const ns = (n: number | string): string => `te${tag}${n}`;
const PORT = 9999;

describe('the tenant edge against real packets', { skip }, () => {
  let client: VppClient;
  let dir: string;
  let uplink: VethUplink;
  let uplinkMac = '';
  const portMac = new Map<number, string>();
  const listeners = new Map<number, Listener>();
  const host = linuxHostLinks(`te${tag}`);
  const vms = [1, 2, 3, 4, 5];

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
    ports: [
      { n: 1, vpc: 'vpc-a', ip: '10.0.0.5' },
      { n: 2, vpc: 'vpc-a', ip: '10.0.0.6' },
      { n: 3, vpc: 'vpc-a', ip: '10.0.0.7', allowedPrefixes: ['192.168.0.0/16', '2001:db8:c::/48'] },
      { n: 4, vpc: 'vpc-a', ip: '10.0.0.8', sourceCheck: false },
      { n: 5, vpc: 'vpc-b', ip: '10.0.0.5' },
    ].map(({ n, ...p }) => ({
      name: `vm${n}`,
      mac: MAC(n),
      attach: { type: 'veth', netns: ns(n), ifname: 'eth0' },
      ...p,
    })),
    remoteRoutes: [{ vpc: 'vpc-a', prefix: '10.0.1.0/24', sid: 'fc00:2::a' }],
  });

  const counts = (): Promise<DropCounts> => readDropCounts(client);

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'vppnet-te-'));
    client = new VppClient({
      socketPath: SOCKET as string,
      clientName: 'vppnet-te',
      healthCheckIntervalMs: 0,
    });
    await client.connect();
    for (const n of vms) sh('ip', 'netns', 'add', ns(n));
    // The underlay: a veth pair, its peer in a namespace that plays the fabric (2001:db8::2).
    uplink = await createVethUplink(client, `teu${tag}`);
    const outcome = await reconcile(validateConfig(raw()), { client, host, globals: memoryStore() });
    assert.deepEqual(
      outcome.result?.failed.map((x) => `${x.op.resource.key}: ${x.error.message}`),
      [],
    );
    const all = await client.dump(msg.sw_interface_dump, {
      sw_if_index: 0xffffffff,
      name_filter_valid: false,
    });
    uplinkMac = all.find((i) => i.sw_if_index === uplink.swIfIndex)?.l2_address ?? '';
    for (const n of vms) {
      portMac.set(n, all.find((i) => i.tag === `vppnet:vm:vm${n}`)?.l2_address ?? '');
      const v = ns(n);
      const ip4 = n === 5 ? '10.0.0.5' : `10.0.0.${4 + n}`;
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
      sh('ip', '-n', v, 'addr', 'add', `${ip4}/24`, 'dev', 'eth0');
      // SLAAC from VPP's router advertisements may have formed it already.
      sh('ip', '-n', v, 'addr', 'replace', `${ip6Of(n)}/64`, 'dev', 'eth0', 'nodad');
      sh('ip', '-n', v, 'route', 'add', 'default', 'via', '10.0.0.1');
      const listener = new Listener(v, PORT);
      listeners.set(n, listener);
      await listener.ready;
    }
    // VPP drops the packet that makes it resolve a neighbour: vm2's ARP entry first.
    await until(() => pings(ns(1), '10.0.0.6'), 'vm1 reaches vm2', { timeoutMs: 15_000, everyMs: 200 });
  });

  after(async () => {
    for (const l of listeners.values()) l.close();
    // For a post-mortem with vppctl: leave VPP and the namespaces as they are.
    if (process.env.VPPNET_KEEP_TEST_STATE === '1') return await client.close();
    const empty = validateConfig({ ...(raw() as object), vpcs: [], ports: [], remoteRoutes: [] });
    await reconcile(empty, { client, host, globals: memoryStore() }).catch(() => undefined);
    await removeVethUplink(client, uplink);
    for (const n of vms.map(String)) spawnSync('ip', ['netns', 'del', ns(n)]);
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A UDP frame from VM `n`'s eth0 to VPP, IPv4. */
  const udp4 = (n: number, src: string, dst: string, payload: string, dstMac = portMac.get(n)): string =>
    `Ether(src='${MAC(n)}', dst='${dstMac}')/IP(src='${src}', dst='${dst}')/UDP(sport=4000, dport=${PORT})/Raw(b'${payload}')`;
  const udp6 = (n: number, src: string, dst: string, payload: string): string =>
    `Ether(src='${MAC(n)}', dst='${portMac.get(n)}')/IPv6(src='${src}', dst='${dst}', hlim=64)/UDP(sport=4000, dport=${PORT})/Raw(b'${payload}')`;

  it('drops IPv4 from a VM with any source but its own, counts it, and delivers its own', async () => {
    const before = await counts();
    const spoofed: [string, string][] = [
      ['10.0.0.6', 'as-vm2'],
      ['10.0.0.8', 'as-vm4'],
      ['169.254.169.254', 'as-metadata'],
      ['169.254.169.53', 'as-dns'],
      ['10.0.1.9', 'as-remote'],
      ['10.0.0.99', 'as-unassigned'],
      ['8.8.8.8', 'as-foreign'],
    ];
    send(
      ns(1),
      'eth0',
      ...spoofed.map(([src, p]) => udp4(1, src, '10.0.0.6', p)),
      udp4(1, '10.0.0.5', '10.0.0.6', 'own-v4'),
    );
    await listeners.get(2)?.receives('own-v4');
    for (const [, p] of spoofed) assert.ok(!listeners.get(2)?.has(p), `${p} reached vm2`);
    const now = await counts();
    assert.equal(now.spoofedSource4 - before.spoofedSource4, spoofed.length, 'each counted once');
  });

  it('keeps VPCs apart: the same address is its own only on its own port', async () => {
    // vm5 (vpc-b) holds vm1's address: it may send as 10.0.0.5, never as vpc-a's 10.0.0.6.
    const before = await counts();
    send(
      ns(5),
      'eth0',
      udp4(5, '10.0.0.6', '10.0.0.7', 'vm5-as-vm2'),
      udp4(5, '10.0.0.5', '10.0.0.6', 'vm5-own'),
    );
    assert.equal((await counts()).spoofedSource4 - before.spoofedSource4, 1, 'only the spoofed one');
    // vpc-b has no 10.0.0.6: vm5's own packet to it never reaches vpc-a's vm2 either.
    send(ns(1), 'eth0', udp4(1, '10.0.0.5', '10.0.0.6', 'after-vm5'));
    await listeners.get(2)?.receives('after-vm5');
    assert.ok(!listeners.get(2)?.has('vm5-own') && !listeners.get(2)?.has('vm5-as-vm2'));
  });

  it('passes DHCP DISCOVER from 0.0.0.0 to the broadcast address', async () => {
    const before = await counts();
    send(
      ns(1),
      'eth0',
      `Ether(src='${MAC(1)}', dst='ff:ff:ff:ff:ff:ff')/IP(src='0.0.0.0', dst='255.255.255.255')/UDP(sport=68, dport=67)/BOOTP(chaddr=bytes.fromhex('${MAC(1).replaceAll(':', '')}'), xid=0x1234)/DHCP(options=[('message-type','discover'),'end'])`,
      udp4(1, '10.0.0.5', '10.0.0.6', 'after-dhcp'),
    );
    await listeners.get(2)?.receives('after-dhcp');
    assert.equal((await counts()).spoofedSource4, before.spoofedSource4, 'not a uRPF drop');
  });

  it('drops IPv6 from a VM with any source but its own, and passes its own and its link-local', async () => {
    const before = await counts();
    const spoofed: [string, string][] = [
      [ip6Of(2), 'v6-as-vm2'],
      [ip6Of(4), 'v6-as-vm4'],
      [linkLocalOf(2), 'v6-as-vm2-ll'],
      ['2001:db8:a::1234', 'v6-as-unassigned'],
      ['2001:db8:c::1', 'v6-as-appliance-net'],
    ];
    send(
      ns(1),
      'eth0',
      ...spoofed.map(([src, p]) => udp6(1, src, ip6Of(2), p)),
      udp6(1, ip6Of(1), ip6Of(2), 'own-v6'),
    );
    await listeners.get(2)?.receives('own-v6');
    for (const [, p] of spoofed) assert.ok(!listeners.get(2)?.has(p), `${p} reached vm2`);
    assert.equal((await counts()).spoofedSource6 - before.spoofedSource6, spoofed.length);
    // Its link-local, unicast to the gateway (a neighbour probe and an echo): VPP takes them in
    // and answers the echo. (The answer itself never reaches the VM: VPP resolves the VM's
    // link-local by a solicitation whose advertisement the port's ND mirror proxy reflects, with
    // or without the source check; docs/source-validation.md.)
    const echoes = async (): Promise<number> =>
      parseShowErrors(await client.cli('show errors')).get('ip6-icmp-input\techo replies sent') ?? 0;
    const echoesBefore = await echoes();
    const ll = linkLocalOf(1);
    send(
      ns(1),
      'eth0',
      `Ether(src='${MAC(1)}', dst='${portMac.get(1)}')/IPv6(src='${ll}', dst='fe80::1', hlim=255)/ICMPv6ND_NS(tgt='fe80::1')/ICMPv6NDOptSrcLLAddr(lladdr='${MAC(1)}')`,
      `Ether(src='${MAC(1)}', dst='${portMac.get(1)}')/IPv6(src='${ll}', dst='fe80::1')/ICMPv6EchoRequest(id=7, seq=1)`,
      `Ether(src='${MAC(1)}', dst='${portMac.get(1)}')/IPv6(src='${ll}', dst='fe80::1')/ICMPv6EchoRequest(id=7, seq=2)`,
    );
    await until(async () => (await echoes()) - echoesBefore === 2, 'VPP answering both echoes');
    assert.equal((await counts()).spoofedSource6 - before.spoofedSource6, spoofed.length, 'no drop for them');
  });

  it("passes an appliance's allowed prefixes, a sourceCheck: false port's anything, and nobody else's", async () => {
    send(ns(1), 'eth0', udp4(1, '192.168.4.4', '10.0.0.6', 'vm1-as-behind-vm3'));
    send(
      ns(3),
      'eth0',
      udp4(3, '192.168.4.4', '10.0.0.6', 'behind-vm3'),
      udp6(3, '2001:db8:c::1', ip6Of(2), 'behind-vm3-v6'),
    );
    send(ns(4), 'eth0', udp4(4, '10.0.0.77', '10.0.0.6', 'vm4-unchecked'));
    await listeners.get(2)?.receives('behind-vm3');
    await listeners.get(2)?.receives('behind-vm3-v6');
    await listeners.get(2)?.receives('vm4-unchecked');
    assert.ok(!listeners.get(2)?.has('vm1-as-behind-vm3'));
  });

  it('sends IPv6 for ::/0 to an appliance on another node, encapsulated to its End.DT6 SID, and keeps local traffic local', async () => {
    const APPLIANCE_SID = 'fc00:3::100:a';
    const withDefault = (): unknown => {
      const r = raw() as { remoteRoutes: unknown[] };
      return {
        ...r,
        remoteRoutes: [...r.remoteRoutes, { vpc: 'vpc-a', prefix: '::/0', sid: APPLIANCE_SID }],
      };
    };
    const applied = await reconcile(validateConfig(withDefault()), { client, host, globals: memoryStore() });
    assert.deepEqual(
      applied.result?.failed.map((x) => `${x.op.resource.key}: ${x.error.message}`),
      [],
    );
    try {
      // What leaves the uplink towards the fabric: the first packet may go to resolving the
      // fabric's address, so vm1 sends until one is seen.
      const capture = spawn('ip', [
        'netns',
        'exec',
        uplink.netns,
        PY,
        path.join(PACKETS, 'capture-encap6.py'),
        uplink.peer,
        APPLIANCE_SID,
        '15',
      ]);
      let out = '';
      let ready = false;
      capture.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('ready')) ready = true;
      });
      const done = new Promise<number | null>((resolve) => capture.on('close', resolve));
      let exited = false;
      void done.then(() => (exited = true));
      await until(() => ready, 'the capture listening', { timeoutMs: 10_000, everyMs: 50 });
      await until(
        () => {
          if (!exited) send(ns(1), 'eth0', udp6(1, ip6Of(1), '2001:4860::8888', 'to-the-world'));
          return exited;
        },
        'an encapsulated packet on the uplink',
        { timeoutMs: 15_000, everyMs: 300 },
      );
      assert.equal(await done, 0, out);
      const line = out.split('\n').find((l) => l.includes('to-the-world')) ?? '';
      assert.deepEqual(line.split(' '), [
        '2001:db8::1',
        APPLIANCE_SID,
        ip6Of(1),
        '2001:4860::8888',
        'to-the-world',
      ]);
      // A local VM's /128 is more specific than ::/0: vm2 still gets vm1's packets directly.
      send(ns(1), 'eth0', udp6(1, ip6Of(1), ip6Of(2), 'local-despite-default'));
      await listeners.get(2)?.receives('local-despite-default');
    } finally {
      // VPPNET_KEEP_TEST_STATE=1 leaves the default route in place for a post-mortem.
      if (process.env.VPPNET_KEEP_TEST_STATE !== '1') {
        const back = await reconcile(validateConfig(raw()), { client, host, globals: memoryStore() });
        assert.deepEqual(
          back.result?.failed.map((x) => `${x.op.resource.key}: ${x.error.message}`),
          [],
        );
      }
    }
  });

  it('accepts SRv6 only from the fleet: an outsider reaches neither a SID nor a BSID', async () => {
    const before = await counts();
    // From the fabric's side of the uplink (scapy takes the source MAC from the interface).
    const srv6 = (src: string, dst: string, payload: string): string =>
      `Ether(dst='${uplinkMac}')/IPv6(src='${src}', dst='${dst}')/IP(src='10.0.1.9', dst='10.0.0.6')/UDP(sport=4000, dport=${PORT})/Raw(b'${payload}')`;
    send(
      uplink.netns,
      uplink.peer,
      srv6('2001:db9::66', 'fc00:1::a', 'srv6-outsider'),
      srv6('2001:db9::66', 'fc00:1:ff::1', 'srv6-to-bsid'),
      srv6('2001:db8::7', 'fc00:1::a', 'srv6-from-fleet'),
    );
    await listeners.get(2)?.receives('srv6-from-fleet');
    assert.ok(!listeners.get(2)?.has('srv6-outsider'));
    assert.equal((await counts()).srv6Ingress - before.srv6Ingress, 2, 'the outsider, to a SID and a BSID');
    // The fabric itself still talks to the node: from its global address and from its
    // link-local (VPP's neighbour discovery with the gateway; a ping's answer needs both ways).
    const uplinkLinkLocal = eui64Address({ address: 'fe80::', len: 64 }, uplinkMac);
    for (const to of ['2001:db8::1', `${uplinkLinkLocal}%${uplink.peer}`])
      await until(() => pings(uplink.netns, to), `the fabric pings the node's ${to}`, {
        timeoutMs: 10_000,
        everyMs: 200,
      });
    assert.equal((await counts()).srv6Ingress - before.srv6Ingress, 2, 'nothing of the fabric dropped');
  });
});
