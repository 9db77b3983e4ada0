/**
 * The host side of veth-based ports, through `ip` (src/netns): creating a pair into a named
 * network namespace (its host end cut off from the host's stack, src/netns/host-end.ts), deleting
 * it, listing the pairs this agent made (by name prefix and its owner's mark,
 * src/netns/link-owner.ts) so the reconciler can remove those no longer wanted, and cutting the
 * host ends of those it keeps off again (an agent's upgrade onto host ends made before it).
 */
import type { HostLinks } from '../dataplane/context.js';
import {
  createVethIntoNetns,
  deleteHostLink,
  keepHostEndsIsolated,
  ownedHostLinks,
  ownedHostMac,
  refuseHostNetns,
} from '../netns/index.js';

/** Host links of `owner` (hostLinkOwner of the agent's VPP socket). */
export function linuxHostLinks(owner: string): HostLinks {
  return {
    async createVeth({ hostName, netns, ifname, mac, mtu }) {
      const netnsPath = netns.startsWith('/') ? netns : `/run/netns/${netns}`;
      await refuseHostNetns(netnsPath);
      await createVethIntoNetns({
        hostName,
        netnsPath,
        podIfName: ifname,
        mac,
        hostMac: ownedHostMac(owner, hostName),
        ...(mtu === undefined ? {} : { mtu }),
      });
    },
    async deleteVeth(hostName) {
      await deleteHostLink(hostName);
    },
    listVeths(prefix) {
      return ownedHostLinks(prefix, owner);
    },
    keepIsolated(hostNames) {
      return keepHostEndsIsolated(hostNames);
    },
  };
}
