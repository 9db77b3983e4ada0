/**
 * SRv6 local SIDs (VPP 26.06 src/vnet/srv6/sr_localsid.c, sr_api.c): the SIDs this node ends,
 * each a special DPO entry in its IPv6 table, and their dump. Apart from policies and steering
 * (sr.ts), which share no state with them. The raw negative numbers returned are SR's own, not
 * vnet error names (see ../shared/vpp-srv6.md).
 */
import { msg } from '../messages/index.js';
import { VppCrash, type Dispatcher } from './dispatcher.js';
import { FibSource } from './fib-sources.js';
import { apiAddress, fromApiAddress, ip6Bytes, ipText, type Af } from './ip-addr.js';
import { Rv } from './retval.js';
import type { Vpp } from './vpp.js';
import { VppPool } from './vpp-pool.js';

/** sr_behavior_t values used in checks */
const B = {
  END: 1,
  X: 2,
  T: 3,
  D_FIRST: 4,
  DX2: 5,
  DX6: 6,
  DX4: 7,
  DT6: 8,
  DT4: 9,
  CURRENT_LAST: 10,
  END_UN_PERF: 11,
  END_UN: 12,
  UA: 13,
} as const;

export interface LocalSid {
  readonly addr: Buffer;
  readonly prefixLen: number;
  readonly endPsp: boolean;
  readonly behavior: number;
  /** The IPv6 table id the SID is installed in (as given). */
  readonly fibTable: number;
  /**
   * sw_if_index, or for T/DT6/DT4 the looked-up fib_index (a union in ip6_sr_localsid_t):
   * ~0 when the table did not exist.
   */
  readonly swIfIndexOrVrf: number;
  readonly nextHop: Buffer;
  readonly vlanIndex: number;
}

export class SrLocalSids {
  readonly #vpp: Vpp;
  readonly entries = new VppPool<LocalSid>();
  /** (address, prefix length) → pool index */
  readonly #index = new Map<string, number>();

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
  }

  /** sr_cli_localsid: add or delete; SR's own negative numbers for its refusals. */
  addDel(
    isDel: boolean,
    addr: Buffer,
    prefixLen: number,
    endPsp: boolean,
    behavior: number,
    swIfIndex: number,
    fibTable: number,
    nh: Buffer,
  ): number {
    const key = `${addr.toString('hex')}/${prefixLen}`;
    const at = this.#index.get(key);
    if (at !== undefined) {
      if (!isDel) return -1;
      const ls = this.entries.get(at) as LocalSid;
      const t = this.#vpp.fib.find(6, ls.fibTable);
      // fib_table_entry_delete (fib_table_find (IP6, fib_table), ...): a table gone since would
      // make VPP dereference ~0.
      if (!t) throw new VppCrash(`sr localsid delete: fib table ${ls.fibTable} gone`);
      this.#vpp.fib.sourceRemove(t, { af: 6, addr, len: prefixLen }, FibSource.SR);
      this.entries.remove(at);
      this.#index.delete(key);
      return 0;
    }
    if (isDel) return -2;
    const t = this.#vpp.fib.find(6, fibTable);
    if (!t) return -3;
    if (this.#vpp.fib.lookupExact(t, { af: 6, addr, len: prefixLen })) return -4;
    let swOrVrf = 0;
    let nextHop = Buffer.alloc(16);
    switch (behavior) {
      case B.X:
      case B.UA:
      case B.DX6:
        swOrVrf = swIfIndex;
        nextHop = Buffer.from(nh.length === 16 ? nh : Buffer.alloc(16));
        break;
      case B.DX4:
        swOrVrf = swIfIndex;
        // ip46: the IPv4 next hop sits in the last 4 bytes
        nextHop = Buffer.concat([Buffer.alloc(12), nh.length === 4 ? nh : nh.subarray(0, 4)]);
        break;
      case B.DX2:
        swOrVrf = swIfIndex;
        break;
      case B.T:
      case B.DT6:
        swOrVrf = this.#vpp.fib.find(6, swIfIndex)?.index ?? 0xffffffff;
        break;
      case B.DT4:
        swOrVrf = this.#vpp.fib.find(4, swIfIndex)?.index ?? 0xffffffff;
        break;
      default:
        break;
    }
    const index = this.entries.add(() => ({
      addr: Buffer.from(addr),
      prefixLen,
      endPsp,
      behavior,
      fibTable,
      swIfIndexOrVrf: swOrVrf,
      nextHop,
      vlanIndex: 0,
    }));
    this.#index.set(key, index);
    // fib_table_entry_special_dpo_add (EXCLUSIVE, an sr-localsid DPO): the entry gets its own lb
    this.#vpp.fib.sourceAdd(t, { af: 6, addr, len: prefixLen }, FibSource.SR, { kind: 'dpo' });
    return 0;
  }

  register(d: Dispatcher): void {
    d.on(msg.sr_localsid_add_del, (m, call) => {
      const b = m.behavior;
      if (
        (b === B.X || b === B.UA || b === B.DX6 || b === B.DX4 || b === B.DX2) &&
        !this.#vpp.interfaces.isValid(m.sw_if_index)
      ) {
        return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      }
      let prefixLen = 128;
      if (b === B.END_UN_PERF || b === B.END_UN) prefixLen = 48;
      if (b === B.UA) prefixLen = 64;
      const nh = m.nh_addr.af === 1 ? ip6Bytes(m.nh_addr.un.ip6) : fromApiAddress(m.nh_addr);
      call.reply({
        retval: this.addDel(
          m.is_del,
          ip6Bytes(m.localsid),
          prefixLen,
          m.end_psp,
          b,
          m.sw_if_index >>> 0,
          m.fib_table >>> 0,
          nh,
        ),
      });
    });

    d.on(msg.sr_localsids_dump, (_m, call) => {
      if (!call.reg) return;
      for (const ls of this.entries.values()) {
        let table = ls.swIfIndexOrVrf;
        if (ls.behavior === B.T || ls.behavior === B.DT6 || ls.behavior === B.DT4) {
          const af: Af = ls.behavior === B.DT4 ? 4 : 6;
          // fib_table_get_table_id (~0): VPP reads an invalid pool element
          if (ls.swIfIndexOrVrf === 0xffffffff)
            throw new VppCrash(
              `sr_localsids_dump: localsid ${ipText(ls.addr)} looks up in a table that did not exist`,
            );
          table = this.#vpp.fib.tableIdOf(af, ls.swIfIndexOrVrf);
        }
        // ip_address_encode (IP46_TYPE_ANY): an all-zero or v4-mapped ip46 reads as IPv4
        const nhIsV4 = ls.nextHop.subarray(0, 12).every((x) => x === 0);
        call.details(msg.sr_localsids_details, {
          addr: ipText(ls.addr),
          end_psp: ls.endPsp,
          behavior: ls.behavior,
          fib_table: ls.fibTable,
          vlan_index: ls.vlanIndex,
          xconnect_nh_addr: nhIsV4 ? apiAddress(ls.nextHop.subarray(12)) : apiAddress(ls.nextHop),
          xconnect_iface_or_vrf_table: table,
        });
      }
    });
  }
}
