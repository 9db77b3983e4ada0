/**
 * Names and MACs vppnet derives for what it creates, so that a restarted agent finds its own
 * objects again: interfaces' MACs, VM ports' host veth names and interface names. Both the overlay
 * and the service bridge use them; tags and keys themselves are keys.ts's.
 */
import { createHash } from 'node:crypto';
import type { PortConfig } from '../config/model.js';
import { tags } from './keys.js';

/** derivedMac's answers: a pass derives one per VPC gateway and port (thousands), the same each pass. */
const macOfSeed = new Map<string, string>();
/** Past this many seeds the memo starts again (the names of a node's VPCs and ports: far fewer). */
const MAC_MEMO_LIMIT = 100_000;

/** A locally administered unicast MAC derived from a name: stable across restarts, unique in practice. */
export function derivedMac(seed: string): string {
  let mac = macOfSeed.get(seed);
  if (mac === undefined) {
    const h = createHash('sha256').update(seed).digest();
    mac = ['02', 'fe', ...[0, 1, 2, 3].map((i) => (h[i] as number).toString(16).padStart(2, '0'))].join(':');
    if (macOfSeed.size >= MAC_MEMO_LIMIT) macOfSeed.clear();
    macOfSeed.set(seed, mac);
  }
  return mac;
}

/** Host end of a VM port's veth pair: "vpv" + 12 hex digits, derived from everything that defines the pair. */
export function vmVethHostName(port: PortConfig, mtuOf: ReadonlyMap<string, number>): string {
  if (port.attach.type !== 'veth') throw new Error(`port ${port.name} is not a veth port`);
  const vpcMtu = mtuOf.get(port.vpc);
  const h = createHash('sha256')
    .update([port.name, port.attach.netns, port.attach.ifname, port.mac, String(vpcMtu)].join('\0'))
    .digest('hex');
  return `${VM_VETH_PREFIX}${h.slice(0, 12)}`;
}

export const VM_VETH_PREFIX = 'vpv';

/** The logical interface name of a VM port: its tag, or the VPP name of an existing interface. */
export function portInterfaceName(port: PortConfig): string {
  return port.attach.type === 'interface' ? port.attach.name : tags.vmPort(port.name);
}
