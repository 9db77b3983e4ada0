/**
 * Errors raised by src/netns, each with a stable code; the agent maps them to its API errors (e.g.
 * VPPNET_ERR_POD_IFNAME_EXISTS to CNI code 100) and tests check codes, never message text.
 */
import { VppnetError } from '../util/errors.js';

export type NetnsErrorCode =
  /** The path is not absolute or a name breaks the kernel's rules; nothing was run. */
  | 'VPPNET_ERR_INVALID_ARGUMENT'
  /** The netns path does not exist (the pod is gone). */
  | 'VPPNET_ERR_NETNS_NOT_FOUND'
  /** The path exists but is no network namespace (e.g. an unmounted bind-mount target). */
  | 'VPPNET_ERR_NOT_A_NETNS'
  /** The namespace is the host's or the agent's own: no VM or pod link goes there. */
  | 'VPPNET_ERR_HOST_NETNS'
  /** The path is not in a container runtime's netns directory, so it is no pod's namespace. */
  | 'VPPNET_ERR_NOT_POD_NETNS'
  /** The interface name the runtime asked for is already taken inside the netns. */
  | 'VPPNET_ERR_POD_IFNAME_EXISTS'
  /** The host-side name is taken, usually by a leftover of the same attachment. */
  | 'VPPNET_ERR_HOST_LINK_EXISTS'
  /** The link to configure or read is not there. */
  | 'VPPNET_ERR_LINK_NOT_FOUND'
  /** `ip` (or nsenter) failed for another reason; the message carries its stderr. */
  | 'VPPNET_ERR_IP_COMMAND'
  /**
   * `nft` could not run or failed (not installed, a kernel without netdev tables): a host end
   * whose ingress it cannot drop is not made (host-end.ts). The message carries the cause.
   */
  | 'VPPNET_ERR_NFT_COMMAND';

export class NetnsError extends VppnetError<NetnsErrorCode> {
  constructor(code: NetnsErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
    this.name = 'NetnsError';
  }
}
