/**
 * A veth's host end carries a VM's or a pod's frames into VPP's af_packet port and nothing of the
 * host's own: the kernel still sees every frame that arrives on it, and by default it would
 * - answer ARP there for any of the host's addresses (arp_ignore 0), and deliver an IPv4 packet
 *   for one of them (the weak host model): a pod or VM could talk to the node's own services;
 * - run IPv6 on it: a link-local address a pod could reach, and the host's MLD reports, DAD and
 *   router solicitations going into VPP as if the VM or pod had sent them (docs/dual-stack.md).
 * So: IPv6 off, no ARP answers (arp_ignore 8), and strict reverse-path filtering (rp_filter 1:
 * nothing is routed back out of a host end, so every IPv4 packet arriving on it is dropped).
 */
import { writeFile } from 'node:fs/promises';
import { NetnsError } from './errors.js';
import type { CommandRunner } from './ip-command.js';

const SETTINGS = (name: string): readonly [string, string][] => [
  [`net/ipv6/conf/${name}/disable_ipv6`, '1'],
  [`net/ipv4/conf/${name}/arp_ignore`, '8'],
  [`net/ipv4/conf/${name}/rp_filter`, '1'],
];

/** Writes one /proc/sys key (`net/ipv4/conf/x/rp_filter`) of this process's network namespace. */
export type SysctlWriter = (key: string, value: string) => Promise<void>;

/** The real one: no process to start, on the path of every pod's ADD. */
export const procSysctl: SysctlWriter = (key, value) => writeFile(`/proc/sys/${key}`, value);

/**
 * Applies the settings to host end `name`: in this process's network namespace with `sysctl`, in
 * another one (`netnsPath`, tests) through `nsenter sysctl`. A kernel without IPv6 has no
 * disable_ipv6 file, and nothing to turn off.
 */
export async function isolateHostEnd(
  name: string,
  runner: CommandRunner,
  sysctl: SysctlWriter,
  netnsPath?: string,
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
