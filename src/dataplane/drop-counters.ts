/**
 * What VPP dropped at the tenant edge, from its own error counters: VPP has no API message that
 * reads them (they live in the stats segment, which needs the stats socket and shared memory), so
 * they are read with `show errors` over cli_inband. Non-verbose, VPP prints one line per node and
 * reason with a non-zero count, once per thread (vlib/error.c show_errors, "%10lu%=35v%=35s%=10s":
 * count, node, reason, severity); a node appears once per thread that counted, so counts are
 * summed per node and reason.
 *
 * - Spoofed sources: the uRPF strict nodes' "uRPF Drop" (urpf_dp.h), per family: vppnet's strict
 *   checks are on VM ports.
 * - SRv6 from outside the fleet: the IPv6 loose uRPF node's "uRPF Drop": vppnet's one loose check
 *   is the uplink's. uRPF that someone else sets on other interfaces counts here too.
 * - A pod sending as someone else: the MACIP classifier's drops on l2-input-acl (frames, ARP
 *   included, whose source MAC and address are not the pod's own); vppnet's MACIP ACLs are on pod
 *   ports only.
 * - A VM over its share of the services, per family: ip4-policer-classify's drops (on the VM
 *   ports) and, for IPv6, l2-policer-classify's (on the service BVI's frames into the bridge).
 *   vppnet's only policer classification is the VMs' rate limit to the services
 *   (services/vm-rate-limit.ts; one policer per VM for both families).
 * - A pod sending what its role does not need: the acl plugin's L2 input nodes' denies, per family
 *   (vppnet's only L2 ACLs are the pods' input ACLs). The acl plugin runs before the MACIP
 *   classifier, so a pod's packet from a foreign address is counted here; its ARP, there.
 */
import type { VppApi } from '../vpp/client/vpp-api.js';

export const SHOW_ERRORS_COMMAND = 'show errors';

/** The counters vppnet reports, as [node, reason] in VPP 26.06's words. */
export const DROP_COUNTERS = {
  spoofedSource4: ['ip4-rx-urpf-strict', 'uRPF Drop'],
  spoofedSource6: ['ip6-rx-urpf-strict', 'uRPF Drop'],
  srv6Ingress: ['ip6-rx-urpf-loose', 'uRPF Drop'],
  podSpoofed: ['l2-input-acl', 'input ACL table-miss drops'],
  podNotAllowed4: ['acl-plugin-in-ip4-l2', 'ACL deny packets'],
  podNotAllowed6: ['acl-plugin-in-ip6-l2', 'ACL deny packets'],
  vmServiceRate4: ['ip4-policer-classify', 'Policer classify action drop'],
  vmServiceRate6: ['l2-policer-classify', 'Policer classify action drop'],
} as const satisfies Record<string, readonly [string, string]>;

export type DropCounts = Readonly<Record<keyof typeof DROP_COUNTERS, number>>;

/**
 * Counts per "node\treason" in `show errors`'s answer, summed over threads. A line that is not
 * "count node reason… severity" (the header, a thread heading) is skipped.
 */
export function parseShowErrors(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const words = line.trim().split(/\s+/);
    if (words.length < 4 || !/^\d+$/.test(words[0] as string)) continue;
    const key = `${words[1]}\t${words.slice(2, -1).join(' ')}`;
    out.set(key, (out.get(key) ?? 0) + Number(words[0]));
  }
  return out;
}

/** The tenant edge's drop counters of this VPP process (zero for a counter VPP does not show). */
export async function readDropCounts(client: VppApi): Promise<DropCounts> {
  const counts = parseShowErrors(await client.cli(SHOW_ERRORS_COMMAND));
  const count = ([node, reason]: readonly [string, string]): number => counts.get(`${node}\t${reason}`) ?? 0;
  return {
    spoofedSource4: count(DROP_COUNTERS.spoofedSource4),
    spoofedSource6: count(DROP_COUNTERS.spoofedSource6),
    srv6Ingress: count(DROP_COUNTERS.srv6Ingress),
    podSpoofed: count(DROP_COUNTERS.podSpoofed),
    podNotAllowed4: count(DROP_COUNTERS.podNotAllowed4),
    podNotAllowed6: count(DROP_COUNTERS.podNotAllowed6),
    vmServiceRate4: count(DROP_COUNTERS.vmServiceRate4),
    vmServiceRate6: count(DROP_COUNTERS.vmServiceRate6),
  };
}
