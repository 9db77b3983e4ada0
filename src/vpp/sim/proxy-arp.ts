/**
 * Proxy ARP (VPP 26.06 arp/arp_proxy.c, arp_api.c): the address ranges answered for, per IPv4
 * table, and the interfaces it is enabled on. Its own area because it shares nothing with the
 * interface addresses but the API file it came from.
 */
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import type { Fib } from './fib.js';
import type { Interfaces } from './interfaces.js';
import { ip4Bytes, ipText } from './ip-addr.js';
import { Rv } from './retval.js';

export interface ProxyArpRange {
  readonly fibIndex: number;
  readonly lo: Buffer;
  readonly hi: Buffer;
}

export class ProxyArp {
  readonly #fib: Fib;
  readonly #interfaces: Interfaces;
  readonly ranges: ProxyArpRange[] = [];
  /**
   * enabled_by_sw_if_index. arp_proxy.c keeps it past the interface (no delete hook): the flag
   * stays, proxy_arp_intfc_dump still lists the index, and an interface that reuses it inherits
   * the flag while its arp-proxy feature is off (an enable then changes nothing). The feature
   * itself went with the interface, which the simulator does not model.
   */
  readonly enabled = new Set<number>();

  constructor(fib: Fib, interfaces: Interfaces) {
    this.#fib = fib;
    this.#interfaces = interfaces;
  }

  register(d: Dispatcher): void {
    d.on(msg.proxy_arp_add_del, (m, call) => {
      const t = this.#fib.find(4, m.proxy.table_id);
      if (!t) return call.reply({ retval: Rv.NO_SUCH_FIB });
      const lo = ip4Bytes(m.proxy.low);
      const hi = ip4Bytes(m.proxy.hi);
      const at = this.ranges.findIndex((p) => p.lo.equals(lo) && p.hi.equals(hi) && p.fibIndex === t.index);
      let rv = 0;
      if (at >= 0) {
        if (!m.is_add) this.ranges.splice(at, 1);
      } else if (!m.is_add) {
        rv = Rv.NO_SUCH_ENTRY;
      } else {
        this.ranges.push({ fibIndex: t.index, lo, hi });
      }
      call.reply({ retval: rv });
    });

    d.on(msg.proxy_arp_intfc_enable_disable, (m, call) => {
      if (!this.#interfaces.isValid(m.sw_if_index)) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      if (m.enable) this.enabled.add(m.sw_if_index);
      else this.enabled.delete(m.sw_if_index);
      call.reply({ retval: 0 });
    });

    d.on(msg.proxy_arp_dump, (_m, call) => {
      if (!call.reg) return;
      for (const p of this.ranges) {
        call.details(msg.proxy_arp_details, {
          proxy: { table_id: this.#fib.tableIdOf(4, p.fibIndex), low: ipText(p.lo), hi: ipText(p.hi) },
        });
      }
    });

    d.on(msg.proxy_arp_intfc_dump, (_m, call) => {
      if (!call.reg) return;
      for (const sw of [...this.enabled].sort((a, b) => a - b))
        call.details(msg.proxy_arp_intfc_details, { sw_if_index: sw });
    });
  }
}
