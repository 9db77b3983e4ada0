/**
 * NAT44-EI (endpoint-independent NAT): plugin enable/disable, running config and timeouts,
 * output-feature interfaces, static and identity mappings (with interface-address resolution
 * records) and users (src/plugins/nat/nat44-ei/nat44_ei.c, nat44_ei_api.c in VPP 26.06). API
 * state only: no translation, no sessions, no address pool (nat44_ei_add_del_address_range is not
 * modelled, so the pool is always empty), no inside/outside interface features
 * (nat44_ei_interface_add_del_feature), no workers (VPP with a main thread only).
 *
 * Every fact below was checked on a real VPP 26.06 (plugin nat44_ei_plugin.so, no workers),
 * except those marked GUESS.
 *
 * Retvals
 * - `fail_if_enabled` / `fail_if_disabled` answer -170 (FEATURE_ALREADY_ENABLED) and -169
 *   (FEATURE_ALREADY_DISABLED): enabling twice -170, disabling while disabled -169 (a disable
 *   can also answer -168 after doing its work, see "Disable" below), and while
 *   disabled every mapping add/delete and output interface add/delete -169 (the interface's
 *   VALIDATE_SW_IF_INDEX comes first: -2). Mapping requests with an interface instead of an
 *   external address are the exception (resolve records, below).
 * - nat44_ei_set_timeouts always answers 0 and sets the timeouts, enabled or not; enabling resets
 *   them to 300/7440/240/60 (`nat_reset_timeouts`); they start at 0 and a disable keeps them.
 * - nat44_ei_del_user: the plugin has no users without translated traffic, so it answers 1 (a
 *   plain 1, `nat44_ei_user_del`'s "not found") while enabled. While disabled VPP dies: the
 *   per-thread user hash is uninitialised before the first enable and freed by a disable, and
 *   `clib_bihash_search_8_8` dereferences it (SIGSEGV, both cases seen). Modelled as a VppCrash.
 * - nat44_ei_user_dump lists nothing (users only come from sessions), enabled or not.
 *
 * Running config (nat44_ei_show_running_config, always retval 0)
 * - The config as stored by the enable, with its defaults filled in: users 1024, sessions 10240,
 *   user_sessions = sessions when 0; user_buckets/translation_buckets from
 *   `nat_calc_bihash_buckets` (users, sessions). Flags: STATIC_MAPPING_ONLY 0x01,
 *   CONNECTION_TRACKING 0x02, OUT2IN_DPO 0x04 of the enable's flags (other bits dropped).
 * - A disable zeroes the config (VRFs, users, sessions, user_sessions, flags) but keeps the
 *   bucket counts and the timeouts. forwarding_enabled false, log_level 0 (never filled in).
 * - ipfix_logging_enabled is true: `nat_ipfix_logging_enabled` returns the negation of the
 *   ipfix state (a VPP bug), and nat ipfix logging is off.
 *
 * FIB side effects (sources "nat44-ei-low" 29 and "nat44-ei-hi" 30 in `show fib source`)
 * - Enabling locks (and creates, if missing: "ipv4-VRF:<id>") the inside and outside VRFs' IPv4
 *   tables with nat44-ei-hi. Nothing ever unlocks them: they outlive the disable and an API
 *   delete (every enable adds a lock: from the source, the lock count itself does not show).
 * - A mapping locks (and creates) its VRF's table with nat44-ei-low; ~0 means the inside VRF (its
 *   dump then says the inside VRF id). The lock is taken before the duplicate-local check and
 *   before the port reservation, so an add refused with -81 (local address taken) or -6 (port
 *   mapping, no pool address) leaves its lock behind: the table stays for good. A delete unlocks
 *   it; a table nothing else holds then goes.
 * - Receive /32s: `nat44_ei_add_del_addr_to_fib` puts the external address of an address-only
 *   mapping in the table of each output interface (update_one_path, source nat44-ei-low, a LOCAL
 *   path through the interface with the address as next hop). Not reference counted: each
 *   interface's add replaces the path (the last interface in pool order wins when two share a
 *   table), and one delete removes the entry.
 *   - Adding an address-only mapping (static or identity) adds it on every output interface
 *     (none with OUT2IN_DPO). Deleting removes it only for a static mapping (never for an
 *     identity mapping) and, again, not with OUT2IN_DPO.
 *   - Adding/removing an output interface adds/removes it for every address-only mapping whose
 *     local and external addresses differ (identity mappings never), OUT2IN_DPO or not.
 *   - So an identity mapping's /32 (added while an output interface existed) is never removed,
 *     not by the mapping's delete, the interface's removal or a disable; nor is a static
 *     mapping's with local = external once its interface went first. Port mappings add none.
 *   - A delete uses the interface's table at that moment: an interface moved to another table
 *     leaves the old table's entries behind.
 * - ip_table_dump names a table created for an id >= 2^31 with a signed id ("ipv4-VRF:-1" for ~0,
 *   fib.ts): identity mappings can create table ~0 (below).
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
 *
 * Output interfaces (nat44_ei_add_del_output_interface / _get)
 * - -81 when the interface is there already, -6 on removing one that is not; a pool in add order,
 *   freed slots reused; _get pages like every REPLY_AND_DETAILS_MACRO service (-7 for a cursor
 *   past the end, reply cursor ~0 when done). With no interfaces: retval 0 and no details; the
 *   cursor is never set (REPLY_MACRO does not zero the message: 0 on a fresh VPP, 3 seen later).
 *   GUESS: 0 here.
 * - Deleting an interface while the plugin is enabled removes its output-interface entry (and
 *   its /32s from the table the interface was in: nat44-ei's sw_interface_add_del callback runs
 *   before vnet's unbinds the interface, hence `unshift` below). Removing it afterwards: -2.
 *
 * NAT44-ED and NAT44-EI are independent plugins: both can be enabled at once (each answers 0),
 * with separate state and FIB sources.
 */
import { msg } from '../messages/index.js';
import { VppCrash, type Dispatcher } from './dispatcher.js';
import { DpoProto, FibSource, PathCfg, PathType } from './fib.js';
import { ip4Bytes, ipText } from './ip-addr.js';
import { calcBihashBuckets } from './nat.js';
import { replyAndDetails } from './cursor-details.js';
import { Rv } from './retval.js';
import type { SimInterface } from './interfaces.js';
import type { Vpp } from './vpp.js';
import { VppPool } from './vpp-pool.js';

/** nat44_ei_config_flags (nat44_ei.api) */
const API = {
  STATIC_MAPPING_ONLY: 0x01,
  CONNECTION_TRACKING: 0x02,
  OUT2IN_DPO: 0x04,
  ADDR_ONLY_MAPPING: 0x08,
} as const;

/** NAT44_EI_SM_FLAG_* (nat44_ei.h): a mapping's own flags. */
export const SmFlag = { ADDR_ONLY: 1, IDENTITY: 2, SWITCH_ADDRESS: 4 } as const;

/** nat_protocol_t (nat/lib/nat_proto.h) */
const NatProto = { OTHER: 0, UDP: 1, TCP: 2, ICMP: 3 } as const;

const NONE = 0xffffffff;
const ZERO_ADDR = Buffer.alloc(4);
const DEFAULT_TIMEOUTS = { udp: 300, tcpEstablished: 7440, tcpTransitory: 240, icmp: 60 } as const;

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

export interface Nat44EiConfig {
  insideVrf: number;
  outsideVrf: number;
  users: number;
  sessions: number;
  userSessions: number;
  staticMappingOnly: boolean;
  connectionTracking: boolean;
  out2inDpo: boolean;
}

const ZERO_CONFIG: Nat44EiConfig = {
  insideVrf: 0,
  outsideVrf: 0,
  users: 0,
  sessions: 0,
  userSessions: 0,
  staticMappingOnly: false,
  connectionTracking: false,
  out2inDpo: false,
};

const isAddrOnly = (f: number): boolean => (f & SmFlag.ADDR_ONLY) !== 0;
const isIdentity = (f: number): boolean => (f & SmFlag.IDENTITY) !== 0;
const isSwitch = (f: number): boolean => (f & SmFlag.SWITCH_ADDRESS) !== 0;

function key(addr: Buffer, port: number, fibIndex: number, proto: number): string {
  return `${addr.toString('hex')}|${port}|${fibIndex}|${proto}`;
}

export class Nat44Ei {
  readonly #vpp: Vpp;
  enabled = false;
  /** nm->rconfig */
  rconfig: Nat44EiConfig = { ...ZERO_CONFIG };
  userBuckets = 0;
  translationBuckets = 0;
  timeouts = { udp: 0, tcpEstablished: 0, tcpTransitory: 0, icmp: 0 };
  #insideVrfId = 0;
  #insideFibIndex = 0;
  #outsideFibIndex = 0;
  outputInterfaces = new VppPool<number>();
  mappings = new VppPool<EiMapping>();
  /** nm->to_resolve (a vector) */
  toResolve: EiResolveRecord[] = [];
  /** static_mapping_by_external: key → mapping index */
  #byExternal = new Map<string, number>();
  /** static_mapping_by_local */
  #byLocal = new Map<string, number>();

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
    // nat44_ei_sw_interface_add_del: registered after vnet's callbacks, so it runs before them
    vpp.interfaces.deleteHooks.unshift((sw) => this.#interfaceDeleted(sw));
  }

  get #fib() {
    return this.#vpp.fib;
  }

  // ------------------------------------------------------------------------------------------
  // Plugin

  #enable(m: {
    inside_vrf: number;
    outside_vrf: number;
    users: number;
    sessions: number;
    user_sessions: number;
    flags: number;
  }): number {
    if (this.enabled) return Rv.FEATURE_ALREADY_ENABLED;
    const sessions = m.sessions >>> 0 || 10 * 1024;
    const c: Nat44EiConfig = {
      insideVrf: m.inside_vrf >>> 0,
      outsideVrf: m.outside_vrf >>> 0,
      users: m.users >>> 0 || 1024,
      sessions,
      userSessions: m.user_sessions >>> 0 || sessions,
      staticMappingOnly: (m.flags & API.STATIC_MAPPING_ONLY) !== 0,
      connectionTracking: (m.flags & API.CONNECTION_TRACKING) !== 0,
      out2inDpo: (m.flags & API.OUT2IN_DPO) !== 0,
    };
    this.rconfig = c;
    this.translationBuckets = calcBihashBuckets(c.sessions);
    this.userBuckets = calcBihashBuckets(c.users);
    this.#insideVrfId = c.insideVrf;
    this.#insideFibIndex = this.#fib.findOrCreateAndLock(4, c.insideVrf, FibSource.NAT44_EI_HI).index;
    this.#outsideFibIndex = this.#fib.findOrCreateAndLock(4, c.outsideVrf, FibSource.NAT44_EI_HI).index;
    this.timeouts = { ...DEFAULT_TIMEOUTS };
    this.enabled = true;
    return 0;
  }

  /** nat44_ei_plugin_disable: the tables the enable locked stay locked. */
  #disable(): number {
    if (!this.enabled) return Rv.FEATURE_ALREADY_DISABLED;
    // nat44_ei_del_static_mappings: each with its own vrf_id field (0 for identity mappings);
    // its error is the last delete's, and any error makes the disable answer VNET_API_ERROR_BUG
    let last = 0;
    for (const m of [...this.mappings.values()]) {
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
    this.mappings = new VppPool<EiMapping>();
    this.toResolve = [];
    this.#byExternal = new Map();
    this.#byLocal = new Map();
    for (const sw of [...this.outputInterfaces.values()]) this.#delOutputInterface(sw);
    this.outputInterfaces = new VppPool<number>();
    this.rconfig = { ...ZERO_CONFIG };
    this.enabled = false;
    return last === 0 ? 0 : Rv.BUG;
  }

  // ------------------------------------------------------------------------------------------
  // FIB

  /** nat44_ei_add_del_addr_to_fib: not reference counted. */
  #addrToFib(addr: Buffer, swIfIndex: number, isAdd: boolean): void {
    const t = this.#vpp.ip.tableOf(swIfIndex, 4);
    const prefix = { af: 4 as const, addr, len: 32 };
    if (!isAdd) {
      this.#fib.sourceRemove(t, prefix, FibSource.NAT44_EI_LOW);
      return;
    }
    // update_one_path (CONNECTED|LOCAL|EXCLUSIVE, no next hop, the interface): a receive path
    // with the address as next hop, as nat44-ed's (see nat.ts)
    this.#fib.sourceAdd(t, prefix, FibSource.NAT44_EI_LOW, {
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
  }

  /** nat44_ei_add_del_addr_to_fib_foreach_out_if */
  #addrToFibForeachOutIf(addr: Buffer, isAdd: boolean): void {
    if (this.rconfig.out2inDpo) return;
    for (const sw of this.outputInterfaces.values()) this.#addrToFib(addr, sw, isAdd);
  }

  /** nat44_ei_add_del_addr_to_fib_foreach_addr_only_sm */
  #addrOnlyMappingsToFib(swIfIndex: number, isAdd: boolean): void {
    for (const m of this.mappings.values()) {
      if (isAddrOnly(m.flags) && !m.localAddr.equals(m.externalAddr)) {
        this.#addrToFib(m.externalAddr, swIfIndex, isAdd);
      }
    }
  }

  // ------------------------------------------------------------------------------------------
  // Output interfaces

  #addOutputInterface(swIfIndex: number): number {
    if (!this.enabled) return Rv.FEATURE_ALREADY_DISABLED;
    if ([...this.outputInterfaces.values()].includes(swIfIndex)) return Rv.VALUE_EXIST;
    this.outputInterfaces.add(() => swIfIndex);
    this.#addrOnlyMappingsToFib(swIfIndex, true);
    return 0;
  }

  #delOutputInterface(swIfIndex: number): number {
    if (!this.enabled) return Rv.FEATURE_ALREADY_DISABLED;
    const at = [...this.outputInterfaces.entries()].find(([, sw]) => sw === swIfIndex);
    if (!at) return Rv.NO_SUCH_ENTRY;
    this.outputInterfaces.remove(at[0]);
    this.#addrOnlyMappingsToFib(swIfIndex, false);
    return 0;
  }

  /** nat44_ei_sw_interface_add_del (is_add 0) */
  #interfaceDeleted(sw: SimInterface): void {
    if (!this.enabled) return;
    if ([...this.outputInterfaces.values()].includes(sw.swIfIndex)) this.#delOutputInterface(sw.swIfIndex);
  }

  // ------------------------------------------------------------------------------------------
  // Mappings

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
    if (!this.enabled) return Rv.FEATURE_ALREADY_DISABLED;
    if (isAddrOnly(flags)) ePort = lPort = proto = 0;
    if (isIdentity(flags)) {
      lPort = ePort;
      l = e;
    }
    const existing = this.#byExternal.get(key(e, ePort, 0, proto));
    if (existing !== undefined) {
      const m = this.mappings.get(existing) as EiMapping;
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
      vrfId = this.#insideVrfId;
      fibIndex = this.#insideFibIndex;
      const t = this.#fib.byIndex(4, fibIndex);
      if (t) this.#fib.lock(t, FibSource.NAT44_EI_LOW);
    }
    // both refusals below leave the lock just taken
    if (!isIdentity(flags) && this.#byLocal.has(key(l, lPort, fibIndex, proto))) return Rv.VALUE_EXIST;
    if (!(isAddrOnly(flags) || this.rconfig.staticMappingOnly)) {
      // nat44_ei_reserve_port: the external address is never in the (unmodelled) address pool
      if (isSwitch(flags) && !isIdentity(flags)) this.#delRecord(l, lPort, ePort, proto, vrfId, sw, flags);
      return Rv.NO_SUCH_ENTRY;
    }
    const locals = new VppPool<EiLocal>();
    if (isIdentity(flags)) locals.add(() => ({ vrfId, fibIndex }));
    const index = this.mappings.add(() => ({
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
    const m = this.mappings.get(index) as EiMapping;
    this.#byLocal.set(key(m.localAddr, m.localPort, fibIndex, m.proto), index);
    this.#byExternal.set(key(m.externalAddr, m.externalPort, 0, m.proto), index);
    if (isAddrOnly(flags)) this.#addrToFibForeachOutIf(e, true);
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
    if (!this.enabled) return Rv.FEATURE_ALREADY_DISABLED;
    if (isAddrOnly(flags)) ePort = lPort = proto = 0;
    if (isIdentity(flags)) {
      lPort = ePort;
      l = e;
    }
    const index = this.#byExternal.get(key(e, ePort, 0, proto));
    if (index === undefined) return isSwitch(flags) ? 0 : Rv.NO_SUCH_ENTRY;
    const m = this.mappings.get(index) as EiMapping;
    let fibIndex: number;
    if (isIdentity(flags)) {
      if (vrfId === NONE) vrfId = this.#insideVrfId;
      const at = [...m.locals.entries()].find(([, loc]) => loc.vrfId === vrfId);
      if (!at) return Rv.NO_SUCH_ENTRY;
      fibIndex = at[1].fibIndex;
      m.locals.remove(at[0]);
    } else {
      fibIndex = m.fibIndex;
    }
    // nat44_ei_free_port: nothing in the address pool to release
    if (!(isAddrOnly(flags) || this.rconfig.staticMappingOnly)) return Rv.INVALID_VALUE;
    this.#byLocal.delete(key(l, lPort, fibIndex, proto));
    const t = this.#fib.byIndex(4, fibIndex);
    if (t) this.#fib.unlock(t, FibSource.NAT44_EI_LOW);
    if (m.locals.size === 0) {
      this.#byExternal.delete(key(e, ePort, 0, proto));
      this.mappings.remove(index);
      if (isAddrOnly(flags) && !isIdentity(flags)) this.#addrToFibForeachOutIf(e, false);
    }
    return 0;
  }

  /** nat44_ei_ip4_add_del_addr_only_sm_cb */
  onIp4AddressChange(swIfIndex: number, addr: Buffer, isDel: boolean): void {
    if (!this.enabled) return;
    const rp = this.toResolve.find((r) => isAddrOnly(r.flags) && r.swIfIndex === swIfIndex);
    if (!rp) return;
    const exists = this.#byExternal.has(key(addr, 0, this.#outsideFibIndex, 0));
    if (isDel) {
      if (!exists) return;
      this.#delInternal(rp.lAddr, addr, rp.lPort, rp.ePort, rp.proto, rp.vrfId, rp.flags);
    } else {
      if (exists) return;
      this.#addInternal(rp.lAddr, addr, rp.lPort, rp.ePort, rp.proto, rp.vrfId, NONE, rp.flags, rp.tag);
    }
  }

  // ------------------------------------------------------------------------------------------
  // API

  register(d: Dispatcher): void {
    d.on(msg.nat44_ei_plugin_enable_disable, (m, call) => {
      call.reply({ retval: m.enable ? this.#enable(m) : this.#disable() });
    });

    d.on(msg.nat44_ei_show_running_config, (_m, call) => {
      const c = this.rconfig;
      call.reply({
        retval: 0,
        inside_vrf: c.insideVrf,
        outside_vrf: c.outsideVrf,
        users: c.users,
        sessions: c.sessions,
        user_sessions: c.userSessions,
        user_buckets: this.userBuckets,
        translation_buckets: this.translationBuckets,
        forwarding_enabled: false,
        ipfix_logging_enabled: true,
        timeouts: {
          udp: this.timeouts.udp,
          tcp_established: this.timeouts.tcpEstablished,
          tcp_transitory: this.timeouts.tcpTransitory,
          icmp: this.timeouts.icmp,
        },
        log_level: 0,
        flags:
          (c.staticMappingOnly ? API.STATIC_MAPPING_ONLY : 0) |
          (c.connectionTracking ? API.CONNECTION_TRACKING : 0) |
          (c.out2inDpo ? API.OUT2IN_DPO : 0),
      });
    });

    d.on(msg.nat44_ei_set_timeouts, (m, call) => {
      this.timeouts = {
        udp: m.udp >>> 0,
        tcpEstablished: m.tcp_established >>> 0,
        tcpTransitory: m.tcp_transitory >>> 0,
        icmp: m.icmp >>> 0,
      };
      call.reply({ retval: 0 });
    });

    d.on(msg.nat44_ei_add_del_output_interface, (m, call) => {
      if (!this.#vpp.interfaces.isValid(m.sw_if_index)) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      const sw = m.sw_if_index >>> 0;
      call.reply({ retval: m.is_add ? this.#addOutputInterface(sw) : this.#delOutputInterface(sw) });
    });

    d.on(msg.nat44_ei_output_interface_get, (m, call) =>
      replyAndDetails(call, this.outputInterfaces, m.cursor, this.#vpp.faults.cursorPageLimit, (sw) =>
        call.details(msg.nat44_ei_output_interface_details, { sw_if_index: sw }),
      ),
    );

    d.on(msg.nat44_ei_add_del_static_mapping, (m, call) => {
      const l = ip4Bytes(m.local_ip_address);
      let flags = 0;
      let lPort = 0;
      let ePort = 0;
      let proto = 0;
      if (m.flags & API.ADDR_ONLY_MAPPING) flags |= SmFlag.ADDR_ONLY;
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
      if (m.flags & API.ADDR_ONLY_MAPPING) flags |= SmFlag.ADDR_ONLY;
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
      for (const sm of this.mappings.values()) {
        if (isIdentity(sm.flags)) continue;
        const addrOnly = isAddrOnly(sm.flags);
        call.details(msg.nat44_ei_static_mapping_details, {
          flags: addrOnly ? API.ADDR_ONLY_MAPPING : 0,
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
          flags: addrOnly ? API.ADDR_ONLY_MAPPING : 0,
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
      for (const sm of this.mappings.values()) {
        if (!isIdentity(sm.flags)) continue;
        for (const loc of sm.locals.values()) {
          call.details(msg.nat44_ei_identity_mapping_details, {
            flags: isAddrOnly(sm.flags) ? API.ADDR_ONLY_MAPPING : 0,
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
          flags: isAddrOnly(rp.flags) ? API.ADDR_ONLY_MAPPING : 0,
          ip_address: '0.0.0.0',
          protocol: ipProto(rp.proto),
          port: rp.lPort,
          sw_if_index: rp.swIfIndex,
          vrf_id: rp.vrfId,
          tag: rp.tag,
        });
      }
    });

    // Users only come from translated sessions, which the simulator has none of.
    d.on(msg.nat44_ei_user_dump, () => undefined);

    d.on(msg.nat44_ei_del_user, (m, call) => {
      if (!this.enabled) throw new VppCrash(`nat44_ei_del_user ${m.ip_address}: user hash not initialised`);
      call.reply({ retval: 1 });
    });
  }
}
