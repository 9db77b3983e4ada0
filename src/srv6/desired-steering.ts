/**
 * The overlay's steering entries from the config's remote routes: per route its prefix in its
 * VPC's table, to the BSID of its SID's policy. Apart from the rest of the overlay (overlay.ts)
 * because a route delta (hypervisor/route-delta.ts) adds single routes the same way without
 * rebuilding the overlay.
 */
import type { AgentConfig, RemoteRouteConfig, VpcConfig } from '../config/model.js';
import { Ip6WrittenRoute } from '../config/written-route.js';
import { SteeringEntries } from './steering-entries.js';
import { routedPrefixes } from '../net/ip.js';
import type { SteeringSides } from './steering-resources.js';

/**
 * Per remote route, its steering entry: the route's prefix in its VPC's table (its IPv6 table for
 * an IPv6 route), to the BSID of its SID's policy. The IPv4 entries and the IPv6 ones, each a bulk
 * kind of its own (steering-resources.ts).
 */
export function desiredSteering(config: AgentConfig, bsids: ReadonlyMap<string, string>): SteeringSides {
  const bySid = steeringBySid(config);
  const withBsids = (entries: SteeringEntries): SteeringEntries =>
    entries.withBsids(entries.bsids.map((sid) => bsids.get(sid) as string));
  return { steering: withBsids(bySid.steering), steering6: withBsids(bySid.steering6) };
}

/** One IPv6 address's bytes at a time, for steeringBySid. */
const address6 = Buffer.alloc(16);

/**
 * The entries with each route's SID where the BSID goes, made once per config's routes and VPCs
 * (neither is changed once loaded) and given each pass's BSIDs: a pass that changes nothing
 * parses no prefix.
 */
const steeringOfRoutes = new WeakMap<
  readonly RemoteRouteConfig[],
  { readonly vpcs: readonly VpcConfig[]; readonly bySid: SteeringSides }
>();

function steeringBySid(config: AgentConfig): SteeringSides {
  const routes = config.remoteRoutes;
  const cached = steeringOfRoutes.get(routes);
  if (cached !== undefined && cached.vpcs === config.vpcs) return cached.bySid;
  const tableOf = new Map(config.vpcs.map((v) => [v.name, v.table]));
  let ip6Routes = 0;
  for (let i = 0; i < routes.length; i++) if ((routes[i] as RemoteRouteConfig).family === 6) ip6Routes++;
  const steering = new SteeringEntries(Math.max(1, routes.length - ip6Routes));
  const steering6 = new SteeringEntries(Math.max(1, ip6Routes), 6);
  const bySid = { steering, steering6 };
  for (let i = 0; i < routes.length; i++) {
    const route = routes[i] as RemoteRouteConfig;
    const table = tableOf.get(route.vpc) as number;
    // A loaded config's IPv6 routes hold their address as numbers: taken as bytes, not as text
    // made and parsed back (100k routes: ~0.1 s of a pass from empty, with its garbage). A /0 is
    // routed as two halves (addRouteSteering).
    if (route instanceof Ip6WrittenRoute && route.length !== 0) {
      route.writeAddress(address6, 0);
      steering6.addBytes(table, address6, route.length, route.sid);
    } else addRouteSteering(bySid, table, route.prefix, route.family === 6, route.sid);
  }
  steeringOfRoutes.set(routes, { vpcs: config.vpcs, bySid });
  return bySid;
}

/**
 * Adds a remote route's steering to `sides`, to `target` (its SID, or the BSID of its policy):
 * its prefix in the IPv4 entries, or in the IPv6 ones as it is routed (an IPv6 /0 as its two
 * halves, ::/1 and 8000::/1: net/ip.ts, routedPrefixes).
 */
export function addRouteSteering(
  sides: SteeringSides,
  table: number,
  prefix: { readonly address: string; readonly len: number },
  ip6: boolean,
  target: string,
): void {
  const { address, len } = prefix;
  if (!ip6) sides.steering.add(table, address, len, target);
  else if (len !== 0) sides.steering6.add(table, address, len, target);
  else
    for (const half of routedPrefixes(address, len, 6)) {
      const cut = half.indexOf('/');
      sides.steering6.add(table, half.slice(0, cut), Number(half.slice(cut + 1)), target);
    }
}
