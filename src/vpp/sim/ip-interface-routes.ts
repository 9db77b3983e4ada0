/**
 * The routes an interface address adds to its table while the interface is up (VPP 26.06
 * ip4_forward.c ip4_add_interface_routes / ip4_del_interface_routes, ip6_forward.c's ip6
 * equivalents), with the prefix routes reference counted per (prefix, interface) as
 * ip_interface_prefix does. Apart from the addresses themselves (ip.ts) because which routes an
 * address makes is its own set of rules, and the one place the FIB's INTERFACE source is used.
 */
import type { Fib, FibTable } from './fib.js';
import { DpoProto, PathCfg, PathType, type FibPath } from './fib-path.js';
import { FibSource } from './fib-sources.js';
import { masked, withHostBitsSet } from './ip-addr.js';

export class InterfaceRoutes {
  readonly #fib: Fib;
  /** ip_interface_prefix refcounts: (af, masked prefix, len, sw_if_index) */
  readonly #ifPrefixes = new Map<string, number>();

  constructor(fib: Fib) {
    this.#fib = fib;
  }

  /**
   * ip4_add_interface_routes: the address's receive /32, then once per (prefix, interface) the
   * glean, the network and broadcast drops (or, on a /31, the peer as an attached next hop).
   */
  add4(sw: number, t: FibTable, a: { readonly addr: Buffer; readonly len: number }): void {
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
    this.#fib.sourceAdd(t, { af: 4, addr: a.addr, len: 32 }, FibSource.INTERFACE, {
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
    this.#fib.sourceAdd(t, { af: 4, addr: a.addr, len: a.len }, FibSource.INTERFACE, {
      kind: 'paths',
      paths: [{ ...path(PathType.ATTACHED, Buffer.alloc(0)), cfg: 0 }],
    });
    if (a.len <= 30) {
      if (!net.equals(a.addr))
        this.#fib.sourceAdd(t, { af: 4, addr: net, len: 32 }, FibSource.INTERFACE, { kind: 'drop' });
      const bcast = withHostBitsSet(a.addr, a.len);
      // ip4_add_subnet_bcast_route without directed broadcast: a drop
      if (!bcast.equals(a.addr))
        this.#fib.sourceAdd(t, { af: 4, addr: bcast, len: 32 }, FibSource.INTERFACE, { kind: 'drop' });
    } else if (a.len === 31) {
      const other = Buffer.from(a.addr);
      other[3] = (other[3] as number) ^ 1;
      this.#fib.sourceAdd(t, { af: 4, addr: other, len: 32 }, FibSource.INTERFACE, {
        kind: 'paths',
        paths: [{ ...path(PathType.ATTACHED_NEXT_HOP, other), cfg: 0 }],
      });
    }
  }

  /** ip4_del_interface_routes: the prefix routes go with the last address in the prefix. */
  del4(sw: number, t: FibTable, addr: Buffer, len: number): void {
    this.#fib.sourceRemove(t, { af: 4, addr, len: 32 }, FibSource.INTERFACE);
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
      if (!net.equals(addr)) this.#fib.sourceRemove(t, { af: 4, addr: net, len: 32 }, FibSource.INTERFACE);
      const bcast = withHostBitsSet(addr, len);
      if (!bcast.equals(addr))
        this.#fib.sourceRemove(t, { af: 4, addr: bcast, len: 32 }, FibSource.INTERFACE);
    } else if (len === 31) {
      const other = Buffer.from(addr);
      other[3] = (other[3] as number) ^ 1;
      this.#fib.sourceRemove(t, { af: 4, addr: other, len: 32 }, FibSource.INTERFACE);
    }
    this.#fib.sourceRemove(t, { af: 4, addr, len }, FibSource.INTERFACE);
  }

  /** ip6_add_interface_routes: the receive /128 and once per (prefix, interface) the glean. */
  add6(sw: number, t: FibTable, a: { readonly addr: Buffer; readonly len: number }): void {
    const proto = DpoProto.IP6;
    this.#fib.sourceAdd(t, { af: 6, addr: a.addr, len: 128 }, FibSource.INTERFACE, {
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
    this.#fib.sourceAdd(t, { af: 6, addr: net, len: a.len }, FibSource.INTERFACE, {
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

  /** ip6_del_interface_routes */
  del6(sw: number, t: FibTable, addr: Buffer, len: number): void {
    this.#fib.sourceRemove(t, { af: 6, addr, len: 128 }, FibSource.INTERFACE);
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
    this.#fib.sourceRemove(t, { af: 6, addr: net, len }, FibSource.INTERFACE);
  }
}
