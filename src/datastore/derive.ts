/**
 * One node's AgentConfig from the records it sees: its node record, its ports, the VPCs it has
 * ports in, every node record, and the endpoints of those VPCs. Remote routes are derived, never
 * written: each endpoint on another node steers to that node's End.DT4 SID for the VPC, its
 * locator + the VPC's sidIndex (the VPC id unless the VPC record says otherwise), the same SID
 * that node derives for itself; an IPv6 endpoint to its End.DT6 SID, locator + 2^24 + sidIndex.
 * remoteRouteOf is that rule, shared with the incremental path
 * (fleet-source.ts).
 *
 * The result goes through the config file's validateConfig, so cross-record rules (a port's IP in
 * its VPC's subnets, a VPC's MTU within the node's underlay, SIDs outside the BSID prefix) are the
 * file's. A record that breaks one is left out with its key and reason, the rest still applies:
 * one bad port must not take a hypervisor's other VMs down. Without a valid node record there is
 * no config (undefined), and the caller keeps what it has.
 */
import type { AgentConfig } from '../config/model.js';
import type { NodeConfig, ServicesConfig } from '../config/model.js';
import { DT6_SID_OFFSET, MAX_IP6_LOCATOR_LEN } from '../config/defaults.js';
import { Checker, ConfigError, validateConfig, validateNode, validateServices } from '../config/validate.js';
import {
  localAddressesOf,
  localPortOf,
  localWinsMessage,
  NO_LOCAL_ADDRESSES,
  remoteIp6Problem,
  reservedIp4Overlap,
  serviceIp6Problem,
  type LocalAddresses,
} from '../config/lanes.js';
import { aggregateIp6, ip6AddressInPrefix, ip6InPrefix, type Ip4Prefix } from '../net/ip.js';
import { EndpointRoute } from './endpoint-route.js';
import { NO_REFUSED_NODES, refusedNodes, type RefusedNodes } from './node-lanes.js';
import type { KeySchema } from './keys.js';
import type { EndpointRecord, NodeRecord, PortRecord, RecordProblem, VpcRecord } from './records.js';

/** What one node's agent holds of the store. */
export interface NodeView {
  readonly nodes: ReadonlyMap<string, NodeRecord>;
  /** Only the VPCs the node has ports in need be here. */
  readonly vpcs: ReadonlyMap<string, VpcRecord>;
  /** This node's ports, by port name. */
  readonly ports: ReadonlyMap<string, PortRecord>;
  /** VPC name → endpoint key → endpoint, for the VPCs the node has ports in. */
  readonly endpoints: ReadonlyMap<string, ReadonlyMap<string, EndpointRecord>>;
}

export interface Derivation {
  readonly config: AgentConfig | undefined;
  readonly problems: readonly RecordProblem[];
  /**
   * config.remoteRoutes as derived, each with its endpoint's key (the view's own string), so a
   * consumer indexing routes by key (fleet-source.ts) shares the keys rather than building 100k
   * anew (as concatenations those cost ~160 bytes each). Empty without a config.
   */
  readonly routes: readonly EndpointRoute[];
  /** What the routes were checked against; the incremental path checks its routes the same. */
  readonly lanes: RouteLanes;
  /**
   * The fleet's SRv6 sources (fleetSources) of the view derived: what the incremental path
   * compares later ones with. Computed once (10k node records: ~20k prefixes aggregated).
   */
  readonly sources: readonly string[];
}

/**
 * What remote routes stay out of beyond the records themselves (lanes.ts, node-lanes.ts): the
 * addresses this node's ports hold (local wins) and the node records refused for overlapping.
 */
export interface RouteLanes {
  readonly local: LocalAddresses;
  readonly refusedNodes: RefusedNodes;
}

export const OPEN_LANES: RouteLanes = { local: NO_LOCAL_ADDRESSES, refusedNodes: NO_REFUSED_NODES };

/** A node's End.DT4 SID for a VPC. */
export function vpcSid(node: NodeRecord, vpc: VpcRecord): string {
  return ip6AddressInPrefix(node.locator, BigInt(vpc.sidIndex));
}

/** A node's End.DT6 SID for a VPC (RangeError when its locator is longer than /103). */
export function vpcSid6(node: NodeRecord, vpc: VpcRecord): string {
  return ip6AddressInPrefix(node.locator, DT6_SID_OFFSET + BigInt(vpc.sidIndex));
}

/**
 * What one endpoint of a VPC means to a node: a remote route to its hosting node's SID, nothing
 * (it is hosted here), or a problem that leaves the route out. The one rule of remote routes:
 * the full derivation below and the incremental path (fleet-source.ts) both ask it, so that they
 * cannot disagree. It checks what validateConfig's remoteRoutes would refuse of a derived route
 * (a SID inside this node's own locator), so a refused route is one endpoint's problem, not a
 * retry of the whole derivation.
 */
export type RemoteRouteVerdict =
  | { readonly sid: string; readonly problem?: undefined }
  | { readonly sid: undefined; readonly problem: RecordProblem | undefined };

const LOCAL: RemoteRouteVerdict = { sid: undefined, problem: undefined };

export function remoteRouteOf(
  schema: KeySchema,
  self: NodeRecord,
  nodes: ReadonlyMap<string, NodeRecord>,
  vpc: VpcRecord,
  key: string,
  ep: EndpointRecord,
  lanes: RouteLanes,
): RemoteRouteVerdict {
  if (ep.node === self.name) return LOCAL;
  const remote = nodes.get(ep.node);
  const refused = (message: string, path = 'node'): RemoteRouteVerdict => ({
    sid: undefined,
    problem: { key, path, message },
  });
  if (!remote) return refused(`node ${ep.node} has no record (${schema.node(ep.node)})`);
  const nodeRefused = lanes.refusedNodes.get(ep.node);
  if (nodeRefused !== undefined)
    return refused(`node ${ep.node}'s record (${schema.node(ep.node)}) is refused: ${nodeRefused}`);
  if (ep.family === 6) {
    const why = ip6EndpointProblem(self, vpc, ep);
    if (why) return refused(why, '(key) prefix');
  } else if (!vpc.hasSubnets4)
    return refused(`is IPv4, but VPC ${vpc.name} has no IPv4 subnet`, '(key) prefix');
  else {
    const why = reservedIp4Overlap(ep.prefix, vpc.gateway, ownServicesGateway(self));
    if (why) return refused(why, '(key) prefix');
  }
  const holder = localPortOf(lanes.local, vpc.name, ep.prefix, ep.family);
  if (holder !== undefined) return refused(localWinsMessage(holder, ep.prefix));
  const verdict = sidVerdict(self, remote, vpc);
  const sid = ep.family === 6 ? verdict.dt6() : verdict.dt4;
  return typeof sid === 'string' ? refused(sid) : sid;
}

/** What validateRemoteRoutes would refuse of an IPv6 route from this endpoint, or undefined. */
function ip6EndpointProblem(self: NodeRecord, vpc: VpcRecord, ep: EndpointRecord): string | undefined {
  if (!vpc.hasSubnets6) return `is IPv6, but VPC ${vpc.name} has no IPv6 subnet`;
  return (
    remoteIp6Problem(ep.prefix, ownNodeConfig(self)) ??
    serviceIp6Problem(ep.prefix, ownServices(self)?.ip6, 'inside')
  );
}

/** The own node's service bridge, whose prefixes no endpoint may reach into (read once per record). */
const ownServicesOf = new WeakMap<NodeRecord, ServicesConfig | undefined>();

function ownServices(self: NodeRecord): ServicesConfig | undefined {
  if (!ownServicesOf.has(self)) {
    const services = self.raw.services;
    ownServicesOf.set(self, services === undefined ? undefined : validateServices(new Checker(), services));
  }
  return ownServicesOf.get(self);
}

function ownServicesGateway(self: NodeRecord): Ip4Prefix | undefined {
  return ownServices(self)?.gateway;
}

/** The own node's config, for the prefixes its table 0 routes (read once per record). */
const ownNodeConfigs = new WeakMap<NodeRecord, NodeConfig | undefined>();

function ownNodeConfig(self: NodeRecord): NodeConfig | undefined {
  if (!ownNodeConfigs.has(self)) {
    const { services: _, ...node } = self.raw;
    ownNodeConfigs.set(self, validateNode(new Checker(), { ...node, name: self.name }));
  }
  return ownNodeConfigs.get(self);
}

/**
 * A remote node's SID for a VPC as seen from `self`, or why it is refused, computed once per
 * (self, remote, VPC) and not per endpoint: a VPC's 10k endpoints sit on a few hundred nodes,
 * and the SID's arithmetic (BigInt, IPv6 text) was a tenth of a 100k-endpoint derivation.
 * Records are immutable (a change is a new record), so the cache is keyed by the objects.
 */
const sidVerdicts = new WeakMap<NodeRecord, WeakMap<NodeRecord, WeakMap<VpcRecord, SidVerdicts>>>();

/** The DT4 SID (or why not) at once, the DT6 one when first asked: IPv4-only VPCs never need it. */
interface SidVerdicts {
  readonly dt4: { sid: string } | string;
  dt6(): { sid: string } | string;
}

function sidVerdict(self: NodeRecord, remote: NodeRecord, vpc: VpcRecord): SidVerdicts {
  let bySelf = sidVerdicts.get(remote);
  if (!bySelf) sidVerdicts.set(remote, (bySelf = new WeakMap()));
  let byVpc = bySelf.get(self);
  if (!byVpc) bySelf.set(self, (byVpc = new WeakMap()));
  let verdict = byVpc.get(vpc);
  if (verdict === undefined) {
    let dt6: { sid: string } | string | undefined;
    verdict = {
      dt4: computeSidVerdict(self, remote, vpc, 4),
      dt6: () => (dt6 ??= computeSidVerdict(self, remote, vpc, 6)),
    };
    byVpc.set(vpc, verdict);
  }
  return verdict;
}

function computeSidVerdict(
  self: NodeRecord,
  remote: NodeRecord,
  vpc: VpcRecord,
  family: 4 | 6,
): { sid: string } | string {
  const locator = `${remote.locator.address}/${remote.locator.len}`;
  if (family === 6 && remote.locator.len > MAX_IP6_LOCATOR_LEN)
    return `node ${remote.name}'s locator ${locator} is longer than /${MAX_IP6_LOCATOR_LEN}: it cannot hold End.DT6 SIDs (locator + 2^24 + the SID index)`;
  let sid: string;
  try {
    sid = family === 4 ? vpcSid(remote, vpc) : vpcSid6(remote, vpc);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return `node ${remote.name}'s locator ${locator} cannot hold VPC ${vpc.name}'s SID index ${vpc.sidIndex}`;
  }
  const what = family === 4 ? 'SID' : 'End.DT6 SID';
  if (ip6InPrefix(sid, self.locator))
    return `node ${remote.name}'s ${what} for VPC ${vpc.name}, ${sid}, is inside this node's own locator ${self.locator.address}/${self.locator.len}`;
  return { sid };
}

/** The VPCs a node's ports are in: the scope of its VPC and endpoint watches. */
export function portVpcs(ports: Iterable<PortRecord>): Set<string> {
  return new Set([...ports].map((p) => p.vpc));
}

const byName = <T extends { readonly name: string }>(a: T, b: T): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

export function deriveAgentConfig(schema: KeySchema, nodeName: string, view: NodeView): Derivation {
  const nodeKey = schema.node(nodeName);
  const node = view.nodes.get(nodeName);
  const sources = fleetSources(view.nodes);
  if (!node)
    return {
      config: undefined,
      problems: [{ key: nodeKey, path: '(record)', message: 'is missing: the node has no record' }],
      routes: [],
      lanes: OPEN_LANES,
      sources,
    };
  const problems: RecordProblem[] = [];
  const refused = refusedNodes(schema, view.nodes, nodeName);
  for (const [name, why] of [...refused].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    problems.push({ key: schema.node(name), path: 'srv6', message: why });
  // Local ports are known once the config is validated: the routes are checked against them then.
  const unvalidatedLanes: RouteLanes = { local: NO_LOCAL_ADDRESSES, refusedNodes: refused };
  const dropped = new Set<string>();
  // validateConfig would blame the node's locator for an IPv6 VPC's DT6 SID: the VPC is what the
  // node cannot serve, its other VPCs go on.
  if (node.locator.len > MAX_IP6_LOCATOR_LEN) {
    for (const name of [...portVpcs(view.ports.values())].sort()) {
      if (!view.vpcs.get(name)?.hasSubnets6) continue;
      dropped.add(schema.vpc(name));
      problems.push({
        key: schema.vpc(name),
        path: 'subnets',
        message: `has an IPv6 subnet, but node ${nodeName}'s locator ${node.locator.address}/${node.locator.len} is longer than /${MAX_IP6_LOCATOR_LEN}: it cannot hold the VPC's End.DT6 SID`,
      });
    }
  }

  for (let attempt = 0; attempt < 4; attempt++) {
    const vpcs: VpcRecord[] = [];
    for (const name of [...portVpcs(view.ports.values())].sort()) {
      const vpc = view.vpcs.get(name);
      if (vpc && !dropped.has(schema.vpc(name))) vpcs.push(vpc);
    }
    const vpcNames = new Set(vpcs.map((v) => v.name));
    const ports: PortRecord[] = [];
    for (const port of [...view.ports.values()].sort(byName)) {
      const key = schema.port(port.node, port.name);
      if (dropped.has(key)) continue;
      if (!vpcNames.has(port.vpc)) {
        if (attempt === 0 && !view.vpcs.has(port.vpc))
          problems.push({
            key,
            path: 'vpc',
            message: `VPC ${port.vpc} has no record (${schema.vpc(port.vpc)})`,
          });
        continue;
      }
      ports.push(port);
    }
    const live = new Set(ports.map((p) => p.vpc));
    const usedVpcs = vpcs.filter((v) => live.has(v.name));

    // The routes of this attempt's VPCs; their problems count only if the attempt is the config.
    const routeProblems: RecordProblem[] = [];
    const remoteRoutes: EndpointRoute[] = [];
    for (const vpc of usedVpcs) {
      const endpoints = view.endpoints.get(vpc.name);
      if (!endpoints) continue;
      for (const key of [...endpoints.keys()].sort()) {
        if (dropped.has(key)) continue;
        const ep = endpoints.get(key) as EndpointRecord;
        const route = remoteRouteOf(schema, node, view.nodes, vpc, key, ep, unvalidatedLanes);
        if (route.problem) routeProblems.push(route.problem);
        if (route.sid === undefined) continue;
        remoteRoutes.push(new EndpointRoute(vpc.name, key, route.sid));
      }
    }

    const { services, ...nodeFields } = node.raw;
    const raw = {
      node: { ...nodeFields, name: nodeName, srv6: withFleetSources(nodeFields.srv6, sources) },
      ...(services !== undefined && { services }),
      vpcs: usedVpcs.map((v) => {
        const { sidIndex: _, ...fields } = v.raw;
        return {
          ...fields,
          name: v.name,
          sid: vpcSid(node, v),
          ...(v.hasSubnets6 && { sid6: vpcSid6(node, v) }),
        };
      }),
      ports: ports.map((p) => ({ ...p.raw, name: p.name })),
      // The routes are not validated again: remoteRouteOf made each from validated records and
      // checked what validateRemoteRoutes would (a valid prefix and SID, a VPC of the config, the
      // SID outside the own locator; endpoint keys are unique per VPC and prefix). Formatting
      // 100k routes to text and parsing them back was a third of a large derivation.
      remoteRoutes: [],
    };
    try {
      const validated = validateConfig(raw);
      const lanes: RouteLanes = { local: localAddressesOf(validated.ports), refusedNodes: refused };
      const routes = localWins(lanes.local, remoteRoutes, routeProblems);
      const config: AgentConfig = { ...validated, remoteRoutes: routes };
      return { config, problems: [...problems, ...routeProblems], routes, lanes, sources };
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      let nodeBroken = false;
      for (const p of err.problems) {
        const m = /^(vpcs|ports)\[(\d+)\]\.?(.*)$/.exec(p.path);
        const list = m?.[1];
        const index = Number(m?.[2]);
        const key =
          list === 'vpcs'
            ? schema.vpc(usedVpcs[index]?.name ?? '')
            : list === 'ports'
              ? schema.port(nodeName, ports[index]?.name ?? '')
              : undefined;
        if (key === undefined) {
          nodeBroken = true;
          problems.push({ key: nodeKey, path: p.path.replace(/^node\./, ''), message: p.message });
          continue;
        }
        dropped.add(key);
        problems.push({ key, path: m?.[3] || '(record)', message: p.message });
      }
      if (nodeBroken) return { config: undefined, problems, routes: [], lanes: OPEN_LANES, sources };
    }
  }
  return { config: undefined, problems, routes: [], lanes: OPEN_LANES, sources };
}

/**
 * A node record's srv6 section with the SRv6 ingress filter's sources filled in, unless the record
 * names its own: the fleet's sources (fleetSources), as a file's default is its own underlay prefix.
 */
function withFleetSources(srv6: unknown, sources: readonly string[]): unknown {
  if (srv6 === null || typeof srv6 !== 'object' || 'allowedSources' in srv6) return srv6;
  return { ...srv6, allowedSources: sources };
}

/**
 * Where the fleet's SRv6 packets come from: every node record's underlay prefix (and an
 * encapsulation source outside it), aggregated. Nodes sharing a prefix share one rule, and a node
 * that joins or leaves a prefix others still use changes nothing: the filter follows the fleet
 * without re-deriving every node for every node that comes or goes.
 */
export function fleetSources(nodes: ReadonlyMap<string, NodeRecord>): string[] {
  return aggregateIp6([...nodes.values()].flatMap((n) => n.sources)).map((p) => `${p.address}/${p.len}`);
}

/**
 * The routes without those whose address a local port holds, each left out as its endpoint's
 * problem (logged and counted with the others): remoteRouteOf's local-wins rule, applied once
 * the local ports are known.
 */
function localWins(
  local: LocalAddresses,
  routes: EndpointRoute[],
  problems: RecordProblem[],
): EndpointRoute[] {
  if (local.size === 0) return routes;
  const kept: EndpointRoute[] = [];
  for (const r of routes) {
    const prefix = r.prefix;
    const holder = localPortOf(local, r.vpc, prefix, r.family);
    if (holder === undefined) kept.push(r);
    else problems.push({ key: r.key, path: 'node', message: localWinsMessage(holder, prefix) });
  }
  return kept;
}
