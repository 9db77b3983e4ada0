/**
 * The check pass over `remoteRoutes`, each accepted by the schema: in a known VPC of the prefix's
 * family, a network-only prefix outside the lanes a remote route may not claim (lanes.ts), unique
 * per VPC, and a SID outside this node's locator that serves one family only.
 */
import { canonicalIp6, ip4ToInt, ip6InPrefix, type Ip4Prefix } from '../net/ip.js';
import { Ip6PrefixWords } from '../net/ip6-prefix-words.js';
import type { Checker } from './checker.js';
import type { Item } from './check-vpcs.js';
import {
  localPortOf,
  localWinsMessage,
  remoteIp6Problem,
  reservedIp4Overlap,
  serviceIp6Problem,
  type LocalAddresses,
} from './lanes.js';
import type { NodeConfig, RemoteRouteConfig, ServicesIp6Config, VpcConfig } from './model.js';
import { detachedPrefix } from './checker.js';
import { isWrittenIp6, parsedIp4Prefix } from './schema/fields.js';
import type { RemoteRouteInput } from './schema/remote-route.js';
import { Ip4WrittenRoute, Ip6WrittenRoute } from './written-route.js';

/** What a remote route may not claim, besides its VPC's own: the node's ports and service bridge. */
export interface RouteLanes {
  readonly local: LocalAddresses;
  readonly servicesGateway: Ip4Prefix | undefined;
  readonly servicesIp6?: ServicesIp6Config | undefined;
}

interface SidUse {
  family: 4 | 6 | undefined;
  route: number;
}

interface CheckedSid {
  readonly sid: string;
  readonly inLocator: boolean;
  readonly use: SidUse;
}

export function checkRemoteRoutes(
  c: Checker,
  items: readonly Item<RemoteRouteInput>[],
  vpcs: readonly VpcConfig[],
  node: NodeConfig | undefined,
  declared: ReadonlySet<string>,
  lane: RouteLanes,
): RemoteRouteConfig[] {
  const out: RemoteRouteConfig[] = [];
  // Per VPC, each prefix → the index of its route: an IPv4 prefix by its text (a valid one has one
  // spelling), an IPv6 one by its numbers (Ip6PrefixWords.key: one for all its spellings).
  const seen = new Map<VpcConfig, Map<string, number>>();
  // A node may carry 100k remote routes: look VPCs up by name, not by scanning, and check each
  // spelling of a remote SID once (they repeat: one per remote node and VPC), keeping one copy.
  const vpcByName = new Map(vpcs.map((v) => [v.name, v]));
  const checkedSids = new Map<string, CheckedSid>();
  // Per canonical SID, the family of its first route: shared by the spellings of one SID.
  const sidUses = new Map<string, SidUse>();
  for (const { i, v: r } of items) {
    const path = `remoteRoutes[${i}]`;
    const vpc = vpcByName.get(r.vpc);
    if (!vpc && !declared.has(r.vpc)) c.fail(`${path}.vpc`, `no VPC named ${JSON.stringify(r.vpc)}`);
    const family = isWrittenIp6(r.prefix) ? 6 : 4;
    let prefix =
      family === 4 ? routePrefix4(c, r.prefix, path, vpc, lane) : routePrefix6(c, r.prefix, path, node, lane);
    const holder = prefix && vpc ? localPortOf(lane.local, vpc.name, prefix, family) : undefined;
    if (prefix && holder !== undefined) prefix = c.fail(`${path}.prefix`, localWinsMessage(holder, prefix));
    if (prefix && vpc && (family === 4 ? vpc.subnets : vpc.subnets6).length === 0)
      c.fail(`${path}.prefix`, `is IPv${family}, but VPC ${vpc.name} has no IPv${family} subnet`);
    let checked = checkedSids.get(r.sid);
    if (!checked) {
      const canonical = canonicalIp6(r.sid);
      let use = sidUses.get(canonical);
      if (!use) sidUses.set(canonical, (use = { family: undefined, route: 0 }));
      checked = {
        sid: canonical,
        inLocator: node !== undefined && ip6InPrefix(canonical, node.srv6.locator),
        use,
      };
      checkedSids.set(r.sid, checked);
    }
    if (checked.inLocator) c.fail(`${path}.sid`, "is inside this node's own locator");
    else if (prefix) {
      // A remote End.DT4 SID drops inner IPv6 and End.DT6 inner IPv4: one SID is one family's.
      const use = checked.use;
      if (use.family === undefined) {
        use.family = family;
        use.route = i;
      } else if (use.family !== family)
        c.fail(
          `${path}.sid`,
          `is the SID of remoteRoutes[${use.route}], an IPv${use.family} route: an IPv${family} route needs the remote node's End.DT${family} SID (DT4: locator + index, DT6: locator + 2^24 + index)`,
        );
    }
    if (prefix && vpc) {
      let routes = seen.get(vpc);
      if (!routes) seen.set(vpc, (routes = new Map<string, number>()));
      const key = prefix instanceof Ip6PrefixWords ? prefix.key : r.prefix;
      const first = routes.get(key);
      if (first !== undefined)
        c.fail(
          `${path}.prefix`,
          `route ${vpc.name} ${prefix.address}/${prefix.len} is already used by remoteRoutes[${first}].prefix`,
        );
      else routes.set(key, i);
    }
    if (vpc && prefix)
      out.push(
        prefix instanceof Ip6PrefixWords
          ? new Ip6WrittenRoute(vpc.name, prefix, prefix.len, checked.sid)
          : new Ip4WrittenRoute(vpc.name, ip4ToInt(prefix.address), prefix.len, checked.sid),
      );
  }
  return out;
}

function routePrefix4(
  c: Checker,
  text: string,
  path: string,
  vpc: VpcConfig | undefined,
  lane: RouteLanes,
): Ip4Prefix | undefined {
  const p = parsedIp4Prefix(text);
  if (!p) return undefined;
  const problem = reservedIp4Overlap(p, vpc?.gateway, lane.servicesGateway);
  if (problem !== undefined) return c.fail(`${path}.prefix`, problem);
  return detachedPrefix(p);
}

/**
 * The route's prefix read once, as numbers: its checks here, the duplicate check and its
 * Ip6WrittenRoute read them; its text is made only for a message or the local ports' lookup.
 */
function routePrefix6(
  c: Checker,
  text: string,
  path: string,
  node: NodeConfig | undefined,
  lane: RouteLanes,
): Ip6PrefixWords | undefined {
  const p = Ip6PrefixWords.read(text);
  if (!p) return undefined;
  const problem = remoteIp6Problem(p, node) ?? serviceIp6Problem(p, lane.servicesIp6, 'inside');
  return problem === undefined ? p : c.fail(`${path}.prefix`, problem);
}
