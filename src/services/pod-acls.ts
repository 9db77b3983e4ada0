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
 */
import type { ServicesConfig } from '../config/model.js';
import { ipRule, type AclRuleValue, type AclValue } from '../dataplane/acl-descriptors.js';
import { tags } from '../dataplane/keys.js';
import type { MacipAclValue } from './macip-descriptors.js';
import type { ServiceRole } from './service-role.js';

const ANY = '0.0.0.0/0';
const UDP = 17;
const DHCP_SERVER_PORT = 67;

/** The pod port facts the ACLs follow from. */
export interface PodAclSubject {
  readonly id: string;
  readonly podMac: string;
  /** The pod's IPv4 addresses on the bridge, without prefix length. */
  readonly ips: readonly string[];
  readonly role: ServiceRole | undefined;
}

/** On every pod port's output: a VM's packet opens the session the pod answers in. */
export function podAclOut(services: ServicesConfig): AclValue {
  const vms = `${services.vmAddressRange.address}/${services.vmAddressRange.len}`;
  return { tag: tags.podAclOut(), rules: [ipRule('permit+reflect', vms, ANY), ipRule('permit', ANY, ANY)] };
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
  return { tag: tags.podAclIn(pod.id), rules };
}

/** The pod's MAC with each of its addresses. */
export function podMacip(pod: PodAclSubject): MacipAclValue {
  return {
    tag: tags.podMacip(pod.id),
    rules: pod.ips.map((ip) => ({ mac: pod.podMac, prefix: `${ip}/32` })),
  };
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
