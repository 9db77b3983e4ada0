/**
 * The veth pair of a pod port: the host end is later handed to VPP (af_packet), the pod end lives in
 * the pod's netns under CNI_IFNAME.
 */
import { randomBytes } from 'node:crypto';

import { NetnsError } from './errors.js';
import {
  commandError,
  execaRunner,
  isAlreadyExists,
  isNoSuchDevice,
  runIp,
  runIpOrThrow,
  type CommandRunner,
} from './ip-command.js';
import { assertValidIfname } from './link-names.js';
import { linkExistsInNetns } from './pod-interface.js';
import { resolveNetns } from './resolve-netns.js';

/** What the kernel gives a veth without an explicit mtu (ETH_DATA_LEN). */
const VETH_DEFAULT_MTU = 1500;

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
 * Creates the pair with the pod end already inside the netns under its final name, then sets the
 * pod end up (the host end is created up). One rtnetlink request (`ip link add ... peer name POD
 * netns NS`) replaces "create, move, rename": the kernel creates both ends or neither, no temporary
 * name can collide on the host, and the pod end never shows up in the host namespace.
 *
 * MACs are chosen here (random, locally administered, as the kernel would) so nothing has to be
 * read back: every `ip` run costs a fork/exec and a namespace switch, and the agent attaches pods
 * in bursts when a node starts.
 *
 * Throws NetnsError: VPPNET_ERR_POD_IFNAME_EXISTS when podIfName is taken in the netns,
 * VPPNET_ERR_HOST_LINK_EXISTS when hostName is taken on the host, VPPNET_ERR_NETNS_NOT_FOUND, ...
 * On a failure after creation the pair is deleted again.
 */
export async function createVethIntoNetns(
  options: CreateVethOptions,
  runner: CommandRunner = execaRunner,
): Promise<CreatedVeth> {
  const { hostName, podIfName, mtu } = options;
  assertValidIfname(hostName, 'host link name');
  assertValidIfname(podIfName, 'pod interface name');
  if (mtu !== undefined && (!Number.isInteger(mtu) || mtu < 68 || mtu > 65535)) {
    throw new NetnsError('VPPNET_ERR_INVALID_ARGUMENT', `mtu must be an integer 68..65535, got ${mtu}`);
  }
  if (options.mac !== undefined && !/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i.test(options.mac)) {
    throw new NetnsError(
      'VPPNET_ERR_INVALID_ARGUMENT',
      `mac ${JSON.stringify(options.mac)} is not a MAC address`,
    );
  }
  const netns = await resolveNetns(options.netnsPath);
  const hostMac = randomMac();
  const podMac = options.mac?.toLowerCase() ?? randomMac();

  const mtuArgs = mtu === undefined ? [] : ['mtu', String(mtu)];
  // The peer cannot be created up (the kernel answers ENOTCONN), so it is set up afterwards.
  const addArgs = [
    ...['link', 'add', hostName, 'address', hostMac, ...mtuArgs, 'up', 'type', 'veth'],
    ...['peer', 'name', podIfName, 'address', podMac, ...mtuArgs],
    ...['netns', netns.kind === 'named' ? netns.name : netns.path],
  ];
  const added = await runIp(runner, undefined, addArgs);
  if (added.exitCode !== 0) {
    // Nothing was created; find out which name is taken to report it precisely.
    if (isAlreadyExists(added.stderr)) {
      if (await linkExistsInNetns(options.netnsPath, podIfName, runner)) {
        throw new NetnsError(
          'VPPNET_ERR_POD_IFNAME_EXISTS',
          `interface ${podIfName} already exists in ${options.netnsPath}`,
        );
      }
      throw new NetnsError('VPPNET_ERR_HOST_LINK_EXISTS', `host link ${hostName} already exists`);
    }
    throw commandError(undefined, addArgs, added);
  }

  try {
    await runIpOrThrow(runner, netns, ['link', 'set', 'dev', podIfName, 'up']);
  } catch (err) {
    // Deleting the host end removes the pod end with it.
    await deleteHostLink(hostName, runner).catch(() => undefined);
    throw err;
  }
  return { hostName, hostMac, podIfName, podMac, mtu: mtu ?? VETH_DEFAULT_MTU };
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

/** A random unicast, locally administered MAC, as the kernel's eth_random_addr makes. */
function randomMac(): string {
  const bytes = randomBytes(6);
  bytes[0] = ((bytes[0] ?? 0) & 0xfe) | 0x02;
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(':');
}
