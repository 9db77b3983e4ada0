/**
 * IPv6 ND proxy, following VPP 26.06 src/vnet/ip6-nd/ip6_nd_proxy.c (per-address entries),
 * ip6_nd_mirror_proxy.c (the per-interface "answer every NS" features) and ip6_nd_api.c.
 *
 * - `ip6nd_proxy_enable_disable` turns the ip6-unicast-nd-proxy / ip6-multicast-nd-proxy features
 *   on or off: always 0, on repeat too. It is not tied to the IPv6 link (disabling IPv6 keeps it).
 * - `ip6nd_proxy_add_del` is a /128 route in the interface's IPv6 table, via the interface with the
 *   address as next hop, from the IPv6-proxy-nd source; removing a path that is not there is 0.
 * - `ip6nd_proxy_dump` lists those routes (not the mirror features), sorted by address. VPP sends
 *   its details with `_vl_msg_id = VL_API_IP6ND_PROXY_DETAILS` and no module base: the enum value
 *   10, which every 26.06 process gives to memclnt's get_first_msg_id. A client sees an entry as a
 *   get_first_msg_id message.
 */
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import { attachedHostPath } from './fib-path.js';
import { FibSource } from './fib-sources.js';
import type { FibEntry } from './fib.js';
import { ip6Bytes, ipText } from './ip-addr.js';
import { Rv } from './retval.js';
import type { Vpp } from './vpp.js';

/** ip6_nd.api's message enum: ip6nd_proxy_details is its 11th message. */
const VL_API_IP6ND_PROXY_DETAILS = 10;

export class Ip6NdProxy {
  readonly #vpp: Vpp;
  /** Interfaces with the mirror proxy features on. */
  readonly mirror = new Set<number>();

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
    vpp.interfaces.deleteHooks.push((sw) => this.mirror.delete(sw.swIfIndex));
  }

  /** ip6_nd_proxy_add_del */
  addDel(swIfIndex: number, addr: Buffer, isDel: boolean): number {
    const ip = this.#vpp.ip;
    const t = ip.tableOf(swIfIndex, 6);
    if (!t) return Rv.NO_SUCH_FIB;
    const prefix = { af: 6 as const, addr, len: 128 };
    const path = attachedHostPath(6, addr, swIfIndex);
    if (isDel) {
      this.#vpp.fib.pathRemove(t, prefix, FibSource.IP6_ND_PROXY, [path]);
      // "flush the ND cache of this address if it's there" (a static entry too)
      this.#vpp.ipNeighbor.del(addr, swIfIndex);
    } else this.#vpp.fib.pathAdd(t, prefix, FibSource.IP6_ND_PROXY, [path]);
    return 0;
  }

  /** The entries ip6nd_proxy_dump walks: every IPv6 FIB, entries with the proxy source, by address. */
  entries(): { swIfIndex: number; ip: string }[] {
    const fib = this.#vpp.fib;
    const found: FibEntry[] = [];
    for (const t of fib.pool(6).values())
      for (const e of fib.walk(t)) if (e.sources.has(FibSource.IP6_ND_PROXY)) found.push(e);
    found.sort((a, b) => Buffer.compare(a.prefix.addr, b.prefix.addr));
    return found.map((e) => ({
      // fib_entry_get_resolving_interface: the best source's path's interface
      swIfIndex: fib.pathsOf(e)[0]?.swIfIndex ?? 0xffffffff,
      ip: ipText(e.prefix.addr),
    }));
  }

  register(d: Dispatcher): void {
    d.on(msg.ip6nd_proxy_enable_disable, (m, call) => {
      if (!this.#vpp.interfaces.isValid(m.sw_if_index)) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      if (m.is_enable) this.mirror.add(m.sw_if_index);
      else this.mirror.delete(m.sw_if_index);
      call.reply({ retval: 0 });
    });

    d.on(msg.ip6nd_proxy_add_del, (m, call) => {
      if (!this.#vpp.interfaces.isValid(m.sw_if_index)) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      call.reply({ retval: this.addDel(m.sw_if_index, ip6Bytes(m.ip), !m.is_add) });
    });

    d.on(msg.ip6nd_proxy_dump, (_m, call) => {
      if (!call.reg) return;
      for (const e of this.entries())
        call.detailsWithRawId(msg.ip6nd_proxy_details, VL_API_IP6ND_PROXY_DETAILS, {
          sw_if_index: e.swIfIndex,
          ip: e.ip,
        });
    });
  }
}
