/**
 * The host files next to VPP (dataplane/context.ts HostFiles), on this machine's filesystem.
 *
 * The agent runs as root, and the directories it changes can be writable by others (a QEMU user
 * or group, or the owner of a sub-directory sockets live in). A path-based chown or chmod follows
 * a symlink, so whoever swaps the checked socket (or the directory just made) for a symlink to,
 * say, /etc/shadow between the check and the change would get root to hand that file over. So
 * ownership and mode are changed only through a descriptor of the inode that was opened without
 * following a final symlink and checked to be what is expected.
 */
import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { chmod, chown, lstat, mkdir, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { FileFacts, HostFiles } from '../dataplane/context.js';

// Linux's O_PATH (asm-generic/fcntl.h; the same on x86-64 and arm64), which Node's fs.constants
// does not export. An O_PATH descriptor needs no read permission and opens sockets (a plain open
// of a socket fails with ENXIO); with O_NOFOLLOW it refers to a final symlink itself instead of
// failing with ELOOP, which is why the type is checked with fstat afterwards.
const O_PATH = 0o10000000;

export const linuxHostFiles: HostFiles = {
  async stat(p) {
    try {
      const st = await lstat(p);
      const type: FileFacts['type'] = st.isSocket() ? 'socket' : st.isDirectory() ? 'directory' : 'other';
      return { type, uid: st.uid, gid: st.gid, mode: st.mode & 0o777 };
    } catch (err) {
      // ENOTDIR: a parent is a file, so the path cannot exist either.
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw err;
    }
  },

  async makeDirectory(dir, mode, gid) {
    // Component by component, so each directory created gets the mode (mkdir's is cut by the
    // umask) and the group; those that exist are left as they are.
    const missing: string[] = [];
    for (let d = path.resolve(dir); ; d = path.dirname(d)) {
      const st = await lstat(d).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return undefined;
        throw err;
      });
      if (st !== undefined) {
        if (!st.isDirectory()) throw new Error(`cannot create ${dir}: ${d} exists and is not a directory`);
        break;
      }
      missing.unshift(d);
      if (d === path.dirname(d)) break;
    }
    for (const d of missing) {
      try {
        await mkdir(d);
      } catch (err) {
        // Another process made it in between: fine, and then it is theirs.
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw new Error(`cannot create ${d}: ${(err as Error).message}`, { cause: err });
      }
      // Whoever can write into the parent can swap the new directory for a symlink before the
      // chown and chmod: they act on what is at d only if it is still a directory.
      await changeAccess(d, 'directory', { uid: undefined, gid, mode });
    }
  },

  async setAccess(p, { uid, gid, mode }) {
    // Only ever a vhost-user socket VPP made; anything else at the path (a symlink put there
    // since the caller's check) is refused.
    await changeAccess(p, 'socket', { uid, gid, mode });
  },
};

type Expected = 'socket' | 'directory';

/**
 * chown (an undefined id stays as it is) and chmod what is at `p`, which must be an `expected`,
 * never following a final symlink: `p` is opened O_PATH | O_NOFOLLOW, checked with fstat, and
 * changed through /proc/self/fd/<fd>. That magic link resolves to the opened inode whatever is at
 * `p` by then; it is the way to chmod an O_PATH descriptor (fchmod and fchown on one fail with
 * EBADF).
 */
async function changeAccess(
  p: string,
  expected: Expected,
  { uid, gid, mode }: { uid: number | undefined; gid: number | undefined; mode: number },
): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(p, O_PATH | constants.O_NOFOLLOW);
  } catch (err) {
    throw new Error(`cannot change ${p}: ${(err as Error).message}`, { cause: err });
  }
  try {
    const st = await handle.stat();
    if (!isExpected(st, expected)) throw new Error(`${p} is ${describe(st)}, not a ${expected}: left alone`);
    const fdPath = `/proc/self/fd/${handle.fd}`;
    try {
      if (uid !== undefined || gid !== undefined) await chown(fdPath, uid ?? -1, gid ?? -1);
      await chmod(fdPath, mode);
    } catch (err) {
      // Name the path, not /proc/self/fd/<n>.
      throw new Error(`cannot change ${p}: ${(err as Error).message}`, { cause: err });
    }
  } finally {
    await handle.close();
  }
}

function isExpected(st: Stats, expected: Expected): boolean {
  return expected === 'socket' ? st.isSocket() : st.isDirectory();
}

function describe(st: Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isFile()) return 'a regular file';
  if (st.isDirectory()) return 'a directory';
  if (st.isSocket()) return 'a socket';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'of an unknown type';
}
