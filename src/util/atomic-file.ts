/**
 * Replacing a file so that a crash or power loss at any moment leaves either the old or the new
 * content, never a torn mix: write a temporary file beside it, fsync, rename over the target
 * (atomic within one filesystem), then fsync the directory so the rename itself is durable.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface AtomicWriteOptions {
  /** Mode of the file (default 0644). */
  readonly mode?: number;
  /** Mode of directories created on the way (default: the process umask's). */
  readonly dirMode?: number;
}

export async function writeFileAtomic(
  path: string,
  data: string,
  opts: AtomicWriteOptions | number = {},
): Promise<void> {
  const { mode = 0o644, dirMode } = typeof opts === 'number' ? { mode: opts } : opts;
  const dir = dirname(path);
  await mkdir(dir, dirMode === undefined ? { recursive: true } : { recursive: true, mode: dirMode });
  const temp = join(dir, `${tempPrefix(path)}${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let handle: FileHandle | undefined;
  try {
    handle = await open(temp, 'wx', mode);
    await handle.writeFile(data, 'utf8');
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temp, path);
  } catch (err) {
    await handle?.close().catch(() => undefined);
    await rm(temp, { force: true }).catch(() => undefined);
    throw err;
  }
  await syncDirectory(dir);
}

/** Removes temporary files a crash between open and rename left behind for `path`. */
export async function removeStaleTempFiles(path: string): Promise<void> {
  const dir = dirname(path);
  const prefix = tempPrefix(path);
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((n) => n.startsWith(prefix) && n.endsWith('.tmp'))
      .map((n) => rm(join(dir, n), { force: true }).catch(() => undefined)),
  );
}

function tempPrefix(path: string): string {
  return `.${basename(path)}.`;
}

/** Removes a file and makes the removal durable; absent is fine. */
export async function removeFileDurably(path: string): Promise<void> {
  await rm(path, { force: true });
  await syncDirectory(dirname(path));
}

async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic, only its
    // durability across a power loss is weaker there.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
