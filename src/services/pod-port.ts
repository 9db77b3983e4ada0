/**
 * A service pod's port on the bridge, as VPP resources: the interface (a VPP tap into the pod's
 * netns, or af_packet on the host end of a veth pair), up, a member of the bridge, with the two pod
 * ACLs. Used by the full desired state and by the attachment manager, which applies one pod's
 * resources on its own.
 */
import type { ServicesConfig } from '../config/model.js';
import {
  adminUpDescriptor,
  hostVethDescriptor,
  interfaceDescriptor,
  interfaceMtuDescriptor,
  type InterfaceValue,
} from '../dataplane/interface-descriptors.js';
import { keys, tags } from '../dataplane/keys.js';
import type { Resource } from '../reconcile/resource.js';
import { derivedMac } from '../dataplane/names.js';
import { aclBindingDescriptor, aclDescriptor } from '../dataplane/acl-descriptors.js';
import { bridgePortDescriptor, PORT_TYPE } from './bridge-descriptors.js';
import { bdIpMacDescriptor, l2FibEntryDescriptor } from './bridge-entry-descriptors.js';
import { macipAclDescriptor, macipBindingDescriptor } from './macip-descriptors.js';
import { staticNeighborDescriptor } from '../dataplane/neighbor-descriptors.js';
import { podAclIn, podMacip } from './pod-acls.js';
import type { ServiceRole } from './service-role.js';

export type PodPortMode = 'tap' | 'veth';

export interface PodPortSpec {
  /**
   * Derived from the CNI attachment (containerId, ifname) alone: the host end of the veth pair
   * in veth mode, and the interface tag's suffix in both modes, so a DEL without any record
   * still finds what an ADD made.
   */
  readonly id: string;
  readonly mode: PodPortMode;
  /** CNI_NETNS: a path. */
  readonly netns: string;
  /** CNI_IFNAME. */
  readonly ifname: string;
  /** MAC of the pod's interface (in tap mode VPP sets it on the host side of the tap). */
  readonly podMac: string;
  /** MTU of the pod's interface; in tap mode VPP sets it when it creates the tap. */
  readonly mtu?: number;
  /** The pod's IPv4 addresses on the bridge (no prefix length): its only sources. */
  readonly ips: readonly string[];
  /** The service it provides, from its network or its address; undefined: none of the three. */
  readonly role: ServiceRole | undefined;
}

/** The logical interface name (its tag) of a pod port. */
export function podInterfaceName(id: string): string {
  return tags.podPort(id);
}

/**
 * A service pod's TX ring (veth mode): 256 frames of 66 KiB (GSO-sized, as VPP's default frames)
 * = 17 MiB of kernel memory, where VPP's default of 1024 frames is 69 MiB per pod. 256 is VPP's
 * largest vector (VLIB_FRAME_SIZE): VPP's af_packet TX fills the ring from one vector and drops
 * what does not fit ("tx ring overrun"), and a VM's flood at its policer's allowance arrives in
 * vectors of hundreds (an af_packet VM port reads a TPACKET_V3 block at a time). With 64 frames
 * the DNS pod's port overran 793 times in 12 s of such a flood, and one of another VM's 120
 * requests was lost with them (service-plane-traffic.test.ts). af_packet_create took 27–53 ms with
 * 64 frames and 31–53 ms with 256 on the machine measured (the 10 MiB RX ring and the bind cost
 * the same in both).
 */
export const POD_AF_PACKET_TX_FRAMES = 256;

/** The kernel's MTU for a veth or tap made without one (ETH_DATA_LEN). */
export const POD_DEFAULT_MTU = 1500;

export function podPortResources(pod: PodPortSpec, services: ServicesConfig): Resource[] {
  const name = podInterfaceName(pod.id);
  const out: Resource[] = [];
  if (pod.mode === 'veth') {
    // The attachment manager creates the pair (with the pod's addresses); the reconciler only uses
    // it, so a missing pair leaves the port pending instead of re-creating a bare pod interface.
    const veth = hostVethDescriptor.resource(
      { hostName: pod.id, netns: pod.netns, ifname: pod.ifname, mac: pod.podMac },
      { external: true },
    );
    out.push(veth);
    const iface: InterfaceValue = {
      type: 'af_packet',
      name,
      hostIfName: pod.id,
      mac: derivedMac(name),
      txFrames: POD_AF_PACKET_TX_FRAMES,
    };
    out.push(interfaceDescriptor.resource(iface, { after: [veth.key] }));
  } else {
    const iface: InterfaceValue = {
      type: 'tap',
      name,
      netns: pod.netns,
      hostIfName: pod.ifname,
      mac: derivedMac(name),
      hostMac: pod.podMac,
      ...(pod.mtu !== undefined && { hostMtu: pod.mtu }),
    };
    out.push(interfaceDescriptor.resource(iface));
  }
  // VPP's side as the pod's: VPP would otherwise send the pod frames up to its own 9000.
  out.push(interfaceMtuDescriptor.resource({ iface: name, mtu: pod.mtu ?? POD_DEFAULT_MTU }));
  out.push(
    bridgePortDescriptor.resource({
      iface: name,
      bd: services.bridgeDomain,
      portType: PORT_TYPE.L2_API_PORT_TYPE_NORMAL,
      shg: 0,
    }),
  );
  out.push(adminUpDescriptor.resource({ iface: name }));
  // What the pod may send: its own ACL and MACIP ACL; what it receives: the shared output ACL.
  const aclIn = podAclIn(pod, services);
  out.push(aclDescriptor.resource(aclIn));
  const aclOut = tags.podAclOut();
  out.push(
    aclBindingDescriptor.resource(
      { iface: name, input: [aclIn.tag], output: [aclOut] },
      { after: [keys.acl(aclIn.tag), keys.acl(aclOut)] },
    ),
  );
  const macip = podMacip(pod);
  out.push(macipAclDescriptor.resource(macip));
  out.push(macipBindingDescriptor.resource({ iface: name, acl: macip.tag }));
  // The bridge learns nothing: the pod's MAC is on its port, its addresses at its MAC.
  const bd = services.bridgeDomain;
  out.push(l2FibEntryDescriptor.resource({ bd, mac: pod.podMac, iface: name }));
  // After the port, so that they count among the pod's own resources (isPodResource). The BVI
  // knows each pod's MAC without asking: ARP termination leaves VPP's own requests alone, and
  // with nothing flooded they would reach no pod (and the packet that made VPP ask is lost).
  const after = { after: [keys.interface(name)] };
  for (const ip of pod.ips) {
    out.push(bdIpMacDescriptor.resource({ bd, ip, mac: pod.podMac }, after));
    out.push(
      staticNeighborDescriptor.resource({ iface: tags.servicesBvi(), address: ip, mac: pod.podMac }, after),
    );
  }
  return out;
}

/** Whether a resource is one of this pod port's own (also those that do not name its interface). */
export function isPodResource(r: Resource, pod: { readonly id: string }): boolean {
  return (
    r.key === keys.acl(tags.podAclIn(pod.id)) ||
    r.key === keys.macipAcl(tags.podMacip(pod.id)) ||
    r.deps.includes(keys.interface(podInterfaceName(pod.id)))
  );
}
