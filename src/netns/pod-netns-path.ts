/**
 * Whether a path a CNI request names may be a pod's network namespace. The runtime pins every pod's
 * namespace in its netns directory (containerd and CRI-O: /run/netns, also seen as /var/run/netns),
 * so a request naming anything else (/proc/self/ns/net, /proc/<pid>/ns/net of a host process, a bind
 * mount in /tmp) is not a pod's, whatever it points at. The check resolves symlinks first, so
 * /var/run/netns/x and /run/netns/../netns/x are judged by where they really lead, and it accepts
 * only entries directly inside an allowed directory. A directory may be a pattern with `*` for a
 * process id (PROC_NETNS_DIRS): `ctr run --cni` and nerdctl hand plugins
 * /proc/<pid>/ns/net of the container's first process instead of a pinned path. The
 * host-namespace check (host-netns.ts) still runs after it: /run/netns/x may be a bind mount of the
 * host's own namespace, /proc/1/ns/net is the host's.
 */
import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { NetnsError } from './errors.js';

/** Where containerd's and CRI-O's CRI and `ip netns` pin network namespaces. */
export const DEFAULT_POD_NETNS_DIRS: readonly string[] = ['/run/netns', '/var/run/netns'];

/** A container's first process's namespaces, as `ctr run --cni` and nerdctl name them. */
export const PROC_NETNS_DIRS = '/proc/*/ns';

async function realDir(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch {
    return undefined;
  }
}

/**
 * Throws VPPNET_ERR_NOT_POD_NETNS unless `netnsPath` is an entry directly inside one of `dirs`
 * (each resolved through symlinks; a directory that does not exist allows nothing). A path that
 * does not exist is judged by its directory, so the caller's own "not found" answers it.
 */
export async function refuseNonPodNetnsPath(
  netnsPath: string,
  dirs: readonly string[] = DEFAULT_POD_NETNS_DIRS,
): Promise<void> {
  const patterns = dirs.filter((d) => d.includes('*')).map(dirPattern);
  const plain = dirs.filter((d) => !d.includes('*'));
  const allowed = (await Promise.all(plain.map(realDir))).filter((d): d is string => d !== undefined);
  let real: string | undefined;
  if (isAbsolute(netnsPath)) {
    real = await realDir(netnsPath);
    if (real === undefined) {
      const parent = await realDir(dirname(netnsPath));
      real = parent === undefined ? undefined : join(parent, basename(netnsPath));
    }
  }
  // join() has resolved any trailing '..' already: /run/netns/.. is judged as /run.
  if (real !== undefined && (allowed.includes(dirname(real)) || patterns.some((p) => p.test(dirname(real)))))
    return;
  throw new NetnsError(
    'VPPNET_ERR_NOT_POD_NETNS',
    `${netnsPath} is not in the container runtime's netns directories (${dirs.join(', ')}): ` +
      "a pod network namespace is pinned there by the runtime (set the agent's --netns-dirs for another runtime)",
  );
}

/** A directory pattern as a regular expression: each `*` one path segment of digits (a process id). */
function dirPattern(dir: string): RegExp {
  const parts = dir.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[0-9]+')}$`);
}
