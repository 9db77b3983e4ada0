/**
 * What a service pod may send and receive on the bridge, as ACLs:
 * - out (shared by every pod port, on its output: what a pod receives): anything; a packet from a
 *   VM opens a reflexive session, so the pod's answers pass its input ACL;
 * - in (one per pod port, on its input: what that pod sends): nothing new towards VMs, and beyond
 *   answers in those sessions only what its role needs: the DHCP pod's replies to the relay
 *   (UDP 67 → the gateway's 67). No pod reaches another pod or the gateway otherwise, and no pod
 *   sends from an address it does not hold (with the MACIP ACL, not even ARP);
 * - MACIP (one per pod port): its MAC with its own addresses, the only sources it may use.
 * Sessions are looked up before rules (acl plugin), so answers to VMs pass the input ACL's denies.
 *
 * IPv6 (services.ip6) follows the same rules, and more is at stake: the BVI's IPv6 side is in
 * table 0 with the underlay (nat66 needs it there), and nat66 passes a source it has no mapping
 * for untranslated. So a pod receives over IPv6 only what comes from the VMs' IPv6 service
 * addresses (and neighbour discovery), and sends nothing new at all, neither to VMs nor into
 * table 0 (the underlay, this node's SIDs). Without services.ip6 a pod gets no IPv6 rule, and the
 * acl plugin denies what no rule permits.
 */
import { isIP } from 'node:net';
import type { ServicesConfig } from '../config/model.js';
import { ipRule, type AclRuleValue, type AclValue } from '../dataplane/acl-descriptors.js';
import { tags } from '../dataplane/keys.js';
import type { MacipAclValue } from './macip-descriptors.js';
import type { ServiceRole } from './service-role.js';

const ANY = '0.0.0.0/0';
const ANY6 = '::/0';
const UDP = 17;
const ICMP6 = 58;
/** Neighbour solicitation and advertisement: a pod resolves the gateway, the bridge answers. */
const ND_TYPES: readonly [number, number] = [135, 136];
const LINK_LOCAL6 = 'fe80::/10';
/** Link-scope multicast: the solicited-node groups a neighbour solicitation goes to. */
const LINK_MULTICAST6 = 'ff02::/16';
const DHCP_SERVER_PORT = 67;

/** The pod port facts the ACLs follow from. */
export interface PodAclSubject {
  readonly id: string;
  readonly podMac: string;
  /** The pod's addresses on the bridge (IPv4, and IPv6 with services.ip6), without prefix length. */
  readonly ips: readonly string[];
  readonly role: ServiceRole | undefined;
}

/** On every pod port's output: a VM's packet opens the session the pod answers in. */
export function podAclOut(services: ServicesConfig): AclValue {
  const vms = `${services.vmAddressRange.address}/${services.vmAddressRange.len}`;
  const rules = [ipRule('permit+reflect', vms, ANY), ipRule('permit', ANY, ANY)];
  if (services.ip6) {
    const vms6 = `${services.ip6.vmAddressRange.address}/${services.ip6.vmAddressRange.len}`;
    const gateway6 = `${services.ip6.gateway.address}/128`;
    rules.push(
      ipRule('permit+reflect', vms6, ANY6),
      ndRule(gateway6, ANY6),
      ndRule(LINK_LOCAL6, ANY6),
      ipRule('deny', ANY6, ANY6),
    );
  }
  return { tag: tags.podAclOut(), rules };
}

/** On one pod port's input; every packet no rule permits is denied. */
export function podAclIn(pod: PodAclSubject, services: ServicesConfig): AclValue {
  const vms = `${services.vmAddressRange.address}/${services.vmAddressRange.len}`;
  const gateway = `${services.gateway.address}/32`;
  const rules: AclRuleValue[] = [ipRule('deny', ANY, vms)];
  if (pod.role === 'dhcp')
    for (const ip of pod.ips)
      rules.push(udpRule('permit', `${ip}/32`, gateway, DHCP_SERVER_PORT, DHCP_SERVER_PORT));
  rules.push(ipRule('deny', ANY, ANY));
  if (services.ip6) {
    const vms6 = `${services.ip6.vmAddressRange.address}/${services.ip6.vmAddressRange.len}`;
    const gateway6 = `${services.ip6.gateway.address}/128`;
    rules.push(
      ipRule('deny', ANY6, vms6),
      ndRule(ANY6, gateway6),
      ndRule(ANY6, LINK_MULTICAST6),
      ndRule(ANY6, LINK_LOCAL6),
      ipRule('deny', ANY6, ANY6),
    );
  }
  return { tag: tags.podAclIn(pod.id), rules };
}

/**
 * The pod's MAC with each of its addresses, and with IPv6 link-local sources once it has an IPv6
 * address (the kernel's own neighbour discovery may use them; they reach no further than the BVI).
 */
export function podMacip(pod: PodAclSubject): MacipAclValue {
  const rules = pod.ips.map((ip) => ({ mac: pod.podMac, prefix: isIP(ip) === 6 ? `${ip}/128` : `${ip}/32` }));
  if (pod.ips.some((ip) => isIP(ip) === 6)) rules.push({ mac: pod.podMac, prefix: LINK_LOCAL6 });
  return { tag: tags.podMacip(pod.id), rules };
}

/** IPv6 neighbour discovery (solicitations and advertisements) between these prefixes. */
function ndRule(src: string, dst: string): AclRuleValue {
  return { ...ipRule('permit', src, dst), proto: ICMP6, srcPorts: ND_TYPES, dstPorts: [0, 255] };
}

function udpRule(
  action: 'permit' | 'deny',
  src: string,
  dst: string,
  srcPort: number,
  dstPort: number,
): AclRuleValue {
  return {
    ...ipRule(action, src, dst),
    proto: UDP,
    srcPorts: [srcPort, srcPort],
    dstPorts: [dstPort, dstPort],
  };
}
