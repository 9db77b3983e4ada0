/**
 * NAT44-EI (endpoint-independent NAT): plugin enable/disable, running config and timeouts,
 * output-feature interfaces and their FIB /32s, and users (src/plugins/nat/nat44-ei/nat44_ei.c,
 * nat44_ei_api.c in VPP 26.06); the static and identity mappings with their resolution records
 * are nat44-ei-mappings.ts. API
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
 *   fib.ts): identity mappings can create table ~0 (nat44-ei-mappings.ts).
 *
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
import { DpoProto, PathCfg, PathType } from './fib-path.js';
import { FibSource } from './fib-sources.js';
import { calcBihashBuckets } from './nat.js';
import { Nat44EiMappings, SmFlag } from './nat44-ei-mappings.js';
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
} as const;

const DEFAULT_TIMEOUTS = { udp: 300, tcpEstablished: 7440, tcpTransitory: 240, icmp: 60 } as const;

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

export class Nat44Ei {
  readonly #vpp: Vpp;
  enabled = false;
  /** nm->rconfig */
  rconfig: Nat44EiConfig = { ...ZERO_CONFIG };
  userBuckets = 0;
  translationBuckets = 0;
  timeouts = { udp: 0, tcpEstablished: 0, tcpTransitory: 0, icmp: 0 };
  /** The enable's inside VRF and the fib indices it found: the mappings read them. */
  insideVrfId = 0;
  insideFibIndex = 0;
  outsideFibIndex = 0;
  outputInterfaces = new VppPool<number>();
  readonly mappings: Nat44EiMappings;

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
    this.mappings = new Nat44EiMappings(vpp, this);
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
    this.insideVrfId = c.insideVrf;
    this.insideFibIndex = this.#fib.findOrCreateAndLock(4, c.insideVrf, FibSource.NAT44_EI_HI).index;
    this.outsideFibIndex = this.#fib.findOrCreateAndLock(4, c.outsideVrf, FibSource.NAT44_EI_HI).index;
    this.timeouts = { ...DEFAULT_TIMEOUTS };
    this.enabled = true;
    return 0;
  }

  /** nat44_ei_plugin_disable: the tables the enable locked stay locked. */
  #disable(): number {
    if (!this.enabled) return Rv.FEATURE_ALREADY_DISABLED;
    // nat44_ei_del_static_mappings: any error makes the disable answer VNET_API_ERROR_BUG
    const last = this.mappings.deleteAll();
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
  addrToFibForeachOutIf(addr: Buffer, isAdd: boolean): void {
    if (this.rconfig.out2inDpo) return;
    for (const sw of this.outputInterfaces.values()) this.#addrToFib(addr, sw, isAdd);
  }

  /** nat44_ei_add_del_addr_to_fib_foreach_addr_only_sm */
  #addrOnlyMappingsToFib(swIfIndex: number, isAdd: boolean): void {
    for (const m of this.mappings.pool.values()) {
      if ((m.flags & SmFlag.ADDR_ONLY) !== 0 && !m.localAddr.equals(m.externalAddr)) {
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

    this.mappings.register(d);

    // Users only come from translated sessions, which the simulator has none of.
    d.on(msg.nat44_ei_user_dump, () => undefined);

    d.on(msg.nat44_ei_del_user, (m, call) => {
      if (!this.enabled) throw new VppCrash(`nat44_ei_del_user ${m.ip_address}: user hash not initialised`);
      call.reply({ retval: 1 });
    });
  }
}
