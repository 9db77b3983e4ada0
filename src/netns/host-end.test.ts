/**
 * A veth's host end as createVethIntoNetns leaves it, between two namespaces of the test's own (one
 * plays the host, with an address of its own on its loopback; the other the pod): the pod can
 * neither ARP for nor reach the host's address through it, and the host end has no IPv6. A pair
 * made by plain `ip` shows that the attack works without the settings.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { systemRunner } from './ip-command.js';
import { createVethIntoNetns } from './veth.js';

const root = process.getuid?.() === 0;
const has = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const skip = !root ? 'needs root (network namespaces)' : !has('ping') ? 'needs ping (iputils-ping)' : false;
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
