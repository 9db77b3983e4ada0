/**
 * The service bridge end to end: the attachments it refuses (a second holder of an address, a
 * namespace outside the runtime's, one too many, an ifname taken), leaving nothing behind, against
 * a VPP (the simulator by default, a real VPP 26.06 with VPP_API_SOCKET), pods in real network
 * namespaces on veth pairs (root only). Each test leaves VPP, the host and the state directory as
 * it found them.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AgentApiError, AgentErrorCode } from '../agent-api/errors.js';
import { MAX_ATTACHMENTS_PER_NETWORK } from './attachment-manager.js';
import {
  NEEDS_ROOT,
  type Fixture,
  traces,
  ip,
  podRequest,
  OWN_VPP_PER_SUITE,
  podAttachmentSuite,
} from '../../test/support/service-bridge-fixture.js';

void describe('pod attachments', { skip: NEEDS_ROOT || OWN_VPP_PER_SUITE }, () => {
  let f: Fixture;
  const netns = podAttachmentSuite((made) => (f = made));

  void it('refuses a second holder of a service address, naming the first, leaving nothing behind', async () => {
    const first = podRequest(netns(), 'c-metadata', 'net1', 'veth', '169.254.169.254/24');
    await f.manager.attach(first);
    const ns = netns();
    const thief = podRequest(ns, 'c-thief', 'net1', 'veth', '169.254.169.254/24');
    await assert.rejects(f.manager.attach(thief), (err: unknown) => {
      assert.ok(err instanceof AgentApiError);
      assert.equal(err.code, AgentErrorCode.ADDRESS_TAKEN);
      assert.match(`${err.msg} ${err.details ?? ''}`, /169\.254\.169\.254 .* container c-metadata/);
      return true;
    });
    // Nor an address off the bridge, or its gateway.
    for (const address of ['10.0.0.5/24', '169.254.169.1/24'])
      await assert.rejects(
        f.manager.attach(podRequest(ns, 'c-thief', 'net1', 'veth', address)),
        (err: unknown) => err instanceof AgentApiError && err.code === AgentErrorCode.INVALID_NETWORK_CONFIG,
      );
    assert.equal(ns.hasLink('net1'), false);
    assert.deepEqual(await traces(f, 'c-thief', 'net1'), []);
    assert.deepEqual(
      f.manager.list().map((r) => r.containerId),
      ['c-metadata'],
    );
  });

  void it("refuses the host's namespace and any namespace outside the runtime's directories, in both modes", async () => {
    // /run/netns/<name> bound to this process's (the agent's, the host's) namespace: in the right
    // directory, but the host's own.
    const hostAlias = `vppnet-hostalias-${randomBytes(3).toString('hex')}`;
    ip('netns', 'attach', hostAlias, String(process.pid));
    // A real pod-like namespace, bind-mounted outside /run/netns.
    const ns = netns();
    const outside = await mkdtemp(path.join(os.tmpdir(), 'vppnet-ns-'));
    const stray = path.join(outside, 'ns');
    await writeFile(stray, '');
    execFileSync('mount', ['--bind', ns.path, stray]);
    try {
      const cases: [string, RegExp][] = [
        ['/proc/self/ns/net', /not in the container runtime's netns directories/],
        ['/proc/1/ns/net', /not in the container runtime's netns directories/],
        [stray, /not in the container runtime's netns directories/],
        [`/run/netns/${hostAlias}`, /is the host's network namespace/],
        [`/var/run/netns/../netns/${hostAlias}`, /is the host's network namespace/],
      ];
      for (const [netnsPath, why] of cases)
        for (const mode of ['veth', 'tap'] as const) {
          const req = { ...podRequest(ns, 'c-hostns', 'vppnet9', mode), netns: netnsPath };
          await assert.rejects(f.manager.attach(req), (err: unknown) => {
            assert.ok(err instanceof AgentApiError, String(err));
            assert.equal(err.code, AgentErrorCode.INVALID_NETWORK_CONFIG, `${netnsPath} ${mode}`);
            assert.match(err.msg, why);
            return true;
          });
          assert.deepEqual(await traces(f, 'c-hostns', 'vppnet9'), [], `${netnsPath} ${mode}`);
        }
      assert.notEqual(
        spawnSync('ip', ['link', 'show', 'vppnet9']).status,
        0,
        'no vppnet9 in the host namespace',
      );
    } finally {
      execFileSync('umount', [stray]);
      await rm(outside, { recursive: true, force: true });
      ip('netns', 'del', hostAlias);
    }
    assert.deepEqual(f.manager.list(), []);
  });

  void it(`refuses a network's attachment beyond ${MAX_ATTACHMENTS_PER_NETWORK} on the node, leaving nothing behind`, async () => {
    const crowd = (i: number) => ({
      ...podRequest(netns(), `c-crowd-${i}`, 'net1', 'veth', `169.254.169.${120 + i}/24`),
      network: 'crowd',
    });
    for (let i = 0; i < MAX_ATTACHMENTS_PER_NETWORK; i++) await f.manager.attach(crowd(i));
    const extra = crowd(MAX_ATTACHMENTS_PER_NETWORK);
    await assert.rejects(f.manager.attach(extra), (err: unknown) => {
      assert.ok(err instanceof AgentApiError);
      assert.equal(err.code, AgentErrorCode.INVALID_NETWORK_CONFIG);
      assert.match(err.msg, /network crowd already has 16 attachments on this node/);
      return true;
    });
    assert.deepEqual(await traces(f, extra.containerId, extra.ifname), []);
    // Another network is not held back by this one.
    await f.manager.attach(podRequest(netns(), 'c-other-network', 'net1', 'veth', '169.254.169.150/24'));
  });

  void it('refuses an ifname the netns already has, touching nothing', async () => {
    const ns = netns();
    ip('-n', ns.name, 'link', 'add', 'net1', 'type', 'veth', 'peer', 'name', 'other1');
    const req = podRequest(ns, 'c-taken');
    await assert.rejects(
      f.manager.attach(req),
      (err: unknown) => err instanceof AgentApiError && err.code === 100,
    );
    assert.equal(ns.hasLink('net1'), true);
    assert.deepEqual(await traces(f, req.containerId, req.ifname), []);
  });
});
