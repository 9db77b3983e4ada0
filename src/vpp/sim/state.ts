/**
 * Read-only snapshots of a simulated VPP's state, for tests and demos. Plain data, detached from
 * the simulator: taking one never changes anything, and later changes do not show in it.
 */
import type { ErrorCounterSnapshot } from './error-counters.js';
import type { FibEntry } from './fib.js';
import { ipText } from './ip-addr.js';
import type { NeighborDbConfig, SentAdvertisement } from './ip-neighbor.js';
import { SmFlag } from './nat44-ei-mappings.js';
import type { UrpfEntrySnapshot } from './urpf.js';
import type { Vpp } from './vpp.js';

export interface InterfaceSnapshot {
  readonly swIfIndex: number;
  readonly name: string;
  readonly kind: string;
  readonly devType: string;
  readonly mac: string | undefined;
  readonly adminUp: boolean;
  readonly linkUp: boolean;
  readonly mtu: readonly number[];
  readonly tag: string;
  readonly ip4Table: number;
  readonly ip6Table: number;
  readonly addresses: readonly string[];
  readonly unnumberedTo: number | undefined;
  readonly bridge: { readonly bdId: number; readonly bvi: boolean; readonly shg: number } | undefined;
  readonly proxyArp: boolean;
  /** The IPv6 link-local address while IPv6 is enabled (ip6_link), else undefined. */
  readonly linkLocal: string | undefined;
  /** The ND mirror proxy features (ip6nd_proxy_enable_disable). */
  readonly ip6NdProxy: boolean;
}

export interface TableSnapshot {
  readonly af: 4 | 6;
  readonly tableId: number;
  readonly name: string;
  readonly fibIndex: number;
  readonly routes: number;
}

export interface RouteSnapshot {
  readonly prefix: string;
  readonly statsIndex: number;
  /** fib sources present, best first ("api", "interface", ...) */
  readonly sources: readonly string[];
  readonly paths: readonly {
    readonly swIfIndex: number;
    readonly nextHop: string | undefined;
    readonly tableId: number;
    readonly kind: string;
  }[];
}

export interface SimState {
  readonly interfaces: readonly InterfaceSnapshot[];
  readonly tables: readonly TableSnapshot[];
  /** Routes of one table in dump order (undefined when the table does not exist). */
  routes(tableId: number, af?: 4 | 6): readonly RouteSnapshot[] | undefined;
  readonly sr: {
    readonly encapSource: string;
    readonly hopLimit: number;
    readonly localsids: readonly {
      readonly sid: string;
      readonly behavior: number;
      readonly fibTable: number;
      readonly vrfTable: number | undefined;
    }[];
    readonly policies: readonly {
      readonly bsid: string;
      readonly isEncap: boolean;
      readonly fibTable: number;
      readonly encapSource: string;
      readonly segmentLists: readonly (readonly string[])[];
    }[];
    readonly steering: readonly {
      readonly trafficType: number;
      readonly tableId: number;
      readonly prefix: string;
      readonly bsid: string;
    }[];
  };
  readonly bridgeDomains: readonly {
    readonly bdId: number;
    readonly tag: string;
    readonly bvi: number | undefined;
    readonly members: readonly number[];
  }[];
  readonly nat: {
    readonly enabled: boolean;
    readonly outputInterfaces: readonly number[];
    readonly staticMappings: readonly {
      readonly local: string;
      readonly external: string;
      readonly vrfId: number;
      readonly flags: number;
      readonly tag: string;
    }[];
    readonly identityMappings: readonly {
      readonly address: string;
      readonly vrfIds: readonly number[];
      readonly tag: string;
    }[];
  };
  readonly nat44Ei: {
    readonly enabled: boolean;
    readonly outputInterfaces: readonly number[];
    readonly staticMappings: readonly {
      readonly local: string;
      readonly external: string;
      readonly vrfId: number;
      readonly addrOnly: boolean;
      readonly tag: string;
    }[];
    readonly identityMappings: readonly {
      readonly address: string;
      readonly vrfIds: readonly number[];
      readonly tag: string;
    }[];
    /** Resolve records (mappings to an interface's address), static and identity. */
    readonly resolveRecords: number;
  };
  readonly acls: readonly { readonly index: number; readonly tag: string; readonly rules: number }[];
  readonly aclInterfaces: readonly {
    readonly swIfIndex: number;
    readonly input: readonly number[];
    readonly output: readonly number[];
  }[];
  /** The ACL plugin's sessions (permit+reflect), as aclVerdict made them. */
  readonly aclSessions: number;
  /** The acl plugin's UDP idle timeout ("set acl-plugin session timeout udp idle"). */
  readonly aclUdpIdleSeconds: number;
  /**
   * vlib error counters the models incremented (urpfVerdict, aclVerdict), in `show errors`
   * order: `count` since the last `clear errors`, `total` since the process started.
   */
  readonly errors: readonly ErrorCounterSnapshot[];
  readonly dhcpProxies: readonly {
    readonly rxTableId: number;
    readonly src: string;
    readonly servers: readonly { readonly address: string; readonly tableId: number }[];
    readonly vss: string | undefined;
  }[];
  readonly proxyArp: readonly { readonly tableId: number; readonly low: string; readonly high: string }[];
  /**
   * uRPF configuration (urpf_cfgs) a dump could list: mode not OFF or a custom table, by
   * sw_if_index, then IPv4/IPv6, then RX/TX. Includes entries a deleted interface left behind
   * (interfaceExists false); `checking` says whether the node really checks packets.
   */
  readonly urpf: readonly UrpfEntrySnapshot[];
  /** The neighbour database's configuration per family, and the advertisements sent (arping GARP/NA). */
  readonly neighbors: {
    readonly config: { readonly ip4: NeighborDbConfig; readonly ip6: NeighborDbConfig };
    /** The entries ip_neighbor_add_del made, IPv4 then IPv6. */
    readonly entries: readonly {
      readonly swIfIndex: number;
      readonly address: string;
      readonly mac: string;
      readonly isStatic: boolean;
    }[];
    readonly advertisements: readonly SentAdvertisement[];
  };
  readonly clients: readonly { readonly index: number; readonly handle: number; readonly name: string }[];
  readonly eventSubscribers: readonly number[];
  /** Requests handled, by message name. */
  readonly requestCounts: ReadonlyMap<string, number>;
  /** Requests with an id the simulator had no handler for (no reply), by name or #id. */
  readonly unansweredCounts: ReadonlyMap<string, number>;
  readonly restarts: number;
  /** Why the simulated VPP crashed, in order (see VppCrash). */
  readonly crashes: readonly string[];
  readonly stalled: boolean;
  readonly loadBalancesInUse: number;
}

const SOURCE_NAMES = new Map([
  [1, 'special'],
  [2, 'classify'],
  [3, 'proxy'],
  [4, 'interface'],
  [5, 'sr'],
  [8, 'api'],
  [9, 'cli'],
  [12, 'dhcp'],
  [14, 'ip6-nd'],
  [15, 'adjacency'],
  [18, 'recursive-resolution'],
  [20, 'default-route'],
  [29, 'nat44-ei-low'],
  [30, 'nat44-ei-hi'],
  [34, 'nat-low'],
  [35, 'nat-hi'],
]);

const PATH_KIND = [
  'attached-nexthop',
  'attached',
  'recursive',
  'special',
  'exclusive',
  'deag',
  'intf-rx',
  'udp-encap',
  'receive',
  'bier-imp',
  'bier-table',
  'bier-fmask',
  'dvr',
];

function routeOf(vpp: Vpp, e: FibEntry): RouteSnapshot {
  const best = e.bestSource();
  const sources = [best, ...[...e.sources.keys()].filter((s) => s !== best)].map(
    (s) => SOURCE_NAMES.get(s) ?? `src${s}`,
  );
  return {
    prefix: `${ipText(e.prefix.addr)}/${e.prefix.len}`,
    statsIndex: e.lb,
    sources,
    paths: vpp.fib.pathsOf(e).map((p) => ({
      swIfIndex: p.swIfIndex,
      nextHop: p.nh.length > 0 ? ipText(p.nh) : undefined,
      tableId: p.type === 5 || p.type === 2 ? vpp.fib.tableIdOf(p.proto === 1 ? 6 : 4, p.fibIndex) : 0,
      kind: PATH_KIND[p.type] ?? String(p.type),
    })),
  };
}

export function snapshot(
  vpp: Vpp,
  extra: {
    clients: { index: number; handle: number; name: string }[];
    counts: {
      handled: Map<string, number>;
      unknown: Map<string, number>;
      unhandled: Map<string, number>;
      truncated: Map<string, number>;
    };
    restarts: number;
    crashes: readonly string[];
    stalled: boolean;
  },
): SimState {
  const fib = vpp.fib;
  const unanswered = new Map<string, number>();
  for (const m of [extra.counts.unknown, extra.counts.unhandled, extra.counts.truncated])
    for (const [k, v] of m) unanswered.set(k, (unanswered.get(k) ?? 0) + v);
  return {
    interfaces: [...vpp.interfaces.pool.values()].map((sw) => {
      const ipIf = vpp.ip.ipIf(sw.swIfIndex);
      return {
        swIfIndex: sw.swIfIndex,
        name: sw.name,
        kind: sw.kind,
        devType: sw.devType,
        mac: sw.mac ? [...sw.mac].map((b) => b.toString(16).padStart(2, '0')).join(':') : undefined,
        adminUp: sw.adminUp,
        linkUp: sw.linkUp,
        mtu: [...sw.mtu],
        tag: sw.tag,
        ip4Table: fib.tableIdOf(4, ipIf.fibIndex[0]),
        ip6Table: fib.tableIdOf(6, ipIf.fibIndex[1]),
        addresses: [...vpp.ip.addressesOf(sw.swIfIndex, 4), ...vpp.ip.addressesOf(sw.swIfIndex, 6)].map(
          (a) => `${ipText(a.addr)}/${a.len}`,
        ),
        unnumberedTo: ipIf.unnumberedTo,
        bridge: vpp.l2.portOf(sw.swIfIndex),
        proxyArp: vpp.proxyArp.enabled.has(sw.swIfIndex),
        linkLocal: ((ll) => (ll ? ipText(ll) : undefined))(vpp.ip6Link.linkLocalOf(sw.swIfIndex)),
        ip6NdProxy: vpp.ip6NdProxy.mirror.has(sw.swIfIndex),
      };
    }),
    tables: ([4, 6] as const).flatMap((af) =>
      [...fib.pool(af).values()]
        .filter((t) => !t.linkLocal)
        .map((t) => ({ af, tableId: t.tableId, name: t.desc, fibIndex: t.index, routes: t.entryCount })),
    ),
    routes: (tableId, af = 4) => {
      const t = fib.find(af, tableId);
      return t ? fib.walk(t).map((e) => routeOf(vpp, e)) : undefined;
    },
    sr: {
      encapSource: ipText(vpp.sr.encapSource),
      hopLimit: vpp.sr.hopLimit,
      localsids: [...vpp.srLocalSids.entries.values()].map((l) => ({
        sid: ipText(l.addr),
        behavior: l.behavior,
        fibTable: l.fibTable,
        vrfTable:
          l.behavior === 9 || l.behavior === 8 || l.behavior === 3
            ? l.swIfIndexOrVrf === 0xffffffff
              ? undefined
              : fib.tableIdOf(l.behavior === 9 ? 4 : 6, l.swIfIndexOrVrf)
            : undefined,
      })),
      policies: [...vpp.sr.policies.values()].map((p) => ({
        bsid: ipText(p.bsid),
        isEncap: p.isEncap,
        fibTable: p.fibTable,
        encapSource: ipText(p.encapSrc),
        segmentLists: p.segmentLists.map((sl) => sl.sids.map((s) => ipText(s))),
      })),
      steering: [...vpp.sr.steering.values()].map((s) => ({
        trafficType: s.trafficType,
        tableId: s.fibTable,
        prefix: s.trafficType === 2 ? `sw${s.swIfIndex}` : `${ipText(s.prefix)}/${s.prefixLen}`,
        bsid: ipText(vpp.sr.policies.get(s.policy)?.bsid ?? s.bsid),
      })),
    },
    bridgeDomains: vpp.l2.bridges().map((b) => ({
      bdId: b.bdId,
      tag: b.tag,
      bvi: b.bviSwIfIndex === 0xffffffff ? undefined : b.bviSwIfIndex,
      members: b.members.map((m) => m.swIfIndex),
    })),
    nat: {
      enabled: vpp.nat.enabled,
      outputInterfaces: [...vpp.nat.outputInterfaces.values()],
      staticMappings: [...vpp.nat.mappings.values()]
        .filter((m) => !m.identity)
        .map((m) => ({
          local: ipText(m.localAddr),
          external: ipText(m.externalAddr),
          vrfId: m.vrfId,
          flags: m.flags,
          tag: m.tag,
        })),
      identityMappings: [...vpp.nat.mappings.values()]
        .filter((m) => m.identity)
        .map((m) => ({
          address: ipText(m.externalAddr),
          vrfIds: [...m.locals.values()].map((l) => l.vrfId),
          tag: m.tag,
        })),
    },
    nat44Ei: {
      enabled: vpp.nat44Ei.enabled,
      outputInterfaces: [...vpp.nat44Ei.outputInterfaces.values()],
      staticMappings: [...vpp.nat44Ei.mappings.pool.values()]
        .filter((m) => !(m.flags & SmFlag.IDENTITY))
        .map((m) => ({
          local: ipText(m.localAddr),
          external: ipText(m.externalAddr),
          vrfId: m.vrfId,
          addrOnly: (m.flags & SmFlag.ADDR_ONLY) !== 0,
          tag: m.tag,
        })),
      identityMappings: [...vpp.nat44Ei.mappings.pool.values()]
        .filter((m) => m.flags & SmFlag.IDENTITY)
        .map((m) => ({
          address: ipText(m.externalAddr),
          vrfIds: [...m.locals.values()].map((l) => l.vrfId),
          tag: m.tag,
        })),
      resolveRecords: vpp.nat44Ei.mappings.toResolve.length,
    },
    acls: [...vpp.acl.acls.entries()].map(([index, a]) => ({ index, tag: a.tag, rules: a.rules.length })),
    aclInterfaces: [...new Set([...vpp.acl.input.keys(), ...vpp.acl.output.keys()])]
      .sort((a, b) => a - b)
      .map((sw) => ({
        swIfIndex: sw,
        input: [...(vpp.acl.input.get(sw) ?? [])],
        output: [...(vpp.acl.output.get(sw) ?? [])],
      })),
    aclSessions: vpp.acl.sessions.size,
    aclUdpIdleSeconds: vpp.acl.udpIdleSeconds,
    errors: vpp.errors.snapshot(),
    dhcpProxies: ([0, 1] as const).flatMap((i) =>
      [...vpp.dhcp.proxies[i].values()].map((p) => {
        const af = i === 0 ? 4 : 6;
        const v = vpp.dhcp.vss[i].get(p.rxFibIndex);
        return {
          rxTableId: fib.tableIdOf(af, p.rxFibIndex),
          src: ipText(p.src),
          servers: p.servers.map((s) => ({
            address: ipText(s.addr),
            tableId: fib.tableIdOf(af, s.serverFibIndex),
          })),
          vss: v ? (v.type === 0 ? v.asciiId : v.vpnId.toString('hex')) : undefined,
        };
      }),
    ),
    proxyArp: vpp.proxyArp.ranges.map((p) => ({
      tableId: fib.tableIdOf(4, p.fibIndex),
      low: ipText(p.lo),
      high: ipText(p.hi),
    })),
    urpf: vpp.urpf.entries(),
    neighbors: {
      config: { ip4: { ...vpp.ipNeighbor.config[4] }, ip6: { ...vpp.ipNeighbor.config[6] } },
      entries: ([4, 6] as const).flatMap((af) =>
        vpp.ipNeighbor.neighbors(af).map((n) => ({
          swIfIndex: n.swIfIndex,
          address: ipText(n.addr),
          mac: [...n.mac].map((b) => b.toString(16).padStart(2, '0')).join(':'),
          isStatic: n.isStatic,
        })),
      ),
      advertisements: vpp.ipNeighbor.advertisements.map((a) => ({ ...a })),
    },
    clients: extra.clients,
    eventSubscribers: vpp.interfaces.eventSubscribers(),
    requestCounts: new Map(extra.counts.handled),
    unansweredCounts: unanswered,
    restarts: extra.restarts,
    crashes: [...extra.crashes],
    stalled: extra.stalled,
    loadBalancesInUse: fib.lbs.inUse,
  };
}
