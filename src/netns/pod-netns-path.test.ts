import assert from 'node:assert/strict';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { NetnsError } from './errors.js';
import { PROC_NETNS_DIRS, refuseNonPodNetnsPath } from './pod-netns-path.js';

const refused = (err: unknown): boolean =>
  err instanceof NetnsError && err.code === 'VPPNET_ERR_NOT_POD_NETNS';

describe('refuseNonPodNetnsPath', () => {
  it('passes entries directly in an allowed directory, by their real path', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-nsdir-'));
    try {
      await refuseNonPodNetnsPath(path.join(dir, 'cni-1234'), [dir]);
      // Through a symlinked directory (as /var/run is /run): judged by where it leads.
      await symlink(dir, `${dir}-link`);
      await refuseNonPodNetnsPath(path.join(`${dir}-link`, 'cni-1234'), [dir]);
      await assert.rejects(refuseNonPodNetnsPath(path.join(dir, 'sub', 'cni-1234'), [dir]), refused);
      await assert.rejects(refuseNonPodNetnsPath(path.join(dir, '..', 'cni-1234'), [dir]), refused);
      await assert.rejects(refuseNonPodNetnsPath('relative/ns', [dir]), refused);
    } finally {
      await rm(`${dir}-link`, { force: true });
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a process's namespace unless the /proc pattern is allowed", async () => {
    await assert.rejects(refuseNonPodNetnsPath('/proc/self/ns/net', ['/run/netns']), refused);
    await refuseNonPodNetnsPath('/proc/self/ns/net', ['/run/netns', PROC_NETNS_DIRS]);
    await refuseNonPodNetnsPath(`/proc/${process.pid}/ns/net`, [PROC_NETNS_DIRS]);
    await assert.rejects(refuseNonPodNetnsPath('/proc/sys/net', [PROC_NETNS_DIRS]), refused);
    await assert.rejects(refuseNonPodNetnsPath('/procx/1/ns/net', [PROC_NETNS_DIRS]), refused);
  });
});
