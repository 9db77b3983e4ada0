/**
 * vppnet-cni as it is shipped: the single executable of `npm run build:cni-sea` (built here, see
 * testing/cni-sea.ts) answers VERSION with an empty environment, and runs in a chroot holding
 * nothing but the binary and libc. Runs without root but for the chroot.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import {
  IS_ROOT,
  onPath,
  SEA_SKIP,
  singleExecutable,
  execWith,
  copyWithLibraries,
} from './testing/cni-sea.js';

const builtSea = singleExecutable();

void describe('vppnet-cni single executable', { skip: SEA_SKIP }, () => {
  let sea = '';
  let buildMs = 0;
  before(async () => {
    ({ path: sea, ms: buildMs } = await builtSea());
  });

  void it('answers VERSION with an empty environment, no PATH and no node', async (t) => {
    t.diagnostic(`npm run build:cni-sea took ${buildMs} ms`);
    const { code, stdout } = await execWith(sea, [], { CNI_COMMAND: 'VERSION' }, '{"cniVersion":"1.0.0"}');
    assert.equal(code, 0);
    assert.deepEqual(JSON.parse(stdout), {
      cniVersion: '1.0.0',
      supportedVersions: ['0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'],
    });
    const empty = await execWith(sea, [], {});
    assert.equal(empty.code, 1);
    assert.equal((JSON.parse(empty.stdout) as { code: number }).code, 4, 'CNI_COMMAND missing is code 4');
    assert.equal(empty.stderr, '', 'no experimental-feature warning on stderr');
  });

  void it(
    'runs chrooted into a root holding only itself and the C libraries',
    { skip: IS_ROOT ? (onPath('ldd') ? false : 'needs ldd') : 'needs root for chroot' },
    async () => {
      const root = await mkdtemp(join(tmpdir(), 'vppnet-chroot-'));
      try {
        await copyWithLibraries(sea, root, '/opt/cni/bin/vppnet-cni');
        const files = (await readdir(root, { recursive: true })).sort();
        assert.ok(!files.some((f) => /node/.test(f.split('/').at(-1) ?? '')), files.join(' '));
        const chroot = ['/usr/sbin/chroot', '/sbin/chroot', '/usr/bin/chroot'].find((p) => existsSync(p));
        assert.ok(chroot, 'chroot(8)');
        const { code, stdout, stderr } = await execWith(
          chroot,
          [root, '/opt/cni/bin/vppnet-cni'],
          { CNI_COMMAND: 'VERSION' },
          '{"cniVersion":"0.4.0"}',
        );
        assert.equal(code, 0, stderr);
        assert.equal((JSON.parse(stdout) as { cniVersion: string }).cniVersion, '0.4.0');
      } finally {
        await rm(root, { recursive: true, force: true });
      }
    },
  );
});
