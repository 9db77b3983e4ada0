/**
 * Whether a network namespace is the host's: the namespace of PID 1 or the agent's own (the agent
 * runs with hostNetwork). A VM's or a pod's link must never be created there: a "VM" veth in the
 * host namespace, with an address and routes from a record or a request, would sit on the node's
 * own network. Namespaces are compared by their nsfs inode (stat follows /proc/PID/ns/net and bind
 * mounts of it alike), never by path: /run/netns/x may be a bind mount of the host's.
 */
import { stat } from 'node:fs/promises';
import { NetnsError } from './errors.js';

const HOST_NAMESPACES = ['/proc/1/ns/net', '/proc/self/ns/net'];

async function identity(path: string): Promise<string | undefined> {
  try {
    const s = await stat(path);
    return `${s.dev}:${s.ino}`;
  } catch {
    return undefined;
  }
}

/** Throws VPPNET_ERR_HOST_NETNS when `netnsPath` is the host's or the agent's network namespace. */
export async function refuseHostNetns(
  netnsPath: string,
  hostPaths: readonly string[] = HOST_NAMESPACES,
): Promise<void> {
  const target = await identity(netnsPath);
  if (target === undefined) return; // missing: the caller's own error says so
  for (const host of hostPaths) {
    if ((await identity(host)) === target)
      throw new NetnsError(
        'VPPNET_ERR_HOST_NETNS',
        `${netnsPath} is the host's network namespace (the same as ${host}): refusing to put a VM's or pod's link there`,
      );
  }
}
