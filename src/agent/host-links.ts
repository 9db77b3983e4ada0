/**
 * The host side of veth-based ports, through `ip` (src/netns): creating a pair into a named
 * network namespace, deleting it, and listing the pairs this agent made (by name prefix and its
 * owner's mark, src/netns/link-owner.ts) so the reconciler can remove those no longer wanted.
 */
import { writeFile } from 'node:fs/promises';
import type { HostLinks } from '../dataplane/context.js';
import {
  createVethIntoNetns,
  deleteHostLink,
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
      try {
        await disableHostIp6(hostName);
      } catch (err) {
        // Half a port is none: the pair goes, and the retry creates both again.
        await deleteHostLink(hostName).catch(() => undefined);
        throw err;
      }
    },
    async deleteVeth(hostName) {
      await deleteHostLink(hostName);
    },
    listVeths(prefix) {
      return ownedHostLinks(prefix, owner);
    },
  };
}

/**
 * The host end of a VM's veth carries the VM's traffic into VPP's af_packet port, nothing of the
 * host's own: with IPv6 on, the host kernel's MLD reports, DAD and router solicitations on it reach
 * VPP as if the VM sent them (seen in traces; docs/dual-stack.md, trap 7), and VPP answers an RS
 * on a dual-stack port. A kernel without IPv6 has no such file, and nothing to turn off.
 */
async function disableHostIp6(hostName: string): Promise<void> {
  try {
    await writeFile(`/proc/sys/net/ipv6/conf/${hostName}/disable_ipv6`, '1');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
