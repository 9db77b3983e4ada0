/**
 * The service plane against real packets on a real VPP 26.06: VMs are network namespaces on veth
 * ports, the metadata, DNS and DHCP pods are network namespaces attached by the attachment manager
 * (veth + af_packet, as vppnet-cni would), and one of them plays the compromised pod: frames crafted
 * with scapy (Debian's python3-scapy) from inside it try to take over another service's address,
 * impersonate the gateway or a VM, and answer DHCP for a VM. Each attack is followed by the
 * legitimate traffic it aimed at, awaited, and by VPP's own drop counters, so "not received" is
 * never a timeout alone.
 *
 * Needs VPP_API_SOCKET (a VPP of its own, left as found), root, iproute2, ping and /usr/bin/python3
 * with scapy. CI has no VPP: the same verdicts are asserted on the simulator's models
 * (src/attachments/service-bridge.test.ts, "a compromised service pod, on the simulator").
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
import { DROP_COUNTERS, parseShowErrors } from '../../src/dataplane/drop-counters.js';
import { tags } from '../../src/dataplane/keys.js';
import { readPolicerCounts } from '../../src/dataplane/policer-counters.js';
import { readNatSessionsPerPort } from '../../src/dataplane/nat-users.js';
import { ServiceAddresses } from '../../src/services/service-addresses.js';
import { until } from '../../src/util/testing/until.js';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import { msg } from '../../src/vpp/messages/index.js';
import { createUnderlay, removeUnderlay, type TestUnderlay } from '../support/underlay.js';
import {
  Listener,
  pings,
  realPacketsSkip,
  run,
  send,
  sh,
  udpReceiveBufferErrors,
} from '../support/packets.js';

const SOCKET = process.env.VPP_API_SOCKET;
const skip = realPacketsSkip(SOCKET);

const tag = randomBytes(2).toString('hex');
const ns = (what: string): string => `sp${tag}${what}`;
const VM_MAC = (n: number): string => `52:54:00:00:0b:0${n}`;
const PORT = 9999;
const GATEWAY = '169.254.169.1';
const METADATA = '169.254.169.254';
const DNS = '169.254.169.53';
const DHCP = '169.254.169.103';
const NETWORKS = { metadata: 'vppnet-metadata', dns: 'vppnet-dns-proxy', dhcp: 'vppnet-dhcp' } as const;
const PODS = [
  { name: 'md', network: NETWORKS.metadata, address: METADATA, mac: '0a:58:a9:fe:a9:fe' },
  { name: 'dns', network: NETWORKS.dns, address: DNS, mac: '0a:58:a9:fe:a9:35' },
  { name: 'dhcp', network: NETWORKS.dhcp, address: DHCP, mac: '0a:58:a9:fe:a9:67' },
] as const;
type PodName = (typeof PODS)[number]['name'];
const podOf = (name: PodName) => PODS.find((p) => p.name === name) as (typeof PODS)[number];

/** A DHCP option-82 TLV with VPP's circuit-id (a sw_if_index) and link-selection (an address). */
function option82(swIfIndex: number, linkAddress: string): string {
  const circuit = Buffer.alloc(4);
  circuit.writeUInt32BE(swIfIndex);
  const link = Buffer.from(linkAddress.split('.').map(Number));
  return Buffer.concat([Buffer.from([1, 4]), circuit, Buffer.from([5, 4]), link]).toString('hex');
}

/** The option-82 TLVs of a DHCP message (hex of the UDP payload), in order. */
function option82sOf(hex: string): string[] {
  const b = Buffer.from(hex, 'hex');
  const out: string[] = [];
  let i = 240; // after the fixed BOOTP header and the magic cookie
  while (i < b.length) {
    const code = b[i] as number;
    if (code === 255) break;
    if (code === 0) {
      i++;
      continue;
    }
    const len = b[i + 1] as number;
    if (code === 82) out.push(b.subarray(i + 2, i + 2 + len).toString('hex'));
    i += 2 + len;
  }
  return out;
}

describe('the service plane against real packets', { skip }, () => {
  let client: VppClient;
  let dir: string;
  let underlay: TestUnderlay;
  let manager: AttachmentManager;
  let addresses: ServiceAddresses;
  const lock = new AsyncLock();
  const owner = `sp${tag}`;
  const host = linuxHostLinks(owner);
  const vmPortMac = new Map<number, string>();
  const vmPortIndex = new Map<number, number>();
  const listeners = new Map<string, Listener>();
  const globals = memoryStore();

  const raw = (): Record<string, unknown> => ({
    node: {
      name: 'hv1',
      underlay: { interface: underlay.name, address: '2001:db8::1/64', gateway: '2001:db8::2' },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs: [
      { name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' },
      { name: 'vpc-b', id: 20, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' },
    ],
    // vm1 and vm3 have one address in two VPCs: the pods must see two identities.
    ports: [
      { n: 1, vpc: 'vpc-a', ip: '10.0.0.5' },
      { n: 2, vpc: 'vpc-a', ip: '10.0.0.6' },
      { n: 3, vpc: 'vpc-b', ip: '10.0.0.5' },
    ].map(({ n, ...p }) => ({
      name: `vm${n}`,
      mac: VM_MAC(n),
      attach: { type: 'veth', netns: ns(`vm${n}`), ifname: 'eth0' },
      ...p,
    })),
    remoteRoutes: [],
    services: { dhcpServer: DHCP, dnsAddress: DNS, networks: NETWORKS },
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

  /** VPP's error counters, "node\treason" → count. */
  const errors = async (): Promise<Map<string, number>> => parseShowErrors(await client.cli('show errors'));
  /** The MACIP classifier's drops and the pods' input ACLs', as the agent's metrics read them. */
  const drops = (d: Map<string, number>): { macip: number; acl: number } => ({
    macip: d.get(DROP_COUNTERS.podSpoofed.join('\t')) ?? 0,
    acl: d.get(DROP_COUNTERS.podNotAllowed4.join('\t')) ?? 0,
  });
  const grew = (before: Map<string, number>, now: Map<string, number>): Map<string, number> => {
    const out = new Map<string, number>();
    for (const [k, v] of now) if (v !== (before.get(k) ?? 0)) out.set(k, v - (before.get(k) ?? 0));
    return out;
  };

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'vppnet-sp-'));
    client = new VppClient({
      socketPath: SOCKET as string,
      clientName: 'vppnet-sp',
      healthCheckIntervalMs: 0,
    });
    await client.connect();
    underlay = await createUnderlay(client);
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
        ips: [{ address: `${p.address}/24`, gateway: GATEWAY }],
        routes: [{ dst: '169.252.252.0/24', gw: GATEWAY }],
      });
    }
    await apply();
    const all = await client.dump(msg.sw_interface_dump, {
      sw_if_index: 0xffffffff,
      name_filter_valid: false,
    });
    for (const n of [1, 2, 3]) {
      const port = all.find((i) => i.tag === `vppnet:vm:vm${n}`);
      vmPortMac.set(n, port?.l2_address ?? '');
      vmPortIndex.set(n, port?.sw_if_index ?? 0);
      const v = ns(`vm${n}`);
      sh('ip', '-n', v, 'link', 'set', 'lo', 'up');
      sh('ip', '-n', v, 'link', 'set', 'eth0', 'up');
      sh('ip', '-n', v, 'addr', 'add', `${n === 2 ? '10.0.0.6' : '10.0.0.5'}/24`, 'dev', 'eth0');
      sh('ip', '-n', v, 'route', 'add', 'default', 'via', '10.0.0.1');
      const dhcpClient = new Listener(v, 68, { hex: true, ipv4Only: true });
      listeners.set(`vm${n}:68`, dhcpClient);
      await dhcpClient.ready;
    }
    for (const p of PODS) {
      const l = new Listener(ns(p.name), PORT);
      listeners.set(p.name, l);
      await l.ready;
    }
    const dhcpServer = new Listener(ns('dhcp'), 67, { hex: true, ipv4Only: true });
    listeners.set('dhcp:67', dhcpServer);
    await dhcpServer.ready;
    // The first packet of each path makes VPP resolve a neighbour (and is dropped): the relay
    // reaches the DHCP pod, vm1 and vm3 the metadata pod, vm2 the DNS pod.
    let xid = 1;
    await until(
      () => {
        discover(2, xid++);
        return dhcpServer.got.some((l) => xidOf(l) < xid && xidOf(l) > 0);
      },
      'the relay reaches the DHCP pod',
      { timeoutMs: 15_000, everyMs: 300 },
    );
    for (const [n, to] of [
      [1, METADATA],
      [3, METADATA],
      [2, DNS],
    ] as const)
      await until(() => pings(ns(`vm${n}`), to), `vm${n} pings ${to}`, { timeoutMs: 15_000, everyMs: 200 });
  });

  after(async () => {
    for (const l of listeners.values()) l.close();
    // For a post-mortem with vppctl: leave VPP, the namespaces and the pods as they are.
    if (process.env.VPPNET_KEEP_TEST_STATE === '1') return await client.close();
    for (const p of PODS)
      await manager
        .detach({ containerId: `c-${tag}-${p.name}`, ifname: 'net1', netns: `/run/netns/${ns(p.name)}` })
        .catch(() => undefined);
    const empty = validateConfig({ ...raw(), vpcs: [], ports: [], services: undefined });
    await reconcile(empty, { client, host, globals: memoryStore() }).catch(() => undefined);
    await removeUnderlay(client, underlay);
    for (const n of ['vm1', 'vm2', 'vm3', ...PODS.map((p) => p.name)])
      spawnSync('ip', ['netns', 'del', ns(n)]);
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A DHCP DISCOVER from VM n, with an option 82 of its own when given. */
  const discover = (n: number, xid: number, ownOption82?: string): void =>
    send(
      ns(`vm${n}`),
      'eth0',
      `Ether(src='${VM_MAC(n)}', dst='ff:ff:ff:ff:ff:ff')/IP(src='0.0.0.0', dst='255.255.255.255')/UDP(sport=68, dport=67)/` +
        `BOOTP(op=1, chaddr=bytes.fromhex('${VM_MAC(n).replaceAll(':', '')}'), xid=${xid})/` +
        `DHCP(options=[('message-type', 'discover'), ${ownOption82 === undefined ? '' : `('relay_agent_information', bytes.fromhex('${ownOption82}')), `}'end'])`,
    );
  const xidOf = (line: string): number => {
    const b = Buffer.from(line.split(' ')[1] ?? '', 'hex');
    return b.length > 8 ? b.readUInt32BE(4) : -1;
  };

  /** A UDP datagram from VM n (its own address) to a service address. */
  const fromVm = (n: number, dst: string, payload: string): void =>
    send(
      ns(`vm${n}`),
      'eth0',
      `Ether(src='${VM_MAC(n)}', dst='${vmPortMac.get(n)}')/IP(src='${n === 2 ? '10.0.0.6' : '10.0.0.5'}', dst='${dst}')/UDP(sport=4000, dport=${PORT})/Raw(b'${payload}')`,
    );
  /** Frames from a pod's net1. */
  const fromPod = (name: PodName, ...frames: string[]): void => send(ns(name), 'net1', ...frames);

  it('each VM reaches the metadata and DNS pods as itself, two VMs with one address as two sources', async () => {
    fromVm(1, METADATA, 'md-from-vm1');
    fromVm(3, METADATA, 'md-from-vm3');
    const md = listeners.get('md') as Listener;
    await md.receives('md-from-vm1');
    await md.receives('md-from-vm3');
    const source = (text: string): string => md.got.find((l) => l.endsWith(` ${text}`))?.split(' ')[0] ?? '';
    const map = addresses.serviceMap();
    assert.equal(source('md-from-vm1'), map.find((e) => e.port === 'vm1')?.serviceAddress);
    assert.equal(source('md-from-vm3'), map.find((e) => e.port === 'vm3')?.serviceAddress);
    assert.notEqual(source('md-from-vm1'), source('md-from-vm3'));
    // VPP never asks for a pod's MAC: the BVI has each pod as a static neighbour.
    const all = await client.dump(msg.sw_interface_dump, {
      sw_if_index: 0xffffffff,
      name_filter_valid: false,
    });
    const bvi = all.find((i) => i.tag === 'vppnet:services:bvi')?.sw_if_index ?? -1;
    const neighbours = await client.dump(msg.ip_neighbor_dump, {
      sw_if_index: bvi,
      af: msg.address_family_t.values.ADDRESS_IP4,
    });
    assert.deepEqual(
      neighbours
        .filter((n) => (n.neighbor.flags & msg.ip_neighbor_flags_t.values.IP_API_NEIGHBOR_FLAG_STATIC) !== 0)
        .map((n) => `${n.neighbor.ip_address.un.ip4} ${n.neighbor.mac_address}`)
        .sort(),
      PODS.map((p) => `${p.address} ${p.mac}`).sort(),
    );
    // The DNS pod, the same way.
    fromVm(2, DNS, 'dns-from-vm2');
    const dns = listeners.get('dns') as Listener;
    await dns.receives('dns-from-vm2');
    assert.equal(
      dns.got.find((l) => l.endsWith(' dns-from-vm2'))?.split(' ')[0],
      map.find((e) => e.port === 'vm2')?.serviceAddress,
    );
  });

  it("drops a pod's gratuitous ARP for the metadata address and for the gateway, and VMs keep reaching the metadata pod", async () => {
    const before = await errors();
    const dns = podOf('dns');
    const md = podOf('md');
    fromPod(
      'dns',
      // "169.254.169.254 is at the DNS pod", to everyone (VPP's BVI included).
      `Ether(src='${dns.mac}', dst='ff:ff:ff:ff:ff:ff')/ARP(op=1, hwsrc='${dns.mac}', psrc='${METADATA}', hwdst='00:00:00:00:00:00', pdst='${METADATA}')`,
      `Ether(src='${dns.mac}', dst='ff:ff:ff:ff:ff:ff')/ARP(op=2, hwsrc='${dns.mac}', psrc='${METADATA}', hwdst='ff:ff:ff:ff:ff:ff', pdst='${METADATA}')`,
      // "The gateway is at the DNS pod", to the metadata pod: it would send VMs' answers there.
      `Ether(src='${dns.mac}', dst='${md.mac}')/ARP(op=2, hwsrc='${dns.mac}', psrc='${GATEWAY}', hwdst='${md.mac}', pdst='${METADATA}')`,
    );
    fromVm(1, METADATA, 'md-after-garp');
    await (listeners.get('md') as Listener).receives('md-after-garp');
    assert.ok(
      !(listeners.get('dns') as Listener).has('md-after-garp'),
      'the DNS pod got a VM metadata request',
    );
    const neigh = sh('ip', '-n', ns('md'), 'neigh', 'show', GATEWAY);
    assert.ok(!neigh.includes(dns.mac), `the metadata pod's neighbour entry for the gateway: ${neigh}`);
    // The metadata pod still answers a VM (ICMP: its answer goes to the gateway's real MAC).
    assert.ok(pings(ns('vm1'), METADATA));
    const dropped = grew(before, await errors());
    assert.deepEqual(drops(dropped), { macip: 3, acl: 0 }, `VPP's counters: ${JSON.stringify([...dropped])}`);
  });

  it("drops a pod's packets from another pod's or a VM's address, and a pod's packets to another pod", async () => {
    const before = await errors();
    const dns = podOf('dns');
    const md = podOf('md');
    const map = addresses.serviceMap();
    const vm2 = map.find((e) => e.port === 'vm2')?.serviceAddress ?? '';
    const udp = (src: string, dst: string, payload: string): string =>
      `Ether(src='${dns.mac}', dst='${md.mac}')/IP(src='${src}', dst='${dst}')/UDP(sport=4000, dport=${PORT})/Raw(b'${payload}')`;
    fromPod(
      'dns',
      udp(vm2, METADATA, 'as-vm2'), // a VM's per-VM service address: impersonating vm2 to the metadata pod
      udp(GATEWAY, METADATA, 'as-gateway'),
      udp(DHCP, METADATA, 'as-dhcp-pod'),
      udp(DNS, METADATA, 'pod-to-pod'), // its own address, to another pod
    );
    fromVm(2, METADATA, 'md-from-vm2');
    const mdListener = listeners.get('md') as Listener;
    await mdListener.receives('md-from-vm2');
    for (const text of ['as-vm2', 'as-gateway', 'as-dhcp-pod', 'pod-to-pod'])
      assert.ok(!mdListener.has(text), `${text} reached the metadata pod`);
    const dropped = grew(before, await errors());
    // The pod's input ACL (the acl plugin's node runs before the MACIP classifier) stops them all.
    assert.deepEqual(drops(dropped), { macip: 0, acl: 4 }, `VPP's counters: ${JSON.stringify([...dropped])}`);
  });

  it('lets only the DHCP pod answer DHCP for a VM', async () => {
    const before = await errors();
    const vm1 = vmPortIndex.get(1) ?? 0;
    const offer = (pod: PodName, src: string, yiaddr: string): string =>
      `Ether(src='${podOf(pod).mac}', dst='${'{bvi}'}')/IP(src='${src}', dst='${GATEWAY}')/UDP(sport=67, dport=67)/` +
      `BOOTP(op=2, yiaddr='${yiaddr}', giaddr='10.0.0.1', chaddr=bytes.fromhex('${VM_MAC(1).replaceAll(':', '')}'), flags=0x8000)/` +
      `DHCP(options=[('message-type', 'offer'), ('server_id', '${DHCP}'), ('relay_agent_information', bytes.fromhex('${option82(vm1, '10.0.0.1')}')), 'end'])`;
    const bvi = (
      await client.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff, name_filter_valid: false })
    ).find((i) => i.tag === 'vppnet:services:bvi')?.l2_address as string;
    const at = (frame: string): string => frame.replace('{bvi}', bvi);
    // The DNS pod: from its own address and from the DHCP pod's (its ACL: only the DHCP pod sends
    // from port 67). The DHCP pod's port from another MAC: what its ACL permits, its MACIP ACL
    // does not.
    fromPod('dns', at(offer('dns', DNS, '10.0.0.66')), at(offer('dns', DHCP, '10.0.0.67')));
    fromPod(
      'dhcp',
      at(offer('dhcp', DHCP, '10.0.0.69').replace(`src='${podOf('dhcp').mac}'`, "src='0a:58:00:00:00:01'")),
    );
    // The DHCP pod's own offer reaches the VM (VPP relays it out of vm1's port, broadcast).
    fromPod('dhcp', at(offer('dhcp', DHCP, '10.0.0.68')));
    const vmDhcp = listeners.get('vm1:68') as Listener;
    const yiaddrOf = (line: string): string => {
      const b = Buffer.from(line.split(' ')[1] ?? '', 'hex');
      return [...b.subarray(16, 20)].join('.');
    };
    await vmDhcp.next((l) => yiaddrOf(l) === '10.0.0.68');
    assert.deepEqual(
      vmDhcp.got.map(yiaddrOf).filter((a) => ['10.0.0.66', '10.0.0.67', '10.0.0.69'].includes(a)),
      [],
      'a forged offer reached vm1',
    );
    const dropped = grew(before, await errors());
    assert.deepEqual(drops(dropped), { macip: 1, acl: 2 }, `VPP's counters: ${JSON.stringify([...dropped])}`);
  });

  it("relays a VM's own option 82 ahead of VPP's: the last one is always VPP's, naming the VM's own port", async () => {
    const vm1 = vmPortIndex.get(1) ?? 0;
    const vm2 = vmPortIndex.get(2) ?? 0;
    // vm1 claims to be behind vm2's port.
    discover(1, 0x5eed, option82(vm2, '10.0.0.1'));
    const server = listeners.get('dhcp:67') as Listener;
    const line = await server.next((l) => xidOf(l) === 0x5eed);
    const ours = option82sOf(line.split(' ')[1] ?? '');
    assert.equal(ours.length, 2, `option 82s: ${ours.join(', ')}`);
    assert.equal(ours[0], option82(vm2, '10.0.0.1'), "the VM's own comes first, as it sent it");
    // VPP's: circuit-id = the VM's port, link selection = its VPC gateway, then its VSS (VPC name).
    assert.ok(ours[1]?.startsWith(option82(vm1, '10.0.0.1')), `VPP's option 82: ${ours[1]}`);
    const map = addresses.serviceMap();
    assert.equal(
      map.find((e) => e.port === 'vm1')?.dhcpCircuitId,
      vm1,
      'the service map names the circuit-id',
    );
  });

  it("one VM flooding the DNS address from random ports starves no other VM's DNS or metadata", async (t) => {
    const SECONDS = 12;
    const FLOOD_PPS = 20_000;
    const limits = config().services?.vmLimits;
    assert.ok(limits);
    const dns = listeners.get('dns') as Listener;
    const md = listeners.get('md') as Listener;
    const policersBefore = await readPolicerCounts(client);
    const errorsBefore = await errors();
    const [dnsFrom, mdFrom] = [dns.got.length, md.got.length];
    const socketDropsBefore = udpReceiveBufferErrors(ns('dns')) + udpReceiveBufferErrors(ns('md'));
    // vm1 floods; vm2, in the same VPC, asks DNS and metadata ten times a second, each time from a
    // new source port (a new NAT session each), as resolvers and HTTP clients do.
    const [flood, paced] = await Promise.all([
      run(
        ns('vm1'),
        'flood.py',
        'eth0',
        VM_MAC(1),
        vmPortMac.get(1) ?? '',
        '10.0.0.5',
        DNS,
        String(PORT),
        String(FLOOD_PPS),
        String(SECONDS),
        'flood',
      ),
      run(
        ns('vm2'),
        'paced-client.py',
        '100',
        String(SECONDS),
        'fair',
        `${DNS}:${PORT}`,
        `${METADATA}:${PORT}`,
      ),
    ]);
    const offered = Number(/sent (\d+)/.exec(flood)?.[1]);
    const asked = Number(/sent (\d+)/.exec(paced)?.[1]);
    const vm2Source = (l: string): boolean => / fair-\d+$/.test(l);
    const answered = (l: Listener, from: number): number => l.got.slice(from).filter(vm2Source).length;
    // Whatever is still on its way arrives within a moment; the count is then final either way.
    await until(() => answered(dns, dnsFrom) >= asked && answered(md, mdFrom) >= asked, 'vm2 heard', {
      timeoutMs: 3000,
      everyMs: 100,
    }).catch(() => undefined);
    const floodIn = dns.got.slice(dnsFrom).filter((l) => l.endsWith(' flood')).length;
    const policers = await readPolicerCounts(client);
    const grewBy = (name: string, f: 'exceedPackets' | 'violatePackets' | 'conformPackets'): number =>
      (policers.get(name)?.[f] ?? 0) - (policersBefore.get(name)?.[f] ?? 0);
    const vm1Policer = tags.vmRatePolicer('vm1');
    const vm2Policer = tags.vmRatePolicer('vm2');
    const newErrors = grew(errorsBefore, await errors());
    const natSessions = await readNatSessionsPerPort(client, config());
    const floodBytes = floodIn * FLOOD_IP_BYTES;
    const rows = [
      ['vm1 flood offered', `${Math.round(offered / SECONDS)} pps`],
      [
        'vm1 flood reaching the DNS pod',
        `${Math.round(floodIn / SECONDS)} pps (${Math.round((floodBytes * 8) / SECONDS / 1000)} kbit/s; limit ${limits.rateKbps})`,
      ],
      [
        'vm1 dropped by its policer',
        `${grewBy(vm1Policer, 'exceedPackets') + grewBy(vm1Policer, 'violatePackets')} packets`,
      ],
      [
        'NAT sessions held',
        `vm1 ${natSessions.get('vm1') ?? 0} (bound ${limits.natSessions}), vm2 ${natSessions.get('vm2') ?? 0}`,
      ],
      ['vm2 DNS requests answered', `${answered(dns, dnsFrom)} / ${asked}`],
      ['vm2 metadata requests answered', `${answered(md, mdFrom)} / ${asked}`],
      [
        'VPP errors during the flood',
        [...newErrors].map(([k, v]) => `${k.replace('\t', ': ')} ${v}`).join('; '),
      ],
    ];
    const socketDrops =
      udpReceiveBufferErrors(ns('dns')) + udpReceiveBufferErrors(ns('md')) - socketDropsBefore;
    rows.push(["datagrams the pods' listeners dropped (socket buffer full)", `${socketDrops}`]);
    for (const [what, value] of rows) t.diagnostic(`${what}: ${value}`);
    // A loss there comes after VPP delivered the packet: the test's own receiver fell behind.
    assert.equal(socketDrops, 0, "the pods' listeners kept up with what VPP delivered");
    assert.ok(
      (natSessions.get('vm1') ?? 0) <= limits.natSessions,
      `vm1 holds ${natSessions.get('vm1')} NAT sessions, more than its ${limits.natSessions}`,
    );
    assert.ok((natSessions.get('vm1') ?? 0) >= limits.natSessions / 2, 'the flood did make sessions');
    assert.ok(asked >= SECONDS * 9, `vm2 asked ${asked} times`);
    assert.equal(answered(dns, dnsFrom), asked, "every one of vm2's DNS requests reached the DNS pod");
    assert.equal(
      answered(md, mdFrom),
      asked,
      "every one of vm2's metadata requests reached the metadata pod",
    );
    assert.ok(
      grewBy(vm1Policer, 'exceedPackets') + grewBy(vm1Policer, 'violatePackets') > 0,
      "vm1's policer dropped the excess",
    );
    assert.equal(
      grewBy(vm2Policer, 'exceedPackets') + grewBy(vm2Policer, 'violatePackets'),
      0,
      "vm2's policer dropped nothing",
    );
    // The rate, plus the burst, plus a tenth for the policer's clock and rounding.
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

/** The flood's IPv4 packets: 20 + 8 + "flood". */
const FLOOD_IP_BYTES = 33;
