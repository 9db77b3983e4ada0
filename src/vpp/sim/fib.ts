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
 *
 * Sources (numbers, priorities, an entry's set) are in fib-sources.ts, paths (types, order,
 * encoding) in fib-path.ts.
 */
import { comparePaths, DpoProto, PathCfg, PathType, type FibPath } from './fib-path.js';
import { FibSource, FibSources, type SourceState } from './fib-sources.js';
import { masked, type Af, type IpPrefix } from './ip-addr.js';
import { hashIp6KeyLow, hashUwordLow, VppHash } from './vpp-hash.js';
import { LoadBalancePool, VppPool } from './vpp-pool.js';

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

  /** Every entry of every table (inspection). */
  *allEntries(): IterableIterator<FibEntry> {
    for (const t of this.ip4.values()) yield* this.walk(t);
    for (const t of this.ip6.values()) yield* this.walk(t);
  }
}
