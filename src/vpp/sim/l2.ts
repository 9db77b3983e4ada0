/**
 * L2 bridge domains (src/vnet/l2/l2_bd.c, l2_input.c, l2_api.c in VPP 26.06).
 *
 * - Bridge domains live in a vector indexed by bd_index; index 0 is a placeholder with bd_id 0
 *   (`l2bd_init`); a new one takes the first clear bit of the index bitmap (`bd_add_bd_index`).
 * - `bridge_domain_add_del_v2` with bd_id ~0 picks one with `bd_get_unused_id`: a static seed
 *   advanced by vppinfra's LCG (1664525 * s + 1013904223) and masked to 24 bits; the first call in
 *   a process yields 7271263 (recorded in transcript 26.06/25).
 * - Members are kept as [bvi, normal..., tunnels..., no-flood] (`bd_add_member`).
 * - set_int_l2_mode first undoes an interface's bridge config (member, BVI: its L2 FIB entry is
 *   deleted, see l2-fib.ts); MODE_L2_BRIDGE then adds a BVI's MAC as a static BVI entry
 *   (l2fib_add_entry (hi->hw_address, bd_index, sw_if_index, BVI | STATIC)); MODE_L3 (enable 0,
 *   whether or not the interface was bridged) resets its l2-input feature bitmap to DROP, which
 *   clears L2INPUT_FEAT_ACL, the l2-input-acl feature a MACIP ACL set (see macip.ts), and
 *   L2INPUT_FEAT_POLICER_CLAS (policer-classify.ts).
 */
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import type { SimInterface } from './interfaces.js';
import { L2FIB_FLAG } from './l2-fib.js';
import { Rv } from './retval.js';
import type { Vpp } from './vpp.js';

/** L2_BD_ID_MAX */
export const L2_BD_ID_MAX = (1 << 24) - 1;

export interface BridgeDomain {
  readonly bdId: number;
  readonly index: number;
  flood: boolean;
  uuFlood: boolean;
  forward: boolean;
  learn: boolean;
  arpTerm: boolean;
  arpUfwd: boolean;
  macAge: number;
  tag: string;
  bviSwIfIndex: number;
  uuFwdSwIfIndex: number;
  /** bd_config->members, in VPP's order */
  members: { swIfIndex: number; shg: number }[];
  noFloodCount: number;
}

interface PortConfig {
  bdIndex: number;
  shg: number;
}

export class L2 {
  readonly #vpp: Vpp;
  /** bd_configs by bd_index; index 0 is the placeholder. */
  readonly #bds: (BridgeDomain | undefined)[] = [];
  readonly #byId = new Map<number, BridgeDomain>();
  readonly #ports = new Map<number, PortConfig>();
  /** Interfaces whose l2-input feature bitmap has L2INPUT_FEAT_ACL (l2input_intf_bitmap_enable). */
  readonly #inputAcl = new Set<number>();
  /** bd_get_unused_id's static seed */
  #seed = 0;

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
    this.#addIndex(0);
    vpp.interfaces.deleteHooks.push((sw) => {
      // l2_input_interface_add_del: a bridged (or xconnected) interface being deleted goes through
      // set_int_l2_mode (MODE_L3)
      if (this.#ports.has(sw.swIfIndex)) this.setL3(sw);
    });
    vpp.interfaces.macHooks.push((sw, old) => {
      // simulated_ethernet_mac_change (the Loopback device class) → l2input_interface_mac_change:
      // a BVI's entry moves to the new address. Other device classes leave the L2 FIB alone.
      const p = this.#ports.get(sw.swIfIndex);
      if (sw.kind !== 'loopback' || !p || !sw.mac) return;
      const bd = this.#bds[p.bdIndex] as BridgeDomain;
      if (bd.bviSwIfIndex !== sw.swIfIndex) return;
      this.#vpp.l2Fib.del(old, p.bdIndex, sw.swIfIndex);
      this.#vpp.l2Fib.add(sw.mac, p.bdIndex, sw.swIfIndex, L2FIB_FLAG.BVI | L2FIB_FLAG.STATIC);
    });
  }

  #addIndex(bdId: number): BridgeDomain {
    let index = 0;
    while (this.#bds[index] !== undefined) index++;
    // bd_validate: flood, uu-flood, forward and learn on; arp-term, arp-ufwd off
    const bd: BridgeDomain = {
      bdId,
      index,
      flood: true,
      uuFlood: true,
      forward: true,
      learn: true,
      arpTerm: false,
      arpUfwd: false,
      macAge: 0,
      tag: '',
      bviSwIfIndex: 0xffffffff,
      uuFwdSwIfIndex: 0xffffffff,
      members: [],
      noFloodCount: 0,
    };
    this.#bds[index] = bd;
    this.#byId.set(bdId, bd);
    return bd;
  }

  byId(bdId: number): BridgeDomain | undefined {
    return this.#byId.get(bdId >>> 0);
  }

  /** bd_find_index: the bd_index of a bd_id, including the placeholder bd_id 0 (index 0). */
  bdIndexOf(bdId: number): number | undefined {
    return this.#byId.get(bdId >>> 0)?.index;
  }

  /** l2input_main.bd_configs[bd_index].bd_id: ~0 for an index bd_delete freed. */
  bdIdAt(bdIndex: number): number {
    return this.#bds[bdIndex]?.bdId ?? 0xffffffff;
  }

  /** l2input_intf_bitmap_enable (sw_if_index, L2INPUT_FEAT_ACL, enable) */
  setInputAclFeature(swIfIndex: number, enable: boolean): void {
    if (enable) this.#inputAcl.add(swIfIndex);
    else this.#inputAcl.delete(swIfIndex);
  }

  /** Whether the interface's l2-input feature bitmap sends its frames to l2-input-acl. */
  hasInputAclFeature(swIfIndex: number): boolean {
    return this.#inputAcl.has(swIfIndex);
  }

  bridges(): BridgeDomain[] {
    return this.#bds.filter((b): b is BridgeDomain => b !== undefined && b.bdId !== 0);
  }

  portOf(swIfIndex: number): { bdId: number; shg: number; bvi: boolean } | undefined {
    const p = this.#ports.get(swIfIndex);
    if (!p) return undefined;
    const bd = this.#bds[p.bdIndex] as BridgeDomain;
    return { bdId: bd.bdId, shg: p.shg, bvi: bd.bviSwIfIndex === swIfIndex };
  }

  /** bd_get_unused_id */
  #unusedId(): number {
    for (let j = 0; j < 1 << 10; j++) {
      this.#seed = (Math.imul(1664525, this.#seed) + 1013904223) >>> 0;
      for (let i = 0; i < 1 << 10; i++) {
        this.#seed = (this.#seed + (2 * (i % 2) - 1) * i) >>> 0;
        this.#seed = this.#seed & L2_BD_ID_MAX;
        if (this.#seed === 0) continue;
        if (!this.#byId.has(this.#seed)) return this.#seed;
      }
    }
    return 0xffffffff;
  }

  /** bd_add_del */
  addDel(a: {
    isAdd: boolean;
    bdId: number;
    flood: boolean;
    uuFlood: boolean;
    forward: boolean;
    learn: boolean;
    arpTerm: boolean;
    arpUfwd: boolean;
    macAge: number;
    tag: string;
  }): number {
    const bd = this.#byId.get(a.bdId);
    if (a.isAdd) {
      if (bd) return Rv.BD_ALREADY_EXISTS;
      if (a.bdId > L2_BD_ID_MAX) return Rv.BD_ID_EXCEED_MAX;
      const n = this.#addIndex(a.bdId);
      n.flood = a.flood;
      n.uuFlood = a.uuFlood;
      n.forward = a.forward;
      n.learn = a.learn;
      n.arpTerm = a.arpTerm;
      n.arpUfwd = a.arpUfwd;
      n.macAge = a.macAge;
      n.tag = a.tag;
      return 0;
    }
    if (!bd) return Rv.NO_SUCH_ENTRY;
    if (bd.index === 0) return Rv.BD_NOT_MODIFIABLE;
    if (bd.members.length > 0) return Rv.BD_IN_USE;
    this.#byId.delete(bd.bdId);
    this.#bds[bd.index] = undefined;
    return 0;
  }

  /** bd_find_or_add_bd_index */
  #findOrAdd(bdId: number): BridgeDomain {
    return this.#byId.get(bdId) ?? this.#addIndex(bdId);
  }

  /**
   * set_int_l2_mode (MODE_L3): leave the bridge, and the feature bitmap becomes DROP alone
   * (L2INPUT_FEAT_ACL goes with the rest).
   */
  setL3(sw: SimInterface): void {
    this.#undoBridge(sw);
    this.#inputAcl.delete(sw.swIfIndex);
    this.#vpp.policerClassify.l2ModeL3(sw.swIfIndex);
  }

  /** set_int_l2_mode's first step for an interface in bridge mode: undo the bridge config. */
  #undoBridge(sw: SimInterface): void {
    const p = this.#ports.get(sw.swIfIndex);
    if (!p) return;
    const bd = this.#bds[p.bdIndex] as BridgeDomain;
    const at = bd.members.findIndex((m) => m.swIfIndex === sw.swIfIndex);
    if (at >= 0) {
      bd.members.splice(at, 1);
      if (sw.floodClass === 'no_flood') bd.noFloodCount--;
    }
    if (bd.bviSwIfIndex === sw.swIfIndex) {
      bd.bviSwIfIndex = 0xffffffff;
      // l2fib_del_entry (hi->hw_address, config->bd_index, sw_if_index): the current address
      if (sw.mac) this.#vpp.l2Fib.del(sw.mac, p.bdIndex, sw.swIfIndex);
      sw.floodClass = 'no_flood';
    }
    if (bd.uuFwdSwIfIndex === sw.swIfIndex) bd.uuFwdSwIfIndex = 0xffffffff;
    this.#ports.delete(sw.swIfIndex);
  }

  /** set_int_l2_mode (MODE_L2_BRIDGE); port type 0 normal, 1 BVI, 2 UU-forward. */
  setBridge(sw: SimInterface, bdId: number, portType: number, shg: number): number {
    // GUESS: VPP checks "BD already has a BVI" after undoing the old bridge config and setting
    // the port's L2 flags; we check first and leave the interface as it was.
    const target = this.#byId.get(bdId);
    if (
      portType === 1 &&
      target &&
      target.bviSwIfIndex !== 0xffffffff &&
      target.bviSwIfIndex !== sw.swIfIndex
    )
      return Rv.BD_ALREADY_HAS_BVI;
    this.#undoBridge(sw);
    const bd = this.#findOrAdd(bdId);
    if (portType === 1 && bd.bviSwIfIndex !== 0xffffffff) return Rv.BD_ALREADY_HAS_BVI;
    this.#ports.set(sw.swIfIndex, { bdIndex: bd.index, shg });
    if (portType === 2) {
      bd.uuFwdSwIfIndex = sw.swIfIndex;
      return 0;
    }
    if (portType === 1) {
      bd.bviSwIfIndex = sw.swIfIndex;
      // l2fib_add_entry (hi->hw_address, bd_index, sw_if_index, BVI | STATIC)
      if (sw.mac) this.#vpp.l2Fib.add(sw.mac, bd.index, sw.swIfIndex, L2FIB_FLAG.BVI | L2FIB_FLAG.STATIC);
      sw.floodClass = 'bvi';
    }
    const member = { swIfIndex: sw.swIfIndex, shg };
    switch (sw.floodClass) {
      case 'no_flood':
        bd.noFloodCount++;
        bd.members.push(member);
        break;
      case 'bvi':
        bd.members.unshift(member);
        break;
      default:
        bd.members.splice(bd.members.length - bd.noFloodCount, 0, member);
    }
    return 0;
  }

  register(d: Dispatcher): void {
    const addDelArgs = (m: {
      is_add: boolean;
      flood: boolean;
      uu_flood: boolean;
      forward: boolean;
      learn: boolean;
      arp_term: boolean;
      arp_ufwd: boolean;
      mac_age: number;
      bd_tag: string;
    }): Omit<Parameters<L2['addDel']>[0], 'bdId'> => ({
      isAdd: m.is_add,
      flood: m.flood,
      uuFlood: m.uu_flood,
      forward: m.forward,
      learn: m.learn,
      arpTerm: m.arp_term,
      arpUfwd: m.arp_ufwd,
      macAge: m.mac_age,
      tag: m.bd_tag,
    });

    d.on(msg.bridge_domain_add_del, (m, call) => {
      call.reply({ retval: this.addDel({ ...addDelArgs(m), bdId: m.bd_id >>> 0 }) });
    });

    d.on(msg.bridge_domain_add_del_v2, (m, call) => {
      let bdId = m.bd_id >>> 0;
      if (bdId === 0xffffffff && m.is_add) bdId = this.#unusedId();
      const rv = bdId === 0xffffffff && m.is_add ? Rv.EAGAIN : this.addDel({ ...addDelArgs(m), bdId });
      call.reply({ retval: rv, bd_id: bdId });
    });

    // vl_api_bridge_flags_t_handler: bd_set_flags on the BD's feature bitmap, which answers it.
    d.on(msg.bridge_flags, (m, call) => {
      const bdId = m.bd_id >>> 0;
      const bd = this.#byId.get(bdId);
      const rv = bdId === 0 ? Rv.BD_NOT_MODIFIABLE : bd ? 0 : Rv.NO_SUCH_ENTRY;
      if (rv !== 0 || !bd) return call.reply({ retval: rv, resulting_feature_bitmap: 0 });
      const F = msg.bd_flags_t.values;
      const on = m.is_set;
      if (m.flags & F.BRIDGE_API_FLAG_LEARN) bd.learn = on;
      if (m.flags & F.BRIDGE_API_FLAG_FWD) bd.forward = on;
      if (m.flags & F.BRIDGE_API_FLAG_FLOOD) bd.flood = on;
      if (m.flags & F.BRIDGE_API_FLAG_UU_FLOOD) bd.uuFlood = on;
      if (m.flags & F.BRIDGE_API_FLAG_ARP_TERM) bd.arpTerm = on;
      if (m.flags & F.BRIDGE_API_FLAG_ARP_UFWD) bd.arpUfwd = on;
      call.reply({ retval: 0, resulting_feature_bitmap: featureBitmap(bd) });
    });

    d.on(msg.bridge_domain_dump, (m, call) => {
      if (!call.reg) return;
      if (m.sw_if_index >>> 0 !== 0xffffffff) return; // UNIMPLEMENTED in VPP
      const bdId = m.bd_id >>> 0;
      if (bdId === 0) return;
      const list = bdId === 0xffffffff ? this.#bds : [this.#byId.get(bdId)];
      for (const bd of list) {
        if (!bd || bd.bdId === 0) continue;
        call.details(msg.bridge_domain_details, {
          bd_id: bd.bdId,
          flood: bd.flood,
          uu_flood: bd.uuFlood,
          forward: bd.forward,
          learn: bd.learn,
          arp_term: bd.arpTerm,
          arp_ufwd: bd.arpUfwd,
          mac_age: bd.macAge,
          bd_tag: bd.tag.slice(0, 63),
          bvi_sw_if_index: bd.bviSwIfIndex,
          uu_fwd_sw_if_index: bd.uuFwdSwIfIndex,
          sw_if_details: bd.members.map((x) => ({
            context: 0,
            sw_if_index: x.swIfIndex,
            shg: this.#ports.get(x.swIfIndex)?.shg ?? 0,
          })),
        });
      }
    });

    d.on(msg.sw_interface_set_l2_bridge, (m, call) => {
      const sw = this.#vpp.interfaces.get(m.rx_sw_if_index);
      if (!sw) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      if (m.port_type > 2) return call.reply({ retval: Rv.INVALID_VALUE });
      if (m.enable) {
        if (m.bd_id >>> 0 > L2_BD_ID_MAX) return call.reply({ retval: Rv.BD_ID_EXCEED_MAX });
        return call.reply({ retval: this.setBridge(sw, m.bd_id >>> 0, m.port_type, m.shg) });
      }
      this.setL3(sw);
      call.reply({ retval: 0 });
    });
  }
}

/** L2INPUT_FEAT_*_BIT (l2_input.h, foreach_l2input_feat order). */
const FEAT = { FLOOD: 2, ARP_UFWD: 3, ARP_TERM: 4, UU_FLOOD: 5, UU_FWD: 6, FWD: 7, LEARN: 9 } as const;

/**
 * A bridge domain's feature bitmap: bd_validate starts from every bit but ARP_TERM, UU_FWD and
 * ARP_UFWD; bd_add_del and bd_set_flags set or clear the flag bits; a uu-fwd member sets UU_FWD.
 */
function featureBitmap(bd: BridgeDomain): number {
  let bits = 0xffffffff;
  const clear = (bit: number, when: boolean): void => {
    if (when) bits &= ~(1 << bit);
  };
  clear(FEAT.FLOOD, !bd.flood);
  clear(FEAT.ARP_UFWD, !bd.arpUfwd);
  clear(FEAT.ARP_TERM, !bd.arpTerm);
  clear(FEAT.UU_FLOOD, !bd.uuFlood);
  clear(FEAT.UU_FWD, bd.uuFwdSwIfIndex === 0xffffffff);
  clear(FEAT.FWD, !bd.forward);
  clear(FEAT.LEARN, !bd.learn);
  return bits >>> 0;
}
