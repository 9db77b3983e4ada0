/**
 * IP tables and routes through the API (VPP 26.06 ip_api.c, fib/fib_api.c, fib_table.c): table
 * create and delete, route add and delete with the paths decoded as VPP decodes them, and the
 * table and route dumps. The FIB they act on is fib.ts; the routes interfaces make are
 * ip-interface-routes.ts.
 */
import type { Message } from '../codec/schema.js';
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import type { Fib, FibEntry } from './fib.js';
import { DpoProto, encodePath, PathCfg, PathType, type FibPath } from './fib-path.js';
import { FibSource } from './fib-sources.js';
import type { Interfaces } from './interfaces.js';
import { apiAddress, fromApiAddress, ip4Bytes, ip6Bytes, isZero, type Af, type IpPrefix } from './ip-addr.js';
import { Rv } from './retval.js';

type ApiFibPath = Message<typeof msg.ip_route_add_del>['route']['paths'][number];

const ANY = 0xffffffff;
const EMPTY_NH: Readonly<Record<Af, Buffer>> = { 4: Buffer.alloc(4), 6: Buffer.alloc(16) };

export class IpRoutes {
  readonly #fib: Fib;
  readonly #interfaces: Interfaces;

  constructor(fib: Fib, interfaces: Interfaces) {
    this.#fib = fib;
    this.#interfaces = interfaces;
  }

  /** fib_api_path_decode + fib_path_create's type choice. Returns a path or an rv. */
  decodePath(p: ApiFibPath): FibPath | number {
    const weight = p.weight === 0 ? 1 : p.weight;
    if (p.proto > 4) return -1; // fib_api_path_nh_proto_to_dpo
    const proto = p.proto;
    const base = { proto, weight, preference: p.preference, nh: Buffer.alloc(0), fibIndex: 0, cfg: 0 };
    const labels =
      p.n_labels === 0
        ? undefined
        : p.label_stack
            .slice(0, p.n_labels)
            .map((l) => ({ label: l.label, ttl: l.ttl, exp: l.exp, isUniform: l.is_uniform }));
    const withLabels = (fp: FibPath): FibPath => (labels ? { ...fp, labels } : fp);
    switch (p.type) {
      case 8: // DVR
        return withLabels({ ...base, type: PathType.DVR, swIfIndex: p.sw_if_index });
      case 9: // INTERFACE_RX
        return withLabels({ ...base, type: PathType.INTF_RX, swIfIndex: p.sw_if_index });
      case 2: // DROP
        return withLabels({ ...base, type: PathType.SPECIAL, swIfIndex: ANY, cfg: PathCfg.DROP });
      case 5:
        return withLabels({ ...base, type: PathType.SPECIAL, swIfIndex: ANY, cfg: PathCfg.ICMP_UNREACH });
      case 6:
        return withLabels({ ...base, type: PathType.SPECIAL, swIfIndex: ANY, cfg: PathCfg.ICMP_PROHIBIT });
      case 1: // LOCAL: the interface, no address decoded
        return withLabels({
          ...base,
          type: PathType.RECEIVE,
          swIfIndex: p.sw_if_index,
          nh: proto === DpoProto.IP6 ? Buffer.alloc(16) : Buffer.alloc(4),
          cfg: PathCfg.LOCAL,
        });
      case 10: // CLASSIFY: no classify tables exist here
        return Rv.NO_SUCH_TABLE;
      case 3: // UDP_ENCAP
        return withLabels({ ...base, type: PathType.UDP_ENCAP, swIfIndex: ANY });
      case 4: // BIER_IMP
        return Rv.UNSUPPORTED;
      default:
        break;
    }
    // NORMAL (and SOURCE_LOOKUP)
    if (proto === DpoProto.IP4 || proto === DpoProto.IP6) {
      const af: Af = proto === DpoProto.IP6 ? 6 : 4;
      const text = af === 6 ? p.nh.address.ip6 : p.nh.address.ip4;
      const nh =
        text === '0.0.0.0' || text === '::' ? EMPTY_NH[af] : af === 6 ? ip6Bytes(text) : ip4Bytes(text);
      const sw = p.sw_if_index >>> 0;
      if (sw === ANY) {
        const t = this.#fib.find(af, p.table_id);
        if (!t) return Rv.NO_SUCH_FIB;
        if (isZero(nh))
          return withLabels({ ...base, type: PathType.DEAG, swIfIndex: ANY, fibIndex: t.index });
        return withLabels({ ...base, type: PathType.RECURSIVE, swIfIndex: ANY, nh, fibIndex: t.index });
      }
      if (!this.#interfaces.isValid(sw)) return Rv.NO_MATCHING_INTERFACE;
      if (isZero(nh)) return withLabels({ ...base, type: PathType.ATTACHED, swIfIndex: sw });
      return withLabels({ ...base, type: PathType.ATTACHED_NEXT_HOP, swIfIndex: sw, nh });
    }
    if (proto === DpoProto.ETHERNET)
      return withLabels({ ...base, type: PathType.ATTACHED, swIfIndex: p.sw_if_index });
    // MPLS via label / BIER: GUESS: kept as an unresolved special path (no MPLS model here).
    return withLabels({ ...base, type: PathType.SPECIAL, swIfIndex: ANY });
  }

  /** ip_route_add_del_t_handler: rv and stats_index. */
  routeAddDel(m: Message<typeof msg.ip_route_add_del>): { rv: number; statsIndex: number } {
    const r = m.route;
    const af: Af = r.prefix.address.af === 1 ? 6 : 4;
    const t = this.#fib.find(af, r.table_id);
    if (!t) return { rv: Rv.NO_SUCH_FIB, statsIndex: ANY };
    const paths: FibPath[] = [];
    for (const p of r.paths) {
      const fp = this.decodePath(p);
      if (typeof fp === 'number') return { rv: fp, statsIndex: ANY };
      paths.push(fp);
    }
    if ((af === 4 && r.prefix.len > 32) || (af === 6 && r.prefix.len > 128))
      return { rv: Rv.INVALID_PREFIX_LENGTH, statsIndex: ANY };
    const prefix: IpPrefix = { af, addr: fromApiAddress(r.prefix.address), len: r.prefix.len };
    for (let i = 0; i < paths.length; i++) paths[i] = routePathFixup(prefix, paths[i] as FibPath);
    if (m.is_multipath) {
      if (paths.length === 0) return { rv: Rv.NO_PATHS_IN_ROUTE, statsIndex: ANY };
      if (m.is_add) this.#fib.pathAdd(t, prefix, FibSource.API, paths);
      else this.#fib.pathRemove(t, prefix, FibSource.API, paths);
    } else if (m.is_add) {
      if (paths.length === 0) return { rv: Rv.NO_PATHS_IN_ROUTE, statsIndex: ANY };
      this.#fib.sourceAdd(t, prefix, FibSource.API, { kind: 'paths', paths });
    } else {
      this.#fib.sourceRemove(t, prefix, FibSource.API);
    }
    const statsIndex = m.is_add ? (this.#fib.lookupExact(t, prefix)?.lb ?? ANY) : ANY;
    return { rv: 0, statsIndex };
  }

  routeDetails(e: FibEntry): {
    table_id: number;
    stats_index: number;
    prefix: { address: ReturnType<typeof apiAddress>; len: number };
    paths: Record<string, unknown>[];
  } {
    return {
      table_id: e.table.tableId,
      stats_index: e.lb,
      prefix: { address: apiAddress(e.prefix.addr), len: e.prefix.len },
      paths: this.#fib.pathsOf(e).map((p) => encodePath(p, this.#fib)),
    };
  }

  register(d: Dispatcher): void {
    d.on(msg.ip_table_add_del, (m, call) => {
      const af: Af = m.table.is_ip6 ? 6 : 4;
      // ip_table_create / ip_table_delete: table 0 is always there and is left alone
      if (m.table.table_id !== 0) {
        if (m.is_add) {
          this.#fib.findOrCreateAndLock(af, m.table.table_id, FibSource.API, m.table.name);
        } else {
          const t = this.#fib.find(af, m.table.table_id);
          if (t) this.#fib.unlock(t, FibSource.API);
        }
      }
      call.reply({ retval: 0 });
    });

    d.on(msg.ip_table_dump, (_m, call) => {
      if (!call.reg) return;
      for (const af of [4, 6] as const) {
        for (const t of this.#fib.pool(af).values()) {
          if (t.linkLocal) continue;
          call.details(msg.ip_table_details, {
            table: { table_id: t.tableId, is_ip6: af === 6, name: t.desc.slice(0, 63) },
          });
        }
      }
    });

    d.on(msg.ip_route_add_del, (m, call) => {
      const r = this.routeAddDel(m);
      call.reply({ retval: r.rv, stats_index: r.statsIndex });
    });

    d.on(msg.ip_route_dump, (m, call) => {
      if (!call.reg) return;
      const t = this.#fib.find(m.table.is_ip6 ? 6 : 4, m.table.table_id);
      if (!t) return;
      for (const e of this.#fib.walk(t)) call.details(msg.ip_route_details, { route: this.routeDetails(e) });
    });

    d.on(msg.ip_route_v2_dump, (m, call) => {
      if (!call.reg) return;
      const t = this.#fib.find(m.table.is_ip6 ? 6 : 4, m.table.table_id);
      if (!t) return;
      // A source filter leaves few of a VPC table's entries (its 100k SR-steered ones are not API).
      this.#fib.walkEach(t, (e) => {
        if (m.src !== 0 && !e.sources.has(m.src)) return;
        call.details(msg.ip_route_v2_details, { route: { ...this.routeDetails(e), src: e.bestSource() } });
      });
    });
  }
}

/**
 * fib_table_route_path_fixup (fib_table.c), the parts that change what a dump shows:
 * - a recursive path via the route's own address becomes a drop;
 * - a host route through an interface without a next hop gets the route's address as its next
 *   hop (an attached next hop).
 * (Entry flags LOCAL/DROP turning paths into receive/drop are applied by the callers.)
 */
export function routePathFixup(prefix: IpPrefix, p: FibPath): FibPath {
  const host = prefix.len === (prefix.af === 4 ? 32 : 128);
  if (p.type === PathType.RECURSIVE && p.nh.length === prefix.addr.length && p.nh.equals(prefix.addr)) {
    return { ...p, type: PathType.SPECIAL, cfg: p.cfg | PathCfg.DROP };
  }
  if (
    host &&
    p.type === PathType.ATTACHED &&
    p.cfg === 0 &&
    p.proto !== DpoProto.ETHERNET &&
    p.swIfIndex !== ANY
  ) {
    return { ...p, type: PathType.ATTACHED_NEXT_HOP, nh: Buffer.from(prefix.addr) };
  }
  return p;
}
