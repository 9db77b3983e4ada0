/**
 * IP: tables, routes, interface addresses (and the routes they add), table binding, unnumbered,
 * IPv6 link-local enablement and proxy ARP, following VPP 26.06:
 * src/vnet/ip/ip_api.c, ip4_forward.c, ip6_forward.c, ip6_link.c, ip6_ll_table.c,
 * ip_interface.c, interface_api.c (ip_table_bind), interface.c (unnumbered), fib/fib_api.c,
 * arp/arp_api.c, arp/arp_proxy.c.
 */
import type { Message } from '../codec/schema.js';
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import {
  attachedHostPath,
  DpoProto,
  Fib,
  FibSource,
  PathCfg,
  PathType,
  type FibEntry,
  type FibPath,
  type FibTable,
} from './fib.js';
import type { SimInterface } from './interfaces.js';
import {
  apiAddress,
  covers,
  fromApiAddress,
  ip4Bytes,
  ip6Bytes,
  ipText,
  isZero,
  masked,
  withHostBitsSet,
  type Af,
  type IpPrefix,
} from './ip-addr.js';
import { Rv } from './retval.js';
import type { Vpp } from './vpp.js';

export interface IfAddress {
  readonly af: Af;
  readonly addr: Buffer;
  readonly len: number;
  /** fib_index of the interface when the address was added (part of VPP's address key). */
  readonly fibIndex: number;
  readonly swIfIndex: number;
  stale: boolean;
}

interface IpIf {
  fibIndex: [number, number]; // [ip4, ip6]
  addrs: [IfAddress[], IfAddress[]];
  unnumberedTo: number | undefined;
  /** ip6_link: the link-local address once IPv6 is enabled. */
  ll: Buffer | undefined;
  /** ip6_link's il_locks: enables (API, addresses) not yet matched by a disable. */
  ip6Locks: number;
  /** ip6_ll_table: this interface's link-local FIB, created on first use. */
  llTable: FibTable | undefined;
  ip4Enabled: number;
  ip6Enabled: number;
}

export interface ProxyArpRange {
  readonly fibIndex: number;
  readonly lo: Buffer;
  readonly hi: Buffer;
}

type ApiFibPath = Message<typeof msg.ip_route_add_del>['route']['paths'][number];

const ANY = 0xffffffff;
const EMPTY_NH: Readonly<Record<Af, Buffer>> = { 4: Buffer.alloc(4), 6: Buffer.alloc(16) };

function afIndex(af: Af): 0 | 1 {
  return af === 4 ? 0 : 1;
}

export class Ip {
  readonly #vpp: Vpp;
  readonly fib: Fib;
  readonly #ifs = new Map<number, IpIf>();
  /** address_to_if_address_index: (af, address, fib_index) → address */
  readonly #addrIndex = new Map<string, IfAddress>();
  /** ip_interface_prefix refcounts: (af, masked prefix, len, sw_if_index) */
  readonly #ifPrefixes = new Map<string, number>();
  readonly proxyArps: ProxyArpRange[] = [];
  readonly proxyArpEnabled = new Set<number>();
  /** ip6_link delegates (RA): told when IPv6 goes on and off on a link. */
  readonly ip6LinkHooks: { enable(sw: SimInterface): void; disable(sw: SimInterface): void }[] = [];

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
    this.fib = vpp.fib;
    // Admin up/down adds/removes interface routes: ip4 first, then ip6.
    // GUESS: the order of ip4_sw_interface_admin_up_down and ip6's among VNET admin callbacks.
    vpp.interfaces.adminHooks.push((sw, up) => this.#adminChange(sw, up));
    vpp.interfaces.deleteHooks.push((sw) => this.#interfaceDeleted(sw));
  }

  /** Whether the family's input arc runs on the interface (ip4/ip6_sw_interface_enable_disable counts). */
  familyEnabled(swIfIndex: number, af: Af): boolean {
    const s = this.#ifs.get(swIfIndex);
    return s !== undefined && (af === 4 ? s.ip4Enabled : s.ip6Enabled) > 0;
  }

  ipIf(swIfIndex: number): IpIf {
    let s = this.#ifs.get(swIfIndex);
    if (!s) {
      s = {
        fibIndex: [0, 0],
        addrs: [[], []],
        unnumberedTo: undefined,
        ll: undefined,
        ip6Locks: 0,
        llTable: undefined,
        ip4Enabled: 0,
        ip6Enabled: 0,
      };
      this.#ifs.set(swIfIndex, s);
    }
    return s;
  }

  tableOf(swIfIndex: number, af: Af): FibTable {
    return this.fib.byIndex(af, this.ipIf(swIfIndex).fibIndex[afIndex(af)]) as FibTable;
  }

  addressesOf(swIfIndex: number, af: Af): readonly IfAddress[] {
    return this.ipIf(swIfIndex).addrs[afIndex(af)];
  }

  /** ip4_interface_first_address / ip6_...: the first address, an unnumbered interface's donor's. */
  firstAddress(swIfIndex: number, af: Af): Buffer | undefined {
    return this.#addressesHonoringUnnumbered(swIfIndex, af)[0]?.addr;
  }

  /** foreach_ip_interface_address with honor_unnumbered: an unnumbered interface shows its donor's. */
  #addressesHonoringUnnumbered(swIfIndex: number, af: Af): readonly IfAddress[] {
    const s = this.ipIf(swIfIndex);
    if (s.unnumberedTo !== undefined) return this.addressesOf(s.unnumberedTo, af);
    return s.addrs[afIndex(af)];
  }

  /** ... and without: an unnumbered interface has none of its own. */
  #ownAddresses(swIfIndex: number, af: Af): readonly IfAddress[] {
    const s = this.ipIf(swIfIndex);
    if (s.unnumberedTo !== undefined) return [];
    return s.addrs[afIndex(af)];
  }

  // ------------------------------------------------------------------------------------------
  // Interface routes

  #ip4AddInterfaceRoutes(sw: number, t: FibTable, a: IfAddress): void {
    const proto = DpoProto.IP4;
    const path = (type: number, nh: Buffer): FibPath => ({
      type,
      proto,
      swIfIndex: sw,
      nh,
      fibIndex: 0,
      weight: 1,
      preference: 0,
      cfg: type === PathType.RECEIVE ? PathCfg.LOCAL : 0,
    });
    this.fib.sourceAdd(t, { af: 4, addr: a.addr, len: 32 }, FibSource.INTERFACE, {
      kind: 'paths',
      paths: [path(PathType.RECEIVE, a.addr)],
    });
    if (a.len >= 32) return;
    const net = masked(a.addr, a.len);
    const key = `4|${net.toString('hex')}|${a.len}|${sw}`;
    const refs = this.#ifPrefixes.get(key);
    if (refs !== undefined) {
      this.#ifPrefixes.set(key, refs + 1);
      return;
    }
    this.#ifPrefixes.set(key, 1);
    // the glean route: with the address, not the network (ip4_add_interface_prefix_routes)
    this.fib.sourceAdd(t, { af: 4, addr: a.addr, len: a.len }, FibSource.INTERFACE, {
      kind: 'paths',
      paths: [{ ...path(PathType.ATTACHED, Buffer.alloc(0)), cfg: 0 }],
    });
    if (a.len <= 30) {
      if (!net.equals(a.addr))
        this.fib.sourceAdd(t, { af: 4, addr: net, len: 32 }, FibSource.INTERFACE, { kind: 'drop' });
      const bcast = withHostBitsSet(a.addr, a.len);
      // ip4_add_subnet_bcast_route without directed broadcast: a drop
      if (!bcast.equals(a.addr))
        this.fib.sourceAdd(t, { af: 4, addr: bcast, len: 32 }, FibSource.INTERFACE, { kind: 'drop' });
    } else if (a.len === 31) {
      const other = Buffer.from(a.addr);
      other[3] = (other[3] as number) ^ 1;
      this.fib.sourceAdd(t, { af: 4, addr: other, len: 32 }, FibSource.INTERFACE, {
        kind: 'paths',
        paths: [{ ...path(PathType.ATTACHED_NEXT_HOP, other), cfg: 0 }],
      });
    }
  }

  #ip4DelInterfaceRoutes(sw: number, t: FibTable, addr: Buffer, len: number): void {
    this.fib.sourceRemove(t, { af: 4, addr, len: 32 }, FibSource.INTERFACE);
    if (len >= 32) return;
    const net = masked(addr, len);
    const key = `4|${net.toString('hex')}|${len}|${sw}`;
    const refs = this.#ifPrefixes.get(key);
    if (refs === undefined) return; // "Prefix not found while deleting"
    if (refs > 1) {
      this.#ifPrefixes.set(key, refs - 1);
      return;
    }
    this.#ifPrefixes.delete(key);
    if (len <= 30) {
      if (!net.equals(addr)) this.fib.sourceRemove(t, { af: 4, addr: net, len: 32 }, FibSource.INTERFACE);
      const bcast = withHostBitsSet(addr, len);
      if (!bcast.equals(addr)) this.fib.sourceRemove(t, { af: 4, addr: bcast, len: 32 }, FibSource.INTERFACE);
    } else if (len === 31) {
      const other = Buffer.from(addr);
      other[3] = (other[3] as number) ^ 1;
      this.fib.sourceRemove(t, { af: 4, addr: other, len: 32 }, FibSource.INTERFACE);
    }
    this.fib.sourceRemove(t, { af: 4, addr, len }, FibSource.INTERFACE);
  }

  #ip6AddInterfaceRoutes(sw: number, t: FibTable, a: IfAddress): void {
    const proto = DpoProto.IP6;
    this.fib.sourceAdd(t, { af: 6, addr: a.addr, len: 128 }, FibSource.INTERFACE, {
      kind: 'paths',
      paths: [
        {
          type: PathType.RECEIVE,
          proto,
          swIfIndex: sw,
          nh: a.addr,
          fibIndex: 0,
          weight: 1,
          preference: 0,
          cfg: PathCfg.LOCAL,
        },
      ],
    });
    if (a.len >= 128) return;
    const net = masked(a.addr, a.len);
    const key = `6|${net.toString('hex')}|${a.len}|${sw}`;
    const refs = this.#ifPrefixes.get(key);
    if (refs !== undefined) {
      this.#ifPrefixes.set(key, refs + 1);
      return;
    }
    this.#ifPrefixes.set(key, 1);
    // ip6's glean uses the masked prefix (ip6_add_interface_prefix_routes)
    this.fib.sourceAdd(t, { af: 6, addr: net, len: a.len }, FibSource.INTERFACE, {
      kind: 'paths',
      paths: [
        {
          type: PathType.ATTACHED,
          proto,
          swIfIndex: sw,
          nh: Buffer.alloc(0),
          fibIndex: 0,
          weight: 1,
          preference: 0,
          cfg: 0,
        },
      ],
    });
  }

  #ip6DelInterfaceRoutes(sw: number, t: FibTable, addr: Buffer, len: number): void {
    this.fib.sourceRemove(t, { af: 6, addr, len: 128 }, FibSource.INTERFACE);
    if (len >= 128) return;
    const net = masked(addr, len);
    const key = `6|${net.toString('hex')}|${len}|${sw}`;
    const refs = this.#ifPrefixes.get(key);
    if (refs === undefined) return;
    if (refs > 1) {
      this.#ifPrefixes.set(key, refs - 1);
      return;
    }
    this.#ifPrefixes.delete(key);
    this.fib.sourceRemove(t, { af: 6, addr: net, len }, FibSource.INTERFACE);
  }

  #adminChange(sw: SimInterface, up: boolean): void {
    const s = this.ipIf(sw.swIfIndex);
    const t4 = this.fib.byIndex(4, s.fibIndex[0]);
    for (const a of this.#ownAddresses(sw.swIfIndex, 4)) {
      if (!t4) break;
      if (up) this.#ip4AddInterfaceRoutes(sw.swIfIndex, t4, a);
      else this.#ip4DelInterfaceRoutes(sw.swIfIndex, t4, a.addr, a.len);
    }
    const t6 = this.fib.byIndex(6, s.fibIndex[1]);
    for (const a of this.#ownAddresses(sw.swIfIndex, 6)) {
      if (!t6) break;
      if (up) this.#ip6AddInterfaceRoutes(sw.swIfIndex, t6, a);
      else this.#ip6DelInterfaceRoutes(sw.swIfIndex, t6, a.addr, a.len);
    }
  }

  // ------------------------------------------------------------------------------------------
  // Addresses

  /** ip4_add_del_interface_address_internal / ip6_add_del_interface_address. Returns an rv. */
  addDelAddress(swIfIndex: number, af: Af, addr: Buffer, len: number, isDel: boolean): number {
    if (swIfIndex === 0) return Rv.UNSUPPORTED; // vnet_sw_interface_supports_addressing
    const sw = this.#vpp.interfaces.get(swIfIndex) as SimInterface;
    const ai = afIndex(af);
    const s = this.ipIf(swIfIndex);
    if (af === 6 && addr[0] === 0xfe && ((addr[1] as number) & 0xc0) === 0x80) {
      // link-local: only the /128 that replaces the interface's own
      if (len !== 128) return Rv.ADDRESS_LENGTH_MISMATCH;
      if (isDel)
        return s.ll && s.ll.equals(addr) ? Rv.ADDRESS_NOT_DELETABLE : Rv.ADDRESS_NOT_FOUND_FOR_INTERFACE;
      return this.ip6LinkSetLocalAddress(sw, addr);
    }
    const fibIndex = s.fibIndex[ai];
    if (!isDel) {
      // No overlapping subnets within a table (pool order, own addresses only).
      for (const other of this.#vpp.interfaces.pool.values()) {
        if (this.ipIf(other.swIfIndex).fibIndex[ai] !== fibIndex) continue;
        for (const x of this.#ownAddresses(other.swIfIndex, af)) {
          if (covers(x.addr, x.len, addr) || covers(addr, len, x.addr)) {
            if (swIfIndex === other.swIfIndex && x.len === len && !x.addr.equals(addr)) continue;
            if (x.stale) continue;
            // ip4: ADDRESS_IN_USE; ip6: DUPLICATE_IF_ADDRESS
            return af === 4 ? Rv.ADDRESS_IN_USE : Rv.DUPLICATE_IF_ADDRESS;
          }
        }
      }
    }
    const key = `${af}|${addr.toString('hex')}|${fibIndex}`;
    const found = this.#addrIndex.get(key);
    if (isDel) {
      if (!found) return Rv.ADDRESS_NOT_FOUND_FOR_INTERFACE;
      if (found.swIfIndex !== swIfIndex) return Rv.ADDRESS_NOT_FOUND_FOR_INTERFACE;
      const list = s.addrs[ai];
      list.splice(list.indexOf(found), 1);
      this.#addrIndex.delete(key);
    } else if (found) {
      if (!found.stale) return Rv.DUPLICATE_IF_ADDRESS;
      if (found.swIfIndex === swIfIndex) {
        found.stale = false; // re-added during a replace: that is the update
        return 0;
      }
      this.addDelAddress(found.swIfIndex, af, addr, found.len, true);
      return this.addDelAddress(swIfIndex, af, addr, len, false);
    } else {
      if (len === 0 || (af === 4 && len > 32) || (af === 6 && len > 128)) return Rv.ADDRESS_LENGTH_MISMATCH;
      const a: IfAddress = { af, addr: Buffer.from(addr), len, fibIndex, swIfIndex, stale: false };
      s.addrs[ai].push(a);
      this.#addrIndex.set(key, a);
    }
    if (af === 4) s.ip4Enabled += isDel ? -1 : 1;
    else {
      // ip6_sw_interface_enable_disable, then ip6_link_enable (a lock; its rv is not looked at)
      s.ip6Enabled += isDel ? -1 : 1;
      if (!isDel) this.ip6LinkEnable(sw, undefined);
    }
    if (sw.adminUp) {
      const t = this.fib.byIndex(af, fibIndex) as FibTable;
      const a = this.#addrIndex.get(key);
      if (af === 4) {
        if (isDel) this.#ip4DelInterfaceRoutes(swIfIndex, t, addr, len);
        else if (a) this.#ip4AddInterfaceRoutes(swIfIndex, t, a);
      } else if (isDel) this.#ip6DelInterfaceRoutes(swIfIndex, t, addr, len);
      else if (a) this.#ip6AddInterfaceRoutes(swIfIndex, t, a);
    }
    this.#vpp.onAddressChange(swIfIndex, af, addr, len, isDel);
    if (af === 6 && isDel) this.ip6LinkDisable(sw);
    return 0;
  }

  /**
   * ip6_link_enable (ip6_link.c): lock-counted. The first lock gives the interface its link-local
   * address (the one given, else EUI-64 from the MAC, else random), its link-local FIB
   * ("IP6-link-local:<name>", fe80::/10 a glean) with the address's /128, and tells the link's
   * delegates (RA). Every call takes a lock, even the one answering VALUE_EXIST.
   */
  ip6LinkEnable(sw: SimInterface, given: Buffer | undefined): number {
    const s = this.ipIf(sw.swIfIndex);
    let rv = 0;
    if (!s.ll) {
      s.ip6Locks = 0;
      if (given && !isZero(given)) s.ll = Buffer.from(given);
      else if (sw.mac) s.ll = eui64LinkLocal(sw.mac);
      else {
        // "choose a random address", u bit cleared
        const r = Buffer.alloc(16);
        r[0] = 0xfe;
        r[1] = 0x80;
        for (let i = 8; i < 16; i++) r[i] = Math.floor(Math.random() * 256);
        r[8] = (r[8] as number) & 0xfd;
        s.ll = r;
      }
      this.#llEntryUpdate(sw, s.ll);
      for (const h of this.ip6LinkHooks) h.enable(sw);
    } else {
      rv = Rv.VALUE_EXIST;
    }
    s.ip6Locks++;
    return rv;
  }

  /** ip6_link_disable: drops one lock; IPv6 goes off with the last (ip6_link_last_lock_gone). */
  ip6LinkDisable(sw: SimInterface): number {
    const s = this.ipIf(sw.swIfIndex);
    if (!s.ll) return Rv.IP6_NOT_ENABLED;
    s.ip6Locks--;
    if (s.ip6Locks === 0) this.#ip6LinkLastLockGone(sw);
    return 0;
  }

  /** ip6_link_set_local_address: enables (one lock) when not enabled, else replaces the address. */
  ip6LinkSetLocalAddress(sw: SimInterface, addr: Buffer): number {
    const s = this.ipIf(sw.swIfIndex);
    if (!s.ll) return this.ip6LinkEnable(sw, addr);
    this.#llEntryDelete(sw, s.ll);
    s.ll = Buffer.from(addr);
    this.#llEntryUpdate(sw, s.ll);
    return 0;
  }

  /** ip6_link_last_lock_gone: the delegates flushed (RA config and prefixes), the /128 gone. */
  #ip6LinkLastLockGone(sw: SimInterface): void {
    const s = this.ipIf(sw.swIfIndex);
    for (const h of this.ip6LinkHooks) h.disable(sw);
    if (s.ll) this.#llEntryDelete(sw, s.ll);
    s.ll = undefined;
  }

  /** ip6_ll_table_entry_update: the link-local FIB is created on first use. */
  #llEntryUpdate(sw: SimInterface, addr: Buffer): void {
    const s = this.ipIf(sw.swIfIndex);
    if (!s.llTable) {
      s.llTable = this.fib.createAndLock(6, FibSource.IP6_ND, `IP6-link-local:${sw.name}`, true);
      const ll10 = Buffer.alloc(16);
      ll10[0] = 0xfe;
      ll10[1] = 0x80;
      this.fib.sourceAdd(s.llTable, { af: 6, addr: ll10, len: 10 }, FibSource.SPECIAL, {
        kind: 'paths',
        paths: [
          {
            type: PathType.ATTACHED,
            proto: DpoProto.IP6,
            swIfIndex: sw.swIfIndex,
            nh: Buffer.alloc(0),
            fibIndex: 0,
            weight: 1,
            preference: 0,
            cfg: 0,
          },
        ],
      });
    }
    this.fib.sourceAdd(s.llTable, { af: 6, addr, len: 128 }, FibSource.IP6_ND, {
      kind: 'paths',
      paths: [
        {
          type: PathType.RECEIVE,
          proto: DpoProto.IP6,
          swIfIndex: sw.swIfIndex,
          nh: Buffer.from(addr),
          fibIndex: 0,
          weight: 1,
          preference: 0,
          cfg: PathCfg.LOCAL,
        },
      ],
    });
  }

  /**
   * ip6_ll_table_entry_delete: with no ND-sourced entry left the link-local FIB is unlocked (and
   * so destroyed).
   */
  #llEntryDelete(sw: SimInterface, addr: Buffer): void {
    const s = this.ipIf(sw.swIfIndex);
    if (!s.llTable) return;
    this.fib.sourceRemove(s.llTable, { af: 6, addr, len: 128 }, FibSource.IP6_ND);
    const left = this.fib.walk(s.llTable).some((e) => e.sources.has(FibSource.IP6_ND));
    if (!left) {
      this.fib.unlock(s.llTable, FibSource.IP6_ND);
      s.llTable = undefined;
    }
  }

  /** The interface's IPv6 link-local address, once enabled. */
  linkLocalOf(swIfIndex: number): Buffer | undefined {
    return this.#ifs.get(swIfIndex)?.ll;
  }

  #interfaceDeleted(sw: SimInterface): void {
    const s = this.ipIf(sw.swIfIndex);
    // ip4/ip6 sw_interface_add_del: every address goes (its routes went with admin down)
    for (const af of [4, 6] as const) {
      for (const a of [...s.addrs[afIndex(af)]]) this.addDelAddress(sw.swIfIndex, af, a.addr, a.len, true);
    }
    for (const other of this.#ifs.values())
      if (other.unnumberedTo === sw.swIfIndex) other.unnumberedTo = undefined;
    for (const af of [4, 6] as const) {
      const fi = s.fibIndex[afIndex(af)];
      const t = this.fib.byIndex(af, fi);
      // fib_table_bind (proto, sw_if_index, 0): the table_bind_callbacks first, then the unlock
      if (fi !== 0) this.#vpp.onTableBind(sw.swIfIndex, af, 0, fi);
      if (fi !== 0 && t) this.fib.unlock(t, FibSource.INTERFACE);
    }
    // ip6_link_interface_add_del: a forced ip6_link_last_lock_gone
    if (s.ll) this.#ip6LinkLastLockGone(sw);
    if (s.llTable) this.fib.unlock(s.llTable, FibSource.IP6_ND);
    // arp_proxy.c keeps enabled_by_sw_if_index past the interface (no delete hook): the flag stays,
    // proxy_arp_intfc_dump still lists the index, and an interface that reuses it inherits the
    // flag while its arp-proxy feature is off (an enable then changes nothing). The feature
    // itself went with the interface, which the simulator does not model.
    this.#ifs.delete(sw.swIfIndex);
  }

  /** ip_table_bind (interface_api.c) */
  bindTable(swIfIndex: number, af: Af, tableId: number): number {
    const t = this.fib.find(af, tableId);
    if (!t) return Rv.NO_SUCH_FIB;
    if (this.#addressesHonoringUnnumbered(swIfIndex, af).length > 0) return Rv.ADDRESS_FOUND_FOR_INTERFACE;
    const s = this.ipIf(swIfIndex);
    const ai = afIndex(af);
    const old = s.fibIndex[ai];
    const oldT = this.fib.byIndex(af, old);
    if (old !== 0 && oldT) this.fib.unlock(oldT, FibSource.INTERFACE);
    let fibIndex = t.index;
    if (tableId !== 0) {
      if (af === 4) fibIndex = this.fib.findOrCreateAndLock(4, tableId, FibSource.INTERFACE).index;
      else this.fib.lock(t, FibSource.INTERFACE);
    }
    s.fibIndex[ai] = fibIndex;
    this.#vpp.onTableBind(swIfIndex, af, fibIndex, old);
    return 0;
  }

  /** A neighbour learned on `swIfIndex` (ARP/ND, dataplane): its adjacency host route (source ADJ). */
  learnNeighbor(swIfIndex: number, addr: Buffer): FibEntry | undefined {
    const af: Af = addr.length === 4 ? 4 : 6;
    const t = this.tableOf(swIfIndex, af);
    if (!t) return undefined;
    // ip_neighbor_adj_fib_add: an attached host route via the interface
    return this.fib.pathAdd(t, { af, addr, len: af === 4 ? 32 : 128 }, FibSource.ADJ, [
      attachedHostPath(af, addr, swIfIndex),
    ]);
  }

  // ------------------------------------------------------------------------------------------
  // Routes

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
        const t = this.fib.find(af, p.table_id);
        if (!t) return Rv.NO_SUCH_FIB;
        if (isZero(nh))
          return withLabels({ ...base, type: PathType.DEAG, swIfIndex: ANY, fibIndex: t.index });
        return withLabels({ ...base, type: PathType.RECURSIVE, swIfIndex: ANY, nh, fibIndex: t.index });
      }
      if (!this.#vpp.interfaces.isValid(sw)) return Rv.NO_MATCHING_INTERFACE;
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
    const t = this.fib.find(af, r.table_id);
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
      if (m.is_add) this.fib.pathAdd(t, prefix, FibSource.API, paths);
      else this.fib.pathRemove(t, prefix, FibSource.API, paths);
    } else if (m.is_add) {
      if (paths.length === 0) return { rv: Rv.NO_PATHS_IN_ROUTE, statsIndex: ANY };
      this.fib.sourceAdd(t, prefix, FibSource.API, { kind: 'paths', paths });
    } else {
      this.fib.sourceRemove(t, prefix, FibSource.API);
    }
    const statsIndex = m.is_add ? (this.fib.lookupExact(t, prefix)?.lb ?? ANY) : ANY;
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
      paths: this.fib.pathsOf(e).map((p) => this.fib.encodePath(p)),
    };
  }

  // ------------------------------------------------------------------------------------------
  // API

  register(d: Dispatcher): void {
    d.on(msg.ip_table_add_del, (m, call) => {
      const af: Af = m.table.is_ip6 ? 6 : 4;
      // ip_table_create / ip_table_delete: table 0 is always there and is left alone
      if (m.table.table_id !== 0) {
        if (m.is_add) {
          this.fib.findOrCreateAndLock(af, m.table.table_id, FibSource.API, m.table.name);
        } else {
          const t = this.fib.find(af, m.table.table_id);
          if (t) this.fib.unlock(t, FibSource.API);
        }
      }
      call.reply({ retval: 0 });
    });

    d.on(msg.ip_table_dump, (_m, call) => {
      if (!call.reg) return;
      for (const af of [4, 6] as const) {
        for (const t of this.fib.pool(af).values()) {
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
      const t = this.fib.find(m.table.is_ip6 ? 6 : 4, m.table.table_id);
      if (!t) return;
      for (const e of this.fib.walk(t)) call.details(msg.ip_route_details, { route: this.routeDetails(e) });
    });

    d.on(msg.ip_route_v2_dump, (m, call) => {
      if (!call.reg) return;
      const t = this.fib.find(m.table.is_ip6 ? 6 : 4, m.table.table_id);
      if (!t) return;
      // A source filter leaves few of a VPC table's entries (its 100k SR-steered ones are not API).
      this.fib.walkEach(t, (e) => {
        if (m.src !== 0 && !e.sources.has(m.src)) return;
        call.details(msg.ip_route_v2_details, { route: { ...this.routeDetails(e), src: e.bestSource() } });
      });
    });

    d.on(msg.sw_interface_add_del_address, (m, call) => {
      if (!this.#vpp.interfaces.isValid(m.sw_if_index)) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      let rv = 0;
      if (m.del_all) {
        for (const af of [4, 6] as const) {
          for (const a of [...this.#ownAddresses(m.sw_if_index, af)])
            this.addDelAddress(m.sw_if_index, af, a.addr, a.len, true);
        }
      } else {
        const af: Af = m.prefix.address.af === 1 ? 6 : 4;
        rv = this.addDelAddress(m.sw_if_index, af, fromApiAddress(m.prefix.address), m.prefix.len, !m.is_add);
      }
      call.reply({ retval: rv });
    });

    d.on(msg.sw_interface_address_replace_begin, (_m, call) => {
      // ip_interface_address_mark: every address becomes stale until re-added or replace_end
      for (const a of this.#addrIndex.values()) a.stale = true;
      call.reply({ retval: 0 });
    });

    d.on(msg.ip_address_dump, (m, call) => {
      if (!this.#vpp.interfaces.isValid(m.sw_if_index)) return;
      if (!call.reg) return;
      for (const a of this.#ownAddresses(m.sw_if_index, m.is_ipv6 ? 6 : 4)) {
        call.details(msg.ip_address_details, {
          sw_if_index: m.sw_if_index,
          prefix: { address: apiAddress(a.addr), len: a.len },
        });
      }
    });

    d.on(msg.sw_interface_set_table, (m, call) => {
      if (!this.#vpp.interfaces.isValid(m.sw_if_index)) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      call.reply({ retval: this.bindTable(m.sw_if_index, m.is_ipv6 ? 6 : 4, m.vrf_id) });
    });

    d.on(msg.sw_interface_get_table, (m, call) => {
      if (!call.reg) return;
      if (!this.#vpp.interfaces.isValid(m.sw_if_index))
        return call.reply({ retval: Rv.INVALID_SW_IF_INDEX, vrf_id: ANY });
      const af: Af = m.is_ipv6 ? 6 : 4;
      const t = this.fib.byIndex(af, this.ipIf(m.sw_if_index).fibIndex[afIndex(af)]);
      call.reply({ retval: 0, vrf_id: t ? t.tableId : ANY });
    });

    d.on(msg.sw_interface_ip6_enable_disable, (m, call) => {
      const sw = this.#vpp.interfaces.get(m.sw_if_index);
      if (!sw) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      call.reply({ retval: m.enable ? this.ip6LinkEnable(sw, undefined) : this.ip6LinkDisable(sw) });
    });

    d.on(msg.sw_interface_ip6_get_link_local_address, (m, call) => {
      if (!this.#vpp.interfaces.isValid(m.sw_if_index))
        return call.reply({ retval: Rv.INVALID_SW_IF_INDEX, ip: '::' });
      const ll = this.linkLocalOf(m.sw_if_index);
      call.reply(ll ? { retval: 0, ip: ipText(ll) } : { retval: Rv.IP6_NOT_ENABLED, ip: '::' });
    });

    d.on(msg.sw_interface_ip6_set_link_local_address, (m, call) => {
      const sw = this.#vpp.interfaces.get(m.sw_if_index);
      if (!sw) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      // no check that the address is link-local (ip6_link_set_local_address takes it as given)
      call.reply({ retval: this.ip6LinkSetLocalAddress(sw, ip6Bytes(m.ip)) });
    });

    d.on(msg.sw_interface_set_unnumbered, (m, call) => {
      // The field names are backwards: sw_if_index lends its address to unnumbered_sw_if_index.
      const ifs = this.#vpp.interfaces;
      if (!ifs.isValid(m.unnumbered_sw_if_index)) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      if (m.is_add && !ifs.isValid(m.sw_if_index)) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX_2 });
      const u = this.ipIf(m.unnumbered_sw_if_index);
      if (m.is_add) {
        const ip = this.ipIf(m.sw_if_index);
        // vnet_sw_interface_check_table_same (mfib tables follow the unicast ones here)
        if (u.fibIndex[0] !== ip.fibIndex[0] || u.fibIndex[1] !== ip.fibIndex[1])
          return call.reply({ retval: Rv.UNEXPECTED_INTF_STATE });
        u.unnumberedTo = m.sw_if_index;
      } else if (u.unnumberedTo !== undefined) {
        u.unnumberedTo = undefined;
      }
      call.reply({ retval: 0 });
    });

    d.on(msg.ip_unnumbered_dump, (m, call) => {
      if (!call.reg) return;
      const send = (sw: number): void => {
        const to = this.#ifs.get(sw)?.unnumberedTo;
        if (to !== undefined)
          call.details(msg.ip_unnumbered_details, { sw_if_index: sw, ip_sw_if_index: to });
      };
      if (m.sw_if_index >>> 0 !== ANY) {
        if (!this.#vpp.interfaces.isValid(m.sw_if_index)) return;
        send(m.sw_if_index);
      } else {
        for (const sw of this.#vpp.interfaces.pool.values()) send(sw.swIfIndex);
      }
    });

    d.on(msg.proxy_arp_add_del, (m, call) => {
      const t = this.fib.find(4, m.proxy.table_id);
      if (!t) return call.reply({ retval: Rv.NO_SUCH_FIB });
      const lo = ip4Bytes(m.proxy.low);
      const hi = ip4Bytes(m.proxy.hi);
      const at = this.proxyArps.findIndex(
        (p) => p.lo.equals(lo) && p.hi.equals(hi) && p.fibIndex === t.index,
      );
      let rv = 0;
      if (at >= 0) {
        if (!m.is_add) this.proxyArps.splice(at, 1);
      } else if (!m.is_add) {
        rv = Rv.NO_SUCH_ENTRY;
      } else {
        this.proxyArps.push({ fibIndex: t.index, lo, hi });
      }
      call.reply({ retval: rv });
    });

    d.on(msg.proxy_arp_intfc_enable_disable, (m, call) => {
      if (!this.#vpp.interfaces.isValid(m.sw_if_index)) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      if (m.enable) this.proxyArpEnabled.add(m.sw_if_index);
      else this.proxyArpEnabled.delete(m.sw_if_index);
      call.reply({ retval: 0 });
    });

    d.on(msg.proxy_arp_dump, (_m, call) => {
      if (!call.reg) return;
      for (const p of this.proxyArps) {
        call.details(msg.proxy_arp_details, {
          proxy: { table_id: this.fib.tableIdOf(4, p.fibIndex), low: ipText(p.lo), hi: ipText(p.hi) },
        });
      }
    });

    d.on(msg.proxy_arp_intfc_dump, (_m, call) => {
      if (!call.reg) return;
      for (const sw of [...this.proxyArpEnabled].sort((a, b) => a - b))
        call.details(msg.proxy_arp_intfc_details, { sw_if_index: sw });
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

/** ip6_link_local_address_from_mac: fe80::/64 + modified EUI-64. */
export function eui64LinkLocal(mac: Buffer): Buffer {
  const a = Buffer.alloc(16);
  a[0] = 0xfe;
  a[1] = 0x80;
  a[8] = (mac[0] as number) ^ 0x02;
  a[9] = mac[1] as number;
  a[10] = mac[2] as number;
  a[11] = 0xff;
  a[12] = 0xfe;
  a[13] = mac[3] as number;
  a[14] = mac[4] as number;
  a[15] = mac[5] as number;
  return a;
}
