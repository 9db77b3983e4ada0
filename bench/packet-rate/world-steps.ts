/**
 * CLI steps outside both configurations of the packet-rate benchmark: the world around them (the
 * neighbours' static ARP/ND entries, the pod's MAC in the bridge) and the plain IPv4 baseline.
 */
import {
  BASELINE,
  HAND,
  SERVICES6,
  VM,
  VPPNET,
  type Peers,
  type PortSet,
  type Topology,
} from './topology.js';

/** Plain IPv4 forwarding in table 0 between two interfaces. */
export function baselineSteps(b: Topology['baseline']): string[] {
  return [
    `set interface state ${b.in} up`,
    `set interface state ${b.out} up`,
    `set interface ip address ${b.in} ${BASELINE.inAddress}`,
    `set interface ip address ${b.out} ${BASELINE.outAddress}`,
    `ip route add ${BASELINE.route} via ${BASELINE.nextHop} ${b.out}`,
  ];
}

/**
 * The neighbours' side, for one configuration: static ARP/ND entries for the VMs and the underlay
 * gateway, the metadata pod's address behind the BVI and its MAC in the bridge.
 */
export function worldSteps(side: 'vppnet' | 'hand', ports: PortSet, bvi: string, peers: Peers): string[] {
  const gw = side === 'vppnet' ? VPPNET.underlayGateway : HAND.underlayGateway;
  const bd = side === 'vppnet' ? VPPNET.bridgeDomain : HAND.bridgeDomain;
  const pod = peers.macBehind(ports.pod);
  return [
    `set ip neighbor ${ports.vm1} ${VM.vm1} ${peers.macBehind(ports.vm1)} static`,
    `set ip neighbor ${ports.vm2} ${VM.vm2} ${peers.macBehind(ports.vm2)} static`,
    `set ip neighbor ${ports.underlay} ${gw} ${peers.macBehind(ports.underlay)} static`,
    `set ip neighbor ${bvi} ${VM.metadata} ${pod} static`,
    `l2fib add ${pod} ${bd} ${ports.pod} static`,
  ];
}

export function baselineWorldSteps(b: Topology['baseline'], peers: Peers): string[] {
  return [`set ip neighbor ${b.out} ${BASELINE.nextHop} ${peers.macBehind(b.out)} static`];
}

/** The metadata pod's IPv6 address behind each BVI, as a static neighbour (the world's side). */
export function ip6WorldSteps(side: 'vppnet' | 'hand', ports: PortSet, bvi: string, peers: Peers): string[] {
  return [`set ip neighbor ${bvi} ${SERVICES6[side].metadata} ${peers.macBehind(ports.pod)} static`];
}
