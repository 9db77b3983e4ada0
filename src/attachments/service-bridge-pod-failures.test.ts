/**
 * The service bridge end to end: an ADD that fails part way undoes what it did, against a VPP (the
 * simulator by default, a real VPP 26.06 with VPP_API_SOCKET), pods in real network namespaces on
 * veth pairs (root only). Each test leaves VPP, the host and the state directory as it found them.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { AgentApiError } from '../agent-api/errors.js';
import { AttachmentFileStore, type AttachmentStore } from './attachment-store.js';
import { linuxPodNetns } from './pod-netns.js';
import {
  NEEDS_ROOT,
  type Fixture,
  openManager,
  traces,
  podRequest,
  OWN_VPP_PER_SUITE,
  podAttachmentSuite,
} from '../../test/support/service-bridge-fixture.js';

void describe('pod attachments', { skip: NEEDS_ROOT || OWN_VPP_PER_SUITE }, () => {
  let f: Fixture;
  const netns = podAttachmentSuite((made) => (f = made));

  void it('undoes everything when the last step of ADD fails', async () => {
    const ns = netns();
    // The pair exists, VPP has the port: then the record cannot be written (disk full, say).
    const files = new AttachmentFileStore(f.stateDir);
    const failing: AttachmentStore = {
      loadAll: () => files.loadAll(),
      save: () => Promise.reject(new Error('injected: ENOSPC')),
      remove: (id) => files.remove(id),
    };
    const manager = await openManager(f, linuxPodNetns, failing);
    const req = podRequest(ns, 'c-fail');
    await assert.rejects(
      manager.attach(req),
      (err: unknown) => err instanceof AgentApiError && err.code === 999 && /injected/.test(err.message),
    );
    assert.deepEqual(await traces(f, req.containerId, req.ifname), []);
    assert.equal(ns.hasLink('net1'), false);
    assert.deepEqual(manager.list(), []);
  });

  void it('undoes the pair when the pod end cannot be configured', async () => {
    const ns = netns();
    // The same route twice: allowed by the agent's rules, refused by the kernel ("File exists").
    const route = { dst: '169.252.252.0/25', gw: '169.254.169.1' };
    const req = { ...podRequest(ns, 'c-bad-route'), routes: [route, route] };
    await assert.rejects(
      f.manager.attach(req),
      (err: unknown) =>
        err instanceof AgentApiError &&
        err.code === 999 &&
        /route add 169\.252\.252\.0\/25/.test(err.message),
    );
    assert.deepEqual(await traces(f, req.containerId, req.ifname), []);
    assert.equal(ns.hasLink('net1'), false);
    assert.deepEqual(f.manager.list(), []);
  });

  void it(
    'reports a VPP that cannot make taps (no /dev/vhost-net) and leaves nothing behind',
    { skip: existsSync('/dev/vhost-net') && 'this host has vhost-net' },
    async () => {
      const ns = netns();
      const req = podRequest(ns, 'c-no-vhost', 'net1', 'tap');
      await assert.rejects(
        f.manager.attach(req),
        (err: unknown) =>
          err instanceof AgentApiError && err.code === 999 && /tap_create_v3/.test(err.message),
      );
      assert.deepEqual(await traces(f, req.containerId, req.ifname), []);
      assert.equal(ns.hasLink('net1'), false, 'no tap device left in the netns');
    },
  );

  void it(
    'falls back to veth in auto mode when VPP cannot open /dev/vhost-net',
    { skip: existsSync('/dev/vhost-net') && 'this host has vhost-net' },
    async () => {
      const ns = netns();
      // The agent sees vhost-net, VPP (say, in another container) does not.
      const manager = await openManager(f, {
        ...linuxPodNetns,
        vhostNetAvailable: () => Promise.resolve(true),
      });
      const req = podRequest(ns, 'c-auto', 'net1', 'auto');
      const answer = await manager.attach(req);
      assert.equal(answer.mode, 'veth');
      assert.equal((await traces(f, req.containerId, req.ifname)).length, 7);
      await manager.detach(req);
      assert.deepEqual(await traces(f, req.containerId, req.ifname), []);
    },
  );
});
