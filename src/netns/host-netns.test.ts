/**
 * refuseHostNetns against real namespaces (root): a namespace of its own passes; the host's (the
 * agent's own: it runs with hostNetwork), by its /proc path or by a name `ip netns attach` bound
 * to it, is refused. (PID 1's is compared too; a sandbox may not let a test bind it.)
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { linuxHostLinks } from '../agent/host-links.js';
import { NetnsError } from './errors.js';
import { refuseHostNetns } from './host-netns.js';

const root = process.getuid?.() === 0;
const tag = randomBytes(2).toString('hex');
const own = `hn${tag}own`;
const hostAlias = `hn${tag}host`;

const isHostNetnsError = (err: unknown): boolean =>
  err instanceof NetnsError && err.code === 'VPPNET_ERR_HOST_NETNS';

describe('refuseHostNetns', { skip: root ? false : 'needs root (network namespaces)' }, () => {
  before(() => {
    assert.equal(spawnSync('ip', ['netns', 'add', own]).status, 0);
    // A name for the host's own namespace (this process's, as the agent's is the host's), as a
    // hostile record or request could give.
    const attach = spawnSync('ip', ['netns', 'attach', hostAlias, String(process.pid)], { encoding: 'utf8' });
    assert.equal(attach.status, 0, attach.stderr);
  });
  after(() => {
    spawnSync('ip', ['netns', 'del', own]);
    spawnSync('ip', ['netns', 'del', hostAlias]);
  });

  it("passes a namespace of the VM's or pod's own", async () => {
    await refuseHostNetns(`/run/netns/${own}`);
  });

  it("refuses the host's namespace by any path", async () => {
    await assert.rejects(refuseHostNetns('/proc/self/ns/net'), isHostNetnsError);
    await assert.rejects(refuseHostNetns(`/run/netns/${hostAlias}`), isHostNetnsError);
  });

  it("leaves a VM veth out of the host's namespace, creating nothing", async () => {
    const links = linuxHostLinks(`hn${tag}`);
    const hostName = `vpvhn${tag}x`;
    await assert.rejects(
      links.createVeth({ hostName, netns: hostAlias, ifname: 'eth9', mac: '52:54:00:00:99:01' }),
      isHostNetnsError,
    );
    assert.notEqual(spawnSync('ip', ['link', 'show', hostName]).status, 0, 'no host end');
    assert.notEqual(spawnSync('ip', ['link', 'show', 'eth9']).status, 0, "no VM end in the host's namespace");
  });
});
