/**
 * The pod's interface as seen from inside its netns: addresses and routes from IPAM, and reading it
 * back for CHECK.
 */
import { isIP } from 'node:net';

import { NetnsError } from './errors.js';
import {
  commandError,
  systemRunner,
  isNoSuchDevice,
  runIp,
  runIpBatch,
  runIpOrThrow,
  type CommandRunner,
} from './ip-command.js';
import { assertValidIfname } from './link-names.js';
import { resolveNetns } from './resolve-netns.js';

export interface PodRoute {
  /** Prefix, e.g. '169.252.252.0/24'. */
  readonly dst: string;
  /** Next hop; on-link route when absent. */
  readonly gw?: string;
}

export interface PodInterfaceConfig {
  readonly netnsPath: string;
  readonly ifname: string;
  /** Address with prefix length, e.g. '169.254.169.103/24'. */
  readonly addresses: readonly string[];
  readonly routes: readonly PodRoute[];
}

export interface PodInterfaceState {
  readonly name: string;
  readonly mac: string;
  readonly mtu: number;
  /** Administratively up. */
  readonly up: boolean;
  /** Every address on the link with its prefix length, as `ip addr` lists them. */
  readonly addresses: readonly string[];
}

/**
 * Sets the link up, adds the addresses, then the routes (a route via a gateway needs the address
 * that makes the gateway reachable), all in one `ip` run. The link is expected to be new: an address
 * or route already there is an error (EEXIST), as in the reference plugins, rather than something
 * silently shared with whoever put it there. On failure the entries this call added are removed
 * again before the error is thrown.
 */
export async function configurePodInterface(
  config: PodInterfaceConfig,
  runner: CommandRunner = systemRunner,
): Promise<void> {
  const commands = podInterfaceCommands(config.ifname, config.addresses, config.routes);
  const netns = await resolveNetns(config.netnsPath);
  const result = await runIpBatch(runner, netns, commands);
  if (result.exitCode === 0) return;
  const failed = result.failed ?? 0;
  const added = commands.slice(1, failed).map(undoCommand).reverse();
  if (added.length > 0) await runIpBatch(runner, netns, added).catch(() => undefined);
  throw commandError(netns, commands[failed] ?? ['-batch', '-'], result);
}

/**
 * The commands that bring a pod interface up with its addresses and routes; validates them first,
 * so nothing runs for a malformed request.
 */
export function podInterfaceCommands(
  ifname: string,
  addresses: readonly string[],
  routes: readonly PodRoute[],
): string[][] {
  assertValidIfname(ifname, 'pod interface name');
  for (const address of addresses) assertCidr(address, 'address');
  for (const route of routes) {
    assertCidr(route.dst, 'route destination');
    if (route.gw !== undefined && isIP(route.gw) === 0) {
      throw new NetnsError(
        'VPPNET_ERR_INVALID_ARGUMENT',
        `route gateway ${JSON.stringify(route.gw)} is not an IP address`,
      );
    }
  }
  return [
    ['link', 'set', 'dev', ifname, 'up'],
    // No duplicate address detection for IPv6: the agent holds each address of the bridge for one
    // pod (address-claims.ts), and the pod's ACL drops DAD's probes, so DAD would only keep the
    // address tentative, unusable, for a second after the pod starts.
    ...addresses.map((address) => [
      'addr',
      'add',
      address,
      'dev',
      ifname,
      ...(isIP(address.slice(0, address.indexOf('/'))) === 6 ? ['nodad'] : []),
    ]),
    ...routes.map((r) => [
      'route',
      'add',
      r.dst,
      ...(r.gw === undefined ? [] : ['via', r.gw]),
      'dev',
      ifname,
    ]),
  ];
}

/** `addr add ...` → `addr del ...`, `route add ...` → `route del ...`. */
function undoCommand(command: readonly string[]): string[] {
  const [object, , ...rest] = command;
  return [object ?? '', 'del', ...rest];
}

/** False when the link is absent; throws when the netns itself cannot be entered. */
export async function linkExistsInNetns(
  netnsPath: string,
  ifname: string,
  runner: CommandRunner = systemRunner,
): Promise<boolean> {
  assertValidIfname(ifname, 'interface name');
  const netns = await resolveNetns(netnsPath);
  const args = ['-j', 'link', 'show', 'dev', ifname];
  const result = await runIp(runner, netns, args);
  if (result.exitCode === 0) return true;
  if (isNoSuchDevice(result.stderr)) return false;
  throw commandError(netns, args, result);
}

/** MAC, MTU, state and addresses of a link in the netns (for CHECK). Throws VPPNET_ERR_LINK_NOT_FOUND. */
export async function readPodInterface(
  netnsPath: string,
  ifname: string,
  runner: CommandRunner = systemRunner,
): Promise<PodInterfaceState> {
  assertValidIfname(ifname, 'interface name');
  const netns = await resolveNetns(netnsPath);
  const args = ['-j', 'addr', 'show', 'dev', ifname];
  const result = await runIpOrThrow(runner, netns, args);
  const link = parseIpJson(result.stdout, args)[0];
  if (link === undefined)
    throw new NetnsError('VPPNET_ERR_LINK_NOT_FOUND', `no link ${ifname} in ${netnsPath}`);
  const addrInfo = Array.isArray(link['addr_info']) ? (link['addr_info'] as unknown[]) : [];
  const addresses = addrInfo.flatMap((entry) => {
    if (typeof entry !== 'object' || entry === null) return [];
    const { local, prefixlen } = entry as Record<string, unknown>;
    return typeof local === 'string' && typeof prefixlen === 'number' ? [`${local}/${prefixlen}`] : [];
  });
  return { ...linkBasics(link, ifname), addresses };
}

function linkBasics(link: Record<string, unknown>, name: string): Omit<PodInterfaceState, 'addresses'> {
  const flags = Array.isArray(link['flags']) ? (link['flags'] as unknown[]) : [];
  return {
    name: typeof link['ifname'] === 'string' ? link['ifname'] : name,
    mac: typeof link['address'] === 'string' ? link['address'] : '',
    mtu: typeof link['mtu'] === 'number' ? link['mtu'] : 0,
    up: flags.includes('UP'),
  };
}

function parseIpJson(stdout: string, args: readonly string[]): Record<string, unknown>[] {
  let decoded: unknown;
  try {
    decoded = JSON.parse(stdout);
  } catch {
    throw new NetnsError(
      'VPPNET_ERR_IP_COMMAND',
      `ip ${args.join(' ')} printed no JSON: ${stdout.slice(0, 200)}`,
    );
  }
  if (!Array.isArray(decoded)) {
    throw new NetnsError('VPPNET_ERR_IP_COMMAND', `ip ${args.join(' ')} printed JSON that is not a list`);
  }
  return decoded.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null);
}

function assertCidr(value: string, what: string): void {
  const [address, prefix, extra] = value.split('/');
  const family = isIP(address ?? '');
  const ok =
    extra === undefined &&
    prefix !== undefined &&
    /^\d{1,3}$/.test(prefix) &&
    family !== 0 &&
    Number(prefix) <= (family === 4 ? 32 : 128);
  if (!ok)
    throw new NetnsError(
      'VPPNET_ERR_INVALID_ARGUMENT',
      `${what} ${JSON.stringify(value)} is not address/prefix`,
    );
}
