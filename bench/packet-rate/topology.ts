/**
 * What the packet-rate benchmark builds in one VPP, as data: two equivalent configurations of the
 * same paths, and a plain IPv4 baseline.
 *
 * - vppnet's: an AgentConfig (one VPC, two VM ports, remote routes, the service bridge) that the
 *   agent's own reconciler programs; VM ports and the underlay are existing interfaces.
 * - hand-made: the same objects through VPP's CLI, in their own tables, SIDs and BSIDs (IPv4 table
 *   110 instead of 10, IPv6 table 1 instead of 0, services table 4100, bridge domain 200). The SRv6
 *   side uses IPv6 table 1 so that its SIDs and default route sit in a table shaped like vppnet's
 *   table 0 (same prefix lengths), and both lookups cost the same.
 * - the world around them, the same for both: static neighbours for the VMs, the underlay gateway
 *   and the metadata pod, and the pod's MAC in the bridge (what ARP/ND and learning would give).
 *
 * CLI syntax is VPP 26.06's (see README "VPP source facts"): ip table / ip6 table (ip/lookup.c),
 * sr localsid / sr policy / sr steer (srv6/sr_localsid.c, sr_policy_rewrite.c, sr_steering.c),
 * nat44 ei … (plugins/nat/nat44-ei/nat44_ei_cli.c), set acl-plugin … (plugins/acl/acl.c).
 */
import type { AgentConfig, RemoteRouteConfig } from '../../src/config/model.js';
import { validateConfig } from '../../src/config/validate.js';
import { SERVICE_DEFAULTS } from '../../src/config/defaults.js';
import { proxyArpRange } from '../../src/srv6/overlay.js';
import { bigIntToIp6, ip6ToBigInt } from '../../src/net/ip.js';
import { TOLERANCE } from './metrics.js';
import type { Traffic } from './streams.js';

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

const hex2 = (n: number): string => n.toString(16).padStart(2, '0');
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
} as const;

export interface VmMacs {
  readonly vm1: string;
  readonly vm2: string;
}

/** vppnet's configuration as the YAML file would hold it (printed in --nic mode). */
export function vppnetConfigInput(ports: PortSet, macs: VmMacs): Record<string, unknown> {
  return {
    node: {
      name: 'packet-rate',
      underlay: {
        interface: ports.underlay,
        address: VPPNET.underlayAddress,
        gateway: VPPNET.underlayGateway,
        // A jumbo underlay, so that the VPC MTU vppnet derives from it (− 40 B of SRv6) and sets on
        // the VM ports passes IMIX's 1518 B frames as the hand ports (pg's 9000) do. With the
        // default 1500 the ports get 1460: IPv4 is fragmented, IPv6 dropped (packet too big), and
        // the rows would measure that instead of the path.
        mtu: VPPNET.underlayMtu,
      },
      srv6: { locator: VPPNET.locator, hopLimit: VPPNET.hopLimit },
    },
    vpcs: [{ name: VPPNET.vpc, id: VPPNET.vpcId, subnets: [VM.subnet], gateway: VM.gateway }],
    ports: [
      {
        name: 'vm1',
        vpc: VPPNET.vpc,
        mac: macs.vm1,
        ip: VM.vm1,
        attach: { type: 'interface', name: ports.vm1 },
      },
      {
        name: 'vm2',
        vpc: VPPNET.vpc,
        mac: macs.vm2,
        ip: VM.vm2,
        attach: { type: 'interface', name: ports.vm2 },
      },
    ],
    remoteRoutes: VPPNET.remoteRoutes.map((r) => ({ vpc: VPPNET.vpc, prefix: r.prefix, sid: r.sid })),
    services: {
      table: VPPNET.servicesTable,
      bridgeDomain: VPPNET.bridgeDomain,
      // The rows measure forwarding at line rate: a VM's policer (1 Mbit/s by default) would drop
      // nearly all of vm-to-metadata's packets. The hand side has no policer either.
      vmLimits: { rateKbps: 0 },
    },
  };
}

export function vppnetConfig(ports: PortSet, macs: VmMacs): AgentConfig {
  const config = validateConfig(vppnetConfigInput(ports, macs), 'packet-rate');
  const vpc = config.vpcs[0];
  // The paths' packets are built for these; a change in vppnet's defaults must show up here.
  if (vpc?.sid !== VPPNET.localSid || vpc.table !== VPPNET.table)
    throw new Error(
      `vppnet derived SID ${vpc?.sid} / table ${vpc?.table}, expected ${VPPNET.localSid} / ${VPPNET.table}`,
    );
  return config;
}

/**
 * vppnet's configuration with the VPC dual-stack: its IPv6 /64, End.DT6 SID and gateway
 * link-local, the ports' IPv6 addresses and IPv6 remote routes to the remote DT6 SIDs, on top of
 * the IPv4 configuration (which stays what the IPv4 paths measure). Built as an AgentConfig
 * rather than YAML because the config file's IPv6 fields are being added in parallel (ds-model);
 * every IPv6 value is explicit, so nothing depends on their defaults.
 */
export function vppnetDualStackConfig(ports: PortSet, macs: VmMacs): AgentConfig {
  const config = vppnetConfig(ports, macs);
  // The paths' packets are built for this SID; it must follow the DT6 rule from the DT4 SID.
  if (bigIntToIp6(ip6ToBigInt(VPPNET.localSid) + DT6_OFFSET) !== VPPNET6.localSid)
    throw new Error(`${VPPNET6.localSid} is not the End.DT6 function of ${VPPNET.localSid}`);
  const ip6Of: Readonly<Record<string, string>> = { vm1: VM6.vm1, vm2: VM6.vm2 };
  const [address, len] = VM6.subnet.split('/');
  const routes6: RemoteRouteConfig[] = VPPNET6.remoteRoutes.map((r) => {
    const [a, l] = r.prefix.split('/');
    return { vpc: VPPNET.vpc, prefix: { address: a as string, len: Number(l) }, family: 6, sid: r.sid };
  });
  return {
    ...config,
    vpcs: config.vpcs.map((v) =>
      v.name === VPPNET.vpc
        ? {
            ...v,
            subnets6: [{ address: address as string, len: Number(len) }],
            sid6: VPPNET6.localSid,
            gatewayLinkLocal: VM6.gatewayLinkLocal,
          }
        : v,
    ),
    ports: config.ports.map((p) => ({ ...p, ip6: ip6Of[p.name] })),
    remoteRoutes: [...config.remoteRoutes, ...routes6],
    // Metadata over IPv6 (vm-to-metadata-ip6), no DNS: the path measures one service address.
    services: config.services && {
      ...config.services,
      ip6: {
        gateway: prefixOf(SERVICES6.vppnet.gateway),
        vmAddressRange: prefixOf(SERVICES6.vppnet.vmAddressRange),
        metadataAddress: SERVICES6.vppnet.metadata,
        dnsAddress: undefined,
      },
    },
  };
}

function prefixOf(text: string): { address: string; len: number } {
  const [address, len] = text.split('/');
  return { address: address as string, len: Number(len) };
}

/**
 * The hand-made IPv6 side of the VPC, in the order docs/dual-stack.md programs a port (table,
 * IPv6 enabled, gateway link-local, RA, ND proxy, the VM's /128 and static neighbour), then the
 * End.DT6 SID into the IPv6 table and one encap policy per remote DT6 SID with IPv6 steering
 * (`sr steer l3` of an IPv6 prefix is traffic type 6). Runs after handSteps (the underlay, IPv6
 * table 1 and the SR encap source are there).
 */
export function handIp6Steps(ports: PortSet): string[] {
  const t = HAND6.table;
  const bvi = `loop${HAND.bviLoopback}`;
  const h6 = SERVICES6.hand;
  const ra = HAND6.ra;
  const bsids = [...new Map(HAND6.remoteRoutes.map((r) => [r.bsid, r.sid]))];
  return [
    `ip6 table add ${t}`,
    // As vppnet does: VPP keeps a port unnumbered only to an interface in the same IPv4 and IPv6
    // tables, so the gateway loopback joins the IPv6 table too (it gets no IPv6 address).
    `set interface ip6 table loop${HAND.gatewayLoopback} ${t}`,
    ...[
      [ports.vm1, VM6.vm1],
      [ports.vm2, VM6.vm2],
    ].flatMap(([port, ip]) => [
      `set interface ip6 table ${port} ${t}`,
      `enable ip6 interface ${port}`,
      `set interface ip address ${port} ${VM6.gatewayLinkLocal}/128`,
      `ip6 nd ${port} prefix ${VM6.subnet} infinite no-onlink`,
      `ip6 nd ${port} ra-interval ${ra.maxInterval} ${ra.minInterval} ra-lifetime ${ra.lifetime}`,
      `set interface ip6-nd proxy ${port} enable`,
      `ip route add ${ip}/128 table ${t} via ${ip} ${port}`,
    ]),
    `sr localsid address ${HAND6.localSid} fib-table ${HAND.ip6Table} behavior end.dt6 ${t}`,
    ...bsids.map(([bsid, sid]) => `sr policy add bsid ${bsid} next ${sid} encap fib-table ${HAND.ip6Table}`),
    ...HAND6.remoteRoutes.map((r) => `sr steer l3 ${r.prefix} via bsid ${r.bsid} fib-table ${t}`),
    // Metadata over IPv6 as services.ip6 programs it (docs/dual-stack.md): the BVI's address in
    // IPv6 table 0, the /128 in the VPC table looking up there, nat66 with the ports inside and the
    // BVI outside, a static mapping per VM. The nat66 plugin is on already (vppnet enabled it).
    `set interface ip address ${bvi} ${h6.gateway}`,
    `ip route add ${h6.metadata}/128 table ${t} via ip6-lookup-in-table 0`,
    `set interface nat66 in ${ports.vm1} in ${ports.vm2} out ${bvi}`,
    `nat66 add static mapping local ${VM6.vm1} external ${h6.natExternal.vm1} vrf ${t}`,
    `nat66 add static mapping local ${VM6.vm2} external ${h6.natExternal.vm2} vrf ${t}`,
  ];
}

/** The metadata pod's IPv6 address behind each BVI, as a static neighbour (the world's side). */
export function ip6WorldSteps(side: 'vppnet' | 'hand', ports: PortSet, bvi: string, peers: Peers): string[] {
  return [`set ip neighbor ${bvi} ${SERVICES6[side].metadata} ${peers.macBehind(ports.pod)} static`];
}

/**
 * The VMs' IPv6 neighbours on the hand side: static, as vppnet programs them itself (step 7 of a
 * port in docs/dual-stack.md), so they are the hand configuration's, not the world's.
 */
export function handIp6Neighbours(ports: PortSet, peers: Peers): string[] {
  return [
    `set ip neighbor ${ports.vm1} ${VM6.vm1} ${peers.macBehind(ports.vm1)} static`,
    `set ip neighbor ${ports.vm2} ${VM6.vm2} ${peers.macBehind(ports.vm2)} static`,
  ];
}

/** One CLI command; `saveAcl` keeps the "ACL index:N" it prints under a name for `{acl:name}`. */
export interface CliStep {
  readonly cmd: string;
  readonly saveAcl?: string;
}

/**
 * The hand-made configuration, in the order vppnet's reconciler creates the same objects.
 * `globals`: also the settings VPP keeps once per process (SR encap source and hop limit, the
 * NAT44-ED plugin); left out when vppnet has already set them in the same VPP.
 */
export function handSteps(ports: PortSet, opts: { readonly globals: boolean }): CliStep[] {
  const t = HAND.table;
  const gw = `loop${HAND.gatewayLoopback}`;
  const bvi = `loop${HAND.bviLoopback}`;
  const { low, hi } = proxyArpRange({ address: '10.0.0.0', len: 24 }, VM.gateway);
  const bsids = [...new Map(HAND.remoteRoutes.map((r) => [r.bsid, r.sid]))];
  const steps: string[] = [
    // VPC table and gateway.
    `ip table add ${t}`,
    `create loopback interface mac 02:00:00:00:01:${hex2(HAND.gatewayLoopback & 0xff)} instance ${HAND.gatewayLoopback}`,
    `set interface ip table ${gw} ${t}`,
    `set interface ip address ${gw} ${VM.gateway}/24`,
    `set interface state ${gw} up`,
    `set arp proxy table-id ${t} start ${low} end ${hi}`,
    // VM ports.
    ...[
      [ports.vm1, VM.vm1],
      [ports.vm2, VM.vm2],
    ].flatMap(([port, ip]) => [
      `set interface ip table ${port} ${t}`,
      `set interface unnumbered ${port} use ${gw}`,
      `set interface state ${port} up`,
      `set interface proxy-arp ${port} enable`,
      `ip route add ${ip}/32 table ${t} via ${ip} ${port}`,
    ]),
    // Underlay in IPv6 table 1.
    `ip6 table add ${HAND.ip6Table}`,
    `set interface ip6 table ${ports.underlay} ${HAND.ip6Table}`,
    `set interface state ${ports.underlay} up`,
    `set interface ip address ${ports.underlay} ${HAND.underlayAddress}`,
    `ip route add ::/0 table ${HAND.ip6Table} via ${HAND.underlayGateway} ${ports.underlay}`,
    // SRv6.
    ...(opts.globals
      ? [
          `set sr encaps source addr ${HAND.underlayAddress.split('/')[0]}`,
          `set sr encaps hop-limit ${HAND.hopLimit}`,
        ]
      : []),
    `sr localsid address ${HAND.localSid} fib-table ${HAND.ip6Table} behavior end.dt4 ${t}`,
    ...bsids.map(([bsid, sid]) => `sr policy add bsid ${bsid} next ${sid} encap fib-table ${HAND.ip6Table}`),
    ...HAND.remoteRoutes.map((r) => `sr steer l3 ${r.prefix} via bsid ${r.bsid} fib-table ${t}`),
    // Service bridge.
    `ip table add ${HAND.servicesTable}`,
    `create bridge-domain ${HAND.bridgeDomain} learn 1 forward 1 uu-flood 1 flood 1 arp-term 0`,
    `create loopback interface mac 02:00:00:00:41:00 instance ${HAND.bviLoopback}`,
    `set interface ip table ${bvi} ${HAND.servicesTable}`,
    `set interface l2 bridge ${bvi} ${HAND.bridgeDomain} bvi`,
    `set interface ip address ${bvi} ${VM.bridgeGateway}`,
    `set interface state ${bvi} up`,
    `ip route add ${VM.metadata}/32 table ${t} via ip4-lookup-in-table ${HAND.servicesTable}`,
    // NAT44-EI sized as vppnet sizes it for the default /24 of VM service addresses.
    ...(opts.globals
      ? [
          `nat44 ei plugin enable users 254 sessions ${254 * SERVICE_DEFAULTS.vmNatSessions} user-sessions ${SERVICE_DEFAULTS.vmNatSessions}`,
        ]
      : []),
    `set interface nat44 ei out ${bvi} output-feature`,
    `nat44 ei add static mapping local ${VM.vm1} external ${HAND.natExternal.vm1} vrf ${t}`,
    `nat44 ei add static mapping local ${VM.vm2} external ${HAND.natExternal.vm2} vrf ${t}`,
    `nat44 ei add identity mapping ${VM.bridgeGateway.split('/')[0]} vrf ${HAND.servicesTable}`,
    `nat44 ei add identity mapping ${VM.bridgeGateway.split('/')[0]} vrf ${t}`,
  ];
  const any = '0.0.0.0/0';
  return [
    ...steps.map((cmd) => ({ cmd })),
    // The pod ACLs and the pod port, as vppnet's pod port has them.
    {
      // With vppnet's IPv6 rules (pod-acls.ts): the VMs' IPv6 service addresses, ND, nothing else.
      cmd: `set acl-plugin acl permit+reflect src ${HAND.vmAddressRange} dst ${any}, permit src ${any} dst ${any}, permit+reflect src ${SERVICES6.hand.vmAddressRange} dst ::/0, permit src ${SERVICES6.hand.gateway.replace('/64', '/128')} dst ::/0 proto 58 sport 135-136, permit src fe80::/10 dst ::/0 proto 58 sport 135-136, deny src ::/0 dst ::/0 tag hand-pod-out`,
      saveAcl: 'hand-pod-out',
    },
    {
      cmd: `set acl-plugin acl deny src ${any} dst ${HAND.vmAddressRange}, permit src ${any} dst ${any} tag hand-pod-in`,
      saveAcl: 'hand-pod-in',
    },
    { cmd: `set interface l2 bridge ${ports.pod} ${HAND.bridgeDomain}` },
    { cmd: `set interface state ${ports.pod} up` },
    { cmd: `set acl-plugin interface ${ports.pod} input acl {acl:hand-pod-in}` },
    { cmd: `set acl-plugin interface ${ports.pod} output acl {acl:hand-pod-out}` },
  ];
}

/** Fills `{acl:name}` from ACL indexes saved so far. */
export function fillAcls(cmd: string, acls: ReadonlyMap<string, number>): string {
  return cmd.replace(/\{acl:([A-Za-z0-9_-]+)\}/g, (whole, name: string) => {
    const idx = acls.get(name);
    if (idx === undefined) throw new Error(`${cmd}: ACL ${name} was not created before`);
    return String(idx);
  });
}

/** "ACL index:N" as `set acl-plugin acl` prints it (acl_set_aclplugin_acl_fn). */
export function parseAclIndex(output: string): number | undefined {
  const m = /ACL index:\s*(\d+)/.exec(output);
  return m ? Number(m[1]) : undefined;
}

export const BASELINE = {
  inAddress: '10.99.0.1/24',
  outAddress: '10.98.0.1/24',
  source: '10.99.0.2',
  nextHop: '10.98.0.2',
  route: '10.97.0.0/16',
  destination: '10.97.0.1',
} as const;

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

export interface Peers {
  /** The MAC behind an interface (the VM, the underlay gateway, the pod, the baseline next hop). */
  macBehind(iface: string): string;
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
export type ConfigKind = 'vppnet' | 'hand' | 'baseline';

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
}

export interface Macs {
  /** The MAC of VPP's side of an interface (the destination MAC of packets sent to it). */
  macOf(iface: string): string;
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
  const side = (config: 'vppnet' | 'hand', p: PortSet): PathPlan[] => {
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
    ...side('vppnet', t.vppnet),
    ...side('hand', t.hand),
    {
      path: 'baseline',
      config: 'baseline',
      ingress: t.baseline.in,
      egress: t.baseline.out,
      traffic: ip4(t.baseline.in, BASELINE.source, BASELINE.destination, VM.dport),
      expect: ['ip4-rewrite'],
    },
  ];
}

/**
 * The IPv6-over-SRv6 paths of both configurations: IPv6/UDP from the VM port to the remote VM
 * (H.Encaps, `sr-pl-rewrite-encaps`), and IPv6/UDP inside IPv6 to the node's End.DT6 SID
 * (`sr-localsid-d`, then ip6-lookup in the VPC's table, out of the VM port).
 */
export function ip6PathPlans(t: Topology, macs: Macs, peers: Peers, flows: number): PathPlan[] {
  const side = (config: 'vppnet' | 'hand', p: PortSet): PathPlan[] => [
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
  return [...side('vppnet', t.vppnet), ...side('hand', t.hand)];
}

/** `<interface>-tx`: the node whose vectors are the packets sent out of an interface. */
export function txNode(iface: string): string {
  return `${iface}-tx`;
}
