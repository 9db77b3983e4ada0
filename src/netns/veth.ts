/**
 * The veth pair of a pod port: the host end is later handed to VPP (af_packet), the pod end lives in
 * the pod's netns under CNI_IFNAME.
 */
import { NetnsError } from './errors.js';
import {
  execaRunner,
  isAlreadyExists,
  isNoSuchDevice,
  runIp,
  runIpOrThrow,
  commandError,
  type CommandRunner,
} from './ip-command.js';
import { assertValidIfname } from './link-names.js';
import { linkExistsInNetns, readLink } from './pod-interface.js';
import { resolveNetns } from './resolve-netns.js';

export interface CreateVethOptions {
  /** Usually hostVethName(containerId, ifname). */
  readonly hostName: string;
  readonly netnsPath: string;
  /** CNI_IFNAME. */
  readonly podIfName: string;
  /** Both ends; the kernel default (1500) when absent. */
  readonly mtu?: number;
  /** Pod end's MAC; random when absent. */
  readonly mac?: string;
}

export interface CreatedVeth {
  readonly hostName: string;
  readonly hostMac: string;
  readonly podIfName: string;
  readonly podMac: string;
  readonly mtu: number;
}

/**
 * Creates the pair with the pod end already inside the netns under its final name, then sets both
 * ends up. One rtnetlink request (`ip link add ... peer name POD netns NS`) replaces "create, move,
 * rename": the kernel creates both ends or neither, no temporary name can collide on the host, and
 * the pod end never appears in the host namespace.
 *
 * Throws NetnsError: VPPNET_ERR_POD_IFNAME_EXISTS when podIfName is taken in the netns,
 * VPPNET_ERR_HOST_LINK_EXISTS when hostName is taken on the host, VPPNET_ERR_NETNS_NOT_FOUND, ...
 * On any failure after creation the pair is deleted again.
 */
export async function createVethIntoNetns(
  options: CreateVethOptions,
  runner: CommandRunner = execaRunner,
): Promise<CreatedVeth> {
  const { hostName, podIfName, mtu, mac } = options;
  assertValidIfname(hostName, 'host link name');
  assertValidIfname(podIfName, 'pod interface name');
  if (mtu !== undefined && (!Number.isInteger(mtu) || mtu < 68 || mtu > 65535)) {
    throw new NetnsError('VPPNET_ERR_INVALID_ARGUMENT', `mtu must be an integer 68..65535, got ${mtu}`);
  }
  const netns = await resolveNetns(options.netnsPath);

  // Checked first so each collision gets its own error; the create below still fails safely if
  // someone takes a name in between.
  if (await linkExistsInNetns(options.netnsPath, podIfName, runner)) {
    throw podIfnameExists(podIfName, options.netnsPath);
  }
  if (await linkExists(runner, hostName)) throw hostLinkExists(hostName);

  const mtuArgs = mtu === undefined ? [] : ['mtu', String(mtu)];
  const addArgs = [
    'link',
    'add',
    hostName,
    ...mtuArgs,
    'type',
    'veth',
    'peer',
    'name',
    podIfName,
    ...mtuArgs,
    ...(mac === undefined ? [] : ['address', mac]),
    'netns',
    netns.kind === 'named' ? netns.name : netns.path,
  ];
  const added = await runIp(runner, undefined, addArgs);
  if (added.exitCode !== 0) {
    if (isAlreadyExists(added.stderr)) {
      if (await linkExistsInNetns(options.netnsPath, podIfName, runner))
        throw podIfnameExists(podIfName, options.netnsPath);
      throw hostLinkExists(hostName);
    }
    throw commandError(undefined, addArgs, added);
  }

  try {
    await runIpOrThrow(runner, undefined, ['link', 'set', 'dev', hostName, 'up']);
    await runIpOrThrow(runner, netns, ['link', 'set', 'dev', podIfName, 'up']);
    const host = await readLink(runner, undefined, hostName);
    const pod = await readLink(runner, netns, podIfName);
    return { hostName, hostMac: host.mac, podIfName, podMac: pod.mac, mtu: pod.mtu };
  } catch (err) {
    // Deleting the host end removes the pod end with it.
    await deleteHostLink(hostName, runner).catch(() => undefined);
    throw err;
  }
}

/** Deletes a host link (for a veth, both ends). False when it was already gone: DEL must be repeatable. */
export async function deleteHostLink(name: string, runner: CommandRunner = execaRunner): Promise<boolean> {
  assertValidIfname(name, 'host link name');
  const args = ['link', 'del', 'dev', name];
  const result = await runIp(runner, undefined, args);
  if (result.exitCode === 0) return true;
  if (isNoSuchDevice(result.stderr)) return false;
  throw commandError(undefined, args, result);
}

async function linkExists(runner: CommandRunner, name: string): Promise<boolean> {
  const args = ['-j', 'link', 'show', 'dev', name];
  const result = await runIp(runner, undefined, args);
  if (result.exitCode === 0) return true;
  if (isNoSuchDevice(result.stderr)) return false;
  throw commandError(undefined, args, result);
}

function podIfnameExists(ifname: string, netnsPath: string): NetnsError {
  return new NetnsError('VPPNET_ERR_POD_IFNAME_EXISTS', `interface ${ifname} already exists in ${netnsPath}`);
}

function hostLinkExists(name: string): NetnsError {
  return new NetnsError('VPPNET_ERR_HOST_LINK_EXISTS', `host link ${name} already exists`);
}
