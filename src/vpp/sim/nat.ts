/**
 * NAT44-ED: plugin enable/disable, output-feature interfaces, static and identity mappings
 * (src/plugins/nat/nat44-ed/nat44_ed.c, nat44_ed_api.c in VPP 26.06).
 *
 * Side effects on the FIB are modelled because they show in route dumps and table lifetimes:
 * mappings lock (and create, if missing) their VRF's IPv4 table with the "nat-low" source, the
 * plugin locks the inside/outside tables with "nat-hi", and every mapping's external address
 * gets a receive /32 in the table of each outside/output interface
 * (`nat44_ed_add_fib_entry_reg`).
 */
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import { DpoProto, PathCfg, PathType } from './fib-path.js';
import { FibSource } from './fib-sources.js';
import type { FibTable } from './fib.js';
import { ip4Bytes, ipText } from './ip-addr.js';
import { replyAndDetails } from './cursor-details.js';
import { Rv } from './retval.js';
import type { Vpp } from './vpp.js';
import { VppPool } from './vpp-pool.js';

/** nat_config_flags (nat_types.api) */
const F = {
  TWICE_NAT: 0x01,
  SELF_TWICE_NAT: 0x02,
  OUT2IN_ONLY: 0x04,
  ADDR_ONLY: 0x08,
  OUTSIDE: 0x10,
  INSIDE: 0x20,
  STATIC: 0x40,
  EXT_HOST_VALID: 0x80,
} as const;
/**
 * nat44_config_flags (nat44_ed.h's NAT44_API_IS_*): static-mapping-only and connection-tracking
 * are refused by nat44-ed (-126); ENDPOINT_DEPENDENT (0x01) and other bits are accepted (checked
 * on a real VPP 26.06: flags 1 and 8 answer 0, 2 and 4 answer -126).
 */
const CONFIG_ENDPOINT_DEPENDENT = 0x01;
const CONFIG_STATIC_ONLY = 0x02;
const CONFIG_CONNECTION_TRACKING = 0x04;

export interface StaticMapping {
  readonly localAddr: Buffer;
  readonly externalAddr: Buffer;
  readonly localPort: number;
  readonly externalPort: number;
  readonly proto: number;
  /** API flags as given (ADDR_ONLY, TWICE_NAT...) plus IDENTITY for identity mappings. */
  readonly flags: number;
  readonly identity: boolean;
  /** Static mappings: one VRF. Identity mappings: one local record per VRF. */
  vrfId: number;
  fibIndex: number;
  readonly locals: VppPool<{ vrfId: number; fibIndex: number }>;
  readonly tag: string;
}

export interface NatConfig {
  insideVrf: number;
  outsideVrf: number;
  sessions: number;
}

export class Nat {
  readonly #vpp: Vpp;
  enabled = false;
  /** sm->rconfig: the config as given (zeroed when disabled) */
  rconfig: NatConfig = { insideVrf: 0, outsideVrf: 0, sessions: 0 };
  translationBuckets = 0;
  #insideFib: FibTable | undefined;
  #outsideFib: FibTable | undefined;
  readonly outputInterfaces = new VppPool<number>();
  readonly mappings = new VppPool<StaticMapping>();
  /** (external address, port, proto) → mapping index (the out2in static table, fib 0) */
  readonly #o2i = new Map<string, number>();
  /** (local address, port, fib_index, proto) → mapping index */
  readonly #i2o = new Map<string, number>();
  /** fib_entry_reg: (address, sw_if_index) → count */
  readonly #fibRegs = new Map<string, { addr: Buffer; swIfIndex: number; fibIndex: number; count: number }>();

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
  }

  get #fib() {
    return this.#vpp.fib;
  }

  #enable(insideVrf: number, outsideVrf: number, sessions: number): number {
    if (this.enabled) return Rv.FEATURE_ALREADY_ENABLED;
    const s = sessions === 0 ? 63 * 1024 : sessions;
    this.translationBuckets = calcBihashBuckets(s);
    this.#insideFib = this.#fib.findOrCreateAndLock(4, insideVrf, FibSource.NAT_HI);
    this.#outsideFib = this.#fib.findOrCreateAndLock(4, outsideVrf, FibSource.NAT_HI);
    this.enabled = true;
    this.rconfig = { insideVrf, outsideVrf, sessions }; // the config as passed (sessions 0 stays 0)
    return 0;
  }

  #disable(): number {
    if (!this.enabled) return Rv.FEATURE_ALREADY_DISABLED;
    for (const [i, m] of [...this.mappings.entries()]) this.#deleteMapping(i, m, undefined);
    for (const [i, sw] of [...this.outputInterfaces.entries()]) {
      this.#regEntriesForInterface(sw, false);
      this.outputInterfaces.remove(i);
    }
    // GUESS: the plugin's locks on its inside/outside tables are released on disable
    if (this.#insideFib) this.#fib.unlock(this.#insideFib, FibSource.NAT_HI);
    if (this.#outsideFib) this.#fib.unlock(this.#outsideFib, FibSource.NAT_HI);
    this.#insideFib = this.#outsideFib = undefined;
    // rconfig is zeroed; translation_buckets and the timeouts keep their last values
    this.rconfig = { insideVrf: 0, outsideVrf: 0, sessions: 0 };
    this.enabled = false;
    return 0;
  }

  // nat44_ed_add_fib_entry_reg / _del_fib_entry_reg
  #regAdd(addr: Buffer, swIfIndex: number): void {
    const key = `${addr.toString('hex')}|${swIfIndex}`;
    const r = this.#fibRegs.get(key);
    if (r) {
      r.count++;
      return;
    }
    const t = this.#vpp.ip.tableOf(swIfIndex, 4);
    // update_one_path (CONNECTED|LOCAL|EXCLUSIVE, no next hop, the interface): the path fixup
    // gives a host route the route's address as next hop, and the LOCAL entry flag makes the
    // path a receive path (fib_table_route_path_fixup, fib_path_create).
    this.#fib.sourceAdd(t, { af: 4, addr, len: 32 }, FibSource.NAT_LOW, {
      kind: 'paths',
      paths: [
        {
          type: PathType.RECEIVE,
          proto: DpoProto.IP4,
          swIfIndex,
          nh: Buffer.from(addr),
          fibIndex: 0,
          weight: 1,
          preference: 0,
          cfg: PathCfg.LOCAL,
        },
      ],
    });
    this.#fibRegs.set(key, { addr: Buffer.from(addr), swIfIndex, fibIndex: t.index, count: 1 });
  }

  #regDel(addr: Buffer, swIfIndex: number): void {
    const key = `${addr.toString('hex')}|${swIfIndex}`;
    const r = this.#fibRegs.get(key);
    if (!r) return;
    if (--r.count > 0) return;
    const t = this.#vpp.ip.tableOf(swIfIndex, 4);
    this.#fib.sourceRemove(t, { af: 4, addr, len: 32 }, FibSource.NAT_LOW);
    this.#fibRegs.delete(key);
  }

  #regEntriesForInterface(swIfIndex: number, isAdd: boolean): void {
    for (const m of this.mappings.values()) {
      if (isAdd) this.#regAdd(m.externalAddr, swIfIndex);
      else this.#regDel(m.externalAddr, swIfIndex);
    }
  }

  #regEntriesForAddress(addr: Buffer, isAdd: boolean): void {
    for (const sw of this.outputInterfaces.values()) {
      if (isAdd) this.#regAdd(addr, sw);
      else this.#regDel(addr, sw);
    }
  }

  /** nat44_ed_add_static_mapping (without interface address resolution) */
  addMapping(
    l: Buffer,
    e: Buffer,
    lPort: number,
    ePort: number,
    proto: number,
    vrfId: number,
    flags: number,
    identity: boolean,
    tag: string,
  ): number {
    const input = this.#validMappingInput(l, e, lPort, ePort, proto, flags, identity);
    if (typeof input === 'number') return input;
    ({ l, lPort, ePort, proto } = input);
    const o2iKey = `${e.toString('hex')}|${ePort}|${proto}`;
    const existing = this.#o2i.get(o2iKey);
    if (existing !== undefined) {
      const m = this.mappings.get(existing) as StaticMapping;
      if (!m.identity) return Rv.VALUE_EXIST;
      for (const loc of m.locals.values()) if (loc.vrfId === vrfId) return Rv.VALUE_EXIST;
      const t = this.#fib.findOrCreateAndLock(4, vrfId, FibSource.NAT_LOW);
      m.locals.add(() => ({ vrfId, fibIndex: t.index }));
      this.#i2o.set(`${m.localAddr.toString('hex')}|${m.localPort}|${t.index}|${m.proto}`, existing);
      return 0;
    }
    let t: FibTable;
    if (vrfId !== 0xffffffff) {
      t = this.#fib.findOrCreateAndLock(4, vrfId, FibSource.NAT_LOW);
    } else {
      vrfId = this.rconfig.insideVrf;
      t = this.#insideFib as FibTable;
      this.#fib.lock(t, FibSource.NAT_LOW);
    }
    const i2oKey = `${l.toString('hex')}|${lPort}|${t.index}|${proto}`;
    if (!(flags & F.OUT2IN_ONLY || identity) && this.#i2o.has(i2oKey)) return Rv.VALUE_EXIST;
    const locals = new VppPool<{ vrfId: number; fibIndex: number }>();
    if (identity) locals.add(() => ({ vrfId, fibIndex: t.index }));
    const index = this.mappings.add(() => ({
      localAddr: Buffer.from(l),
      externalAddr: Buffer.from(e),
      localPort: flags & F.ADDR_ONLY ? 0 : lPort,
      externalPort: flags & F.ADDR_ONLY ? 0 : ePort,
      proto: flags & F.ADDR_ONLY ? 0 : proto,
      flags,
      identity,
      vrfId: identity ? 0 : vrfId,
      fibIndex: identity ? 0 : t.index,
      locals,
      tag,
    }));
    if (!(flags & F.OUT2IN_ONLY)) this.#i2o.set(i2oKey, index);
    this.#o2i.set(o2iKey, index);
    this.#regEntriesForAddress(e, true);
    return 0;
  }

  /** nat44_ed_del_static_mapping */
  delMapping(
    l: Buffer,
    e: Buffer,
    lPort: number,
    ePort: number,
    proto: number,
    vrfId: number,
    flags: number,
    identity: boolean,
  ): number {
    const input = this.#validMappingInput(l, e, lPort, ePort, proto, flags, identity);
    if (typeof input === 'number') return input;
    ({ l, lPort, ePort, proto } = input);
    const index = this.#o2i.get(`${e.toString('hex')}|${ePort}|${proto}`);
    if (index === undefined) return Rv.NO_SUCH_ENTRY;
    const m = this.mappings.get(index) as StaticMapping;
    if (identity) {
      const vrf = vrfId === 0xffffffff ? this.rconfig.insideVrf : vrfId;
      const loc = [...m.locals.entries()].find(([, x]) => x.vrfId === vrf);
      if (!loc) return Rv.NO_SUCH_ENTRY;
      m.locals.remove(loc[0]);
      this.#i2o.delete(`${l.toString('hex')}|${lPort}|${loc[1].fibIndex}|${proto}`);
      const t = this.#fib.byIndex(4, loc[1].fibIndex);
      if (t) this.#fib.unlock(t, FibSource.NAT_LOW);
      if (m.locals.size === 0) this.#removeMapping(index, m);
      return 0;
    }
    this.#deleteMapping(index, m, l);
    return 0;
  }

  /**
   * What add and delete both check and normalise first (nat44_ed_validate_sm_input, then the
   * address-only and identity rules): VPP's retval, or the mapping's effective addresses and ports.
   */
  #validMappingInput(
    l: Buffer,
    e: Buffer,
    lPort: number,
    ePort: number,
    proto: number,
    flags: number,
    identity: boolean,
  ): number | { l: Buffer; lPort: number; ePort: number; proto: number } {
    if (!this.enabled) return Rv.UNSUPPORTED;
    if (identity && flags & F.OUT2IN_ONLY) return Rv.UNSUPPORTED;
    if (flags & (F.TWICE_NAT | F.SELF_TWICE_NAT) && (flags & F.ADDR_ONLY || identity)) return Rv.UNSUPPORTED;
    if (flags & F.ADDR_ONLY) lPort = ePort = proto = 0;
    return identity ? { l: e, lPort: ePort, ePort, proto } : { l, lPort, ePort, proto };
  }

  #deleteMapping(index: number, m: StaticMapping, l: Buffer | undefined): void {
    if (m.identity) {
      for (const [li, loc] of [...m.locals.entries()]) {
        m.locals.remove(li);
        this.#i2o.delete(`${m.localAddr.toString('hex')}|${m.localPort}|${loc.fibIndex}|${m.proto}`);
        const t = this.#fib.byIndex(4, loc.fibIndex);
        if (t) this.#fib.unlock(t, FibSource.NAT_LOW);
      }
    } else {
      if (!(m.flags & F.OUT2IN_ONLY))
        this.#i2o.delete(`${(l ?? m.localAddr).toString('hex')}|${m.localPort}|${m.fibIndex}|${m.proto}`);
      const t = this.#fib.byIndex(4, m.fibIndex);
      if (t) this.#fib.unlock(t, FibSource.NAT_LOW);
    }
    this.#removeMapping(index, m);
  }

  #removeMapping(index: number, m: StaticMapping): void {
    this.#o2i.delete(`${m.externalAddr.toString('hex')}|${m.externalPort}|${m.proto}`);
    this.mappings.remove(index);
    this.#regEntriesForAddress(m.externalAddr, false);
  }

  register(d: Dispatcher): void {
    d.on(msg.nat44_ed_plugin_enable_disable, (m, call) => {
      let rv: number;
      if (m.enable) {
        if (m.flags & (CONFIG_STATIC_ONLY | CONFIG_CONNECTION_TRACKING)) rv = Rv.UNSUPPORTED;
        else rv = this.#enable(m.inside_vrf >>> 0, m.outside_vrf >>> 0, m.sessions >>> 0);
      } else {
        rv = this.#disable();
      }
      call.reply({ retval: rv });
    });

    d.on(msg.nat44_ed_add_del_output_interface, (m, call) => {
      if (!this.#vpp.interfaces.isValid(m.sw_if_index)) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      let rv = 0;
      if (!this.enabled) rv = Rv.UNSUPPORTED;
      else if (m.is_add) {
        if ([...this.outputInterfaces.values()].includes(m.sw_if_index)) rv = Rv.VALUE_EXIST;
        else {
          this.outputInterfaces.add(() => m.sw_if_index);
          this.#regEntriesForInterface(m.sw_if_index, true);
        }
      } else {
        const at = [...this.outputInterfaces.entries()].find(([, sw]) => sw === m.sw_if_index);
        if (!at) rv = Rv.NO_SUCH_ENTRY;
        else {
          this.#regEntriesForInterface(m.sw_if_index, false);
          this.outputInterfaces.remove(at[0]);
        }
      }
      call.reply({ retval: rv });
    });

    d.on(msg.nat44_ed_output_interface_get, (m, call) =>
      replyAndDetails(call, this.outputInterfaces, m.cursor, this.#vpp.faults.cursorPageLimit, (sw) =>
        call.details(msg.nat44_ed_output_interface_details, { sw_if_index: sw }),
      ),
    );

    d.on(msg.nat44_add_del_static_mapping_v2, (m, call) => {
      const l = ip4Bytes(m.local_ip_address);
      const e = ip4Bytes(m.external_ip_address);
      const vrf = m.vrf_id >>> 0;
      if (m.external_sw_if_index >>> 0 !== 0xffffffff) {
        // GUESS: mappings to an interface's address (resolve records) are not modelled
        return call.reply({ retval: Rv.UNSUPPORTED });
      }
      const rv = m.is_add
        ? this.addMapping(l, e, m.local_port, m.external_port, m.protocol, vrf, m.flags, false, m.tag)
        : this.delMapping(l, e, m.local_port, m.external_port, m.protocol, vrf, m.flags, false);
      call.reply({ retval: rv });
    });

    d.on(msg.nat44_add_del_identity_mapping, (m, call) => {
      const a = ip4Bytes(m.ip_address);
      if (m.sw_if_index >>> 0 !== 0xffffffff) return call.reply({ retval: Rv.UNSUPPORTED }); // GUESS, as above
      const flags = m.flags & F.ADDR_ONLY;
      const port = flags ? 0 : m.port;
      const proto = flags ? 0 : m.protocol;
      const rv = m.is_add
        ? this.addMapping(a, a, port, port, proto, m.vrf_id >>> 0, flags, true, m.tag)
        : this.delMapping(a, a, port, port, proto, m.vrf_id >>> 0, flags, true);
      call.reply({ retval: rv });
    });

    d.on(msg.nat44_static_mapping_dump, (_m, call) => {
      if (!call.reg) return;
      for (const sm of this.mappings.values()) {
        if (sm.identity) continue;
        call.details(msg.nat44_static_mapping_details, {
          flags: sm.flags & (F.SELF_TWICE_NAT | F.OUT2IN_ONLY | F.TWICE_NAT | F.ADDR_ONLY),
          local_ip_address: ipText(sm.localAddr),
          external_ip_address: ipText(sm.externalAddr),
          protocol: sm.flags & F.ADDR_ONLY ? 0 : sm.proto,
          local_port: sm.flags & F.ADDR_ONLY ? 0 : sm.localPort,
          external_port: sm.flags & F.ADDR_ONLY ? 0 : sm.externalPort,
          external_sw_if_index: 0xffffffff,
          vrf_id: sm.vrfId,
          tag: sm.tag.slice(0, 63),
        });
      }
    });

    d.on(msg.nat44_identity_mapping_dump, (_m, call) => {
      if (!call.reg) return;
      for (const sm of this.mappings.values()) {
        if (!sm.identity) continue;
        for (const loc of sm.locals.values()) {
          call.details(msg.nat44_identity_mapping_details, {
            flags: sm.flags & F.ADDR_ONLY,
            ip_address: ipText(sm.localAddr),
            protocol: sm.proto,
            port: sm.localPort,
            sw_if_index: 0xffffffff,
            vrf_id: loc.vrfId,
            tag: sm.tag.slice(0, 63),
          });
        }
      }
    });

    d.on(msg.nat44_show_running_config, (_m, call) => {
      call.reply({
        retval: 0,
        inside_vrf: this.rconfig.insideVrf,
        outside_vrf: this.rconfig.outsideVrf,
        sessions: this.rconfig.sessions,
        translation_buckets: this.translationBuckets,
        forwarding_enabled: false,
        // nat_ipfix_logging_enabled returns the negation of the ipfix state (a VPP bug): with
        // ipfix logging off it says true (checked on a real VPP 26.06)
        ipfix_logging_enabled: true,
        // nat_reset_timeouts happens on enable (zero before the first); they stay after a disable
        timeouts: this.translationBuckets
          ? { udp: 300, tcp_established: 7440, tcp_transitory: 240, icmp: 60 }
          : { udp: 0, tcp_established: 0, tcp_transitory: 0, icmp: 0 },
        log_level: 0,
        flags: CONFIG_ENDPOINT_DEPENDENT, // always (checked on a real VPP 26.06)
      });
    });
  }
}

/** nat_calc_bihash_buckets (nat/lib/lib.h) */
export function calcBihashBuckets(nElts: number): number {
  const n = Math.floor(nElts / 2.5);
  let lower = 1;
  while (lower * 2 < n) lower *= 2;
  const upper = 2 * lower;
  if (upper - n < n - lower && upper <= 0xffffffff) return upper;
  return lower;
}
