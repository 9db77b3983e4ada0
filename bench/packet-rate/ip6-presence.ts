/**
 * Whether vppnet's reconciler programmed the IPv6-over-SRv6 objects the IPv6 paths need, read
 * back from VPP after the reconcile pass. The IPv6 kinds are written in parallel with
 * this benchmark; without them the dual-stack config's IPv6 fields are simply not programmed, and
 * measuring the vppnet IPv6 rows would measure packets dropped for want of a route. The rows then
 * say what is missing instead.
 */
import type { AgentConfig } from '../../src/config/model.js';
import { canonicalIp6 } from '../../src/net/ip.js';
import type { VppClient } from '../../src/vpp/client/vpp-client.js';
import { msg } from '../../src/vpp/messages/index.js';

const DT6 = msg.sr_behavior_t.values.SR_BEHAVIOR_API_DT6;
const STEER_IPV6 = msg.sr_steer_t.values.SR_STEER_API_IPV6;

/** What VPP holds of the IPv6 side, as plain values. */
export interface Ip6Found {
  /** End.DT6 SIDs. */
  readonly dt6Sids: readonly string[];
  /** IPv6 steering entries as "table prefix". */
  readonly steering6: readonly string[];
  /** IPv6 table ids. */
  readonly tables6: readonly number[];
  /** Prefixes of the routes in the VPC's IPv6 table (empty when the table does not exist). */
  readonly vpcRoutes6: readonly string[];
}

/** The IPv6 objects of the VPC the paths need that VPP does not have, in words (empty: all there). */
export function missingIp6Objects(config: AgentConfig, vpcName: string, found: Ip6Found): string[] {
  const vpc = config.vpcs.find((v) => v.name === vpcName);
  if (!vpc) throw new Error(`the config has no VPC ${vpcName}`);
  const missing: string[] = [];
  if (!found.tables6.includes(vpc.table)) missing.push(`IPv6 table ${vpc.table}`);
  if (vpc.sid6 === undefined) missing.push('an End.DT6 SID in the config');
  else if (!found.dt6Sids.map(canonicalIp6).includes(canonicalIp6(vpc.sid6)))
    missing.push(`End.DT6 SID ${vpc.sid6}`);
  for (const r of config.remoteRoutes) {
    if (r.vpc !== vpcName || r.family !== 6) continue;
    const key = `${vpc.table} ${canonicalIp6(r.prefix.address)}/${r.prefix.len}`;
    if (!found.steering6.includes(key))
      missing.push(`IPv6 steering of ${r.prefix.address}/${r.prefix.len} in table ${vpc.table}`);
  }
  for (const p of config.ports) {
    if (p.vpc !== vpcName || p.ip6 === undefined) continue;
    if (!found.vpcRoutes6.includes(`${canonicalIp6(p.ip6)}/128`))
      missing.push(`route ${p.ip6}/128 in IPv6 table ${vpc.table}`);
  }
  return missing;
}

export async function readIp6Found(client: VppClient, vpcTable: number): Promise<Ip6Found> {
  const [localsids, steering, tables] = await Promise.all([
    client.dump(msg.sr_localsids_dump, {}),
    client.dump(msg.sr_steering_pol_dump, {}),
    client.dump(msg.ip_table_dump, {}),
  ]);
  const tables6 = tables.filter((t) => t.table.is_ip6).map((t) => t.table.table_id);
  const vpcRoutes6 = tables6.includes(vpcTable)
    ? (await client.dump(msg.ip_route_dump, { table: { table_id: vpcTable, is_ip6: true } })).map(
        (d) => `${canonicalIp6(d.route.prefix.address.un.ip6)}/${d.route.prefix.len}`,
      )
    : [];
  return {
    dt6Sids: localsids.filter((l) => l.behavior === DT6).map((l) => l.addr),
    steering6: steering
      .filter((s) => s.traffic_type === STEER_IPV6)
      .map((s) => `${s.fib_table} ${canonicalIp6(s.prefix.address.un.ip6)}/${s.prefix.len}`),
    tables6,
    vpcRoutes6,
  };
}
