/**
 * The hand configuration's source checks: the third configuration of the hand paths ("hand+checks"),
 * with the checks vppnet's design puts at the tenant edge (docs/source-validation.md,
 * src/srv6/overlay.ts desiredIngressFilter and desiredSourceCheck6), typed as VPP's CLI on the hand
 * side's own ports and tables:
 *
 * - each VM port: uRPF strict on IPv4 in the VPC table (which already leads the VM's /32 to the
 *   port), and on IPv6 in the VPC's IPv6 source table, which holds the VM's /128 and the EUI-64
 *   link-local of its MAC, each through the port;
 * - the uplink: uRPF loose on IPv6 in the underlay's source table, which holds the underlay's
 *   prefix (vppnet's default `node.srv6.allowedSources`) and fe80::/64, each through the uplink.
 *
 * The tables and their routes are made once, at setup: they route nothing and change no path while
 * no check names them. The checks themselves are turned on before each hand+checks run and off
 * after it (`set urpf … off`: uRPF off with no table, as vppnet turns a check off), so that the
 * plain hand rows stay the paths as they were before the checks, measured in the same VPP.
 *
 * CLI: `set urpf [ip4|ip6] [rx|tx] [off|strict|loose] <INTERFACE> [table <table>]`
 * (urpf_cli_update, src/plugins/urpf/urpf.c); `ip6 table add`, `ip route add … table`
 * (src/vnet/ip/lookup.c).
 */
import { eui64Address } from '../../src/net/eui64.js';
import { ip6Network, parseIp6Prefix } from '../../src/net/ip.js';
import { HAND, HAND_CHECKS, VM6, type Peers, type PortSet } from './topology.js';

/** The nodes VPP runs a check in: one per family and mode (the urpf plugin's feature nodes). */
export const CHECK_NODES = {
  ip4Strict: 'ip4-rx-urpf-strict',
  ip6Strict: 'ip6-rx-urpf-strict',
  ip6Loose: 'ip6-rx-urpf-loose',
} as const;

export const ALL_CHECK_NODES: readonly string[] = Object.values(CHECK_NODES);

/** One uRPF setting of the hand configuration: where, which family, which mode, which table. */
export interface HandCheck {
  readonly iface: string;
  readonly family: 4 | 6;
  readonly mode: 'strict' | 'loose';
  readonly table: number;
}

/** A route in one of the checks' tables, as `ip route add PREFIX table TABLE via NH IFACE`. */
export interface CheckRoute {
  readonly table: number;
  readonly prefix: string;
  readonly nh: string;
  readonly iface: string;
}

/** The EUI-64 link-local (fe80::/64) of a MAC: what a guest forms by default. */
const LINK_LOCAL_64 = { address: 'fe80::', len: 64 };

/** The hand configuration's checks, VM ports first (IPv4 then IPv6 each), then the uplink. */
export function handChecks(ports: PortSet): HandCheck[] {
  return [
    ...[ports.vm1, ports.vm2].flatMap((iface): HandCheck[] => [
      { iface, family: 4, mode: 'strict', table: HAND_CHECKS.ip4Table },
      { iface, family: 6, mode: 'strict', table: HAND_CHECKS.ip6SourceTable },
    ]),
    { iface: ports.underlay, family: 6, mode: 'loose', table: HAND_CHECKS.underlaySourceTable },
  ];
}

/**
 * The routes of the checks' IPv6 tables: per VM port its /128 and its MAC's EUI-64 link-local
 * (`peers` has the VMs' MACs), through the port with the VM as next hop; the underlay's prefix and
 * fe80::/64 through the uplink (fe80::/64, not /10: every table's fe80::/10 is VPP's own entry,
 * which a route does not replace). The IPv4 check needs none: the VPC table has the VMs' /32s.
 */
export function handCheckRoutes(ports: PortSet, peers: Peers): CheckRoute[] {
  const underlay = parseIp6Prefix(HAND.underlayAddress);
  if (!underlay) throw new Error(`${HAND.underlayAddress} is not an IPv6 prefix`);
  const vms: readonly (readonly [string, string])[] = [
    [ports.vm1, VM6.vm1],
    [ports.vm2, VM6.vm2],
  ];
  return [
    ...vms.flatMap(([iface, ip]) =>
      [`${ip}/128`, `${eui64Address(LINK_LOCAL_64, peers.macBehind(iface))}/128`].map((prefix) => ({
        table: HAND_CHECKS.ip6SourceTable,
        prefix,
        nh: ip,
        iface,
      })),
    ),
    ...[`${ip6Network(underlay)}/${underlay.len}`, 'fe80::/64'].map((prefix) => ({
      table: HAND_CHECKS.underlaySourceTable,
      prefix,
      nh: HAND.underlayGateway,
      iface: ports.underlay,
    })),
  ];
}

/** CLI of the checks' tables and routes, run once at setup (after the hand configuration). */
export function handCheckTableSteps(ports: PortSet, peers: Peers): string[] {
  const routes = handCheckRoutes(ports, peers);
  const tables = [...new Set(routes.map((r) => r.table))];
  return [
    ...tables.map((t) => `ip6 table add ${t}`),
    ...routes.map((r) => `ip route add ${r.prefix} table ${r.table} via ${r.nh} ${r.iface}`),
  ];
}

/** What turns the checks on before a hand+checks run and off after it. */
export interface Toggle {
  readonly on: readonly string[];
  readonly off: readonly string[];
}

/** `set urpf` on for every check, and off again in the reverse order. */
export function handCheckToggle(ports: PortSet): Toggle {
  const checks = handChecks(ports);
  return {
    on: checks.map((c) => `set urpf ip${c.family} rx ${c.mode} table ${c.table} ${c.iface}`),
    off: [...checks].reverse().map((c) => `set urpf ip${c.family} rx off ${c.iface}`),
  };
}
