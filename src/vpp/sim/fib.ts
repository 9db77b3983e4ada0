/**
 * A model of VPP's FIB (src/vnet/fib, VPP 26.06) detailed enough to reproduce what the API shows
 * of it: tables and their names, entries with their sources, the paths of the best source, and
 * each entry's load-balance index (its `stats_index`), in the order VPP walks a table.
 *
 * What is modelled, with the source it follows:
 * - Tables: ip4/ip6 pools of `fib_table_t` (fib_index = pool index), found by table id; locks
 *   per source, API/CLI locks are 0/1, the table dies with its last lock (fib_table.c
 *   `fib_table_lock`, `fib_table_unlock`). Names: as given, else "ipv4-VRF:0"/"ipv6-VRF:0" for
 *   table 0, else "ipv4-VRF:<id>" with the id printed signed, "%d": ids from 2^31 on are
 *   negative, ~0 is "ipv4-VRF:-1" (`fib_table_find_or_create_and_lock_i`; checked on VPP 26.06).
 * - New tables get their special entries, in this order: ip4 0.0.0.0/0, 0.0.0.0/32, 240.0.0.0/4,
 *   224.0.0.0/4 (drop), 255.255.255.255/32 (ip4_fib.c `ip4_specials`); ip6 ::/0 (drop) and
 *   fe80::/10 (ip6_fib.c `ip6_fib_hash_load_specials`).
 * - Entries: one per prefix per table, sources kept by priority (fib_source.h
 *   `foreach_fib_source`); the best source's paths are what dumps show (`fib_entry_encode`).
 * - Load-balances: every entry gets one when first installed, unless its source hands it an
 *   exclusive load-balance to use as is (SR BSIDs; fib_entry_src.c `fib_entry_src_mk_lb`).
 *   Indices come from one pool with LIFO reuse; index 0 is taken at start-up.
 * - Recursive paths install (or reference) a host route for the next hop with source RR in the
 *   table they resolve in (fib_path.c `fib_path_resolve`); an RR entry shows its cover's paths.
 * - Walk order: ip4 by prefix length 0..32, each length in its hash's order; ip6 in the table
 *   hash's order (see vpp-hash.ts).
 */
import { masked, type Af, type IpPrefix } from './ip-addr.js';
import { hashIp6KeyLow, hashUwordLow, VppHash } from './vpp-hash.js';
import { LoadBalancePool, VppPool } from './vpp-pool.js';

/** fib_source_t values (src/vnet/fib/fib_source.h). */
export const FibSource = {
  SPECIAL: 1,
  CLASSIFY: 2,
  PROXY: 3,
  INTERFACE: 4,
  SR: 5,
  BIER: 6,
  SIXRD: 7,
  API: 8,
  CLI: 9,
  LISP: 10,
  MAP: 11,
  DHCP: 12,
  IP6_ND_PROXY: 13,
  IP6_ND: 14,
  ADJ: 15,
  MPLS: 16,
  AE: 17,
  RR: 18,
  URPF_EXEMPT: 19,
  DEFAULT_ROUTE: 20,
  /**
   * Dynamic sources (`fib_source_allocate`) are numbered from FIB_SOURCE_LAST + 1 = 22 in the order
   * modules initialise; `show fib source` of the reference VPP 26.06 build (all plugins loaded):
   * 22 path-mtu, 23 cnat, 24 det44-hi, 25 det44-low, 26 dslite-hi, 27 ila, 28 lb, 29 nat44-ei-low,
   * 30 nat44-ei-hi, 31 nat64-hi, 32 nat64-low, 33 nat66-hi, 34 nat-low, 35 nat-hi, 36 pppoe,
   * 37 svs. They show in ip_route_v2_details.src (29 checked on that VPP for nat44-ei's /32s).
   */
  NAT44_EI_LOW: 29,
  NAT44_EI_HI: 30,
  /** nat44-ed's "nat-low" and "nat-hi" */
  NAT_LOW: 34,
  NAT_HI: 35,
  /**
   * nat66's "nat66-hi" (nat66.c `nat66_init`): number 33 in `show fib source` of the reference
   * VPP 26.06 build. It only ever locks IPv6 tables (it adds no entries), so the number shows nowhere.
   */
  NAT66_HI: 33,
} as const;

/** Source priorities: smaller wins (fib_source.h; dynamic ones by their registered class). */
const SOURCE_PRIORITY: ReadonlyMap<number, number> = new Map([
  [FibSource.SPECIAL, 0x00],
  [FibSource.CLASSIFY, 0x01],
  [FibSource.PROXY, 0x02],
  [FibSource.INTERFACE, 0x03],
  [FibSource.SR, 0x10],
  [FibSource.BIER, 0x20],
  [FibSource.SIXRD, 0x30],
  [FibSource.API, 0x80],
  [FibSource.CLI, 0x81],
  [FibSource.LISP, 0x90],
  [FibSource.MAP, 0xa0],
  [FibSource.DHCP, 0xb0],
  [FibSource.IP6_ND_PROXY, 0xc0],
  [FibSource.IP6_ND, 0xc1],
  [FibSource.ADJ, 0xd0],
  [FibSource.MPLS, 0xe0],
  [FibSource.AE, 0xf0],
  [FibSource.RR, 0xfb],
  [FibSource.URPF_EXEMPT, 0xfc],
  [FibSource.DEFAULT_ROUTE, 0xfd],
  // Dynamic sources rank after the static one of their class, in allocation order (`show fib
  // source`: nat44-ei-low 208.2, nat-low 208.4; nat44-ei-hi 16.6, nat66-hi 16.8, nat-hi 16.9).
  [FibSource.NAT44_EI_LOW, 0xd0 + 0.2],
  [FibSource.NAT_LOW, 0xd0 + 0.4],
  [FibSource.NAT44_EI_HI, 0x10 + 0.6],
  [FibSource.NAT66_HI, 0x10 + 0.8],
  [FibSource.NAT_HI, 0x10 + 0.9],
]);

function sourcePriority(source: number): number {
  return SOURCE_PRIORITY.get(source) ?? 0x100;
}

/** fib_path_type_t in fib_path.c order (also the path-list sort key). */
export const PathType = {
  ATTACHED_NEXT_HOP: 0,
  ATTACHED: 1,
  RECURSIVE: 2,
  SPECIAL: 3,
  EXCLUSIVE: 4,
  DEAG: 5,
  INTF_RX: 6,
  UDP_ENCAP: 7,
  RECEIVE: 8,
  DVR: 12,
} as const;

/** dpo_proto_t; the API's fib_path_nh_proto has the same numbers. */
export const DpoProto = { IP4: 0, IP6: 1, MPLS: 2, ETHERNET: 3, BIER: 4 } as const;

/** Path configuration flags that change how a path encodes. */
export const PathCfg = { DROP: 1, ICMP_UNREACH: 2, ICMP_PROHIBIT: 4, LOCAL: 8 } as const;

export interface FibPath {
  readonly type: number;
  /** Next-hop protocol (dpo_proto_t). */
  readonly proto: number;
  readonly swIfIndex: number;
  /** Next hop: 4 bytes for IPv4, 16 for IPv6; empty when none. */
  readonly nh: Buffer;
  /** For DEAG and RECURSIVE: the fib_index looked up in. */
  readonly fibIndex: number;
  readonly weight: number;
  readonly preference: number;
  readonly cfg: number;
  /** MPLS labels (kept only to be dumped back). */
  readonly labels?: readonly { label: number; ttl: number; exp: number; isUniform: number }[];
}

interface SourceState {
  paths: FibPath[];
  /** RR and special sources are reference counted (`fes_ref_count`). */
  refs: number;
  /** An exclusive load-balance handed in by the source (SR policy DPOs). */
  exclusiveLb?: number;
}

/**
 * An entry's sources and their states, in the order they were added, as a Map would keep them.
 * Nearly every entry has one (a steering entry's SR, a route's API): that one is kept in fields,
 * and an array is made for more. A Map per entry was ~250 bytes of a 100k-entry simulator's heap
 * per steering entry, its largest single cost (a heap snapshot), and marking it all was most of
 * the simulator's major collections.
 */
export class FibSources {
  #firstSource = -1;
  #first: SourceState | undefined;
  /** Further sources and their states, alternating: [source, state, source, state, ...]. */
  #more: (number | SourceState)[] | undefined;

  get size(): number {
    return (this.#first === undefined ? 0 : 1) + (this.#more ? this.#more.length / 2 : 0);
  }

  get(source: number): SourceState | undefined {
    if (this.#first !== undefined && this.#firstSource === source) return this.#first;
    const more = this.#more;
    if (more)
      for (let i = 0; i < more.length; i += 2) if (more[i] === source) return more[i + 1] as SourceState;
    return undefined;
  }

  has(source: number): boolean {
    return this.get(source) !== undefined;
  }

  /** Replaces the source's state, or adds the source last. */
  set(source: number, state: SourceState): void {
    // (No first source means no others either: delete() moves the next one up.)
    if (this.#first === undefined || this.#firstSource === source) {
      this.#firstSource = source;
      this.#first = state;
      return;
    }
    const more = (this.#more ??= []);
    for (let i = 0; i < more.length; i += 2) {
      if (more[i] === source) {
        more[i + 1] = state;
        return;
      }
    }
    more.push(source, state);
  }

  delete(source: number): boolean {
    if (this.#first !== undefined && this.#firstSource === source) {
      // The next one, if any, becomes the first: the order stays that of addition.
      const more = this.#more;
      if (more && more.length > 0) {
        this.#firstSource = more[0] as number;
        this.#first = more[1] as SourceState;
        more.splice(0, 2);
        if (more.length === 0) this.#more = undefined;
      } else {
        this.#first = undefined;
        this.#firstSource = -1;
      }
      return true;
    }
    const more = this.#more;
    if (!more) return false;
    for (let i = 0; i < more.length; i += 2) {
      if (more[i] === source) {
        more.splice(i, 2);
        if (more.length === 0) this.#more = undefined;
        return true;
      }
    }
    return false;
  }

  /** The source of highest priority (the smallest value); -1 when there is none. */
  best(): number {
    if (this.#first === undefined) return -1;
    let best = this.#firstSource;
    const more = this.#more;
    if (more) {
      let prio = sourcePriority(best);
      for (let i = 0; i < more.length; i += 2) {
        const p = sourcePriority(more[i] as number);
        if (p < prio) {
          prio = p;
          best = more[i] as number;
        }
      }
    }
    return best;
  }

  /** The sources, in the order they were added. */
  *keys(): IterableIterator<number> {
    if (this.#first !== undefined) yield this.#firstSource;
    const more = this.#more;
    if (more) for (let i = 0; i < more.length; i += 2) yield more[i] as number;
  }
}

export class FibEntry {
  readonly table: FibTable;
  readonly prefix: IpPrefix;
  /** Load-balance index: the entry's stats_index. */
  lb = -1;
  readonly sources = new FibSources();

  constructor(table: FibTable, prefix: IpPrefix) {
    this.table = table;
    this.prefix = prefix;
  }

  bestSource(): number {
    return this.sources.best();
  }
}

export class FibTable {
  readonly fib: Fib;
  readonly af: Af;
  readonly index: number;
  readonly tableId: number;
  desc: string;
  /** ip6 link-local tables are not shown by ip_table_dump. */
  readonly linkLocal: boolean;
  readonly locks = new Map<number, number>();
  totalLocks = 0;
  /** ip4: one hash per prefix length; ip6: one hash (index 0). */
  readonly hashes: (VppHash<number | string, FibEntry> | undefined)[];
  entryCount = 0;

  constructor(fib: Fib, af: Af, index: number, tableId: number, desc: string, linkLocal: boolean) {
    this.fib = fib;
    this.af = af;
    this.index = index;
    this.tableId = tableId;
    this.desc = desc;
    this.linkLocal = linkLocal;
    this.hashes = af === 4 ? new Array<VppHash<number | string, FibEntry> | undefined>(33) : [];
  }
}

/** What a source contributes when it is added to an entry. */
export type Contribution =
  | { readonly kind: 'paths'; readonly paths: readonly FibPath[] }
  | { readonly kind: 'drop' }
  | { readonly kind: 'local' }
  /** A DPO that is not a load-balance (SR localsid, ip6 link-local lookup): the entry gets an lb. */
  | { readonly kind: 'dpo' }
  /** A load-balance to use as the entry's own (SR policy BSIDs). */
  | { readonly kind: 'lb'; readonly lb: number };

const ZERO = Buffer.alloc(0);

function dpoProtoOf(af: Af): number {
  return af === 4 ? DpoProto.IP4 : DpoProto.IP6;
}

function ip4Key(prefix: IpPrefix): number {
  return masked(prefix.addr, prefix.len).readUInt32LE(0);
}

function ip6Key(prefix: IpPrefix): string {
  return `${masked(prefix.addr, prefix.len).toString('hex')}/${prefix.len}`;
}

function ip6KeySum(key: string): number {
  const slash = key.indexOf('/');
  return hashIp6KeyLow(Buffer.from(key.slice(0, slash), 'hex'), Number(key.slice(slash + 1)));
}

/** `ip46_address_cmp` on the ip46 layout (IPv4 in the last 4 bytes). */
function nhCompare(a: Buffer, b: Buffer): number {
  const pa = a.length === 4 ? Buffer.concat([Buffer.alloc(12), a]) : a.length === 0 ? Buffer.alloc(16) : a;
  const pb = b.length === 4 ? Buffer.concat([Buffer.alloc(12), b]) : b.length === 0 ? Buffer.alloc(16) : b;
  return Buffer.compare(pa, pb);
}

/** fib_path_cmp_i: type, then protocol, then the type's identifying fields. */
export function comparePaths(a: FibPath, b: FibPath): number {
  if (a.type !== b.type) return a.type - b.type;
  if (a.proto !== b.proto) return a.proto - b.proto;
  switch (a.type) {
    case PathType.ATTACHED_NEXT_HOP:
      return nhCompare(a.nh, b.nh) || a.swIfIndex - b.swIfIndex;
    case PathType.ATTACHED:
    case PathType.DVR:
    case PathType.INTF_RX:
      return a.swIfIndex - b.swIfIndex;
    case PathType.RECURSIVE:
      return nhCompare(a.nh, b.nh) || a.fibIndex - b.fibIndex;
    case PathType.DEAG:
      return a.fibIndex - b.fibIndex;
    case PathType.RECEIVE:
      return a.swIfIndex - b.swIfIndex || nhCompare(a.nh, b.nh);
    default:
      return a.cfg - b.cfg;
  }
}

export class Fib {
  readonly lbs = new LoadBalancePool();
  readonly ip4 = new VppPool<FibTable>();
  readonly ip6 = new VppPool<FibTable>();
  readonly #byId4 = new Map<number, FibTable>();
  readonly #byId6 = new Map<number, FibTable>();
  /** Entries left in tables that were destroyed (VPP logs a BUG and leaks them). */
  leakedEntries = 0;

  constructor() {
    // GUESS: ip4 table 0 is created before ip6 table 0 at start-up (ip4_lookup_init vs
    // ip6_lookup_init init order). Either way the first free load-balance afterwards is 8, which
    // the transcripts confirm.
    this.findOrCreateAndLock(4, 0, FibSource.DEFAULT_ROUTE);
    this.findOrCreateAndLock(6, 0, FibSource.DEFAULT_ROUTE);
  }

  pool(af: Af): VppPool<FibTable> {
    return af === 4 ? this.ip4 : this.ip6;
  }

  /** fib_table_find: by table id; undefined when it does not exist. */
  find(af: Af, tableId: number): FibTable | undefined {
    return (af === 4 ? this.#byId4 : this.#byId6).get(tableId >>> 0);
  }

  byIndex(af: Af, fibIndex: number): FibTable | undefined {
    return this.pool(af).get(fibIndex);
  }

  /** fib_table_find_or_create_and_lock[_w_name] */
  findOrCreateAndLock(af: Af, tableId: number, source: number, name?: string): FibTable {
    let t = this.find(af, tableId);
    if (!t) {
      t = this.#create(af, tableId >>> 0, '', false);
      this.lock(t, source);
      this.#loadSpecials(t);
    } else {
      this.lock(t, source);
    }
    if (t.desc === '') {
      if (name) t.desc = name;
      else if (tableId === 0) t.desc = af === 4 ? 'ipv4-VRF:0' : 'ipv6-VRF:0';
      else t.desc = `${af === 4 ? 'ipv4' : 'ipv6'}-VRF:${tableId | 0}`; // "%d": ~0 is -1
    }
    return t;
  }

  /**
   * fib_table_create_and_lock / ip6_fib_table_create_and_lock: a table without an id (table_id
   * ~0), such as SR's steering tables or an interface's IPv6 link-local table.
   */
  createAndLock(af: Af, source: number, desc: string, linkLocal = false): FibTable {
    const t = this.#create(af, 0xffffffff, desc, linkLocal);
    this.lock(t, source);
    this.#loadSpecials(t);
    return t;
  }

  #create(af: Af, tableId: number, desc: string, linkLocal: boolean): FibTable {
    const pool = this.pool(af);
    let table: FibTable | undefined;
    pool.add((index) => (table = new FibTable(this, af, index, tableId, desc, linkLocal)));
    const t = table as FibTable;
    if (af === 6)
      t.hashes[0] = new VppHash<string, FibEntry>(ip6KeySum, { autoShrink: true }) as VppHash<
        number | string,
        FibEntry
      >;
    // hash_set (fib_index_by_table_id, table_id, index): a later table with the same id (~0)
    // takes the name over, as in VPP.
    (af === 4 ? this.#byId4 : this.#byId6).set(tableId, t);
    return t;
  }

  #loadSpecials(t: FibTable): void {
    if (t.af === 4) {
      const p = (a: number[], len: number): IpPrefix => ({ af: 4, addr: Buffer.from(a), len });
      this.sourceAdd(t, p([0, 0, 0, 0], 0), FibSource.DEFAULT_ROUTE, { kind: 'drop' });
      this.sourceAdd(t, p([0, 0, 0, 0], 32), FibSource.DEFAULT_ROUTE, { kind: 'drop' });
      this.sourceAdd(t, p([240, 0, 0, 0], 4), FibSource.SPECIAL, { kind: 'drop' });
      this.sourceAdd(t, p([224, 0, 0, 0], 4), FibSource.SPECIAL, { kind: 'drop' });
      this.sourceAdd(t, p([255, 255, 255, 255], 32), FibSource.DEFAULT_ROUTE, { kind: 'drop' });
    } else {
      this.sourceAdd(t, { af: 6, addr: Buffer.alloc(16), len: 0 }, FibSource.DEFAULT_ROUTE, { kind: 'drop' });
      const ll = Buffer.alloc(16);
      ll[0] = 0xfe;
      ll[1] = 0x80;
      this.sourceAdd(t, { af: 6, addr: ll, len: 10 }, FibSource.SPECIAL, { kind: 'dpo' });
    }
  }

  lock(t: FibTable, source: number): void {
    const n = t.locks.get(source) ?? 0;
    if ((source === FibSource.API || source === FibSource.CLI) && n > 0) return; // fib_table_lock_set
    t.locks.set(source, n + 1);
    t.totalLocks++;
  }

  /** fib_table_unlock: the table is destroyed with its last lock. */
  unlock(t: FibTable, source: number): void {
    const n = t.locks.get(source) ?? 0;
    if (n === 0) return;
    t.locks.set(source, n - 1);
    t.totalLocks--;
    if (t.totalLocks === 0) this.#destroy(t);
  }

  #destroy(t: FibTable): void {
    if (t.af === 4) {
      // ip4_fib_hash_flush_specials: reverse order, the default route last
      const p = (a: number[], len: number): IpPrefix => ({ af: 4, addr: Buffer.from(a), len });
      this.sourceRemove(t, p([255, 255, 255, 255], 32), FibSource.DEFAULT_ROUTE);
      this.sourceRemove(t, p([224, 0, 0, 0], 4), FibSource.SPECIAL);
      this.sourceRemove(t, p([240, 0, 0, 0], 4), FibSource.SPECIAL);
      this.sourceRemove(t, p([0, 0, 0, 0], 32), FibSource.DEFAULT_ROUTE);
      this.sourceRemove(t, p([0, 0, 0, 0], 0), FibSource.DEFAULT_ROUTE);
    } else {
      const ll = Buffer.alloc(16);
      ll[0] = 0xfe;
      ll[1] = 0x80;
      this.sourceRemove(t, { af: 6, addr: ll, len: 10 }, FibSource.SPECIAL);
      this.sourceRemove(t, { af: 6, addr: Buffer.alloc(16), len: 0 }, FibSource.DEFAULT_ROUTE);
    }
    // fib_table_assert_empty: a release build logs "BUG: ... table N is not empty" and carries on;
    // entries still in the table (API routes on a deleted table) leak with their load-balances.
    this.leakedEntries += t.entryCount;
    const byId = t.af === 4 ? this.#byId4 : this.#byId6;
    if (byId.get(t.tableId) === t) byId.delete(t.tableId);
    this.pool(t.af).remove(t.index);
  }

  // ------------------------------------------------------------------------------------------
  // Entries

  lookupExact(t: FibTable, prefix: IpPrefix): FibEntry | undefined {
    if (t.af === 4) return t.hashes[prefix.len]?.get(ip4Key(prefix));
    return t.hashes[0]?.get(ip6Key(prefix));
  }

  /** Longest-prefix match strictly shorter than `len` (the cover of a prefix). */
  cover(t: FibTable, prefix: IpPrefix): FibEntry | undefined {
    for (let len = prefix.len - 1; len >= 0; len--) {
      const e = this.lookupExact(t, { af: prefix.af, addr: prefix.addr, len });
      if (e) return e;
    }
    return undefined;
  }

  /**
   * The forwarding lookup of one address (ip4_fib_forwarding_lookup's mtrie,
   * ip6_fib_table_fwding_lookup): the longest prefix in the table that covers it. Every entry of
   * the model is installed in forwarding, as every entry with a load-balance is in VPP.
   */
  longestMatch(t: FibTable, addr: Buffer): FibEntry | undefined {
    for (let len = t.af === 4 ? 32 : 128; len >= 0; len--) {
      const e = this.lookupExact(t, { af: t.af, addr, len });
      if (e) return e;
    }
    return undefined;
  }

  #insert(t: FibTable, e: FibEntry): void {
    if (t.af === 4) {
      let h = t.hashes[e.prefix.len];
      if (!h) {
        // ip4_fib_hash_table_entry_insert: hash_create (32, sizeof (uword)), NO_AUTO_SHRINK
        h = new VppHash<number, FibEntry>(hashUwordLow, { autoShrink: false }) as VppHash<
          number | string,
          FibEntry
        >;
        t.hashes[e.prefix.len] = h;
      }
      h.set(ip4Key(e.prefix), e);
    } else {
      (t.hashes[0] as VppHash<number | string, FibEntry>).set(ip6Key(e.prefix), e);
    }
    t.entryCount++;
  }

  #remove(t: FibTable, e: FibEntry): void {
    if (t.af === 4) t.hashes[e.prefix.len]?.delete(ip4Key(e.prefix));
    else t.hashes[0]?.delete(ip6Key(e.prefix));
    t.entryCount--;
  }

  /** Entries in VPP's walk order (what ip_route_dump sends). */
  walk(t: FibTable): FibEntry[] {
    const out: FibEntry[] = [];
    this.walkEach(t, (e) => void out.push(e));
    return out;
  }

  /** walk's entries one at a time, without an array of them all (a filtered dump wants few). */
  walkEach(t: FibTable, fn: (e: FibEntry) => void): void {
    for (const h of t.hashes) if (h) h.forEachValue(fn);
  }

  /**
   * Adds (or replaces) `source`'s contribution to the entry for `prefix`, creating the entry if
   * needed. Covers fib_table_entry_special_add / _special_dpo_add / _update / _update_one_path.
   * Returns the entry.
   */
  sourceAdd(
    t: FibTable,
    prefix: IpPrefix,
    source: number,
    c: Contribution,
    opts: { refCounted?: boolean } = {},
  ): FibEntry {
    let e = this.lookupExact(t, prefix);
    const isNew = !e;
    if (!e) {
      e = new FibEntry(t, { af: prefix.af, addr: Buffer.from(prefix.addr), len: prefix.len });
      this.#insert(t, e);
    }
    const existing = e.sources.get(source);
    if (existing && opts.refCounted) {
      existing.refs++;
      return e;
    }
    const old = existing?.paths;
    const state: SourceState = { paths: this.#pathsFor(prefix, c), refs: 1 };
    if (c.kind === 'lb') state.exclusiveLb = c.lb;
    // Recursive paths install their resolution before this entry's load-balance exists.
    for (const p of state.paths) if (p.type === PathType.RECURSIVE) this.#resolveRecursive(p);
    if (old) for (const p of old) if (p.type === PathType.RECURSIVE) this.#unresolveRecursive(p);
    e.sources.set(source, state);
    this.#install(e, isNew);
    return e;
  }

  /** fib_table_entry_path_add2: merges paths into `source`'s set. */
  pathAdd(t: FibTable, prefix: IpPrefix, source: number, paths: readonly FibPath[]): FibEntry {
    const e = this.lookupExact(t, prefix);
    const state = e?.sources.get(source);
    if (!e || !state) return this.sourceAdd(t, prefix, source, { kind: 'paths', paths });
    for (const p of paths) {
      if (state.paths.some((q) => comparePaths(p, q) === 0)) continue;
      if (p.type === PathType.RECURSIVE) this.#resolveRecursive(p);
      state.paths.push(p);
    }
    state.paths.sort(comparePaths);
    this.#install(e, false);
    return e;
  }

  /** fib_table_entry_path_remove2: the source goes when its last path does. */
  pathRemove(t: FibTable, prefix: IpPrefix, source: number, paths: readonly FibPath[]): void {
    const e = this.lookupExact(t, prefix);
    const state = e?.sources.get(source);
    if (!e || !state) return;
    const keep: FibPath[] = [];
    for (const q of state.paths) {
      if (paths.some((p) => comparePaths(p, q) === 0)) {
        if (q.type === PathType.RECURSIVE) this.#unresolveRecursive(q);
      } else {
        keep.push(q);
      }
    }
    state.paths = keep;
    if (keep.length === 0) this.#removeSourceFully(e, source);
    else this.#install(e, false);
  }

  /**
   * Removes `source` from the entry (fib_table_entry_delete / _special_remove). Reference counted
   * sources lose one reference. Missing entries or sources are ignored, as in VPP.
   */
  sourceRemove(t: FibTable, prefix: IpPrefix, source: number): void {
    const e = this.lookupExact(t, prefix);
    const state = e?.sources.get(source);
    if (!e || !state) return;
    if (--state.refs > 0) return;
    this.#removeSourceFully(e, source);
  }

  #removeSourceFully(e: FibEntry, source: number): void {
    const state = e.sources.get(source);
    if (!state) return;
    e.sources.delete(source);
    for (const p of state.paths) if (p.type === PathType.RECURSIVE) this.#unresolveRecursive(p);
    if (e.sources.size === 0) {
      this.#remove(e.table, e);
      if (e.lb >= 0) this.lbs.unlock(e.lb);
      e.lb = -1;
    } else {
      this.#install(e, false);
    }
  }

  /**
   * fib_entry_src_mk_lb: an exclusive load-balance replaces the entry's own; otherwise the entry
   * keeps (or, the first time, creates) one and updates it in place.
   */
  #install(e: FibEntry, _isNew: boolean): void {
    const best = e.sources.get(e.bestSource());
    if (best?.exclusiveLb !== undefined) {
      if (e.lb !== best.exclusiveLb) {
        this.lbs.lock(best.exclusiveLb);
        if (e.lb >= 0) this.lbs.unlock(e.lb);
        e.lb = best.exclusiveLb;
      }
      return;
    }
    if (e.lb < 0) e.lb = this.lbs.create();
  }

  #resolveRecursive(p: FibPath): void {
    const af: Af = p.proto === DpoProto.IP6 ? 6 : 4;
    const t = this.byIndex(af, p.fibIndex);
    if (!t) return;
    this.sourceAdd(
      t,
      { af, addr: p.nh, len: af === 4 ? 32 : 128 },
      FibSource.RR,
      { kind: 'paths', paths: [] },
      { refCounted: true },
    );
  }

  #unresolveRecursive(p: FibPath): void {
    const af: Af = p.proto === DpoProto.IP6 ? 6 : 4;
    const t = this.byIndex(af, p.fibIndex);
    if (!t) return;
    this.sourceRemove(t, { af, addr: p.nh, len: af === 4 ? 32 : 128 }, FibSource.RR);
  }

  #pathsFor(prefix: IpPrefix, c: Contribution): FibPath[] {
    const proto = dpoProtoOf(prefix.af);
    const base = { proto, swIfIndex: 0xffffffff, nh: ZERO, fibIndex: 0, weight: 1, preference: 0, cfg: 0 };
    switch (c.kind) {
      case 'paths':
        return [...c.paths].sort(comparePaths);
      case 'drop':
        return [{ ...base, type: PathType.SPECIAL, cfg: PathCfg.DROP }];
      case 'local':
        // fib_path_create_special sets attached.fp_interface, encode reads receive.fp_interface:
        // the dump shows sw_if_index 0 (design transcript 15, 255.255.255.255/32 with DHCP).
        return [{ ...base, type: PathType.RECEIVE, swIfIndex: 0, cfg: PathCfg.LOCAL }];
      case 'dpo':
      case 'lb':
        return [{ ...base, type: PathType.EXCLUSIVE }];
    }
  }

  /** The paths a dump shows for an entry: its best source's; an RR entry shows its cover's. */
  pathsOf(e: FibEntry): readonly FibPath[] {
    const best = e.sources.get(e.bestSource());
    if (!best) return [];
    if (e.bestSource() === FibSource.RR && best.paths.length === 0) {
      const cover = this.cover(e.table, e.prefix);
      return cover ? this.pathsOf(cover) : [];
    }
    return best.paths;
  }

  tableIdOf(af: Af, fibIndex: number): number {
    return this.byIndex(af, fibIndex)?.tableId ?? 0xffffffff;
  }

  /** fib_path_encode + fib_api_path_encode: one vl_api_fib_path_t. */
  encodePath(p: FibPath): Record<string, unknown> {
    let type = 0; // FIB_API_PATH_TYPE_NORMAL
    if (p.cfg & PathCfg.ICMP_UNREACH) type = 5;
    else if (p.cfg & PathCfg.ICMP_PROHIBIT) type = 6;
    else if (p.type === PathType.RECEIVE) type = 1;
    else if (p.cfg & PathCfg.DROP) type = 2;
    else if (p.type === PathType.UDP_ENCAP) type = 3;
    else if (p.type === PathType.INTF_RX) type = 9;
    else if (p.type === PathType.DVR) type = 8;
    const swIfIndex =
      p.type === PathType.RECEIVE ||
      p.type === PathType.ATTACHED ||
      p.type === PathType.ATTACHED_NEXT_HOP ||
      p.type === PathType.DVR ||
      p.type === PathType.INTF_RX
        ? p.swIfIndex
        : 0xffffffff;
    const hasNh =
      p.type === PathType.RECEIVE || p.type === PathType.ATTACHED_NEXT_HOP || p.type === PathType.RECURSIVE;
    const fibIndex = p.type === PathType.DEAG || p.type === PathType.RECURSIVE ? p.fibIndex : 0;
    const af: Af = p.proto === DpoProto.IP6 ? 6 : 4;
    let address: Record<string, unknown> = {};
    if (hasNh && p.nh.length === 4 && p.proto === DpoProto.IP4) address = { ip4: new Uint8Array(p.nh) };
    else if (hasNh && p.nh.length === 16 && p.proto === DpoProto.IP6) address = { ip6: new Uint8Array(p.nh) };
    const labels = p.labels ?? [];
    return {
      sw_if_index: swIfIndex,
      // fib_api_path_encode: table_id only when frp_fib_index != 0
      table_id: fibIndex !== 0 ? this.tableIdOf(af, fibIndex) : 0,
      rpf_id: 0,
      weight: p.weight,
      preference: p.preference,
      type,
      flags: 0,
      proto: p.proto,
      nh: { address, via_label: 0, obj_id: 0, classify_table_index: 0 },
      n_labels: labels.length,
      label_stack: labels.map((l) => ({ is_uniform: 0, label: l.label, ttl: l.ttl, exp: l.exp })),
    };
  }

  /** Every entry of every table (inspection). */
  *allEntries(): IterableIterator<FibEntry> {
    for (const t of this.ip4.values()) yield* this.walk(t);
    for (const t of this.ip6.values()) yield* this.walk(t);
  }
}

/** The path of a neighbour's host route (ip_neighbor_adj_fib_add): attached, via the interface. */
export function attachedHostPath(af: 4 | 6, addr: Buffer, swIfIndex: number): FibPath {
  return {
    type: PathType.ATTACHED_NEXT_HOP,
    proto: af === 4 ? DpoProto.IP4 : DpoProto.IP6,
    swIfIndex,
    nh: Buffer.from(addr),
    fibIndex: 0,
    weight: 1,
    preference: 0,
    cfg: 0,
  };
}
