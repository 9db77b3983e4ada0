/**
 * The IP neighbour database: its configuration, the entries the API adds (static or dynamic),
 * and the neighbour advertisements VPP sends, following VPP 26.06
 * src/vnet/ip-neighbor/ip_neighbor.c (ip_neighbor_add, _del, _alloc, _adj_fib_add, _walk,
 * ip_neighbor_config), ip_neighbor_api.c (the handlers) and ip6_neighbor.c / ip4_neighbor.c
 * (ip6_neighbor_advertise, ip4_neighbor_advertise).
 *
 * The simulator has no dataplane: the aging process is not modelled, and learned entries come only
 * from tests (learn). An entry's `age` is 0 (the clock does not move). GUESS: within one interface the dump lists entries
 * in insertion order (VPP walks a per-interface hash_create_mem table); `stats_index` (the
 * neighbour adjacency's index) is numbered per neighbour from 0 up, while VPP's adjacency pool
 * also holds glean and multicast adjacencies.
 */
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import { attachedHostPath } from './fib-path.js';
import { FibSource } from './fib-sources.js';
import { apiAddress, fromApiAddress, ipText, macBytes, type Af } from './ip-addr.js';
import { Rv } from './retval.js';
import type { Vpp } from './vpp.js';

export interface NeighborDbConfig {
  /** ipndb_limit: 0 means no limit. */
  maxNumber: number;
  /** ipndb_age in seconds: 0 means entries never age. */
  maxAge: number;
  recycle: boolean;
}

/** One advertisement as sent: the interface, the advertised address, the MAC it carried. */
export interface SentAdvertisement {
  readonly swIfIndex: number;
  readonly address: string;
  readonly mac: string;
}

/** One entry, keyed by (address, interface). */
export interface Neighbor {
  readonly af: Af;
  readonly addr: Buffer;
  readonly swIfIndex: number;
  mac: Buffer;
  isStatic: boolean;
  readonly noFibEntry: boolean;
  /** fib_index of the adj-fib (the interface's table when added); undefined without one. */
  readonly fibIndex: number | undefined;
  readonly adjIndex: number;
}

/** vl_api_ip_neighbor_flags_t */
const FLAG_STATIC = 1;
const FLAG_NO_FIB_ENTRY = 2;

/** vl_api_address_family_t */
const ADDRESS_IP4 = 0;
const ADDRESS_IP6 = 1;

export class IpNeighbor {
  readonly #vpp: Vpp;
  /** ip_neighbor_db[]'s static initialiser: 50k entries, no aging, no recycling, per AF. */
  readonly config: Record<Af, NeighborDbConfig> = {
    4: { maxNumber: 50000, maxAge: 0, recycle: false },
    6: { maxNumber: 50000, maxAge: 0, recycle: false },
  };
  readonly advertisements: SentAdvertisement[] = [];
  /**
   * The dynamic entries per family, oldest first (ip_neighbor_list_head: ip_neighbor_refresh moves
   * an entry to the head, and a full database with recycle on evicts the tail).
   */
  readonly #dynamic: Record<Af, Set<Neighbor>> = { 4: new Set(), 6: new Set() };
  /** ipndb_n_elts per family. */
  readonly #count: Record<Af, number> = { 4: 0, 6: 0 };
  /** ipndb_hash per family, per interface: key address hex → entry. */
  readonly #db: Record<Af, Map<number, Map<string, Neighbor>>> = { 4: new Map(), 6: new Map() };
  /** ipndb_n_elts_per_fib: adj-fibs per (family, fib_index), the table locked while > 0. */
  readonly #perFib = new Map<string, number>();
  #nextAdj = 0;
  readonly #adjOf = new Map<string, number>();

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
    // ip_neighbor_interface_add_del: an interface's entries go with it
    vpp.interfaces.deleteHooks.push((sw) => {
      for (const af of [4, 6] as const)
        for (const n of [...(this.#db[af].get(sw.swIfIndex)?.values() ?? [])]) this.del(n.addr, sw.swIfIndex);
    });
  }

  neighbors(af: Af): Neighbor[] {
    return [...this.#db[af].entries()].sort((a, b) => a[0] - b[0]).flatMap(([, m]) => [...m.values()]);
  }

  /**
   * ip_neighbor_add: rv and stats_index. `learned`: added by the dataplane (ip_neighbor_learn,
   * IP_NEIGHBOR_FLAG_DYNAMIC), the only entries that age and that a full database recycles; the
   * API's entries, static or not, are neither (ip_neighbor_flags_decode sets no DYNAMIC flag).
   */
  add(
    addr: Buffer,
    mac: Buffer,
    swIfIndex: number,
    flags: number,
    learned = false,
  ): { rv: number; statsIndex: number } {
    const af: Af = addr.length === 4 ? 4 : 6;
    const isStatic = (flags & FLAG_STATIC) !== 0;
    const perIf = this.#db[af].get(swIfIndex) ?? new Map<string, Neighbor>();
    this.#db[af].set(swIfIndex, perIf);
    const key = addr.toString('hex');
    const found = perIf.get(key);
    if (found) {
      // "Refuse to over-write static neighbor entry" (unless the MAC is the same)
      if (!isStatic && found.isStatic) {
        if (!found.mac.equals(mac)) return { rv: -2, statsIndex: 0xffffffff };
      } else {
        // a dynamic entry can become static, not the reverse
        if (isStatic) {
          found.isStatic = true;
          this.#dynamic[af].delete(found);
        }
        found.mac = Buffer.from(mac);
        // ip_neighbor_refresh: a dynamic entry becomes the newest
        if (this.#dynamic[af].delete(found)) this.#dynamic[af].add(found);
      }
      return { rv: 0, statsIndex: found.adjIndex };
    }
    if (this.config[af].maxNumber && this.#count[af] >= this.config[af].maxNumber) {
      // ip_neighbor_alloc: a full database takes the oldest dynamic entry's place, with recycle on
      const [oldest] = this.config[af].recycle ? this.#dynamic[af] : [];
      if (oldest === undefined) return { rv: Rv.LIMIT_EXCEEDED, statsIndex: 0xffffffff };
      this.del(oldest.addr, oldest.swIfIndex);
    }
    const noFibEntry = (flags & FLAG_NO_FIB_ENTRY) !== 0;
    const isLinkLocal = af === 6 && addr[0] === 0xfe && ((addr[1] as number) & 0xc0) === 0x80;
    let fibIndex: number | undefined;
    if (!noFibEntry && !isLinkLocal) {
      // ip_neighbor_adj_fib_add: an attached host route via the interface, source ADJ
      const t = this.#vpp.ip.tableOf(swIfIndex, af);
      if (t) {
        fibIndex = t.index;
        this.#vpp.fib.pathAdd(t, { af, addr, len: af === 4 ? 32 : 128 }, FibSource.ADJ, [
          attachedHostPath(af, addr, swIfIndex),
        ]);
        const fk = `${af}|${t.index}`;
        const n = (this.#perFib.get(fk) ?? 0) + 1;
        this.#perFib.set(fk, n);
        if (n === 1) this.#vpp.fib.lock(t, FibSource.ADJ);
      }
    }
    const adjKey = `${af}|${swIfIndex}|${key}`;
    let adjIndex = this.#adjOf.get(adjKey);
    if (adjIndex === undefined) {
      adjIndex = this.#nextAdj++;
      this.#adjOf.set(adjKey, adjIndex);
    }
    const entry: Neighbor = {
      af,
      addr: Buffer.from(addr),
      swIfIndex,
      mac: Buffer.from(mac),
      isStatic,
      noFibEntry,
      fibIndex,
      adjIndex,
    };
    perIf.set(key, entry);
    this.#count[af]++;
    if (learned && !isStatic) this.#dynamic[af].add(entry);
    return { rv: 0, statsIndex: adjIndex };
  }

  /**
   * What ARP and ND do with a sender they learn (ip_neighbor_learn): the simulator has no
   * dataplane, so tests call this where VPP would have received the packet.
   */
  learn(addr: Buffer, mac: Buffer, swIfIndex: number): number {
    return this.add(addr, mac, swIfIndex, 0, true).rv;
  }

  /** ip_neighbor_del: NO_SUCH_ENTRY when not there. */
  del(addr: Buffer, swIfIndex: number): number {
    const af: Af = addr.length === 4 ? 4 : 6;
    const perIf = this.#db[af].get(swIfIndex);
    const key = addr.toString('hex');
    const n = perIf?.get(key);
    if (!perIf || !n) return Rv.NO_SUCH_ENTRY;
    perIf.delete(key);
    this.#count[af]--;
    this.#dynamic[af].delete(n);
    if (n.fibIndex !== undefined) {
      const t = this.#vpp.fib.byIndex(af, n.fibIndex);
      if (t) {
        this.#vpp.fib.pathRemove(t, { af, addr, len: af === 4 ? 32 : 128 }, FibSource.ADJ, [
          attachedHostPath(af, addr, swIfIndex),
        ]);
        const fk = `${af}|${t.index}`;
        const left = (this.#perFib.get(fk) ?? 1) - 1;
        this.#perFib.set(fk, left);
        if (left === 0) this.#vpp.fib.unlock(t, FibSource.ADJ);
      }
    }
    return 0;
  }

  /**
   * ip4_neighbor_advertise / ip6_neighbor_advertise: a gratuitous ARP or an unsolicited NA
   * (override flag, to all-nodes) with the interface's hardware address. Neither checks the
   * address is the interface's, nor the link; both read the hw interface of `swIfIndex`.
   */
  advertise(swIfIndex: number, address: Buffer): void {
    const sw = this.#vpp.interfaces.get(swIfIndex);
    const mac = sw?.mac ? [...sw.mac].map((b) => b.toString(16).padStart(2, '0')).join(':') : '';
    // A link that is down drops the packet at the device's output node: nothing reaches a peer.
    if (sw?.adminUp && sw.linkUp) this.advertisements.push({ swIfIndex, address: ipText(address), mac });
  }

  register(d: Dispatcher): void {
    d.on(msg.ip_neighbor_add_del, (m, call) => {
      const nb = m.neighbor;
      if (!this.#vpp.interfaces.isValid(nb.sw_if_index))
        return call.reply({ retval: Rv.INVALID_SW_IF_INDEX, stats_index: 0xffffffff });
      const addr = fromApiAddress(nb.ip_address);
      const r = m.is_add
        ? this.add(addr, macBytes(nb.mac_address), nb.sw_if_index, nb.flags)
        : { rv: this.del(addr, nb.sw_if_index), statsIndex: 0xffffffff };
      call.reply({ retval: r.rv, stats_index: r.statsIndex });
    });

    d.on(msg.ip_neighbor_dump, (m, call) => {
      if (!call.reg) return;
      const af = decodeAf(m.af);
      if (af === undefined) return;
      const sw = m.sw_if_index >>> 0;
      const list = sw === 0xffffffff ? this.neighbors(af) : [...(this.#db[af].get(sw)?.values() ?? [])];
      for (const n of list) {
        call.details(msg.ip_neighbor_details, {
          age: 0,
          neighbor: {
            sw_if_index: n.swIfIndex,
            flags: (n.isStatic ? FLAG_STATIC : 0) | (n.noFibEntry ? FLAG_NO_FIB_ENTRY : 0),
            mac_address: [...n.mac].map((b) => b.toString(16).padStart(2, '0')).join(':'),
            ip_address: apiAddress(n.addr),
          },
        });
      }
    });

    d.on(msg.ip_neighbor_config, (m, call) => {
      const af = decodeAf(m.af);
      if (af === undefined) {
        call.reply({ retval: Rv.INVALID_ADDRESS_FAMILY });
        return;
      }
      // ip_neighbor_config takes the values as given (no range checks) and wakes the aging process.
      this.config[af] = { maxNumber: m.max_number, maxAge: m.max_age, recycle: m.recycle };
      call.reply({ retval: 0 });
    });

    d.on(msg.ip_neighbor_config_get, (m, call) => {
      const af = decodeAf(m.af);
      // On a bad family the reply keeps the handler's initial values: AF_IP4, ~0, ~0, false.
      if (af === undefined) {
        call.reply({
          retval: Rv.INVALID_ADDRESS_FAMILY,
          af: ADDRESS_IP4,
          max_number: 0xffffffff,
          max_age: 0xffffffff,
          recycle: false,
        });
        return;
      }
      const c = this.config[af];
      call.reply({
        retval: 0,
        af: af === 4 ? ADDRESS_IP4 : ADDRESS_IP6,
        max_number: c.maxNumber,
        max_age: c.maxAge,
        recycle: c.recycle,
      });
    });
  }
}

/** ip_address_family_decode */
function decodeAf(af: number): Af | undefined {
  if (af === ADDRESS_IP4) return 4;
  if (af === ADDRESS_IP6) return 6;
  return undefined;
}
