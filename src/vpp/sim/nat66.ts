/**
 * NAT66: plugin enable/disable, inside/outside interfaces and 1:1 IPv6 static mappings
 * (src/plugins/nat/nat66/nat66.c, nat66_api.c in VPP 26.06). API state only: no translation,
 * no ip6-unicast features (nat66-in2out/out2in, ip6-sv-reassembly), no session counters (the
 * details' total_bytes/total_pkts are always 0 here).
 *
 * What the API can see, with the source it follows:
 * - Retvals. `fail_if_enabled` / `fail_if_disabled` return a plain 1 (not a vnet_api_error_t):
 *   enabling twice, and any interface or mapping change while disabled, answer 1. Disabling
 *   never fails, not even when already disabled (`nat66_plugin_disable` has no check).
 *   nat66_add_del_interface validates sw_if_index first (VALIDATE_SW_IF_INDEX: -2, even when
 *   disabled), then -81 for an interface already there (inside or outside: one entry per
 *   sw_if_index) and -6 for one that is not; the feature calls after that return 0.
 *   nat66_add_del_static_mapping: -81 when (local address, VRF) is taken, -6 when it is not there.
 * - Interfaces: a pool in add order with freed slots reused (`nm->interfaces`). Only NAT_IS_INSIDE
 *   of the request's flags counts (anything else is outside); the details say NAT_IS_INSIDE or 0,
 *   never NAT_IS_OUTSIDE. A delete finds the entry by sw_if_index alone: its flags do not matter.
 * - Static mappings: a pool (`nm->sm`) keyed by (local address, fib_index) (`sm_l`). A mapping
 *   may share its external address with another (the by-external hash is overwritten, which only
 *   translation sees). A delete matches on local address and VRF only; the external address given
 *   is not checked. Adding locks (and creates, if missing) the VRF's IPv6 table with the
 *   "nat66-hi" source; deleting unlocks it, so a table only the mapping held goes away.
 * - Enabling locks (and creates, if missing) the outside VRF's IPv6 table with "nat66-hi".
 *   Disabling removes every interface and frees both pools, but unlocks nothing: the outside
 *   table's lock and each remaining mapping's lock stay for the life of the process.
 * - Dumps answer nothing while disabled (`if (!nm->enabled) return`).
 * - An interface's deletion leaves its entry: nat66 registers no interface add/del callback, so
 *   the dump keeps listing the deleted sw_if_index; deleting it then fails with -2
 *   (VALIDATE_SW_IF_INDEX) and a new interface reusing the index finds it already there (-81).
 *   (Checked on a real VPP 26.06.)
 */
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import { FibSource } from './fib-sources.js';
import { ip6Bytes, ipText } from './ip-addr.js';
import { Rv } from './retval.js';
import type { Vpp } from './vpp.js';
import { VppPool } from './vpp-pool.js';

/** nat_config_flags (nat_types.api): the only one nat66 reads or writes. */
const NAT_IS_INSIDE = 0x20;
/** What `fail_if_enabled` / `fail_if_disabled` return (nat66.c): 1, not an API error code. */
const PLUGIN_STATE_WRONG = 1;
const NO_FIB_INDEX = 0xffffffff;

export interface Nat66Interface {
  readonly swIfIndex: number;
  /** NAT66_INTERFACE_FLAG_IS_INSIDE, else IS_OUTSIDE. */
  readonly inside: boolean;
}

export interface Nat66Mapping {
  readonly local: Buffer;
  readonly external: Buffer;
  readonly fibIndex: number;
}

export class Nat66 {
  readonly #vpp: Vpp;
  enabled = false;
  /** nm->outside_vrf_id: the last enable's (kept after a disable; nothing on the API shows it). */
  outsideVrfId = 0;
  interfaces = new VppPool<Nat66Interface>();
  mappings = new VppPool<Nat66Mapping>();
  /** sm_l: (local address, fib_index) → mapping index */
  #byLocal = new Map<string, number>();

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
    // No interface delete hook: nat66 has no VNET_SW_INTERFACE_ADD_DEL_FUNCTION (see above).
  }

  /** nat66_plugin_enable */
  enable(outsideVrf: number): number {
    if (this.enabled) return PLUGIN_STATE_WRONG;
    this.#vpp.fib.findOrCreateAndLock(6, outsideVrf, FibSource.NAT66_HI);
    this.outsideVrfId = outsideVrf;
    this.enabled = true;
    return 0;
  }

  /**
   * nat66_plugin_disable: each interface deleted (its return value is the disable's, always 0
   * here), both pools freed (pool_free: the next enable starts again at index 0), no table
   * unlocked.
   */
  disable(): number {
    this.interfaces = new VppPool<Nat66Interface>();
    this.mappings = new VppPool<Nat66Mapping>();
    this.#byLocal = new Map<string, number>();
    this.enabled = false;
    return 0;
  }

  /** nat66_interface_add_del, after the handler's VALIDATE_SW_IF_INDEX */
  interfaceAddDel(swIfIndex: number, inside: boolean, isAdd: boolean): number {
    if (!this.enabled) return PLUGIN_STATE_WRONG;
    const found = [...this.interfaces.entries()].find(([, i]) => i.swIfIndex === swIfIndex);
    if (isAdd) {
      if (found) return Rv.VALUE_EXIST;
      this.interfaces.add(() => ({ swIfIndex, inside }));
    } else {
      if (!found) return Rv.NO_SUCH_ENTRY;
      this.interfaces.remove(found[0]);
    }
    // ip6_sv_reass_enable_disable_with_refcnt and vnet_feature_enable_disable follow; for a
    // registered arc and feature they return 0 (disabling a feature that is not on included).
    return 0;
  }

  /** nat66_static_mapping_add_del */
  staticMappingAddDel(local: Buffer, external: Buffer, vrfId: number, isAdd: boolean): number {
    const fib = this.#vpp.fib;
    // fib_table_find runs before the enabled check and creates nothing: ~0 when there is no table
    const lookupIndex = fib.find(6, vrfId)?.index ?? NO_FIB_INDEX;
    if (!this.enabled) return PLUGIN_STATE_WRONG;
    const key = `${local.toString('hex')}|${lookupIndex}`;
    const existing = this.#byLocal.get(key);
    if (isAdd) {
      if (existing !== undefined) return Rv.VALUE_EXIST;
      const t = fib.findOrCreateAndLock(6, vrfId, FibSource.NAT66_HI);
      const index = this.mappings.add(() => ({
        local: Buffer.from(local),
        external: Buffer.from(external),
        fibIndex: t.index,
      }));
      this.#byLocal.set(`${local.toString('hex')}|${t.index}`, index);
      return 0;
    }
    if (existing === undefined) return Rv.NO_SUCH_ENTRY;
    const m = this.mappings.get(existing) as Nat66Mapping;
    this.#byLocal.delete(key);
    const t = fib.byIndex(6, m.fibIndex);
    if (t) fib.unlock(t, FibSource.NAT66_HI);
    this.mappings.remove(existing);
    return 0;
  }

  register(d: Dispatcher): void {
    d.on(msg.nat66_plugin_enable_disable, (m, call) => {
      call.reply({ retval: m.enable ? this.enable(m.outside_vrf >>> 0) : this.disable() });
    });

    d.on(msg.nat66_add_del_interface, (m, call) => {
      const sw = m.sw_if_index >>> 0;
      const rv = !this.#vpp.interfaces.isValid(sw)
        ? Rv.INVALID_SW_IF_INDEX
        : this.interfaceAddDel(sw, (m.flags & NAT_IS_INSIDE) !== 0, m.is_add);
      call.reply({ retval: rv });
    });

    d.on(msg.nat66_add_del_static_mapping, (m, call) => {
      const rv = this.staticMappingAddDel(
        ip6Bytes(m.local_ip_address),
        ip6Bytes(m.external_ip_address),
        m.vrf_id >>> 0,
        m.is_add,
      );
      call.reply({ retval: rv });
    });

    d.on(msg.nat66_interface_dump, (_m, call) => {
      if (!this.enabled || !call.reg) return;
      for (const i of this.interfaces.values()) {
        call.details(msg.nat66_interface_details, {
          flags: i.inside ? NAT_IS_INSIDE : 0,
          sw_if_index: i.swIfIndex,
        });
      }
    });

    d.on(msg.nat66_static_mapping_dump, (_m, call) => {
      if (!this.enabled || !call.reg) return;
      for (const sm of this.mappings.values()) {
        // nat66_api_static_mapping_walk: fib_table_get of the mapping's (locked) table
        const t = this.#vpp.fib.byIndex(6, sm.fibIndex);
        if (!t) break; // the walk stops when the callback returns -1
        call.details(msg.nat66_static_mapping_details, {
          local_ip_address: ipText(sm.local),
          external_ip_address: ipText(sm.external),
          vrf_id: t.tableId,
          total_bytes: 0n,
          total_pkts: 0n,
        });
      }
    });
  }
}
