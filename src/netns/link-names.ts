/**
 * Link names: the kernel's rules, and the host-side name of a pod's veth, which is derived from the
 * attachment alone so that a DEL after an agent restart (no memory of the ADD) finds the link.
 */
import { createHash } from 'node:crypto';

import { isLinkName, MAX_LINK_NAME_BYTES } from '../net/link-name.js';
import { NetnsError } from './errors.js';

/** IFNAMSIZ is 16 including the terminating NUL. */
export const MAX_IFNAME_LENGTH = MAX_LINK_NAME_BYTES;

/** 'vpn' + 12 hex digits of SHA-256(containerId NUL ifname): 15 characters, collisions at 2^-48. */
export function hostVethName(containerId: string, ifname: string): string {
  const digest = createHash('sha256').update(containerId).update('\0').update(ifname).digest('hex');
  return `vpn${digest.slice(0, 12)}`;
}

/** Throws VPPNET_ERR_INVALID_ARGUMENT for names the kernel would reject, before anything runs. */
export function assertValidIfname(name: string, what: string): void {
  if (!isLinkName(name)) {
    throw new NetnsError(
      'VPPNET_ERR_INVALID_ARGUMENT',
      `${what} ${JSON.stringify(name)} is not a valid link name (1-${MAX_IFNAME_LENGTH} characters, no / : or whitespace)`,
    );
  }
}
