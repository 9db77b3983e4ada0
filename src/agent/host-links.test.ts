/**
 * The agent's host links on this machine's kernel: a VM's veth pair into a real network
 * namespace, its host end without IPv6 and with its ingress dropped, and deleting it.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { linuxHostLinks } from './host-links.js';

const skip =
  process.getuid?.() !== 0
    ? 'needs root (netns, veth)'
    : spawnSync('sh', ['-c', 'command -v nft']).status !== 0
      ? 'needs nft (nftables)'
      : false;

describe('linux host links', { skip }, () => {
  const netns = `vppnet-hl-${process.pid}`;
  const hostName = `vphl${process.pid % 100000}`;
  const links = linuxHostLinks(`host-links-test-${process.pid}`);
  before(() => execFileSync('ip', ['netns', 'add', netns]));
  after(() => {
    try {
      execFileSync('ip', ['link', 'del', hostName], { stdio: 'ignore' }); // after a failed test
    } catch {
      // deleted by the test
    }
    spawnSync('nft', ['delete', 'chain', 'netdev', 'vppnet', `ingress_${hostName}`]);
    execFileSync('ip', ['netns', 'del', netns]);
  });

  it('creates a VM veth whose host end has IPv6 off, lists it as its own, and deletes it', async () => {
    await links.createVeth({ hostName, netns, ifname: 'eth0', mac: '52:54:00:12:34:56', mtu: 1460 });
    const sysctl = await readFile(`/proc/sys/net/ipv6/conf/${hostName}/disable_ipv6`, 'utf8');
    assert.equal(sysctl.trim(), '1', 'the host kernel sends nothing of its own into VPP');
    const inNetns = execFileSync('ip', ['-n', netns, '-j', 'link', 'show', 'eth0']).toString();
    assert.equal(
      (JSON.parse(inNetns) as { address: string; mtu: number }[])[0]?.address,
      '52:54:00:12:34:56',
    );
    assert.deepEqual(await links.listVeths('vphl'), [hostName]);
    await links.deleteVeth(hostName);
    assert.deepEqual(await links.listVeths('vphl'), []);
  });

  it('drops what the host end receives, again where the chain went, and deletes the chain with the pair', async () => {
    const chain = `ingress_${hostName}`;
    const chains = (): string => execFileSync('nft', ['list', 'table', 'netdev', 'vppnet']).toString();
    await links.createVeth({ hostName, netns, ifname: 'eth0', mac: '52:54:00:12:34:56' });
    assert.match(chains(), new RegExp(`chain ${chain} \\{[^}]*device "${hostName}"[^}]*policy drop;`));
    // Made by an agent from before the chain, or flushed by a firewall's reload: the pass's call.
    execFileSync('nft', ['delete', 'chain', 'netdev', 'vppnet', chain]);
    await links.keepIsolated(await links.listVeths('vphl'));
    assert.match(chains(), new RegExp(`chain ${chain} \\{`));
    await links.deleteVeth(hostName);
    assert.doesNotMatch(chains(), new RegExp(chain));
  });
});
