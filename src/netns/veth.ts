/**
 * The veth pair of a pod port: the host end is later handed to VPP (af_packet), the pod end lives in
 * the pod's netns under CNI_IFNAME.
 */
import { randomBytes } from 'node:crypto';

import { NetnsError } from './errors.js';
import {
  commandError,
  systemRunner,
  isAlreadyExists,
  isNoSuchDevice,
  runIp,
  runIpBatch,
  type CommandRunner,
} from './ip-command.js';
import { assertValidIfname } from './link-names.js';
import { linkExistsInNetns, podInterfaceCommands, type PodRoute } from './pod-interface.js';
import {
  assertHostEndName,
  deleteHostEndChain,
  isolateHostEnd,
  procSysctl,
  type SysctlWriter,
} from './host-end.js';
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
  /** Host end's MAC (the owner's mark, link-owner.ts); random when absent. */
  readonly hostMac?: string;
  /** Addresses (with prefix length) for the pod end. */
  readonly addresses?: readonly string[];
  /** Routes through the pod end, added after the addresses. */
  readonly routes?: readonly PodRoute[];
  /** Where the host end goes: the agent's own network namespace unless given. */
  readonly hostNetnsPath?: string;
}

export interface CreatedVeth {
  readonly hostName: string;
  readonly hostMac: string;
  readonly podIfName: string;
  readonly podMac: string;
  readonly mtu: number;
}

/**
 * Creates the pair from inside the pod's netns, with the host end sent to the host namespace, and
 * configures the pod end, in one `ip` run:
 *
 *   link add HOST address M up netns /proc/AGENT/ns/net type veth peer name POD address M
 *   link set dev POD up
 *   addr add ... / route add ...
 *
 * The host end is then cut off from the host's own stack (host-end.ts: sysctls, and one `nft` run
 * that drops everything it receives before the host's stack sees it). One rtnetlink request
 * creates both ends or neither, under their final names (no temporary name
 * can collide on the host, the pod end never shows up there), and the host end is created up. MACs
 * are chosen here (random, locally administered, as the kernel would) so nothing is read back:
 * every `ip` run costs a fork/exec and a namespace switch, and the agent attaches pods in bursts
 * when a node starts.
 *
 * Throws NetnsError: VPPNET_ERR_POD_IFNAME_EXISTS when podIfName is taken in the netns,
 * VPPNET_ERR_HOST_LINK_EXISTS when hostName is taken on the host, VPPNET_ERR_NETNS_NOT_FOUND,
 * VPPNET_ERR_NFT_COMMAND when the host end's ingress cannot be dropped, ... On a failure after
 * creation the pair is deleted again.
 */
export async function createVethIntoNetns(
  options: CreateVethOptions,
  runner: CommandRunner = systemRunner,
  sysctl: SysctlWriter = procSysctl,
): Promise<CreatedVeth> {
  const { hostName, podIfName, mtu } = options;
  assertValidIfname(hostName, 'host link name');
  assertHostEndName(hostName);
  assertValidIfname(podIfName, 'pod interface name');
  if (mtu !== undefined && (!Number.isInteger(mtu) || mtu < 68 || mtu > 65535)) {
    throw new NetnsError('VPPNET_ERR_INVALID_ARGUMENT', `mtu must be an integer 68..65535, got ${mtu}`);
  }
  for (const mac of [options.mac, options.hostMac]) {
    if (mac !== undefined && !/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i.test(mac)) {
      throw new NetnsError('VPPNET_ERR_INVALID_ARGUMENT', `mac ${JSON.stringify(mac)} is not a MAC address`);
    }
  }
  const configure = podInterfaceCommands(podIfName, options.addresses ?? [], options.routes ?? []);
  const netns = await resolveNetns(options.netnsPath);
  const hostMac = options.hostMac?.toLowerCase() ?? randomMac();
  const podMac = options.mac?.toLowerCase() ?? randomMac();

  const mtuArgs = mtu === undefined ? [] : ['mtu', String(mtu)];
  const hostNetns = options.hostNetnsPath ?? `/proc/${process.pid}/ns/net`;
  const add = [
    ...['link', 'add', hostName, 'address', hostMac, ...mtuArgs, 'up', 'netns', hostNetns],
    ...['type', 'veth', 'peer', 'name', podIfName, 'address', podMac, ...mtuArgs],
  ];
  const commands = [add, ...configure];
  const result = await runIpBatch(runner, netns, commands);
  if (result.exitCode !== 0) {
    const failed = result.failed ?? 0;
    if (failed === 0) {
      // Nothing was created; find out which name is taken to report it precisely.
      if (isAlreadyExists(result.stderr)) {
        if (await linkExistsInNetns(options.netnsPath, podIfName, runner)) {
          throw new NetnsError(
            'VPPNET_ERR_POD_IFNAME_EXISTS',
            `interface ${podIfName} already exists in ${options.netnsPath}`,
          );
        }
        throw new NetnsError('VPPNET_ERR_HOST_LINK_EXISTS', `host link ${hostName} already exists`);
      }
      throw commandError(netns, add, result);
    }
    // Deleting one end removes the other, and the pod end's addresses and routes, with it.
    await runIp(runner, netns, ['link', 'del', 'dev', podIfName]).catch(() => undefined);
    throw commandError(netns, commands[failed] ?? add, result);
  }
  try {
    await isolateHostEnd(hostName, runner, sysctl, options.hostNetnsPath);
  } catch (err) {
    // A host end the pod could reach the host through is none: the pair goes.
    await runIp(runner, netns, ['link', 'del', 'dev', podIfName]).catch(() => undefined);
    throw err;
  }
  return { hostName, hostMac, podIfName, podMac, mtu: mtu ?? VETH_DEFAULT_MTU };
}

/**
 * Deletes a host link (for a veth, both ends), then its ingress chain (host-end.ts): in that order,
 * so the host end never lives without it, and the chain also when the link was gone already (a
 * pod's namespace that went takes its pair along, not the chain on kernels since 6.16). False when
 * the link was already gone: DEL must be repeatable. `hostNetnsPath`: where the host end lives
 * when not in the agent's namespace (tests, as createVethIntoNetns's).
 */
export async function deleteHostLink(
  name: string,
  runner: CommandRunner = systemRunner,
  hostNetnsPath?: string,
): Promise<boolean> {
  assertValidIfname(name, 'host link name');
  const args = ['link', 'del', 'dev', name];
  const netns = hostNetnsPath === undefined ? undefined : await resolveNetns(hostNetnsPath);
  const result = await runIp(runner, netns, args);
  if (result.exitCode !== 0 && !isNoSuchDevice(result.stderr)) throw commandError(netns, args, result);
  await deleteHostEndChain(name, runner, hostNetnsPath);
  return result.exitCode === 0;
}

/** A random unicast, locally administered MAC, as the kernel's eth_random_addr makes. */
function randomMac(): string {
  const bytes = randomBytes(6);
  bytes[0] = ((bytes[0] ?? 0) & 0xfe) | 0x02;
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(':');
}
