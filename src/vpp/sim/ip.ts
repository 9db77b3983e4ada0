/**
 * IP on interfaces: their addresses, table binding and unnumbered, following VPP 26.06
 * src/vnet/ip/ip_api.c, ip4_forward.c, ip6_forward.c, ip_interface.c, interface_api.c
 * (ip_table_bind), interface.c (unnumbered). Beside it, one concept each: the routes an address
 * adds (ip-interface-routes.ts), the IPv6 link an address enables (ip6-link.ts), tables and routes
 * through the API (ip-routes.ts), proxy ARP (proxy-arp.ts).
 */
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import type { Fib, FibTable } from './fib.js';
import { FibSource } from './fib-sources.js';
import type { SimInterface } from './interfaces.js';
import { InterfaceRoutes } from './ip-interface-routes.js';
import { apiAddress, covers, fromApiAddress, type Af } from './ip-addr.js';
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
  ip4Enabled: number;
  ip6Enabled: number;
}

const ANY = 0xffffffff;

function afIndex(af: Af): 0 | 1 {
  return af === 4 ? 0 : 1;
}

export class Ip {
  readonly #vpp: Vpp;
  readonly fib: Fib;
  readonly #ifs = new Map<number, IpIf>();
  /** address_to_if_address_index: (af, address, fib_index) → address */
  readonly #addrIndex = new Map<string, IfAddress>();
  readonly #routes: InterfaceRoutes;

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
    this.fib = vpp.fib;
    this.#routes = new InterfaceRoutes(vpp.fib);
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

  #adminChange(sw: SimInterface, up: boolean): void {
    const s = this.ipIf(sw.swIfIndex);
    const t4 = this.fib.byIndex(4, s.fibIndex[0]);
    for (const a of this.#ownAddresses(sw.swIfIndex, 4)) {
      if (!t4) break;
      if (up) this.#routes.add4(sw.swIfIndex, t4, a);
      else this.#routes.del4(sw.swIfIndex, t4, a.addr, a.len);
    }
    const t6 = this.fib.byIndex(6, s.fibIndex[1]);
    for (const a of this.#ownAddresses(sw.swIfIndex, 6)) {
      if (!t6) break;
      if (up) this.#routes.add6(sw.swIfIndex, t6, a);
      else this.#routes.del6(sw.swIfIndex, t6, a.addr, a.len);
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
      if (isDel) {
        const ll = this.#vpp.ip6Link.linkLocalOf(swIfIndex);
        return ll && ll.equals(addr) ? Rv.ADDRESS_NOT_DELETABLE : Rv.ADDRESS_NOT_FOUND_FOR_INTERFACE;
      }
      return this.#vpp.ip6Link.setLocalAddress(sw, addr);
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
      if (!isDel) this.#vpp.ip6Link.enable(sw, undefined);
    }
    if (sw.adminUp) {
      const t = this.fib.byIndex(af, fibIndex) as FibTable;
      const a = this.#addrIndex.get(key);
      if (af === 4) {
        if (isDel) this.#routes.del4(swIfIndex, t, addr, len);
        else if (a) this.#routes.add4(swIfIndex, t, a);
      } else if (isDel) this.#routes.del6(swIfIndex, t, addr, len);
      else if (a) this.#routes.add6(swIfIndex, t, a);
    }
    this.#vpp.onAddressChange(swIfIndex, af, addr, len, isDel);
    if (af === 6 && isDel) this.#vpp.ip6Link.disable(sw);
    return 0;
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
    this.#vpp.ip6Link.interfaceDeleted(sw);
    // Proxy ARP's enabled flag outlives the interface (proxy-arp.ts).
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

  // ------------------------------------------------------------------------------------------
  // API

  register(d: Dispatcher): void {
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
  }
}
