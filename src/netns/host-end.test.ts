/**
 * A veth's host end as createVethIntoNetns leaves it, between two namespaces of the test's own (one
 * plays the host, with an address of its own on its loopback; the other the pod): the pod can
 * neither ARP for nor reach the host's address through it, and the host end has no IPv6. A pair
 * made by plain `ip` shows that the attack works without the settings. An IPv4 broadcast from
 * 0.0.0.0, which the settings let in, reaches the host's sockets only without the host end's
 * ingress chain, while an AF_PACKET socket (VPP's af_packet) gets it either way; the chain goes
 * with the pair, and a pair whose chain cannot be made is not left behind.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hex, Listener, PACKETS, PY, sniff } from '../../test/support/packets.js';
import { NetnsError } from './errors.js';
import { systemRunner, type CommandRunner } from './ip-command.js';
import { createVethIntoNetns, deleteHostLink } from './veth.js';
import { keepHostEndsIsolated } from './host-end.js';
import { until } from '../util/testing/until.js';

const root = process.getuid?.() === 0;
const has = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const skip = !root
  ? 'needs root (network namespaces)'
  : !has('ping')
    ? 'needs ping (iputils-ping)'
    : !has('nft')
      ? 'needs nft (nftables)'
      : !has(PY)
        ? `needs ${PY} (AF_PACKET sockets)`
        : false;
const tag = randomBytes(2).toString('hex');
const hostNs = `he${tag}host`;
const podNs = `he${tag}pod`;
const plainNs = `he${tag}plain`;
const HOST_ADDRESS = '10.255.7.1';

function sh(...args: string[]): string {
  const r = spawnSync(args[0] as string, args.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** The host's count of ICMP echo requests its own stack took in (/proc/net/snmp, Icmp InEchos). */
function hostEchos(): number {
  const lines = sh('ip', 'netns', 'exec', hostNs, 'cat', '/proc/net/snmp')
    .split('\n')
    .filter((l) => l.startsWith('Icmp:'));
  const [names, values] = lines.map((l) => l.split(/\s+/));
  const i = names?.indexOf('InEchos') ?? -1;
  assert.ok(i > 0 && values, 'Icmp InEchos in /proc/net/snmp');
  return Number(values[i]);
}

/**
 * From `ns`, an echo request to the host's address straight through eth0, as a hostile pod would
 * send it: whether the host's own stack took it in (one way is enough for an attack: the host
 * has no route back through a host end, nor needs one to receive).
 */
function reachesHost(ns: string, hostEndMac: string): boolean {
  sh('ip', '-n', ns, 'route', 'replace', `${HOST_ADDRESS}/32`, 'dev', 'eth0');
  sh('ip', '-n', ns, 'neigh', 'replace', HOST_ADDRESS, 'lladdr', hostEndMac, 'dev', 'eth0');
  const before = hostEchos();
  spawnSync('ip', ['netns', 'exec', ns, 'ping', '-c', '3', '-i', '0.2', '-W', '1', HOST_ADDRESS]);
  return hostEchos() > before;
}

function macOf(ns: string, link: string): string {
  const m = /link\/ether ([0-9a-f:]{17})/.exec(sh('ip', '-n', ns, 'link', 'show', link));
  assert.ok(m, `${link}'s MAC`);
  return m[1] as string;
}

describe("a veth's host end is cut off from the host's stack", { skip }, () => {
  before(() => {
    for (const ns of [hostNs, podNs, plainNs]) sh('ip', 'netns', 'add', ns);
    sh('ip', '-n', hostNs, 'link', 'set', 'lo', 'up');
    sh('ip', '-n', hostNs, 'addr', 'add', `${HOST_ADDRESS}/32`, 'dev', 'lo');
  });
  after(() => {
    for (const ns of [hostNs, podNs, plainNs]) spawnSync('ip', ['netns', 'del', ns]);
  });

  it('without the settings a pod reaches the host through its veth (the attack is real)', () => {
    sh(
      'ip',
      '-n',
      hostNs,
      'link',
      'add',
      'plainhost',
      'type',
      'veth',
      'peer',
      'name',
      'eth0',
      'netns',
      plainNs,
    );
    sh('ip', '-n', hostNs, 'link', 'set', 'plainhost', 'up');
    sh('ip', '-n', plainNs, 'link', 'set', 'eth0', 'up');
    sh('ip', '-n', plainNs, 'addr', 'add', '169.254.169.60/24', 'dev', 'eth0');
    assert.equal(reachesHost(plainNs, macOf(hostNs, 'plainhost')), true);
  });

  it('with them it reaches nothing, gets no ARP answer, and the host end has no IPv6', async () => {
    const created = await createVethIntoNetns(
      {
        hostName: 'isohost',
        netnsPath: `/run/netns/${podNs}`,
        podIfName: 'eth0',
        addresses: ['169.254.169.61/24'],
        hostNetnsPath: `/run/netns/${hostNs}`,
      },
      systemRunner,
    );
    assert.equal(reachesHost(podNs, created.hostMac), false, "the host's stack took nothing in");
    const sysctl = (key: string): string => sh('ip', 'netns', 'exec', hostNs, 'sysctl', '-n', key).trim();
    assert.equal(sysctl('net.ipv6.conf.isohost.disable_ipv6'), '1');
    assert.equal(sysctl('net.ipv4.conf.isohost.arp_ignore'), '8');
    assert.equal(sysctl('net.ipv4.conf.isohost.rp_filter'), '1');
    assert.doesNotMatch(sh('ip', '-n', hostNs, '-6', 'addr', 'show', 'dev', 'isohost'), /inet6/);
    // ARP: the pod's request for the host's address stays unanswered (no neighbour learnt).
    sh('ip', '-n', podNs, 'neigh', 'del', HOST_ADDRESS, 'dev', 'eth0');
    sh('ip', '-n', podNs, 'route', 'replace', `${HOST_ADDRESS}/32`, 'dev', 'eth0');
    spawnSync('ip', ['netns', 'exec', podNs, 'ping', '-c', '1', '-W', '1', HOST_ADDRESS]);
    assert.doesNotMatch(sh('ip', '-n', podNs, 'neigh', 'show', HOST_ADDRESS), /lladdr/);
  });
});

describe("a host end's ingress: dropped before the host's stack, after VPP's af_packet", { skip }, () => {
  const hostNs = `he${tag}bhost`;
  const podNs = `he${tag}bpod`;
  const hostNetnsPath = `/run/netns/${hostNs}`;
  const HOST_END = 'bcasthost';
  let hostEndMac = '';
  const nft = (...args: string[]): string => sh('ip', 'netns', 'exec', hostNs, 'nft', ...args);
  const chains = (): string => nft('list', 'table', 'netdev', 'vppnet');
  const links = (ns: string): string[] =>
    (JSON.parse(sh('ip', '-n', ns, '-j', 'link', 'show')) as { ifname: string }[]).map((l) => l.ifname);

  before(async () => {
    for (const ns of [hostNs, podNs]) sh('ip', 'netns', 'add', ns);
    sh('ip', '-n', hostNs, 'link', 'set', 'lo', 'up');
    const created = await createVethIntoNetns(
      { hostName: HOST_END, netnsPath: `/run/netns/${podNs}`, podIfName: 'eth0', hostNetnsPath },
      systemRunner,
    );
    hostEndMac = created.hostMac;
  });
  after(() => {
    for (const ns of [hostNs, podNs]) spawnSync('ip', ['netns', 'del', ns]);
  });

  /**
   * From the pod, UDP from 0.0.0.0 to 255.255.255.255 (to the broadcast MAC and to the host end's
   * own) for a socket bound to 0.0.0.0 in the host's namespace, then a marker frame. Once an
   * AF_PACKET socket on the host end has the marker, the kernel is through with every frame
   * before it; a datagram to the socket over loopback, sent after that, is then queued behind
   * any of them that got in. Gives what the socket and the AF_PACKET socket received.
   */
  async function zeroSourceBroadcast(): Promise<{ socket: string[]; afPacket: string[] }> {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const listener = new Listener(hostNs, port, { ipv4Only: true });
    try {
      await listener.ready;
      const marker = `marker-${randomBytes(4).toString('hex')}`;
      const seen = sniff(hostNs, HOST_END, marker, 10);
      await seen.ready;
      const sendUdp4 = (dstMac: string, dstPort: number, ...payloads: string[]): void => {
        const script = path.join(PACKETS, 'send-udp4.py');
        const args = [script, 'eth0', dstMac, '0.0.0.0', '255.255.255.255', String(dstPort), ...payloads];
        sh('ip', 'netns', 'exec', podNs, PY, ...args);
      };
      sendUdp4('ff:ff:ff:ff:ff:ff', port, 'zero-to-broadcast-mac');
      sendUdp4(hostEndMac, port, 'zero-to-host-end-mac');
      // To no one's port: the marker shows the frames before it have been taken or dropped.
      sendUdp4('ff:ff:ff:ff:ff:ff', port + 1, marker);
      const frames = await seen.done;
      sh('ip', 'netns', 'exec', hostNs, 'bash', '-c', `printf loopback > /dev/udp/127.0.0.1/${port}`);
      await listener.receives('loopback');
      const afPacket = ['zero-to-broadcast-mac', 'zero-to-host-end-mac'].filter((p) =>
        frames.some((f) => f.includes(hex(p))),
      );
      return { socket: listener.got.filter((l) => !l.endsWith(' loopback')), afPacket };
    } finally {
      listener.close();
    }
  }

  it('a broadcast from 0.0.0.0 reaches no socket of the host, and every frame reaches af_packet', async () => {
    assert.match(chains(), new RegExp(`device "${HOST_END}" priority -500; policy drop;`));
    const got = await zeroSourceBroadcast();
    assert.deepEqual(got.socket, [], "the host's stack took these in");
    assert.deepEqual(got.afPacket, ['zero-to-broadcast-mac', 'zero-to-host-end-mac']);
  });

  it('without its chain (the sysctls alone) the broadcast reaches the socket: the attack is real', async () => {
    nft('delete', 'chain', 'netdev', 'vppnet', `ingress_${HOST_END}`);
    const got = await zeroSourceBroadcast();
    assert.deepEqual(got.socket, ['0.0.0.0 zero-to-broadcast-mac', '0.0.0.0 zero-to-host-end-mac']);
    assert.deepEqual(got.afPacket, ['zero-to-broadcast-mac', 'zero-to-host-end-mac']);
  });

  it('deleting the pair deletes its chain; deleting it again is fine', async () => {
    await createVethIntoNetns(
      { hostName: 'delhost', netnsPath: `/run/netns/${podNs}`, podIfName: 'eth1', hostNetnsPath },
      systemRunner,
    );
    assert.match(chains(), /chain ingress_delhost \{/);
    assert.equal(await deleteHostLink('delhost', systemRunner, hostNetnsPath), true);
    assert.doesNotMatch(chains(), /ingress_delhost/);
    assert.ok(!links(hostNs).includes('delhost'));
    assert.equal(await deleteHostLink('delhost', systemRunner, hostNetnsPath), false);
  });

  it("a host end that vanished with its pod's namespace loses its chain at the next keep, and only it", async () => {
    const lostNs = `he${tag}blost`;
    sh('ip', 'netns', 'add', lostNs);
    try {
      await createVethIntoNetns(
        { hostName: 'losthost', netnsPath: `/run/netns/${lostNs}`, podIfName: 'eth3', hostNetnsPath },
        systemRunner,
      );
      assert.match(chains(), /chain ingress_losthost \{/);
    } finally {
      // The namespace goes first, its veth (and the host end with it) along: no delete of vppnet's.
      spawnSync('ip', ['netns', 'del', lostNs]);
    }
    await until(() => !links(hostNs).includes('losthost'), 'the host end gone with the namespace');
    // Kernels since 6.16 keep the chain, hooked to nothing; earlier ones deleted it with the device.
    const kept = /chain ingress_losthost \{/.test(chains());
    if (!kept) return;
    await keepHostEndsIsolated([HOST_END], systemRunner, hostNetnsPath);
    assert.doesNotMatch(chains(), /ingress_losthost/);
    assert.match(chains(), new RegExp(`chain ingress_${HOST_END} \\{`));
  });

  it('a pair whose host end cannot get its chain fails to be made and leaves nothing behind', async () => {
    // nft not installed: nsenter finds no such program.
    const withoutNft: CommandRunner = (file, args, input) =>
      systemRunner(
        file,
        args.map((a) => (a === 'nft' ? 'nft-not-installed' : a)),
        input,
      );
    await assert.rejects(
      createVethIntoNetns(
        { hostName: 'failhost', netnsPath: `/run/netns/${podNs}`, podIfName: 'eth2', hostNetnsPath },
        withoutNft,
      ),
      (err: unknown) => {
        assert.ok(err instanceof NetnsError);
        assert.equal(err.code, 'VPPNET_ERR_NFT_COMMAND');
        assert.match(err.message, /failhost.*nft-not-installed/s);
        return true;
      },
    );
    assert.ok(!links(hostNs).includes('failhost'), 'the host end is gone');
    assert.ok(!links(podNs).includes('eth2'), 'the pod end is gone');
    assert.doesNotMatch(chains(), /failhost/);
  });
});
