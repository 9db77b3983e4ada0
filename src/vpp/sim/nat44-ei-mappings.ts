/**
 * NAT44-EI's static and identity mappings, with their interface-address resolution records
 * (src/plugins/nat/nat44-ei/nat44_ei.c, nat44_ei_api.c in VPP 26.06): the API that adds, deletes
 * and dumps them, and the address callback that resolves them. The plugin's enablement, config,
 * output interfaces and FIB /32s are nat44-ei.ts, which these rules ask for what they need.
 *
 * Every fact below was checked on a real VPP 26.06 (plugin nat44_ei_plugin.so, no workers),
 * except those marked GUESS.
 *
 * Static and identity mappings (one pool, in pool order in the dumps, freed slots reused)
 * - Keys: by external (address, port, protocol) and by local (address, port, fib, protocol);
 *   address-only mappings have port and protocol 0. Protocols are nat protocols: TCP, UDP, ICMP
 *   (1 and 58), everything else "other", dumped as 255 (`nat_proto_to_ip_proto`).
 * - Add: -81 when the external key is taken by a static mapping. When it is taken by an identity
 *   mapping the request (static or identity) adds a local record for its VRF to that mapping
 *   (-81 if the VRF is there already; the VRF is compared as given, so ~0 adds a record for VRF
 *   ~0 next to the inside VRF's, locking, and creating, table ~0). Then -81 when the local key is
 *   taken (static mappings only), then port mappings need their external port reserved in the
 *   address pool: -6 unless the plugin runs STATIC_MAPPING_ONLY.
 * - Delete: found by the external key alone (-6 if none). A static delete takes the mapping's
 *   fib, not the request's VRF, and removes the local key built from the request's local
 *   address: with another local address the mapping goes but its local key stays, and a later
 *   add of that local address in that VRF answers -81 (and leaks a lock). An identity delete
 *   removes the record of its VRF (~0: the inside VRF; -6 if none); the mapping goes with its
 *   last record. A delete without the address-only flag of a mapping made with it (port 0,
 *   protocol 0 find the same key) fails the port release: -7, after the identity record went
 *   (the mapping then dumps nothing, holds its key and its lock: a zombie).
 * - Dumps: static mappings (flags ADDR_ONLY or 0; protocol and ports only for port mappings;
 *   external_sw_if_index ~0; tag as given, cut to 63 bytes), then the resolve records. Identity
 *   mappings: one detail per local record (pool order), flags ADDR_ONLY or 0, the mapping's tag
 *   (a record added later keeps the first tag), protocol 255 for address-only, then the records.
 * - Disable removes every mapping with the delete above, each called with the mapping's own VRF
 *   field, which is 0 for identity mappings: only a VRF-0 identity record is removed (and its
 *   lock released); the other records' table locks stay for the life of the process. Then the
 *   output interfaces go, both pools are freed (indices start at 0 again) and the records are
 *   dropped. The disable still answers -168 (VNET_API_ERROR_BUG) when the *last* mapping in pool
 *   order failed that delete (`error` is overwritten per mapping): an identity mapping without a
 *   VRF-0 record, last in the pool, makes a complete disable answer -168.
 *
 * Resolve records (a mapping given external_sw_if_index / sw_if_index instead of an address)
 * - Not validated, not refused while disabled: the record is appended (-81 if a matching record
 *   exists) and listed by the dumps (sw_if_index as given, external/identity address 0.0.0.0). If
 *   the interface has an IPv4 address, the mapping is also made at once with its first address
 *   (and fails as any add: -169 disabled, -81...; the record stays, except that a port mapping
 *   refused -6 removes its own record). A delete removes the record (-6 if none; vec_del1: the
 *   last record takes its slot) and the mapping made from the first address.
 * - Address callbacks (enabled only): the first address-only record for the interface; an added
 *   address makes its mapping unless one exists, a deleted one removes the mapping built on it.
 *   The lookup uses the outside fib index, not 0: with outside VRF 7700 a deleted address left
 *   its mapping in place (and an added one still made it). GUESS: the
 *   identity request's address variable is uninitialised when an interface is given; the
 *   simulator uses 0.0.0.0 (it only matters when a static record of that interface and VRF has
 *   local address 0.0.0.0).
 */
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import { FibSource } from './fib-sources.js';
import { ip4Bytes, ipText } from './ip-addr.js';
import { Rv } from './retval.js';
import type { Vpp } from './vpp.js';
import { VppPool } from './vpp-pool.js';

/** nat44_ei_config_flags (nat44_ei.api): the one a mapping request carries. */
const ADDR_ONLY_MAPPING = 0x08;

/** NAT44_EI_SM_FLAG_* (nat44_ei.h): a mapping's own flags. */
export const SmFlag = { ADDR_ONLY: 1, IDENTITY: 2, SWITCH_ADDRESS: 4 } as const;

/** nat_protocol_t (nat/lib/nat_proto.h) */
const NatProto = { OTHER: 0, UDP: 1, TCP: 2, ICMP: 3 } as const;

const NONE = 0xffffffff;
const ZERO_ADDR = Buffer.alloc(4);

/** ip_proto_to_nat_proto */
function natProto(ipProto: number): number {
  if (ipProto === 6) return NatProto.TCP;
  if (ipProto === 17) return NatProto.UDP;
  if (ipProto === 1 || ipProto === 58) return NatProto.ICMP;
  return NatProto.OTHER;
}

/** nat_proto_to_ip_proto: "other" is ~0 in a u8 */
function ipProto(proto: number): number {
  return [255, 17, 6, 1][proto] ?? 255;
}

/** `mp->tag[63] = 0; format (0, "%s", mp->tag)`: at most 63 bytes. */
function apiTag(tag: string): string {
  if (Buffer.byteLength(tag) <= 63) return tag;
  let s = Buffer.from(tag).subarray(0, 63).toString('utf8');
  while (Buffer.byteLength(s) > 63) s = s.slice(0, -1);
  return s;
}

export interface EiLocal {
  readonly vrfId: number;
  readonly fibIndex: number;
}

export interface EiMapping {
  readonly localAddr: Buffer;
  readonly externalAddr: Buffer;
  readonly localPort: number;
  readonly externalPort: number;
  /** nat protocol */
  readonly proto: number;
  /** SmFlag bits */
  readonly flags: number;
  /** Static mappings; 0 for identity mappings (their VRFs are the locals'). */
  readonly vrfId: number;
  readonly fibIndex: number;
  /** Identity mappings: one record per VRF. */
  readonly locals: VppPool<EiLocal>;
  readonly tag: string;
}

/** nat44_ei_static_map_resolve_t */
export interface EiResolveRecord {
  readonly lAddr: Buffer;
  readonly lPort: number;
  readonly ePort: number;
  readonly proto: number;
  readonly vrfId: number;
  readonly swIfIndex: number;
  readonly flags: number;
  readonly tag: string;
}

const isAddrOnly = (f: number): boolean => (f & SmFlag.ADDR_ONLY) !== 0;
const isIdentity = (f: number): boolean => (f & SmFlag.IDENTITY) !== 0;
const isSwitch = (f: number): boolean => (f & SmFlag.SWITCH_ADDRESS) !== 0;

function key(addr: Buffer, port: number, fibIndex: number, proto: number): string {
  return `${addr.toString('hex')}|${port}|${fibIndex}|${proto}`;
}

/** What the mappings need of the plugin (nat44-ei.ts): its state and its FIB /32s. */
export interface Nat44EiPluginState {
  readonly enabled: boolean;
  readonly rconfig: { readonly staticMappingOnly: boolean };
  readonly insideVrfId: number;
  readonly insideFibIndex: number;
  readonly outsideFibIndex: number;
  /** nat44_ei_add_del_addr_to_fib_foreach_out_if */
  addrToFibForeachOutIf(addr: Buffer, isAdd: boolean): void;
}

export class Nat44EiMappings {
  readonly #vpp: Vpp;
  readonly #plugin: Nat44EiPluginState;
  /** nm->static_mappings: static and identity mappings in one pool */
  pool = new VppPool<EiMapping>();
  /** nm->to_resolve (a vector) */
  toResolve: EiResolveRecord[] = [];
  /** static_mapping_by_external: key → mapping index */
  #byExternal = new Map<string, number>();
  /** static_mapping_by_local */
  #byLocal = new Map<string, number>();

  constructor(vpp: Vpp, plugin: Nat44EiPluginState) {
    this.#vpp = vpp;
    this.#plugin = plugin;
  }

  get #fib() {
    return this.#vpp.fib;
  }

  /**
   * nat44_ei_del_static_mappings, then the pools freed (indices start at 0 again) and the records
   * dropped: the plugin's disable. Each delete is called with the mapping's own vrf_id field (0
   * for identity mappings); the rv is the last delete's.
   */
  deleteAll(): number {
    let last = 0;
    for (const m of [...this.pool.values()]) {
      last = this.#delInternal(
        m.localAddr,
        m.externalAddr,
        m.localPort,
        m.externalPort,
        m.proto,
        m.vrfId,
        m.flags,
      );
    }
    this.pool = new VppPool<EiMapping>();
    this.toResolve = [];
    this.#byExternal = new Map();
    this.#byLocal = new Map();
    return last;
  }

  /** ip4_interface_first_address */
  #firstAddress(swIfIndex: number): Buffer | undefined {
    if (!this.#vpp.interfaces.isValid(swIfIndex)) return undefined;
    return this.#vpp.ip.firstAddress(swIfIndex, 4);
  }

  /** nat44_ei_get_resolve_record: the record's index, or -1. */
  #findRecord(
    l: Buffer,
    lPort: number,
    ePort: number,
    proto: number,
    vrfId: number,
    sw: number,
    flags: number,
  ): number {
    return this.toResolve.findIndex((rp) => {
      if (rp.swIfIndex !== sw || rp.vrfId !== vrfId) return false;
      const bothAddrOnly = isAddrOnly(rp.flags) && isAddrOnly(flags);
      if (isIdentity(rp.flags) && isIdentity(flags)) {
        return bothAddrOnly || (rp.ePort === ePort && rp.proto === proto);
      }
      if (!rp.lAddr.equals(l)) return false;
      return bothAddrOnly || (rp.lPort === lPort && rp.ePort === ePort && rp.proto === proto);
    });
  }

  /** nat44_ei_del_resolve_record: vec_del1 moves the last record into the hole. */
  #delRecord(
    l: Buffer,
    lPort: number,
    ePort: number,
    proto: number,
    vrfId: number,
    sw: number,
    flags: number,
  ): boolean {
    const i = this.#findRecord(l, lPort, ePort, proto, vrfId, sw, flags);
    if (i < 0) return false;
    const last = this.toResolve.pop() as EiResolveRecord;
    if (i < this.toResolve.length) this.toResolve[i] = last;
    return true;
  }

  /** nat44_ei_add_static_mapping */
  #add(
    l: Buffer,
    e: Buffer,
    lPort: number,
    ePort: number,
    proto: number,
    vrfId: number,
    sw: number,
    flags: number,
    tag: string,
  ): number {
    if (isSwitch(flags)) {
      if (this.#findRecord(l, lPort, ePort, proto, vrfId, sw, flags) >= 0) return Rv.VALUE_EXIST;
      this.toResolve.push({ lAddr: Buffer.from(l), lPort, ePort, proto, vrfId, swIfIndex: sw, flags, tag });
      const first = this.#firstAddress(sw);
      if (!first) return 0; // resolved when the interface gets an address
      e = first;
    }
    return this.#addInternal(l, e, lPort, ePort, proto, vrfId, sw, flags, tag);
  }

  /** nat44_ei_del_static_mapping */
  #del(
    l: Buffer,
    e: Buffer,
    lPort: number,
    ePort: number,
    proto: number,
    vrfId: number,
    sw: number,
    flags: number,
  ): number {
    if (isSwitch(flags)) {
      if (!this.#delRecord(l, lPort, ePort, proto, vrfId, sw, flags)) return Rv.NO_SUCH_ENTRY;
      const first = this.#firstAddress(sw);
      if (!first) return 0;
      e = first;
    }
    return this.#delInternal(l, e, lPort, ePort, proto, vrfId, flags);
  }

  /** nat44_ei_add_static_mapping_internal */
  #addInternal(
    l: Buffer,
    e: Buffer,
    lPort: number,
    ePort: number,
    proto: number,
    vrfId: number,
    sw: number,
    flags: number,
    tag: string,
  ): number {
    if (!this.#plugin.enabled) return Rv.FEATURE_ALREADY_DISABLED;
    if (isAddrOnly(flags)) ePort = lPort = proto = 0;
    if (isIdentity(flags)) {
      lPort = ePort;
      l = e;
    }
    const existing = this.#byExternal.get(key(e, ePort, 0, proto));
    if (existing !== undefined) {
      const m = this.pool.get(existing) as EiMapping;
      if (!isIdentity(m.flags)) return Rv.VALUE_EXIST;
      // another VRF's record for an identity mapping (whatever the request's own flags)
      for (const loc of m.locals.values()) if (loc.vrfId === vrfId) return Rv.VALUE_EXIST;
      const t = this.#fib.findOrCreateAndLock(4, vrfId, FibSource.NAT44_EI_LOW);
      m.locals.add(() => ({ vrfId, fibIndex: t.index }));
      this.#byLocal.set(key(m.localAddr, m.localPort, t.index, m.proto), existing);
      return 0;
    }
    let fibIndex: number;
    if (vrfId !== NONE) {
      fibIndex = this.#fib.findOrCreateAndLock(4, vrfId, FibSource.NAT44_EI_LOW).index;
    } else {
      vrfId = this.#plugin.insideVrfId;
      fibIndex = this.#plugin.insideFibIndex;
      const t = this.#fib.byIndex(4, fibIndex);
      if (t) this.#fib.lock(t, FibSource.NAT44_EI_LOW);
    }
    // both refusals below leave the lock just taken
    if (!isIdentity(flags) && this.#byLocal.has(key(l, lPort, fibIndex, proto))) return Rv.VALUE_EXIST;
    if (!(isAddrOnly(flags) || this.#plugin.rconfig.staticMappingOnly)) {
      // nat44_ei_reserve_port: the external address is never in the (unmodelled) address pool
      if (isSwitch(flags) && !isIdentity(flags)) this.#delRecord(l, lPort, ePort, proto, vrfId, sw, flags);
      return Rv.NO_SUCH_ENTRY;
    }
    const locals = new VppPool<EiLocal>();
    if (isIdentity(flags)) locals.add(() => ({ vrfId, fibIndex }));
    const index = this.pool.add(() => ({
      localAddr: Buffer.from(l),
      externalAddr: Buffer.from(e),
      localPort: isAddrOnly(flags) ? 0 : lPort,
      externalPort: isAddrOnly(flags) ? 0 : ePort,
      proto: isAddrOnly(flags) ? 0 : proto,
      flags,
      vrfId: isIdentity(flags) ? 0 : vrfId,
      fibIndex: isIdentity(flags) ? 0 : fibIndex,
      locals,
      tag,
    }));
    const m = this.pool.get(index) as EiMapping;
    this.#byLocal.set(key(m.localAddr, m.localPort, fibIndex, m.proto), index);
    this.#byExternal.set(key(m.externalAddr, m.externalPort, 0, m.proto), index);
    if (isAddrOnly(flags)) this.#plugin.addrToFibForeachOutIf(e, true);
    return 0;
  }

  /** nat44_ei_del_static_mapping_internal */
  #delInternal(
    l: Buffer,
    e: Buffer,
    lPort: number,
    ePort: number,
    proto: number,
    vrfId: number,
    flags: number,
  ): number {
    if (!this.#plugin.enabled) return Rv.FEATURE_ALREADY_DISABLED;
    if (isAddrOnly(flags)) ePort = lPort = proto = 0;
    if (isIdentity(flags)) {
      lPort = ePort;
      l = e;
    }
    const index = this.#byExternal.get(key(e, ePort, 0, proto));
    if (index === undefined) return isSwitch(flags) ? 0 : Rv.NO_SUCH_ENTRY;
    const m = this.pool.get(index) as EiMapping;
    let fibIndex: number;
    if (isIdentity(flags)) {
      if (vrfId === NONE) vrfId = this.#plugin.insideVrfId;
      const at = [...m.locals.entries()].find(([, loc]) => loc.vrfId === vrfId);
      if (!at) return Rv.NO_SUCH_ENTRY;
      fibIndex = at[1].fibIndex;
      m.locals.remove(at[0]);
    } else {
      fibIndex = m.fibIndex;
    }
    // nat44_ei_free_port: nothing in the address pool to release
    if (!(isAddrOnly(flags) || this.#plugin.rconfig.staticMappingOnly)) return Rv.INVALID_VALUE;
    this.#byLocal.delete(key(l, lPort, fibIndex, proto));
    const t = this.#fib.byIndex(4, fibIndex);
    if (t) this.#fib.unlock(t, FibSource.NAT44_EI_LOW);
    if (m.locals.size === 0) {
      this.#byExternal.delete(key(e, ePort, 0, proto));
      this.pool.remove(index);
      if (isAddrOnly(flags) && !isIdentity(flags)) this.#plugin.addrToFibForeachOutIf(e, false);
    }
    return 0;
  }

  /** nat44_ei_ip4_add_del_addr_only_sm_cb */
  onIp4AddressChange(swIfIndex: number, addr: Buffer, isDel: boolean): void {
    if (!this.#plugin.enabled) return;
    const rp = this.toResolve.find((r) => isAddrOnly(r.flags) && r.swIfIndex === swIfIndex);
    if (!rp) return;
    const exists = this.#byExternal.has(key(addr, 0, this.#plugin.outsideFibIndex, 0));
    if (isDel) {
      if (!exists) return;
      this.#delInternal(rp.lAddr, addr, rp.lPort, rp.ePort, rp.proto, rp.vrfId, rp.flags);
    } else {
      if (exists) return;
      this.#addInternal(rp.lAddr, addr, rp.lPort, rp.ePort, rp.proto, rp.vrfId, NONE, rp.flags, rp.tag);
    }
  }

  register(d: Dispatcher): void {
    d.on(msg.nat44_ei_add_del_static_mapping, (m, call) => {
      const l = ip4Bytes(m.local_ip_address);
      let flags = 0;
      let lPort = 0;
      let ePort = 0;
      let proto = 0;
      if (m.flags & ADDR_ONLY_MAPPING) flags |= SmFlag.ADDR_ONLY;
      else {
        lPort = m.local_port;
        ePort = m.external_port;
        proto = natProto(m.protocol);
      }
      const sw = m.external_sw_if_index >>> 0;
      let e = ip4Bytes(m.external_ip_address);
      if (sw !== NONE) {
        flags |= SmFlag.SWITCH_ADDRESS;
        e = ZERO_ADDR; // not read from the request
      }
      const vrf = m.vrf_id >>> 0;
      const rv = m.is_add
        ? this.#add(l, e, lPort, ePort, proto, vrf, sw, flags, apiTag(m.tag))
        : this.#del(l, e, lPort, ePort, proto, vrf, sw, flags);
      call.reply({ retval: rv });
    });

    d.on(msg.nat44_ei_add_del_identity_mapping, (m, call) => {
      let flags = SmFlag.IDENTITY;
      let port = 0;
      let proto = 0;
      if (m.flags & ADDR_ONLY_MAPPING) flags |= SmFlag.ADDR_ONLY;
      else {
        port = m.port;
        proto = natProto(m.protocol);
      }
      const sw = m.sw_if_index >>> 0;
      let a = ip4Bytes(m.ip_address);
      if (sw !== NONE) {
        flags |= SmFlag.SWITCH_ADDRESS;
        a = ZERO_ADDR; // GUESS: uninitialised in VPP
      }
      const vrf = m.vrf_id >>> 0;
      const rv = m.is_add
        ? this.#add(a, a, port, port, proto, vrf, sw, flags, apiTag(m.tag))
        : this.#del(a, a, port, port, proto, vrf, sw, flags);
      call.reply({ retval: rv });
    });

    d.on(msg.nat44_ei_static_mapping_dump, (_m, call) => {
      if (!call.reg) return;
      for (const sm of this.pool.values()) {
        if (isIdentity(sm.flags)) continue;
        const addrOnly = isAddrOnly(sm.flags);
        call.details(msg.nat44_ei_static_mapping_details, {
          flags: addrOnly ? ADDR_ONLY_MAPPING : 0,
          local_ip_address: ipText(sm.localAddr),
          external_ip_address: ipText(sm.externalAddr),
          protocol: addrOnly ? 0 : ipProto(sm.proto),
          local_port: addrOnly ? 0 : sm.localPort,
          external_port: addrOnly ? 0 : sm.externalPort,
          external_sw_if_index: NONE,
          vrf_id: sm.vrfId,
          tag: sm.tag,
        });
      }
      for (const rp of this.toResolve) {
        if (isIdentity(rp.flags)) continue;
        const addrOnly = isAddrOnly(rp.flags);
        call.details(msg.nat44_ei_static_mapping_details, {
          flags: addrOnly ? ADDR_ONLY_MAPPING : 0,
          local_ip_address: ipText(rp.lAddr),
          external_ip_address: '0.0.0.0',
          protocol: addrOnly ? 0 : ipProto(rp.proto),
          local_port: addrOnly ? 0 : rp.lPort,
          external_port: addrOnly ? 0 : rp.ePort,
          external_sw_if_index: rp.swIfIndex,
          vrf_id: rp.vrfId,
          tag: rp.tag,
        });
      }
    });

    d.on(msg.nat44_ei_identity_mapping_dump, (_m, call) => {
      if (!call.reg) return;
      for (const sm of this.pool.values()) {
        if (!isIdentity(sm.flags)) continue;
        for (const loc of sm.locals.values()) {
          call.details(msg.nat44_ei_identity_mapping_details, {
            flags: isAddrOnly(sm.flags) ? ADDR_ONLY_MAPPING : 0,
            ip_address: ipText(sm.localAddr),
            protocol: ipProto(sm.proto),
            port: sm.localPort,
            sw_if_index: NONE,
            vrf_id: loc.vrfId,
            tag: sm.tag,
          });
        }
      }
      for (const rp of this.toResolve) {
        if (!isIdentity(rp.flags)) continue;
        call.details(msg.nat44_ei_identity_mapping_details, {
          flags: isAddrOnly(rp.flags) ? ADDR_ONLY_MAPPING : 0,
          ip_address: '0.0.0.0',
          protocol: ipProto(rp.proto),
          port: rp.lPort,
          sw_if_index: rp.swIfIndex,
          vrf_id: rp.vrfId,
          tag: rp.tag,
        });
      }
    });
  }
}
