/**
 * Which vppnet owns a host link. Every agent makes `vpn*` (pod) and `vpv*` (VM) veth pairs and
 * removes those it no longer wants; two of them on one host (a second VPP, tests next to a
 * benchmark) would remove each other's by name alone. The owner's mark is the host end's MAC,
 * derived from the owner and the link's name: it is set by the request that creates the pair (an
 * ifalias could not be: the kernel ignores IFLA_IFALIAS when it creates a link) and read back
 * from /sys/class/net without running anything.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const SYS_NET = '/sys/class/net';

/** The owner of the links an agent makes: one per VPP, named by its API socket. */
export function hostLinkOwner(vppSocketPath: string): string {
  return `vppnet:${resolve(vppSocketPath)}`;
}

/** The host end's MAC for `owner`: unicast, locally administered, derived from owner and name. */
export function ownedHostMac(owner: string, hostName: string): string {
  const h = createHash('sha256').update(`${owner}\0${hostName}`).digest();
  h[0] = ((h[0] as number) & 0xfc) | 0x02;
  return [...h.subarray(0, 6)].map((b) => b.toString(16).padStart(2, '0')).join(':');
}

/** Host links named `prefix…` that carry `owner`'s mark. */
export async function ownedHostLinks(prefix: string, owner: string): Promise<string[]> {
  const names = (await readdir(SYS_NET).catch(() => [] as string[])).filter((n) => n.startsWith(prefix));
  const owned = await Promise.all(
    names.map(async (name) => {
      const mac = await readFile(join(SYS_NET, name, 'address'), 'utf8').catch(() => '');
      return mac.trim() === ownedHostMac(owner, name) ? name : undefined;
    }),
  );
  return owned.filter((n): n is string => n !== undefined);
}
