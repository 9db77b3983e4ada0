/**
 * The host files next to VPP (dataplane/context.ts HostFiles), on this machine's filesystem.
 */
import { chmod, chown, lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { FileFacts, HostFiles } from '../dataplane/context.js';

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
      if (gid !== undefined) await chown(d, -1, gid);
      await chmod(d, mode);
    }
  },

  async setAccess(p, { uid, gid, mode }) {
    if (uid !== undefined || gid !== undefined) await chown(p, uid ?? -1, gid ?? -1);
    await chmod(p, mode);
  },
};
