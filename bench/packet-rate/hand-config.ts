/**
 * The hand-made side of the packet-rate benchmark: the same objects as vppnet's config, through
 * VPP's CLI, in their own tables, SIDs and BSIDs (topology.ts has them).
 *
 * CLI syntax is VPP 26.06's (see README "VPP source facts"): ip table / ip6 table (ip/lookup.c),
 * sr localsid / sr policy / sr steer (srv6/sr_localsid.c, sr_policy_rewrite.c, sr_steering.c),
 * nat44 ei … (plugins/nat/nat44-ei/nat44_ei_cli.c), set acl-plugin … (plugins/acl/acl.c).
 */
import { SERVICE_DEFAULTS } from '../../src/config/defaults.js';
import { SERVICES_LOOPBACK_NEXT_HOP } from '../../src/services/ip6-services.js';
import { proxyArpRange } from '../../src/srv6/overlay.js';
import { HAND, HAND6, hex2, SERVICES6, VM, VM6, type Peers, type PortSet } from './topology.js';

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
  const s6 = HAND6.servicesTable;
  const loop = `loop${HAND6.servicesLoopback}`;
  const loopMac = `02:00:00:00:02:${hex2(HAND6.servicesLoopback & 0xff)}`;
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
    // IPv6 table 0; a services loopback alone in its own IPv6 table, nat66's only inside (no port
    // is: nat66-in2out costs every packet it sees), which what it sends comes back in on; the /128
    // in the VPC table via the loopback to a neighbour with the loopback's own MAC, in the services
    // table on to table 0 and ::/0 back to the VPC; the BVI outside; a static mapping per VM in the
    // services table. The nat66 plugin is on already (vppnet enabled it).
    `set interface ip address ${bvi} ${h6.gateway}`,
    `ip6 table add ${s6}`,
    `create loopback interface mac ${loopMac} instance ${HAND6.servicesLoopback}`,
    `set interface ip6 table ${loop} ${s6}`,
    `enable ip6 interface ${loop}`,
    `set interface state ${loop} up`,
    `set ip neighbor ${loop} ${SERVICES_LOOPBACK_NEXT_HOP} ${loopMac} static`,
    `set interface nat66 in ${loop} out ${bvi}`,
    `ip route add ::/0 table ${s6} via ip6-lookup-in-table ${t}`,
    `ip route add ${h6.metadata}/128 table ${s6} via ip6-lookup-in-table 0`,
    `ip route add ${h6.metadata}/128 table ${t} via ${SERVICES_LOOPBACK_NEXT_HOP} ${loop}`,
    `nat66 add static mapping local ${VM6.vm1} external ${h6.natExternal.vm1} vrf ${s6}`,
    `nat66 add static mapping local ${VM6.vm2} external ${h6.natExternal.vm2} vrf ${s6}`,
  ];
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
