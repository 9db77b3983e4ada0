/**
 * The IPv6 link of an interface (VPP 26.06 ip6_link.c, ip6_ll_table.c): lock-counted enablement,
 * the link-local address and the interface's link-local FIB, and the delegates (RA) told when
 * IPv6 goes on and off. Apart from the interface addresses (ip.ts) because a link is enabled by
 * the API as well as by addresses, and lives by its own locks.
 */
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import type { Fib, FibTable } from './fib.js';
import { DpoProto, PathCfg, PathType } from './fib-path.js';
import { FibSource } from './fib-sources.js';
import type { Interfaces, SimInterface } from './interfaces.js';
import { ip6Bytes, ipText, isZero } from './ip-addr.js';
import { Rv } from './retval.js';

interface Ip6LinkState {
  /** the link-local address once IPv6 is enabled */
  ll: Buffer | undefined;
  /** il_locks: enables (API, addresses) not yet matched by a disable */
  locks: number;
  /** ip6_ll_table: this interface's link-local FIB, created on first use */
  llTable: FibTable | undefined;
}

/** An ip6_link delegate (RA). */
export interface Ip6LinkHook {
  enable(sw: SimInterface): void;
  disable(sw: SimInterface): void;
}

export class Ip6Link {
  readonly #fib: Fib;
  readonly #interfaces: Interfaces;
  readonly #links = new Map<number, Ip6LinkState>();
  /** ip6_link delegates (RA): told when IPv6 goes on and off on a link. */
  readonly hooks: Ip6LinkHook[] = [];

  constructor(fib: Fib, interfaces: Interfaces) {
    this.#fib = fib;
    this.#interfaces = interfaces;
  }

  /**
   * ip6_link_enable (ip6_link.c): lock-counted. The first lock gives the interface its link-local
   * address (the one given, else EUI-64 from the MAC, else random), its link-local FIB
   * ("IP6-link-local:<name>", fe80::/10 a glean) with the address's /128, and tells the link's
   * delegates (RA). Every call takes a lock, even the one answering VALUE_EXIST.
   */
  enable(sw: SimInterface, given: Buffer | undefined): number {
    const s = this.#link(sw.swIfIndex);
    let rv = 0;
    if (!s.ll) {
      s.locks = 0;
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
      for (const h of this.hooks) h.enable(sw);
    } else {
      rv = Rv.VALUE_EXIST;
    }
    s.locks++;
    return rv;
  }

  /** ip6_link_disable: drops one lock; IPv6 goes off with the last (ip6_link_last_lock_gone). */
  disable(sw: SimInterface): number {
    const s = this.#link(sw.swIfIndex);
    if (!s.ll) return Rv.IP6_NOT_ENABLED;
    s.locks--;
    if (s.locks === 0) this.#lastLockGone(sw);
    return 0;
  }

  /** ip6_link_set_local_address: enables (one lock) when not enabled, else replaces the address. */
  setLocalAddress(sw: SimInterface, addr: Buffer): number {
    const s = this.#link(sw.swIfIndex);
    if (!s.ll) return this.enable(sw, addr);
    this.#llEntryDelete(sw, s.ll);
    s.ll = Buffer.from(addr);
    this.#llEntryUpdate(sw, s.ll);
    return 0;
  }

  /** ip6_link_last_lock_gone: the delegates flushed (RA config and prefixes), the /128 gone. */
  #lastLockGone(sw: SimInterface): void {
    const s = this.#link(sw.swIfIndex);
    for (const h of this.hooks) h.disable(sw);
    if (s.ll) this.#llEntryDelete(sw, s.ll);
    s.ll = undefined;
  }

  /** ip6_ll_table_entry_update: the link-local FIB is created on first use. */
  #llEntryUpdate(sw: SimInterface, addr: Buffer): void {
    const s = this.#link(sw.swIfIndex);
    if (!s.llTable) {
      s.llTable = this.#fib.createAndLock(6, FibSource.IP6_ND, `IP6-link-local:${sw.name}`, true);
      const ll10 = Buffer.alloc(16);
      ll10[0] = 0xfe;
      ll10[1] = 0x80;
      this.#fib.sourceAdd(s.llTable, { af: 6, addr: ll10, len: 10 }, FibSource.SPECIAL, {
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
    this.#fib.sourceAdd(s.llTable, { af: 6, addr, len: 128 }, FibSource.IP6_ND, {
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
    const s = this.#link(sw.swIfIndex);
    if (!s.llTable) return;
    this.#fib.sourceRemove(s.llTable, { af: 6, addr, len: 128 }, FibSource.IP6_ND);
    const left = this.#fib.walk(s.llTable).some((e) => e.sources.has(FibSource.IP6_ND));
    if (!left) {
      this.#fib.unlock(s.llTable, FibSource.IP6_ND);
      s.llTable = undefined;
    }
  }

  /** The interface's IPv6 link-local address, once enabled. */
  linkLocalOf(swIfIndex: number): Buffer | undefined {
    return this.#links.get(swIfIndex)?.ll;
  }

  /**
   * ip6_link_interface_add_del on delete: a forced ip6_link_last_lock_gone; the link-local FIB
   * is unlocked if it is still there.
   */
  interfaceDeleted(sw: SimInterface): void {
    const s = this.#links.get(sw.swIfIndex);
    if (!s) return;
    if (s.ll) this.#lastLockGone(sw);
    if (s.llTable) this.#fib.unlock(s.llTable, FibSource.IP6_ND);
    this.#links.delete(sw.swIfIndex);
  }

  #link(swIfIndex: number): Ip6LinkState {
    let s = this.#links.get(swIfIndex);
    if (!s) {
      s = { ll: undefined, locks: 0, llTable: undefined };
      this.#links.set(swIfIndex, s);
    }
    return s;
  }

  register(d: Dispatcher): void {
    d.on(msg.sw_interface_ip6_enable_disable, (m, call) => {
      const sw = this.#interfaces.get(m.sw_if_index);
      if (!sw) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      call.reply({ retval: m.enable ? this.enable(sw, undefined) : this.disable(sw) });
    });

    d.on(msg.sw_interface_ip6_get_link_local_address, (m, call) => {
      if (!this.#interfaces.isValid(m.sw_if_index))
        return call.reply({ retval: Rv.INVALID_SW_IF_INDEX, ip: '::' });
      const ll = this.linkLocalOf(m.sw_if_index);
      call.reply(ll ? { retval: 0, ip: ipText(ll) } : { retval: Rv.IP6_NOT_ENABLED, ip: '::' });
    });

    d.on(msg.sw_interface_ip6_set_link_local_address, (m, call) => {
      const sw = this.#interfaces.get(m.sw_if_index);
      if (!sw) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      // no check that the address is link-local (ip6_link_set_local_address takes it as given)
      call.reply({ retval: this.setLocalAddress(sw, ip6Bytes(m.ip)) });
    });
  }
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
