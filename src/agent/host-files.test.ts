import assert from 'node:assert/strict';
import { chown, lstat, mkdir, rename, stat, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { linuxHostFiles } from './host-files.js';
import { makeTempDir } from './testing/agent-fixtures.js';

// Changing a file's owner needs root; the tests that do are skipped otherwise.
const notRoot = process.getuid?.() !== 0 ? 'needs root to chown' : false;
const NOBODY = 65534;

describe('linuxHostFiles', () => {
  let tmp: Awaited<ReturnType<typeof makeTempDir>>;
  const servers: net.Server[] = [];

  beforeEach(async () => {
    tmp = await makeTempDir('vppnet-host-files-');
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
    await tmp.remove();
  });

  async function listen(path: string): Promise<void> {
    const server = net.createServer();
    servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, resolve);
    });
  }

  /** A root-owned 0600 file, standing for /etc/shadow. */
  async function secret(): Promise<string> {
    const target = join(tmp.dir, 'shadow');
    await writeFile(target, 'root:*:', { mode: 0o600 });
    return target;
  }

  async function assertUntouched(target: string, owner: { uid: number; gid: number }): Promise<void> {
    const st = await stat(target);
    assert.equal(st.mode & 0o7777, 0o600, 'mode unchanged');
    assert.deepEqual({ uid: st.uid, gid: st.gid }, owner, 'owner unchanged');
  }

  describe('setAccess', () => {
    it('changes the owner and mode of a Unix socket', { skip: notRoot }, async () => {
      const sock = join(tmp.dir, 'vm.sock');
      await listen(sock);

      await linuxHostFiles.setAccess(sock, { uid: NOBODY, gid: NOBODY, mode: 0o660 });

      const st = await lstat(sock);
      assert.ok(st.isSocket());
      assert.equal(st.mode & 0o7777, 0o660);
      assert.deepEqual({ uid: st.uid, gid: st.gid }, { uid: NOBODY, gid: NOBODY });
    });

    it('leaves an undefined id as it is', { skip: notRoot }, async () => {
      const sock = join(tmp.dir, 'vm.sock');
      await listen(sock);
      const before = await lstat(sock);

      await linuxHostFiles.setAccess(sock, { uid: undefined, gid: NOBODY, mode: 0o640 });

      const st = await lstat(sock);
      assert.equal(st.mode & 0o7777, 0o640);
      assert.deepEqual({ uid: st.uid, gid: st.gid }, { uid: before.uid, gid: NOBODY });
    });

    it('refuses a symlink at the path and leaves its target alone', async () => {
      const target = await secret();
      const { uid, gid } = await stat(target);
      const sock = join(tmp.dir, 'vm.sock');
      await symlink(target, sock);

      await assert.rejects(
        linuxHostFiles.setAccess(sock, { uid: NOBODY, gid: NOBODY, mode: 0o660 }),
        new Error(`${sock} is a symbolic link, not a socket: left alone`),
      );
      await assertUntouched(target, { uid, gid });
      assert.ok((await lstat(sock)).isSymbolicLink(), 'the link itself is left too');
    });

    it('refuses a socket swapped for a symlink after it was checked (the race)', async () => {
      const target = await secret();
      const { uid, gid } = await stat(target);
      const sock = join(tmp.dir, 'vm.sock');
      await listen(sock);

      // What host-file-descriptors.ts setSocketAccess does: stat, then setAccess. In between,
      // whoever can write into the directory swaps the socket for a symlink.
      assert.equal((await linuxHostFiles.stat(sock))?.type, 'socket');
      await rename(sock, join(tmp.dir, 'moved.sock'));
      await symlink(target, sock);

      await assert.rejects(
        linuxHostFiles.setAccess(sock, { uid: NOBODY, gid: NOBODY, mode: 0o660 }),
        /is a symbolic link, not a socket: left alone/,
      );
      await assertUntouched(target, { uid, gid });
    });

    it('refuses a regular file', async () => {
      const target = await secret();
      const { uid, gid } = await stat(target);

      await assert.rejects(
        linuxHostFiles.setAccess(target, { uid: NOBODY, gid: NOBODY, mode: 0o660 }),
        new Error(`${target} is a regular file, not a socket: left alone`),
      );
      await assertUntouched(target, { uid, gid });
    });

    it('names the path when it is gone', async () => {
      const sock = join(tmp.dir, 'gone.sock');
      await assert.rejects(
        linuxHostFiles.setAccess(sock, { uid: undefined, gid: undefined, mode: 0o660 }),
        (err: Error) => err.message.startsWith(`cannot change ${sock}: ENOENT`),
      );
    });
  });

  describe('makeDirectory', () => {
    it('creates the missing components with the mode and group, and leaves existing ones', async () => {
      const dir = join(tmp.dir, 'a', 'b', 'c');
      const gid = notRoot ? undefined : NOBODY;
      const parentBefore = await stat(tmp.dir);

      await linuxHostFiles.makeDirectory(dir, 0o2750, gid);

      for (const d of [join(tmp.dir, 'a'), join(tmp.dir, 'a', 'b'), dir]) {
        const st = await lstat(d);
        assert.ok(st.isDirectory(), d);
        assert.equal(st.mode & 0o7777, 0o2750, `${d} mode`);
        if (gid !== undefined) assert.equal(st.gid, gid, `${d} group`);
      }
      const parent = await stat(tmp.dir);
      assert.deepEqual(
        { mode: parent.mode, uid: parent.uid, gid: parent.gid },
        { mode: parentBefore.mode, uid: parentBefore.uid, gid: parentBefore.gid },
      );
    });

    it('is fine with a directory that exists, and leaves it as it is', { skip: notRoot }, async () => {
      const dir = join(tmp.dir, 'vhost');
      await mkdir(dir, { mode: 0o700 });
      await chown(dir, NOBODY, NOBODY);

      await linuxHostFiles.makeDirectory(dir, 0o2775, 0);

      const st = await lstat(dir);
      assert.equal(st.mode & 0o7777, 0o700);
      assert.deepEqual({ uid: st.uid, gid: st.gid }, { uid: NOBODY, gid: NOBODY });
    });

    it('refuses a component that is a symlink to a directory, creating nothing beyond it', async () => {
      const real = join(tmp.dir, 'real');
      await mkdir(real, { mode: 0o700 });
      const link = join(tmp.dir, 'link');
      await symlink(real, link);

      await assert.rejects(
        linuxHostFiles.makeDirectory(join(link, 'vhost'), 0o777, undefined),
        new Error(`cannot create ${join(link, 'vhost')}: ${link} exists and is not a directory`),
      );
      await assert.rejects(lstat(join(real, 'vhost')), { code: 'ENOENT' });
      assert.equal((await stat(real)).mode & 0o7777, 0o700);
    });

    it('refuses a final component that is a symlink to a file, leaving the file alone', async () => {
      const target = await secret();
      const { uid, gid } = await stat(target);
      const dir = join(tmp.dir, 'vhost');
      await symlink(target, dir);

      await assert.rejects(
        linuxHostFiles.makeDirectory(dir, 0o777, NOBODY),
        new Error(`cannot create ${dir}: ${dir} exists and is not a directory`),
      );
      await assertUntouched(target, { uid, gid });
    });
  });
});
