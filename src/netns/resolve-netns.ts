/**
 * Turning CNI_NETNS into something `ip` can use. Runtimes pass bind-mounted namespaces under
 * /var/run/netns (= /run/netns), but also /proc/PID/ns/net or their own directories
 * (e.g. /var/run/docker/netns/...), so any path holding a network namespace is accepted.
 */
import { statfs, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute } from 'node:path';

import { NetnsError } from './errors.js';

/** Where `ip netns` (and so `ip -n NAME`) looks for names; /run/netns is the same directory. */
const NETNS_RUN_DIR = '/var/run/netns';
/** statfs f_type of nsfs, the filesystem of namespace files and their bind mounts. */
const NSFS_MAGIC = 0x6e736673;

export type ResolvedNetns =
  /** Addressable by `ip -n NAME`. */
  | { readonly kind: 'named'; readonly path: string; readonly name: string }
  /** Anything else: entered with `nsenter --net=PATH`. */
  | { readonly kind: 'path'; readonly path: string };

/** Throws NetnsError VPPNET_ERR_NETNS_NOT_FOUND / VPPNET_ERR_NOT_A_NETNS / VPPNET_ERR_INVALID_ARGUMENT. */
export async function resolveNetns(path: string): Promise<ResolvedNetns> {
  if (!isAbsolute(path)) {
    throw new NetnsError(
      'VPPNET_ERR_INVALID_ARGUMENT',
      `netns path must be absolute, got ${JSON.stringify(path)}`,
    );
  }
  let fsType: number;
  try {
    // statfs follows /proc/PID/ns/net (a magic link realpath cannot resolve) to the namespace itself.
    fsType = (await statfs(path)).type;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') {
      throw new NetnsError('VPPNET_ERR_NETNS_NOT_FOUND', `network namespace ${path} does not exist`, {
        cause: err,
      });
    }
    throw new NetnsError(
      'VPPNET_ERR_NETNS_NOT_FOUND',
      `cannot open network namespace ${path}: ${code ?? String(err)}`,
      {
        cause: err,
      },
    );
  }
  if (fsType !== NSFS_MAGIC) {
    throw new NetnsError('VPPNET_ERR_NOT_A_NETNS', `${path} is not a network namespace (not on nsfs)`);
  }
  const runDir = await realDir(NETNS_RUN_DIR);
  if (runDir !== undefined && (await realDir(dirname(path))) === runDir) {
    return { kind: 'named', path, name: basename(path) };
  }
  return { kind: 'path', path };
}

async function realDir(dir: string): Promise<string | undefined> {
  try {
    return await realpath(dir);
  } catch {
    return undefined;
  }
}
