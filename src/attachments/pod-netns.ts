/**
 * What the attachment manager does outside VPP, behind one interface so tests can fail any step:
 * the pod's veth pair, its addresses and routes, reading it back, and whether a netns still exists.
 */
import { access } from 'node:fs/promises';
import {
  configurePodInterface,
  createVethIntoNetns,
  deleteHostLink,
  linkExistsInNetns,
  NetnsError,
  readPodInterface,
  DEFAULT_POD_NETNS_DIRS,
  refuseHostNetns,
  refuseNonPodNetnsPath,
  resolveNetns,
  type CreatedVeth,
  type CreateVethOptions,
  type PodInterfaceConfig,
  type PodInterfaceState,
} from '../netns/index.js';
import { commandError, systemRunner, isNoSuchDevice, runIp } from '../netns/ip-command.js';

export interface PodNetns {
  /**
   * Throws unless `netnsPath` may be a pod's namespace: inside the runtime's netns directories and
   * not the host's (or the agent's) own. Runs before anything is created, in both attach modes: a
   * VPP tap is made in whatever namespace the path names, just as a veth is.
   */
  admit(netnsPath: string): Promise<void>;
  createVeth(options: CreateVethOptions): Promise<CreatedVeth>;
  /** False when the link was already gone. */
  deleteHostLink(name: string): Promise<boolean>;
  configure(config: PodInterfaceConfig): Promise<void>;
  read(netnsPath: string, ifname: string): Promise<PodInterfaceState>;
  linkExists(netnsPath: string, ifname: string): Promise<boolean>;
  /** Deletes a link inside the netns; false when it was not there. */
  deleteLink(netnsPath: string, ifname: string): Promise<boolean>;
  /** False when the path is gone or no longer a network namespace (the pod is gone). */
  exists(netnsPath: string): Promise<boolean>;
  /** Whether VPP can make taps here: they need the vhost-net backend. */
  vhostNetAvailable(): Promise<boolean>;
}

/** The Linux implementation, accepting namespaces pinned in `netnsDirs`. */
export function linuxPodNetnsIn(netnsDirs: readonly string[]): PodNetns {
  return { ...linuxPodNetns, admit: (netnsPath) => admitPodNetns(netnsPath, netnsDirs) };
}

async function admitPodNetns(netnsPath: string, netnsDirs: readonly string[]): Promise<void> {
  await refuseNonPodNetnsPath(netnsPath, netnsDirs);
  // A request naming the host's own namespace (/proc/self/ns/net, /proc/1/ns/net, a bind mount
  // of either under /run/netns) would put the pod's link, its address and routes on the node's network.
  await refuseHostNetns(netnsPath);
}

export const linuxPodNetns: PodNetns = {
  admit: (netnsPath) => admitPodNetns(netnsPath, DEFAULT_POD_NETNS_DIRS),
  async createVeth(options) {
    // Again at the moment of creation: the path may have been re-pointed since admit().
    await refuseHostNetns(options.netnsPath);
    return createVethIntoNetns(options);
  },
  deleteHostLink: (name) => deleteHostLink(name),
  configure: (config) => configurePodInterface(config),
  read: (netnsPath, ifname) => readPodInterface(netnsPath, ifname),
  linkExists: (netnsPath, ifname) => linkExistsInNetns(netnsPath, ifname),
  async deleteLink(netnsPath, ifname) {
    const netns = await resolveNetns(netnsPath);
    const args = ['link', 'del', 'dev', ifname];
    const result = await runIp(systemRunner, netns, args);
    if (result.exitCode === 0) return true;
    if (isNoSuchDevice(result.stderr)) return false;
    throw commandError(netns, args, result);
  },
  async exists(netnsPath) {
    try {
      await resolveNetns(netnsPath);
      return true;
    } catch (err) {
      if (
        err instanceof NetnsError &&
        (err.code === 'VPPNET_ERR_NETNS_NOT_FOUND' || err.code === 'VPPNET_ERR_NOT_A_NETNS')
      )
        return false;
      throw err;
    }
  },
  async vhostNetAvailable() {
    try {
      await access('/dev/vhost-net');
      return true;
    } catch {
      return false;
    }
  },
};
