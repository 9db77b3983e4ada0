/**
 * `vppnet install-cni --source FILE --dest DIR [--name vppnet-cni]`: what the DaemonSet's init
 * container runs to put the vppnet-cni executable into the host's CNI bin dir (mounted from the
 * host), while the kubelet's runtime and Multus may be executing the previous one.
 *
 * - The copy is written to a temp file in DIR itself (so the final rename stays on one filesystem),
 *   flushed with fsync, made 0755 and renamed over DIR/NAME: a reader sees the old file or the
 *   complete new one, never a part. Writing in place would also fail with ETXTBSY while a runtime
 *   is executing the old binary; a rename leaves the running process its old inode.
 * - The directory is fsynced afterwards, so the rename itself survives a host crash.
 * - The source must be a non-empty regular file with an execute bit (symlinks are followed); the
 *   destination must be an existing directory: a mistyped hostPath must fail the init container,
 *   not create a directory nobody reads.
 * - Nothing is ever removed, on success or on exit: only this run's own temp file, when the copy
 *   fails before the rename. A previous binary is replaced only by the rename.
 */
import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { VppnetError } from '../util/errors.js';

export const DEFAULT_CNI_NAME = 'vppnet-cni';

const COPY_CHUNK = 1 << 20;

export interface InstallCniOptions {
  /** The executable to install. */
  readonly source: string;
  /** The CNI bin dir (e.g. /host/opt/cni/bin); must exist. */
  readonly dest: string;
  /** The file name in dest; default vppnet-cni. */
  readonly name?: string;
}

export interface InstallCniResult {
  readonly path: string;
  readonly bytes: number;
  /** Whether a file of that name was there before (and has been replaced). */
  readonly replaced: boolean;
}

export class InstallCniError extends VppnetError<'VPPNET_ERR_INSTALL_CNI'> {
  override readonly name = 'InstallCniError';
  constructor(message: string) {
    super('VPPNET_ERR_INSTALL_CNI', message);
  }
}

export async function installCni(opts: InstallCniOptions): Promise<InstallCniResult> {
  const name = opts.name ?? DEFAULT_CNI_NAME;
  if (name === '' || name === '.' || name === '..' || name !== basename(name) || name.includes('\0')) {
    throw new InstallCniError(`--name must be a plain file name, not ${JSON.stringify(name)}`);
  }
  const destStat = await stat(opts.dest).catch((err: NodeJS.ErrnoException) => {
    throw new InstallCniError(`destination ${opts.dest}: ${err.code ?? err.message}`);
  });
  if (!destStat.isDirectory()) throw new InstallCniError(`destination ${opts.dest} is not a directory`);
  const finalPath = join(opts.dest, name);

  let source: FileHandle;
  try {
    source = await open(opts.source, fsConstants.O_RDONLY);
  } catch (err) {
    throw new InstallCniError(`source ${opts.source}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    // Checked on the open file, so what is checked is what gets copied.
    const sourceStat = await source.stat();
    if (!sourceStat.isFile()) throw new InstallCniError(`source ${opts.source} is not a regular file`);
    if ((sourceStat.mode & 0o111) === 0) throw new InstallCniError(`source ${opts.source} is not executable`);
    if (sourceStat.size === 0) throw new InstallCniError(`source ${opts.source} is empty`);
    const replaced = await stat(finalPath).then(
      () => true,
      () => false,
    );

    // Hidden, and unique per run: two init containers installing at once each write their own.
    const tempPath = join(opts.dest, `.${name}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
    const temp = await open(
      tempPath,
      fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW,
      0o600,
    );
    let renamed = false;
    try {
      const bytes = await copyAll(source, temp);
      if (bytes !== sourceStat.size) {
        throw new InstallCniError(
          `source ${opts.source} changed while being copied (${bytes} of ${sourceStat.size} bytes)`,
        );
      }
      await temp.chmod(0o755);
      await temp.sync();
      await temp.close();
      await rename(tempPath, finalPath);
      renamed = true;
      await syncDirectory(opts.dest);
      return { path: finalPath, bytes, replaced };
    } finally {
      await temp.close().catch(() => undefined);
      if (!renamed) await rm(tempPath, { force: true }).catch(() => undefined);
    }
  } finally {
    await source.close();
  }
}

async function copyAll(from: FileHandle, to: FileHandle): Promise<number> {
  const buffer = Buffer.allocUnsafe(COPY_CHUNK);
  let total = 0;
  for (;;) {
    const { bytesRead } = await from.read(buffer, 0, buffer.length, total);
    if (bytesRead === 0) return total;
    let written = 0;
    while (written < bytesRead) {
      const { bytesWritten } = await to.write(buffer, written, bytesRead - written, total + written);
      written += bytesWritten;
    }
    total += bytesRead;
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, fsConstants.O_RDONLY | fsConstants.O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export const INSTALL_CNI_USAGE = `  vppnet install-cni --source FILE --dest DIR [--name ${DEFAULT_CNI_NAME}]
      copies the vppnet-cni executable into a CNI bin dir atomically (temp file, fsync, rename)`;

/**
 * The subcommand: `args` are the words after `install-cni`. --help prints the usage on `out` and
 * succeeds; a command line it cannot run (no arguments, a missing or unknown option) is a usage
 * error (exit 2), with the usage, so that a broken init container says what it was missing.
 */
export async function installCniCommand(
  args: readonly string[],
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        source: { type: 'string' },
        dest: { type: 'string' },
        name: { type: 'string', default: DEFAULT_CNI_NAME },
        help: { type: 'boolean', short: 'h', default: false },
      },
      allowPositionals: false,
      strict: true,
    }));
  } catch (e) {
    err.write(`vppnet install-cni: ${(e as Error).message}\nusage:\n${INSTALL_CNI_USAGE}\n`);
    return 2;
  }
  if (values.help) {
    out.write(`usage:\n${INSTALL_CNI_USAGE}\n`);
    return 0;
  }
  if (values.source === undefined || values.dest === undefined) {
    err.write(`vppnet install-cni: --source and --dest are required\nusage:\n${INSTALL_CNI_USAGE}\n`);
    return 2;
  }
  const result = await installCni({ source: values.source, dest: values.dest, name: values.name });
  out.write(
    `vppnet install-cni: ${result.replaced ? 'replaced' : 'installed'} ${result.path} (${result.bytes} bytes)\n`,
  );
  return 0;
}
