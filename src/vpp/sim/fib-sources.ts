/**
 * FIB sources (src/vnet/fib/fib_source.h, VPP 26.06): their numbers, their priorities, and the
 * compact per-entry set of sources with each one's contribution. Apart from the FIB itself
 * because every area that adds routes names a source, and the per-entry set is a memory
 * measure of its own (see FibSources).
 */
import type { FibPath } from './fib-path.js';

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

/** What one source contributes to an entry. */
export interface SourceState {
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
