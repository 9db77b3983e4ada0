/**
 * The paths the packet-rate benchmark measures, in each configuration and the baseline: where
 * each one's packets enter and leave, what they are, the nodes they must pass and must not.
 */
import { ALL_CHECK_NODES, CHECK_NODES, type Toggle } from './hand-checks.js';
import { TOLERANCE } from './metrics.js';
import type { Traffic } from './streams.js';
import {
  BASELINE,
  HAND,
  HAND6,
  SERVICES6,
  VM,
  VM6,
  VPPNET,
  VPPNET6,
  type Macs,
  type Peers,
  type PortSet,
  type Topology,
} from './topology.js';

export const PATH_IDS = [
  'vm-to-remote',
  'remote-to-vm',
  'vm-to-metadata',
  'vm-to-vm',
  'vm-to-remote-ip6',
  'remote-to-vm-ip6',
  'vm-to-metadata-ip6',
  'baseline',
] as const;
export type PathId = (typeof PATH_IDS)[number];
/**
 * vppnet's configuration, the hand one as it was before the source checks, the same hand paths with
 * vppnet's source checks (hand-checks.ts), the plain IPv4 baseline.
 */
export const CONFIG_KINDS = ['vppnet', 'hand', 'hand-checks', 'baseline'] as const;
export type ConfigKind = (typeof CONFIG_KINDS)[number];

/** How the tables and the chart name each configuration. */
export const CONFIG_LABEL: Readonly<Record<ConfigKind, string>> = {
  vppnet: 'vppnet',
  hand: 'hand CLI',
  'hand-checks': 'hand+checks',
  baseline: 'baseline',
};

export const PATH_TITLES: Readonly<Record<PathId, string>> = {
  'vm-to-remote': 'VM → remote VM (H.Encaps)',
  'remote-to-vm': 'remote → VM (End.DT4)',
  'vm-to-metadata': 'VM → metadata (NAT44-EI, bridge)',
  'vm-to-vm': 'VM → VM, same VPC',
  'vm-to-remote-ip6': 'VM → remote VM, IPv6 (H.Encaps)',
  'remote-to-vm-ip6': 'remote → VM, IPv6 (End.DT6)',
  'vm-to-metadata-ip6': 'VM → metadata, IPv6 (nat66, bridge)',
  baseline: 'IPv4 table 0 (baseline)',
};

/** The IPv6-over-SRv6 paths. */
export const IP6_PATH_IDS: readonly PathId[] = ['vm-to-remote-ip6', 'remote-to-vm-ip6', 'vm-to-metadata-ip6'];

/** The target for the IPv6 paths: vppnet within 5 % of the hand configuration. */
export const IP6_TOLERANCE = 0.05;

/** How close vppnet must come to the hand configuration on a path. */
export function toleranceOf(path: PathId): number {
  return IP6_PATH_IDS.includes(path) ? IP6_TOLERANCE : TOLERANCE;
}

export interface PathPlan {
  readonly path: PathId;
  readonly config: ConfigKind;
  readonly ingress: string;
  readonly egress: string;
  readonly traffic: Traffic;
  /** Nodes every packet must pass; a run without them is reported as a broken path. */
  readonly expect: readonly string[];
  /** Nodes no packet may pass (the plain hand paths have no source check). */
  readonly forbid: readonly string[];
  /** CLI before each run of the plan and after it (hand+checks: its checks on, then off). */
  readonly toggle?: Toggle;
}

/**
 * The source check a path's packets meet where they enter (docs/source-validation.md): a VM port's
 * strict check of their family, or the uplink's loose IPv6 check of the outer header.
 */
export function checkNodeOf(traffic: Traffic): string {
  switch (traffic.kind) {
    case 'ip4':
      return CHECK_NODES.ip4Strict;
    case 'ip6':
      return CHECK_NODES.ip6Strict;
    case 'srv6':
    case 'srv6-ip6':
      return CHECK_NODES.ip6Loose;
  }
}

/**
 * What each side's runs must show of the source checks: vppnet's packets pass the check where
 * they enter, the plain hand configuration's pass none.
 */
function withChecksExpected(plan: Omit<PathPlan, 'forbid'>): PathPlan {
  return plan.config === 'vppnet'
    ? { ...plan, expect: [...plan.expect, checkNodeOf(plan.traffic)], forbid: [] }
    : { ...plan, forbid: ALL_CHECK_NODES };
}

/**
 * The hand+checks plans: every hand path again, its checks turned on around each run, its packets
 * expected through the check where they enter (every hand path enters at a VM port or the uplink).
 */
export function handChecksPlans(plans: readonly PathPlan[], toggle: Toggle): PathPlan[] {
  return plans
    .filter((p) => p.config === 'hand')
    .map((p) => ({
      ...p,
      config: 'hand-checks' as const,
      expect: [...p.expect, checkNodeOf(p.traffic)],
      forbid: [],
      toggle,
    }));
}

export function pathPlans(t: Topology, macs: Macs, peers: Peers, flows: number): PathPlan[] {
  const ip4 = (ingress: string, src: string, dst: string, dport: number): Traffic => ({
    kind: 'ip4',
    srcMac: peers.macBehind(ingress),
    dstMac: macs.macOf(ingress),
    src,
    dst,
    dport,
    flows,
  });
  const side = (config: 'vppnet' | 'hand', p: PortSet): Omit<PathPlan, 'forbid'>[] => {
    const gw = config === 'vppnet' ? VPPNET.underlayGateway : HAND.underlayGateway;
    const sid = config === 'vppnet' ? VPPNET.localSid : HAND.localSid;
    return [
      {
        path: 'vm-to-remote',
        config,
        ingress: p.vm1,
        egress: p.underlay,
        traffic: ip4(p.vm1, VM.vm1, VM.remoteVm, VM.dport),
        expect: ['sr-pl-rewrite-encaps-v4'],
      },
      {
        path: 'remote-to-vm',
        config,
        ingress: p.underlay,
        egress: p.vm1,
        traffic: {
          kind: 'srv6',
          srcMac: peers.macBehind(p.underlay),
          dstMac: macs.macOf(p.underlay),
          outerSrc: gw,
          sid,
          src: VM.remoteVm,
          dst: VM.vm1,
          dport: VM.dport,
        },
        expect: ['sr-localsid-d'],
      },
      {
        path: 'vm-to-metadata',
        config,
        ingress: p.vm1,
        egress: p.pod,
        traffic: ip4(p.vm1, VM.vm1, VM.metadata, VM.metadataPort),
        expect: ['nat44-ei-in2out-output'],
      },
      {
        path: 'vm-to-vm',
        config,
        ingress: p.vm1,
        egress: p.vm2,
        traffic: ip4(p.vm1, VM.vm1, VM.vm2, VM.dport),
        expect: ['ip4-rewrite'],
      },
    ];
  };
  return [
    ...[...side('vppnet', t.vppnet), ...side('hand', t.hand)].map(withChecksExpected),
    {
      path: 'baseline',
      config: 'baseline',
      ingress: t.baseline.in,
      egress: t.baseline.out,
      traffic: ip4(t.baseline.in, BASELINE.source, BASELINE.destination, VM.dport),
      expect: ['ip4-rewrite'],
      forbid: ALL_CHECK_NODES,
    },
  ];
}

/**
 * The IPv6-over-SRv6 paths of both configurations: IPv6/UDP from the VM port to the remote VM
 * (H.Encaps, `sr-pl-rewrite-encaps`), and IPv6/UDP inside IPv6 to the node's End.DT6 SID
 * (`sr-localsid-d`, then ip6-lookup in the VPC's table, out of the VM port).
 */
export function ip6PathPlans(t: Topology, macs: Macs, peers: Peers, flows: number): PathPlan[] {
  const side = (config: 'vppnet' | 'hand', p: PortSet): Omit<PathPlan, 'forbid'>[] => [
    {
      path: 'vm-to-remote-ip6',
      config,
      ingress: p.vm1,
      egress: p.underlay,
      traffic: {
        kind: 'ip6',
        srcMac: peers.macBehind(p.vm1),
        dstMac: macs.macOf(p.vm1),
        src: VM6.vm1,
        dst: VM6.remoteVm,
        dport: VM.dport,
        flows,
      },
      expect: ['sr-pl-rewrite-encaps'],
    },
    {
      path: 'remote-to-vm-ip6',
      config,
      ingress: p.underlay,
      egress: p.vm1,
      traffic: {
        kind: 'srv6-ip6',
        srcMac: peers.macBehind(p.underlay),
        dstMac: macs.macOf(p.underlay),
        outerSrc: config === 'vppnet' ? VPPNET.underlayGateway : HAND.underlayGateway,
        sid: config === 'vppnet' ? VPPNET6.localSid : HAND6.localSid,
        src: VM6.remoteVm,
        dst: VM6.vm1,
        dport: VM.dport,
      },
      expect: ['sr-localsid-d'],
    },
    {
      path: 'vm-to-metadata-ip6',
      config,
      ingress: p.vm1,
      egress: p.pod,
      traffic: {
        kind: 'ip6',
        srcMac: peers.macBehind(p.vm1),
        dstMac: macs.macOf(p.vm1),
        src: VM6.vm1,
        dst: SERVICES6[config].metadata,
        dport: VM.metadataPort,
        flows,
      },
      expect: ['nat66-in2out'],
    },
  ];
  return [...side('vppnet', t.vppnet), ...side('hand', t.hand)].map(withChecksExpected);
}
