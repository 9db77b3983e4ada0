/**
 * The host side of veth-based ports, through `ip` (src/netns): creating a pair into a named
 * network namespace, deleting it, and listing the pairs vppnet made (by name prefix) so the
 * reconciler can remove those no longer wanted.
 */
import { readdir } from 'node:fs/promises';
import type { HostLinks } from '../dataplane/context.js';
import { createVethIntoNetns, deleteHostLink } from '../netns/index.js';

const SYS_NET = '/sys/class/net';

export const linuxHostLinks: HostLinks = {
  async createVeth({ hostName, netns, ifname, mac, mtu }) {
    const netnsPath = netns.startsWith('/') ? netns : `/run/netns/${netns}`;
    await createVethIntoNetns({ hostName, netnsPath, podIfName: ifname, mac, ...(mtu === undefined ? {} : { mtu }) });
  },
  async deleteVeth(hostName) {
    await deleteHostLink(hostName);
  },
  async listVeths(prefix) {
    const names = await readdir(SYS_NET).catch(() => [] as string[]);
    return names.filter((n) => n.startsWith(prefix));
  },
};
