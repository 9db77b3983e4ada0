/**
 * A veth's host end carries a VM's or a pod's frames into VPP's af_packet port and nothing of the
 * host's own: the kernel still sees every frame that arrives on it, and by default it would
 * - answer ARP there for any of the host's addresses (arp_ignore 0), and deliver an IPv4 packet
 *   for one of them (the weak host model): a pod or VM could talk to the node's own services;
 * - run IPv6 on it: a link-local address a pod could reach, and the host's MLD reports, DAD and
 *   router solicitations going into VPP as if the VM or pod had sent them (docs/dual-stack.md).
 * So: IPv6 off, no ARP answers (arp_ignore 8), and strict reverse-path filtering (rp_filter 1:
 * nothing is routed back out of a host end, so every IPv4 packet arriving on it is dropped).
 *
 * The sysctls leave one way in: an IPv4 broadcast from 0.0.0.0 (a DHCP client's DISCOVER, or
 * UDP to any port) reaches a socket bound to 0.0.0.0 on the host, since the kernel takes a
 * broadcast in without the reverse-path check for a zero source (ip_route_input_slow, brd_input).
 * So the host's stack gets nothing at all from a host end: an nftables chain on its ingress hook
 * drops every frame. VPP still reads them all: its af_packet socket listens for every protocol
 * (ETH_P_ALL), and the kernel hands a frame to those taps before the ingress hook runs
 * (__netif_receive_skb_core: ptype_all, then tc and netfilter ingress). Egress is not hooked, so
 * what VPP sends out of the host end reaches the VM or pod as before.
 */
import { writeFile } from 'node:fs/promises';
import { NetnsError } from './errors.js';
import { runIpOrThrow, systemRunner, type CommandRunner } from './ip-command.js';
import { resolveNetns } from './resolve-netns.js';

const SETTINGS = (name: string): readonly [string, string][] => [
  [`net/ipv6/conf/${name}/disable_ipv6`, '1'],
  [`net/ipv4/conf/${name}/arp_ignore`, '8'],
  [`net/ipv4/conf/${name}/rp_filter`, '1'],
];

/**
 * vppnet's nftables table (family netdev: its base chains hook one device's ingress), shared by
 * every agent on the host: each one adds and deletes only the chains of its own host ends, and
 * nobody deletes the table (an empty one costs nothing; deleting it could race another agent).
 */
export const HOST_END_TABLE = 'vppnet';

/**
 * The chain that drops what host end `name` receives. Prefixed because nft (1.0.6) takes a chain
 * name unquoted only: a device name on its own could be one of nft's keywords (`drop`) or start
 * with a digit, and would not parse.
 */
export function hostEndChain(name: string): string {
  return `ingress_${name}`;
}

/**
 * What an unquoted chain name and a quoted device name in an nft script may hold: every host end
 * vppnet names (`vpn…`, `vpv…`) fits; anything else is refused before a link is created.
 */
const SCRIPT_SAFE_NAME = /^[A-Za-z0-9_.-]+$/;

/** Throws VPPNET_ERR_INVALID_ARGUMENT for a host end name nft could not be given safely. */
export function assertHostEndName(name: string): void {
  if (!SCRIPT_SAFE_NAME.test(name))
    throw new NetnsError(
      'VPPNET_ERR_INVALID_ARGUMENT',
      `host end name ${JSON.stringify(name)} must be letters, digits, _ . and - only (it names an nftables chain)`,
    );
}

/**
 * One nft transaction (all of it or nothing) giving each host end its chain: a base chain on the
 * device's ingress whose policy drops everything, and no rules. Each command is idempotent, so the
 * same script repairs a chain someone changed (`add chain` sets the policy again, `flush` removes
 * rules added to it) and leaves a correct one as it is. Priority -500 runs it before other
 * ingress chains an operator may have (a drop in any chain drops the frame, so it only saves
 * them the work).
 */
function ingressDropScript(names: readonly string[]): string {
  const lines = [`add table netdev ${HOST_END_TABLE}`];
  for (const name of names) {
    assertHostEndName(name);
    const chain = `netdev ${HOST_END_TABLE} ${hostEndChain(name)}`;
    lines.push(
      `add chain ${chain} { type filter hook ingress device "${name}" priority -500; policy drop; }`,
      `flush chain ${chain}`,
    );
  }
  return lines.map((line) => `${line}\n`).join('');
}

/** `nft ARGS` in this process's network namespace, or in `netnsPath` through nsenter (tests). */
async function runNft(
  runner: CommandRunner,
  netnsPath: string | undefined,
  args: readonly string[],
  input?: string,
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const [file, fileArgs] =
    netnsPath === undefined ? ['nft', args] : ['nsenter', [`--net=${netnsPath}`, '--', 'nft', ...args]];
  try {
    return await runner(file, fileArgs, input);
  } catch (err) {
    const message = (err as Error).message;
    const hint = /ENOENT/.test(message) ? ' (nft comes with the nftables package)' : '';
    throw new NetnsError('VPPNET_ERR_NFT_COMMAND', `${message}${hint}`, { cause: err });
  }
}

/**
 * Makes the host stack drop everything host ends `names` receive (ingressDropScript), in one nft
 * run. Throws VPPNET_ERR_NFT_COMMAND with nft's own words when it cannot: nft missing, a kernel
 * without netdev tables (CONFIG_NF_TABLES_NETDEV, CONFIG_NETFILTER_INGRESS), a device that is
 * gone (kernels before 6.16 refuse a chain for a missing device).
 */
export async function dropHostEndIngress(
  names: readonly string[],
  runner: CommandRunner,
  netnsPath?: string,
): Promise<void> {
  if (names.length === 0) return;
  const result = await runNft(runner, netnsPath, ['-f', '-'], ingressDropScript(names));
  if (result.exitCode !== 0) {
    const where = netnsPath === undefined ? '' : ` in ${netnsPath}`;
    throw new NetnsError(
      'VPPNET_ERR_NFT_COMMAND',
      `cannot drop the ingress of ${names.join(', ')}${where}: nft exited ${result.exitCode}: ${result.stderr.trim()}`,
    );
  }
}

/**
 * The ingress drop again for host ends made earlier, in one nft run, idempotently: the reconcile
 * pass gives it every host end of its own it lists. For host ends an agent made before it
 * dropped their ingress (an upgrade: recreating them would cut every VM and pod off for a
 * moment), and for a chain that went behind vppnet's back (a firewall's reload that runs `nft
 * flush ruleset`). The same script on every pass rather than reading the table back first
 * (`nft -j list table`, ~5 ms against ~15-25 ms here, 1 to 100 host ends, the kernel's commit
 * waiting): the read would be a process too, and a second one whenever something is missing, and
 * would depend on nft's JSON, which differs between versions; full passes are far apart (file
 * mode's drift check: once a minute).
 * A host end deleted after it was listed (a pod's DEL does not wait for the pass) fails the run
 * on kernels before 6.16, which refuse a chain for a missing device: then once more with those
 * still there. Later kernels make a chain for it that hooks nothing, until a host end of that
 * name comes back and needs it; the chains of host ends that are gone are then deleted
 * (deleteOrphanChains).
 */
export async function keepHostEndsIsolated(
  names: readonly string[],
  runner: CommandRunner = systemRunner,
  netnsPath?: string,
): Promise<void> {
  try {
    await dropHostEndIngress(names, runner, netnsPath);
  } catch (err) {
    const links = await linkNames(runner, netnsPath);
    const present = names.filter((n) => links.has(n));
    if (present.length === names.length) throw err;
    await dropHostEndIngress(present, runner, netnsPath);
  }
  await deleteOrphanChains(runner, netnsPath);
}

/**
 * Deletes the chains whose host end is gone, and returns their host ends' names. A VM's or pod's
 * namespace deleted before vppnet removed its port takes the veth with it, and no delete of
 * vppnet's runs for a link it no longer lists: kernels since 6.16 keep such a chain, hooked to
 * nothing, one more for every VM that went so. Any agent's chain is vppnet's to delete once its
 * device is gone (the table is shared; a host end made again gets its chain with its link).
 * Links are read after the chains: a host end made in between has its link before its chain.
 */
export async function deleteOrphanChains(runner: CommandRunner, netnsPath?: string): Promise<string[]> {
  const listed = await runNft(runner, netnsPath, ['-j', 'list', 'table', 'netdev', HOST_END_TABLE]);
  // No table: no chains (nft's wording for ENOENT, as deleteHostEndChain reads it).
  if (listed.exitCode !== 0) {
    if (/No such file or directory/.test(listed.stderr)) return [];
    throw new NetnsError(
      'VPPNET_ERR_NFT_COMMAND',
      `cannot list the host ends' ingress chains: nft exited ${listed.exitCode}: ${listed.stderr.trim()}`,
    );
  }
  const hostEnds = chainNames(listed.stdout)
    .filter((c) => c.startsWith(hostEndChain('')))
    .map((c) => c.slice(hostEndChain('').length));
  if (hostEnds.length === 0) return [];
  const links = await linkNames(runner, netnsPath);
  const gone = hostEnds.filter((name) => !links.has(name));
  for (const name of gone) await deleteHostEndChain(name, runner, netnsPath);
  return gone;
}

/** The chain names of `nft -j list table` output (libnftables' JSON: {"nftables": [{"chain": …}]}). */
function chainNames(json: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new NetnsError(
      'VPPNET_ERR_NFT_COMMAND',
      `nft listed the ingress chains as no JSON: ${json.slice(0, 200)}`,
    );
  }
  const items = (parsed as { nftables?: unknown }).nftables;
  if (!Array.isArray(items)) return [];
  const out: string[] = [];
  for (const item of items) {
    const name = (item as { chain?: { name?: unknown } }).chain?.name;
    if (typeof name === 'string') out.push(name);
  }
  return out;
}

/** The names of the links in this process's network namespace, or in `netnsPath`. */
async function linkNames(runner: CommandRunner, netnsPath: string | undefined): Promise<Set<string>> {
  const netns = netnsPath === undefined ? undefined : await resolveNetns(netnsPath);
  const result = await runIpOrThrow(runner, netns, ['-o', 'link', 'show']);
  const names = new Set<string>();
  // "7: vpv1234@if6: <BROADCAST,…": the name up to '@' (a veth's peer) or ':'.
  for (const line of result.stdout.split('\n')) {
    const m = /^\d+:\s+([^:@\s]+)[@:]/.exec(line);
    if (m?.[1] !== undefined) names.add(m[1]);
  }
  return names;
}

/**
 * Deletes host end `name`'s chain, once its link is gone. Already gone is fine: kernels before
 * 6.16 delete a netdev chain with its only device; later ones keep it, hooked to nothing, until
 * it is deleted (or a device of that name comes back).
 */
export async function deleteHostEndChain(
  name: string,
  runner: CommandRunner,
  netnsPath?: string,
): Promise<void> {
  // createVethIntoNetns refuses such a name: no chain was made for it.
  if (!SCRIPT_SAFE_NAME.test(name)) return;
  const result = await runNft(runner, netnsPath, [
    'delete',
    'chain',
    'netdev',
    HOST_END_TABLE,
    hostEndChain(name),
  ]);
  // nft's wording for ENOENT (the chain or the whole table); nsenter's for a missing nft differs.
  if (result.exitCode === 0 || /Could not process rule: No such file or directory/.test(result.stderr))
    return;
  throw new NetnsError(
    'VPPNET_ERR_NFT_COMMAND',
    `cannot delete the ingress chain of ${name}: nft exited ${result.exitCode}: ${result.stderr.trim()}`,
  );
}

/** Writes one /proc/sys key (`net/ipv4/conf/x/rp_filter`) of this process's network namespace. */
export type SysctlWriter = (key: string, value: string) => Promise<void>;

/** The real one: no process to start, on the path of every pod's ADD. */
export const procSysctl: SysctlWriter = (key, value) => writeFile(`/proc/sys/${key}`, value);

/**
 * Cuts host end `name` off: the settings in this process's network namespace with `sysctl`, in
 * another one (`netnsPath`, tests) through `nsenter sysctl`, then its ingress drop (one nft run,
 * the only process this starts in the agent's namespace). A kernel without IPv6 has no
 * disable_ipv6 file, and nothing to turn off.
 */
export async function isolateHostEnd(
  name: string,
  runner: CommandRunner,
  sysctl: SysctlWriter,
  netnsPath?: string,
): Promise<void> {
  await applySettings(name, runner, sysctl, netnsPath);
  await dropHostEndIngress([name], runner, netnsPath);
}

async function applySettings(
  name: string,
  runner: CommandRunner,
  sysctl: SysctlWriter,
  netnsPath: string | undefined,
): Promise<void> {
  if (netnsPath === undefined) {
    for (const [key, value] of SETTINGS(name)) {
      try {
        await sysctl(key, value);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT' && key.startsWith('net/ipv6/')) continue;
        throw new NetnsError(
          'VPPNET_ERR_IP_COMMAND',
          `cannot set ${key} to ${value}: ${(err as Error).message}`,
        );
      }
    }
    return;
  }
  const args = SETTINGS(name).map(([key, value]) => `${key.replaceAll('/', '.')}=${value}`);
  const result = await runner('nsenter', [`--net=${netnsPath}`, '--', 'sysctl', '-q', '-w', ...args]);
  if (result.exitCode !== 0)
    throw new NetnsError(
      'VPPNET_ERR_IP_COMMAND',
      `cannot isolate ${name} in ${netnsPath}: ${result.stderr.trim()}`,
    );
}
