/** Agent-side helpers for a pod's network namespace, run through `ip` (and nsenter for arbitrary paths). */
export { NetnsError, type NetnsErrorCode } from './errors.js';
export { systemRunner, type CommandResult, type CommandRunner } from './ip-command.js';
export { hostVethName, MAX_IFNAME_LENGTH } from './link-names.js';
export {
  configurePodInterface,
  linkExistsInNetns,
  readPodInterface,
  type PodInterfaceConfig,
  type PodInterfaceState,
  type PodRoute,
} from './pod-interface.js';
export { resolveNetns, type ResolvedNetns } from './resolve-netns.js';
export { refuseHostNetns } from './host-netns.js';
export { DEFAULT_POD_NETNS_DIRS, PROC_NETNS_DIRS, refuseNonPodNetnsPath } from './pod-netns-path.js';
export { createVethIntoNetns, deleteHostLink, type CreateVethOptions, type CreatedVeth } from './veth.js';
export { hostLinkOwner, ownedHostLinks, ownedHostMac } from './link-owner.js';
export { keepHostEndsIsolated } from './host-end.js';
