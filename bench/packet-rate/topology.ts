/**
 * What the packet-rate benchmark builds in one VPP: its interfaces and the addresses, SIDs and
 * tables of its two equivalent configurations of the same paths and a plain IPv4 baseline.
 *
 * - vppnet's: an AgentConfig (one VPC, two VM ports, remote routes, the service bridge) that the
 *   agent's own reconciler programs; VM ports and the underlay are existing interfaces
 *   (vppnet-config.ts).
 * - hand-made: the same objects through VPP's CLI, in their own tables, SIDs and BSIDs (IPv4 table
 *   110 instead of 10, IPv6 table 1 instead of 0, services table 4100, bridge domain 200). The SRv6
 *   side uses IPv6 table 1 so that its SIDs and default route sit in a table shaped like vppnet's
 *   table 0 (same prefix lengths), and both lookups cost the same (hand-config.ts).
 * - the world around them, the same for both: static neighbours for the VMs, the underlay gateway
 *   and the metadata pod, and the pod's MAC in the bridge (what ARP/ND and learning would give;
 *   world-steps.ts).
 *
 * The paths measured through them are paths.ts.
 */
import { sourceTableOf } from '../../src/config/defaults.js';

export interface PortSet {
  readonly vm1: string;
  readonly vm2: string;
  readonly underlay: string;
  /** The metadata pod's port: an L2 member of the service bridge. */
  readonly pod: string;
}

export interface Topology {
  readonly vppnet: PortSet;
  readonly hand: PortSet;
  readonly baseline: { readonly in: string; readonly out: string };
}

/** pg interface numbers: pgN. */
export const PG_IDS = {
  vppnet: { vm1: 10, vm2: 11, underlay: 12, pod: 13 },
  hand: { vm1: 20, vm2: 21, underlay: 22, pod: 23 },
  baseline: { in: 30, out: 31 },
} as const;

/** Two hex digits, as a MAC byte. */
export const hex2 = (n: number): string => n.toString(16).padStart(2, '0');
/** The MAC VPP's side of pgN gets (create packet-generator interface … hw-addr). */
export const pgMac = (id: number): string => `02:00:00:00:00:${hex2(id)}`;
/** The MAC of whatever is on the other end of pgN (a VM, the underlay gateway, the pod). */
export const pgPeerMac = (id: number): string => `02:00:00:00:01:${hex2(id)}`;

export function pgTopology(): Topology {
  const pg = (id: number): string => `pg${id}`;
  const set = (ids: { vm1: number; vm2: number; underlay: number; pod: number }): PortSet => ({
    vm1: pg(ids.vm1),
    vm2: pg(ids.vm2),
    underlay: pg(ids.underlay),
    pod: pg(ids.pod),
  });
  return {
    vppnet: set(PG_IDS.vppnet),
    hand: set(PG_IDS.hand),
    baseline: { in: pg(PG_IDS.baseline.in), out: pg(PG_IDS.baseline.out) },
  };
}

export function allPgIds(): number[] {
  return [...Object.values(PG_IDS.vppnet), ...Object.values(PG_IDS.hand), ...Object.values(PG_IDS.baseline)];
}

export function pgCreateCommands(ids: readonly number[] = allPgIds()): string[] {
  return ids.map((id) => `create packet-generator interface pg${id} hw-addr ${pgMac(id)}`);
}

/** The pg number of a pg interface name, else undefined. */
export function pgIdOf(iface: string): number | undefined {
  const m = /^pg(\d+)$/.exec(iface);
  return m ? Number(m[1]) : undefined;
}

/** Addresses both configurations share: the VMs and what they talk to. */
export const VM = {
  subnet: '10.0.0.0/24',
  gateway: '10.0.0.1',
  vm1: '10.0.0.5',
  vm2: '10.0.0.6',
  /** A VM on another hypervisor, reached through SRv6. */
  remoteVm: '10.0.0.7',
  metadata: '169.254.169.254',
  bridgeGateway: '169.254.169.1/24',
  dport: 5201,
  metadataPort: 80,
} as const;

export const VPPNET = {
  vpc: 'bench',
  vpcId: 10,
  table: 10,
  underlayAddress: '2001:db8::1/64',
  underlayGateway: '2001:db8::2',
  underlayMtu: 9000,
  locator: 'fc00:1::/48',
  /** End.DT4 SID of VPC 10: the locator + the VPC id. */
  localSid: 'fc00:1::a',
  hopLimit: 64,
  servicesTable: 4000,
  bridgeDomain: 100,
  remoteRoutes: [
    { prefix: '10.0.0.7/32', sid: 'fc00:2::a' },
    { prefix: '10.0.0.8/32', sid: 'fc00:3::a' },
    { prefix: '10.0.1.0/24', sid: 'fc00:2::a' },
  ],
} as const;

export const HAND = {
  table: 110,
  ip6Table: 1,
  underlayAddress: '2001:db8:1::1/64',
  underlayGateway: '2001:db8:1::2',
  localSid: 'fc00:11::6e',
  hopLimit: 64,
  gatewayLoopback: 110,
  servicesTable: 4100,
  bridgeDomain: 200,
  bviLoopback: 4100,
  vmAddressRange: '169.252.253.0/24',
  natExternal: { vm1: '169.252.253.5', vm2: '169.252.253.6' },
  remoteRoutes: [
    { prefix: '10.0.0.7/32', sid: 'fc00:12::6e', bsid: 'fc00:11:ff::1' },
    { prefix: '10.0.0.8/32', sid: 'fc00:13::6e', bsid: 'fc00:11:ff::2' },
    { prefix: '10.0.1.0/24', sid: 'fc00:12::6e', bsid: 'fc00:11:ff::1' },
  ],
} as const;
/**
 * The IPv6 side of the same VPC (docs/dual-stack.md), for the IPv6-over-SRv6 paths: the VMs' /64,
 * their addresses, a VM on another hypervisor. VPP's IPv6 table ids are a name space of their
 * own, so vppnet's VPC keeps table 10 for both families and the hand side uses IPv6 table 110.
 */
export const VM6 = {
  subnet: '2001:db8:a::/64',
  vm1: '2001:db8:a::5',
  vm2: '2001:db8:a::6',
  /** A VM on another hypervisor, reached through SRv6 (H.Encaps to its End.DT6 SID). */
  remoteVm: '2001:db8:a::7',
  gatewayLinkLocal: 'fe80::1',
} as const;

/**
 * The service bridge's IPv6 side (services.ip6, nat66): vppnet's with its defaults, the hand one in
 * a prefix of its own. nat66 keeps one set of external addresses per VPP and wants its outside in
 * IPv6 table 0, so both BVIs are there, side by side.
 */
export const SERVICES6 = {
  vppnet: {
    gateway: 'fd00:ec2::1/64',
    metadata: 'fd00:ec2::254',
    vmAddressRange: 'fd00:ec2:0:ff::/64',
  },
  hand: {
    gateway: 'fd00:ec3::1/64',
    metadata: 'fd00:ec3::254',
    vmAddressRange: 'fd00:ec3:0:ff::/64',
    natExternal: { vm1: 'fd00:ec3:0:ff::5', vm2: 'fd00:ec3:0:ff::6' },
  },
} as const;

/** The End.DT6 function of a DT4 SID: + 2^24 (docs/dual-stack.md, "Its function value"). */
export const DT6_OFFSET = 1n << 24n;

export const VPPNET6 = {
  /** End.DT6 SID of VPC 10: the locator + 2^24 + the VPC id. */
  localSid: 'fc00:1::100:a',
  remoteRoutes: [
    { prefix: '2001:db8:a::7/128', sid: 'fc00:2::100:a' },
    { prefix: '2001:db8:a::8/128', sid: 'fc00:3::100:a' },
    { prefix: '2001:db8:b::/64', sid: 'fc00:2::100:a' },
  ],
} as const;

export const HAND6 = {
  /** The hand VPC's IPv6 table (IPv4 table 110 is another table). */
  table: 110,
  localSid: 'fc00:11::100:6e',
  remoteRoutes: [
    { prefix: '2001:db8:a::7/128', sid: 'fc00:12::100:6e', bsid: 'fc00:11:ff::3' },
    { prefix: '2001:db8:a::8/128', sid: 'fc00:13::100:6e', bsid: 'fc00:11:ff::4' },
    { prefix: '2001:db8:b::/64', sid: 'fc00:12::100:6e', bsid: 'fc00:11:ff::3' },
  ],
  /**
   * Router advertisements as vppnet sends them (docs/dual-stack.md): every 10 to 30 s, default
   * router for 600 s, the prefix with infinite lifetimes (VPP counts finite ones down).
   */
  ra: { maxInterval: 30, minInterval: 10, lifetime: 600 },
  /**
   * The hand VPC's IPv6 services table and loopback (services.ip6: nat66's inside, never the
   * ports), numbered as vppnet numbers them for a VPC with id 110 (services6TableOf).
   */
  servicesTable: 0xc2000000 + 110,
  servicesLoopback: 4110,
} as const;

/**
 * The tables of the hand configuration's source checks (hand-checks.ts), numbered as vppnet numbers
 * its own (docs/source-validation.md): IPv4 strict in the VPC table; IPv6 strict in the VPC's IPv6
 * source table, 0xc0000000 + the VPC's id (vppnet's VPC 10 has 0xc000000a, the hand VPC 110 gets
 * 0xc000006e); loose on the uplink in the underlay's source table, 0xc0000000 + the IPv6 table the
 * underlay is in (vppnet's underlay is in table 0 and its table is 0xc0000000, the hand underlay
 * is in table 1). Four distinct tables, so that neither side's check looks in the other's.
 */
export const HAND_CHECKS = {
  ip4Table: HAND.table,
  ip6SourceTable: sourceTableOf(HAND6.table),
  underlaySourceTable: sourceTableOf(HAND.ip6Table),
} as const;

export const BASELINE = {
  inAddress: '10.99.0.1/24',
  outAddress: '10.98.0.1/24',
  source: '10.99.0.2',
  nextHop: '10.98.0.2',
  route: '10.97.0.0/16',
  destination: '10.97.0.1',
} as const;

export interface Peers {
  /** The MAC behind an interface (the VM, the underlay gateway, the pod, the baseline next hop). */
  macBehind(iface: string): string;
}

export interface Macs {
  /** The MAC of VPP's side of an interface (the destination MAC of packets sent to it). */
  macOf(iface: string): string;
}

/** `<interface>-tx`: the node whose vectors are the packets sent out of an interface. */
export function txNode(iface: string): string {
  return `${iface}-tx`;
}
