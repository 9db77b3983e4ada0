/**
 * The uRPF plugin (src/plugins/urpf in VPP 26.06): per-(address family, direction, sw_if_index)
 * configuration set by urpf_update / urpf_update_v2 and listed by urpf_interface_dump, and a model
 * of the check its nodes make, for tests that cannot send packets.
 *
 * Configuration, as urpf.c / urpf_api.c keep it (`urpf_cfgs[af][dir][sw_if_index]`, a
 * `urpf_data_t` of mode, fib_index and fib_index_is_custom):
 * - Handlers check, in order: sw_if_index (VALIDATE_SW_IF_INDEX: INVALID_SW_IF_INDEX), the mode
 *   (`urpf_mode_decode`: INVALID_VALUE), the address family (`ip_address_family_decode`:
 *   INVALID_ADDRESS_FAMILY), then `urpf_update`: a table_id other than ~0 must exist for the
 *   family (`fib_table_find`, else INVALID_VALUE, nothing stored) and is stored as a custom
 *   fib_index; ~0 stores the interface's current fib_index (not custom).
 * - urpf_update (v1) calls `urpf_update (..., 0)`: table id 0, not ~0. Every v1 configuration is
 *   therefore a *custom* table-0 configuration: the check looks up sources in table 0 whatever
 *   table the interface is bound to, a later table bind does not move it, and the dump lists it
 *   (table_id 0) even with mode OFF.
 * - Every update replaces the entry; the feature node is switched only when mode or fib_index
 *   changed (old mode's node off, new mode's node on). Mode OFF keeps the entry (with its table).
 * - A table bind (`fib_table_bind` → ip4/ip6 `table_bind_callbacks`, `urpf_table_bind_v4/v6`)
 *   moves the fib_index of the interface's non-custom entries, both directions, to the new table.
 *   Deleting an interface binds it back to table 0 first when it was elsewhere
 *   (ip4/ip6_sw_interface_add_del), which the same callback sees.
 * - Nothing else is cleaned up on interface deletion: urpf registers no interface add/del
 *   callback, so the entry stays in `urpf_cfgs`. vnet_feature_add_del_sw_interface removes every
 *   feature node of the deleted interface, so the check stops. An interface that later reuses the
 *   sw_if_index shows the old entry in dumps without being checked, and an update with the same
 *   mode and fib_index does not re-enable the node ("no change"). `checking` below tracks that.
 * - urpf_interface_dump: no registration, nothing; sw_if_index ~0 walks the interface pool in
 *   index order (deleted interfaces' stale entries are not reached), else a valid sw_if_index (an
 *   invalid one: nothing). Per interface: IPv4 RX, IPv4 TX, IPv6 RX, IPv6 TX, each listed when
 *   its mode is not OFF *or* its table is custom. table_id is `fib_table_get_table_id` of the
 *   stored fib_index at dump time: the interface's current table for non-custom entries (binds
 *   move it), the given table for custom ones.
 * - urpf does not lock the custom table. If it is deleted the entry keeps a freed fib_index.
 *   GUESS: a release build's dump then reads the freed pool element, whose ft_table_id pool_put
 *   leaves as it was: the simulator reports the table id the entry was stored with (or, once the
 *   index is reused by another table, that table's id, as VPP would).
 *
 * The check (urpf_dp.h `urpf_perform_check_x1`), see `verdict`.
 */
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import { URPF_ERROR } from './error-counters.js';
import { DpoProto, PathCfg, PathType, type FibPath } from './fib-path.js';
import { FibSource } from './fib-sources.js';
import type { FibEntry } from './fib.js';
import type { Af } from './ip-addr.js';
import { Rv } from './retval.js';
import type { Vpp } from './vpp.js';

/** urpf_mode_t / vl_api_urpf_mode_t (same numbers). */
export const UrpfMode = { OFF: 0, LOOSE: 1, STRICT: 2 } as const;

const MODE_NAMES = ['off', 'loose', 'strict'] as const;
export type UrpfModeName = (typeof MODE_NAMES)[number];

/** vlib_dir_t */
const RX = 0;
const TX = 1;
type Dir = typeof RX | typeof TX;

const ANY = 0xffffffff;

/** A udp-encap path's id is not kept by the simulator's FIB; see `urpfList`. */
const UNKNOWN_UDP_ENCAP_ID = -1;

interface UrpfData {
  mode: number;
  fibIndex: number;
  /** fib_index_is_custom: a table given by id (v2, and every v1 update: table 0). */
  custom: boolean;
  /** The table id of fibIndex when it was stored (for dumps after that table is gone). */
  tableIdWhenSet: number;
  /** Whether the mode's feature node is enabled on the interface's arc (the check runs). */
  checking: boolean;
}

export type UrpfVerdict = 'pass' | 'drop' | 'no-check';

export interface UrpfPacket {
  /** RX: the interface the packet arrived on; TX: the interface it leaves by. */
  readonly swIfIndex: number;
  readonly af: Af;
  /** 4 or 16 bytes, network order. */
  readonly src: Buffer;
  readonly dst: Buffer;
  /** Default true (RX, ip4/ip6-unicast arc); false: TX (ip4/ip6-output arc). */
  readonly isInput?: boolean;
  /** TX only: VNET_BUFFER_F_LOCALLY_ORIGINATED (VPP's own packets pass the strict TX check). */
  readonly locallyOriginated?: boolean;
}

export interface UrpfEntrySnapshot {
  readonly swIfIndex: number;
  readonly af: Af;
  readonly isInput: boolean;
  readonly mode: UrpfModeName;
  /** What urpf_interface_details.table_id says. */
  readonly tableId: number;
  readonly customTable: boolean;
  /** The feature node is enabled: packets are checked (see the deletion note above). */
  readonly checking: boolean;
  /** False for an entry left behind by a deleted interface (dumps do not reach it). */
  readonly interfaceExists: boolean;
}

/** One family's configurations: [RX, TX], each sw_if_index → entry. */
type ByDir = readonly [Map<number, UrpfData>, Map<number, UrpfData>];

function byDir(): ByDir {
  return [new Map<number, UrpfData>(), new Map<number, UrpfData>()];
}

function afIndex(af: Af): 0 | 1 {
  return af === 4 ? 0 : 1;
}

export class Urpf {
  readonly #vpp: Vpp;
  /** urpf_cfgs[af][dir]: sw_if_index → entry (absent: mode OFF, not custom). */
  readonly #cfgs: readonly [ByDir, ByDir] = [byDir(), byDir()];

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
    vpp.interfaces.deleteHooks.push((sw) => {
      // vnet_feature_add_del_sw_interface: the interface's feature nodes go; urpf_cfgs stays.
      for (const dirs of this.#cfgs)
        for (const m of dirs) {
          const d = m.get(sw.swIfIndex);
          if (d) d.checking = false;
        }
    });
  }

  #cfg(af: Af, dir: Dir): Map<number, UrpfData> {
    return this.#cfgs[afIndex(af)][dir];
  }

  /** urpf_update (urpf.c): an rv. The sw_if_index must be valid (the handlers check it first). */
  update(mode: number, swIfIndex: number, af: Af, isInput: boolean, tableId: number): number {
    const fib = this.#vpp.fib;
    let fibIndex: number;
    const custom = tableId >>> 0 !== ANY;
    if (custom) {
      const t = fib.find(af, tableId);
      if (!t) return Rv.INVALID_VALUE;
      fibIndex = t.index;
    } else {
      fibIndex = this.#vpp.ip.ipIf(swIfIndex).fibIndex[afIndex(af)];
    }
    const cfg = this.#cfg(af, isInput ? RX : TX);
    const old = cfg.get(swIfIndex) ?? {
      mode: UrpfMode.OFF,
      fibIndex: 0,
      custom: false,
      tableIdWhenSet: 0,
      checking: false,
    };
    let checking = old.checking;
    if (mode !== old.mode || fibIndex !== old.fibIndex) {
      // vnet_feature_enable_disable: disabling a node that is not on the arc changes nothing
      if (old.mode !== UrpfMode.OFF) checking = false;
      if (mode !== UrpfMode.OFF) checking = true;
    }
    cfg.set(swIfIndex, { mode, fibIndex, custom, tableIdWhenSet: fib.tableIdOf(af, fibIndex), checking });
    return 0;
  }

  /** urpf_table_bind_v4 / _v6: non-custom entries follow the interface's table. */
  onTableBind(swIfIndex: number, af: Af, fibIndex: number): void {
    for (const dir of [RX, TX] as const) {
      const d = this.#cfg(af, dir).get(swIfIndex);
      if (!d || d.custom) continue;
      d.fibIndex = fibIndex;
      d.tableIdWhenSet = this.#vpp.fib.tableIdOf(af, fibIndex);
    }
  }

  #tableIdOf(af: Af, d: UrpfData): number {
    return this.#vpp.fib.byIndex(af, d.fibIndex)?.tableId ?? d.tableIdWhenSet;
  }

  /** What urpf_interface_dump would send for one interface, in its order. */
  #listed(swIfIndex: number): { af: Af; dir: Dir; d: UrpfData }[] {
    const out: { af: Af; dir: Dir; d: UrpfData }[] = [];
    for (const af of [4, 6] as const)
      for (const dir of [RX, TX] as const) {
        const d = this.#cfg(af, dir).get(swIfIndex);
        if (d && (d.mode !== UrpfMode.OFF || d.custom)) out.push({ af, dir, d });
      }
    return out;
  }

  register(d: Dispatcher): void {
    const handle = (
      m: { sw_if_index: number; mode: number; af: number; is_input: boolean },
      tableId: number,
    ): number => {
      const sw = m.sw_if_index >>> 0;
      if (!this.#vpp.interfaces.isValid(sw)) return Rv.INVALID_SW_IF_INDEX;
      if (m.mode > UrpfMode.STRICT) return Rv.INVALID_VALUE;
      if (m.af !== 0 && m.af !== 1) return Rv.INVALID_ADDRESS_FAMILY;
      return this.update(m.mode, sw, m.af === 0 ? 4 : 6, m.is_input, tableId);
    };

    // urpf_api.c passes table id 0 here, not ~0: see the header.
    d.on(msg.urpf_update, (m, call) => call.reply({ retval: handle(m, 0) }));

    d.on(msg.urpf_update_v2, (m, call) => call.reply({ retval: handle(m, m.table_id >>> 0) }));

    d.on(msg.urpf_interface_dump, (m, call) => {
      if (!call.reg) return;
      const send = (swIfIndex: number): void => {
        for (const { af, dir, d: e } of this.#listed(swIfIndex))
          call.details(msg.urpf_interface_details, {
            sw_if_index: swIfIndex,
            is_input: dir === RX,
            mode: e.mode,
            af: af === 4 ? 0 : 1,
            table_id: this.#tableIdOf(af, e),
          });
      };
      const sw = m.sw_if_index >>> 0;
      if (sw === ANY) {
        for (const i of this.#vpp.interfaces.pool.values()) send(i.swIfIndex);
        return;
      }
      if (this.#vpp.interfaces.isValid(sw)) send(sw);
    });
  }

  /** Every stored entry a dump could list (mode not OFF or custom table), by sw_if_index, af, dir. */
  entries(): UrpfEntrySnapshot[] {
    const sws = new Set<number>();
    for (const dirs of this.#cfgs) for (const m of dirs) for (const sw of m.keys()) sws.add(sw);
    return [...sws]
      .sort((a, b) => a - b)
      .flatMap((sw) =>
        this.#listed(sw).map(({ af, dir, d }) => ({
          swIfIndex: sw,
          af,
          isInput: dir === RX,
          mode: MODE_NAMES[d.mode] ?? 'off',
          tableId: this.#tableIdOf(af, d),
          customTable: d.custom,
          checking: d.checking,
          interfaceExists: this.#vpp.interfaces.isValid(sw),
        })),
      );
  }

  // ------------------------------------------------------------------------------------------
  // The check

  /**
   * The uRPF list of a FIB entry: the interfaces in its load-balance's `lb_urpf`, sorted, without
   * duplicates (fib_urpf_list_bake). Built as fib_entry_src_mk_lb does, from the best source's
   * paths (fib_path_list_mk_urpf → fib_path_contribute_urpf, resolved or not):
   * - attached-nexthop, attached (a connected prefix's glean on X gives X), dvr: the interface;
   * - recursive: what the path's via entry (the next hop's host entry in the path's table)
   *   contributes, its best source's paths; an RR-only via entry has its cover's paths, as the
   *   RR source copies the cover's path-list. A recursion that comes back to an entry already
   *   on the way contributes nothing (fib_path_is_looped);
   * - special and exclusive: `dpo_get_urpf` of the DPO, ~0 (nothing) for every DPO the simulator
   *   creates (drop, ICMP unreachable/prohibit, the ip6 link-local lookup behind fe80::/10, SR
   *   localsids, SR load-balances); only adjacency, l3-proxy and path-MTU DPOs have one;
   * - receive (an interface address's /32 or /128, 255.255.255.255/32 for DHCP), deag,
   *   interface-rx: nothing;
   * - udp-encap: VPP appends the udp-encap *id* as if it were an interface; the simulator does
   *   not keep the id and appends a value matching no interface (UNKNOWN_UDP_ENCAP_ID).
   * An empty list becomes [0] (local0: the loose check passes, the strict one fails everywhere)
   * when the entry is uRPF-exempt: sourced by urpf-exempt, or its best source carries
   * FIB_ENTRY_FLAG_LOOSE_URPF_EXEMPT. Of what the simulator creates, that is: the interface
   * source's drop /32s for an IPv4 subnet's network and broadcast addresses
   * (ip4_add_interface_prefix_routes, ip4_add_subnet_bcast_route without directed broadcast);
   * SR steering routes (sr_steering.c update_fib); API/CLI routes with a deag (table lookup)
   * path (fib_entry_flags_update, FIB_ROUTE_PATH_DEAG). GUESS: the API flag is taken from the
   * source's current paths; VPP ORs it in on path adds and resets it on a path swap.
   *
   * Throws for an entry whose best source hands it an exclusive load-balance (an SR policy's
   * BSID): the entry forwards through the policy's own load-balance, whose lb_urpf was never set
   * (INDEX_INVALID), and fib_urpf_check on it reads outside the uRPF list pool: undefined
   * behaviour (most likely a crash), not something to assert on.
   */
  urpfList(e: FibEntry): number[] {
    const fib = this.#vpp.fib;
    const best = e.bestSource();
    const state = e.sources.get(best);
    if (state?.exclusiveLb !== undefined)
      throw new Error(
        `uRPF check on ${e.prefix.addr.length === 4 ? 'IPv4' : 'IPv6'} exclusive load-balance entry: ` +
          'lb_urpf is INDEX_INVALID in VPP (undefined behaviour), not modelled',
      );
    const itfs = this.#contribute(fib.pathsOf(e), new Set([e]));
    const list = [...new Set(itfs)].sort((a, b) => a - b);
    if (list.length === 0 && this.#looseExempt(e)) return [0];
    return list;
  }

  #contribute(paths: readonly FibPath[], onTheWay: Set<FibEntry>): number[] {
    const fib = this.#vpp.fib;
    const out: number[] = [];
    for (const p of paths) {
      switch (p.type) {
        case PathType.ATTACHED_NEXT_HOP:
        case PathType.ATTACHED:
        case PathType.DVR:
          out.push(p.swIfIndex);
          break;
        case PathType.UDP_ENCAP:
          out.push(UNKNOWN_UDP_ENCAP_ID);
          break;
        case PathType.RECURSIVE: {
          const af: Af = p.proto === DpoProto.IP6 ? 6 : 4;
          const t = fib.byIndex(af, p.fibIndex);
          const via = t && fib.lookupExact(t, { af, addr: p.nh, len: af === 4 ? 32 : 128 });
          if (!via || onTheWay.has(via)) break;
          onTheWay.add(via);
          out.push(...this.#contribute(fib.pathsOf(via), onTheWay));
          onTheWay.delete(via);
          break;
        }
        default:
          // special, exclusive, deag, receive, interface-rx: nothing
          break;
      }
    }
    return out;
  }

  #looseExempt(e: FibEntry): boolean {
    if (e.sources.has(FibSource.URPF_EXEMPT)) return true;
    const best = e.bestSource();
    const paths = e.sources.get(best)?.paths ?? [];
    switch (best) {
      case FibSource.INTERFACE:
        return paths.some((p) => p.type === PathType.SPECIAL && (p.cfg & PathCfg.DROP) !== 0);
      case FibSource.SR:
        return paths.some((p) => p.type === PathType.RECURSIVE);
      case FibSource.API:
      case FibSource.CLI:
        return paths.some((p) => p.type === PathType.DEAG);
      default:
        return false;
    }
  }

  /**
   * What the uRPF node does with one packet (urpf_dp.h `urpf_perform_check_x1`):
   * - 'no-check' when the node is not on the interface's arc for that family and direction (mode
   *   OFF, never configured, or the stale entry of a deleted interface, see the header);
   * - else the source is looked up, longest-prefix match, in the entry's stored fib_index (the
   *   interface's table, or the custom table), and the entry's uRPF list (`urpfList`) decides:
   *   RX strict passes when the receiving interface is in the list; TX strict passes when the list
   *   is not empty and the sending interface is not in it, or the packet is VPP's own; loose
   *   passes when the list is not empty;
   * - an IPv4 destination in 224.0.0.0/4 or 255.255.255.255, an IPv6 destination in ff00::/8,
   *   passes whatever the list (in VPP multicast normally takes the multicast arc and never
   *   reaches the node; 255.255.255.255 does reach it).
   *
   * A drop counts "uRPF Drop" on the mode's node, ip4/ip6-rx/tx-urpf-strict/loose (`show errors`).
   *
   * Not modelled: the other features on the arc (ip4-not-enabled, ACLs...) and whether VPP would
   * deliver the packet at all (interface up, IP enabled); the TX header offset; interpose sources,
   * attached-export, MPLS. Throws when the stored fib_index names a table that no longer exists
   * (VPP would look up in a freed FIB) and for the exclusive load-balance case of `urpfList`.
   */
  verdict(p: UrpfPacket): UrpfVerdict {
    const len = p.af === 4 ? 4 : 16;
    if (p.src.length !== len || p.dst.length !== len)
      throw new Error(`uRPF verdict: addresses must be IPv${p.af}`);
    if (!this.#vpp.interfaces.isValid(p.swIfIndex))
      throw new Error(`uRPF verdict: the simulated VPP has no interface ${p.swIfIndex}`);
    const isInput = p.isInput ?? true;
    const d = this.#cfg(p.af, isInput ? RX : TX).get(p.swIfIndex);
    if (!d || !d.checking || d.mode === UrpfMode.OFF) return 'no-check';
    const fib = this.#vpp.fib;
    const t = fib.byIndex(p.af, d.fibIndex);
    if (!t)
      throw new Error(
        `uRPF verdict: fib_index ${d.fibIndex} (table ${d.tableIdWhenSet}) was freed; VPP would look up in a freed FIB`,
      );
    const e = fib.longestMatch(t, p.src);
    // Every table has a default entry; an empty list if the model's table had none.
    const list = e ? this.urpfList(e) : [];
    let pass =
      p.af === 4
        ? ((p.dst[0] as number) & 0xf0) === 0xe0 || p.dst.equals(Buffer.from([255, 255, 255, 255]))
        : p.dst[0] === 0xff;
    if (d.mode === UrpfMode.STRICT) {
      const res = list.includes(p.swIfIndex);
      if (isInput) pass ||= res;
      else pass ||= (!res && list.length > 0) || p.locallyOriginated === true;
    } else {
      pass ||= list.length > 0;
    }
    if (pass) return 'pass';
    // b->error = node->errors[URPF_ERROR_DROP] → ip4/ip6-drop → error-drop → drop counts it
    this.#vpp.errors.count(
      `ip${p.af}-${isInput ? 'rx' : 'tx'}-urpf-${d.mode === UrpfMode.STRICT ? 'strict' : 'loose'}`,
      URPF_ERROR.DROP,
    );
    return 'drop';
  }
}
