/**
 * L2 bridge domains (src/vnet/l2/l2_bd.c, l2_input.c, l2_api.c in VPP 26.06).
 *
 * - Bridge domains live in a vector indexed by bd_index; index 0 is a placeholder with bd_id 0
 *   (`l2bd_init`); a new one takes the first clear bit of the index bitmap (`bd_add_bd_index`).
 * - `bridge_domain_add_del_v2` with bd_id ~0 picks one with `bd_get_unused_id`: a static seed
 *   advanced by vppinfra's LCG (1664525 * s + 1013904223) and masked to 24 bits; the first call in
 *   a process yields 7271263 (recorded in transcript 26.06/25).
 * - Members are kept as [bvi, normal..., tunnels..., no-flood] (`bd_add_member`).
 */
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import type { SimInterface } from './interfaces.js';
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
  /** bd_get_unused_id's static seed */
  #seed = 0;

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
    this.#addIndex(0);
    vpp.interfaces.deleteHooks.push((sw) => {
      // GUESS: a deleted interface leaves its bridge (l2_input_interface_add_del resets xconnects;
      // bridge members are removed when the interface's L2 config is torn down)
      if (this.#ports.has(sw.swIfIndex)) this.setL3(sw);
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

  /** set_int_l2_mode (MODE_L3): leave the bridge */
  setL3(sw: SimInterface): void {
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
    this.setL3(sw);
    const bd = this.#findOrAdd(bdId);
    if (portType === 1 && bd.bviSwIfIndex !== 0xffffffff) return Rv.BD_ALREADY_HAS_BVI;
    this.#ports.set(sw.swIfIndex, { bdIndex: bd.index, shg });
    if (portType === 2) {
      bd.uuFwdSwIfIndex = sw.swIfIndex;
      return 0;
    }
    if (portType === 1) {
      bd.bviSwIfIndex = sw.swIfIndex;
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
