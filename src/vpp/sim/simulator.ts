/**
 * VppSimulator: a Unix-socket server that speaks VPP 26.06's binary API like a real VPP, keeps the
 * state vppnet programs and answers with VPP's own retvals. Tests, benchmarks and demos start one
 * instead of a VPP; fault injection reproduces what a real VPP does to its clients (crash,
 * restart with other message ids, a plugin missing, a stuck main thread).
 */
import { ApiServer, type Registration, type SimConnection } from './api-server.js';
import { Dispatcher, VppCrash } from './dispatcher.js';
import { realHost, type HostOps } from './host.js';
import { ip4Bytes, ip6Bytes, macBytes } from './ip-addr.js';
import { MessageTable } from './message-table.js';
import { snapshot, type SimState } from './state.js';
import type { AclVerdict } from './acl-dataplane.js';
import type { ArpTermVerdict } from './arp-term.js';
import { ethFrame, type MacipVerdict } from './macip-dataplane.js';
import { PolicerClassifyType, type PolicerClassifyVerdict } from './policer-classify.js';
import type { UrpfVerdict } from './urpf.js';
import { Vpp, type FaultSettings, type InitialInterface, type VppProcessOptions } from './vpp.js';
import { existsSync } from 'node:fs';
import { decodeMessage } from '../codec/message-codec.js';

export type { InitialInterface } from './vpp.js';
export type { HostOps, TapSpec } from './host.js';
export { permissiveHost, realHost } from './host.js';

export interface VppSimulatorOptions {
  socketPath: string;
  /**
   * name_crc → message id, e.g. the table from a transcript's connect reply; default:
   * deterministic ids for every generated definition (memclnt ids fixed: sockclnt_create 15/16,
   * sockclnt_delete 17/18, memclnt_keepalive 21/22, control_ping 23/24, get_api_json 27/28).
   * Messages in the table the simulator has no handler for are published but never answered.
   */
  messageTable?: ReadonlyMap<string, number>;
  /** Interfaces present at start besides local0 (e.g. the underlay NIC), as VPP would have them. */
  initialInterfaces?: readonly InitialInterface[];
  /** Whether tap_create_v3 can work (VPP needs /dev/vhost-net); default existsSync('/dev/vhost-net'). */
  vhostNet?: boolean;
  /** Whether af_packet_create_v3 checks that the host interface really exists (/sys/class/net); default true. */
  checkHostInterfaces?: boolean;
  /** vpe_pid in control_ping_reply; default this process's pid. Each restart adds 1. */
  pid?: number;
  /** show_version_reply.version; default "26.06-release". */
  version?: string;
  /** show_version_reply.build_date (and `show version`); default "2026-06-24T00:00:00". */
  buildDate?: string;
  /** show_version_reply.build_directory; default "/vppnet-sim". */
  buildDirectory?: string;
  /** What the simulator does to the host (af_packet checks, kernel taps); default: the real host. */
  host?: HostOps;
}

/** What failRequest does to a request. */
export type RequestFault = { readonly retval: number } | 'lose-reply';

export class VppSimulator {
  readonly socketPath: string;
  readonly #opts: VppSimulatorOptions;
  readonly #host: HostOps;
  readonly #table: MessageTable;
  readonly #dispatcher: Dispatcher;
  readonly #faults: FaultSettings = { cursorPageLimit: 0 };
  readonly #counts = {
    handled: new Map<string, number>(),
    unknown: new Map<string, number>(),
    unhandled: new Map<string, number>(),
    truncated: new Map<string, number>(),
  };
  #server: ApiServer;
  #vpp: Vpp;
  #restarts = 0;
  #crashes: string[] = [];
  #reshuffleSeed = 1;
  #stalled = false;
  #closed = false;
  /** Requests to fail by message name (failRequest), in the order they were asked for. */
  #requestFaults: { name: string; skip: number; fault: RequestFault }[] = [];
  /** Tests waiting for clients to be gone (whenClientsAtMost). */
  #clientWaiters: { readonly count: number; readonly resolve: () => void }[] = [];

  private constructor(opts: VppSimulatorOptions) {
    this.socketPath = opts.socketPath;
    this.#opts = opts;
    this.#host = opts.host ?? realHost;
    this.#table = new MessageTable(opts.messageTable);
    this.#dispatcher = new Dispatcher(this.#table, {
      registrationFor: (ci) => this.#server.registrationFor(ci),
      count: (kind, name) => {
        const m = this.#counts[kind];
        m.set(name, (m.get(name) ?? 0) + 1);
      },
    });
    this.#server = this.#newServer();
    this.#vpp = this.#newProcess();
  }

  static async start(opts: VppSimulatorOptions): Promise<VppSimulator> {
    const sim = new VppSimulator(opts);
    await sim.#server.listen();
    return sim;
  }

  #processOptions(): VppProcessOptions {
    const o = this.#opts;
    return {
      pid: (o.pid ?? process.pid) + this.#restarts,
      version: o.version ?? '26.06-release',
      buildDate: o.buildDate ?? '2026-06-24T00:00:00',
      buildDirectory: o.buildDirectory ?? '/vppnet-sim',
      buildUser: 'vppnet',
      buildHost: 'sim',
      vhostNet: o.vhostNet ?? existsSync('/dev/vhost-net'),
      checkHostInterfaces: o.checkHostInterfaces ?? true,
    };
  }

  #newProcess(): Vpp {
    this.#dispatcher.clearHandlers();
    const vpp = new Vpp({
      options: this.#processOptions(),
      host: this.#host,
      dispatcher: this.#dispatcher,
      server: {
        registrationAt: (index) => this.#server.registrations().find((r) => r.index === index),
        freeRegistration: (index) => this.#server.freeRegistration(index),
      },
      faults: this.#faults,
      registrationFor: (ci) => this.#server.registrationFor(ci),
      initialInterfaces: this.#opts.initialInterfaces ?? [],
    });
    vpp.register(this.#dispatcher);
    return vpp;
  }

  #newServer(): ApiServer {
    return new ApiServer(this.socketPath, {
      onMessage: (conn, payload) => this.#onMessage(conn, payload),
      afterBatch: () => this.#server.flushAll(),
      onRegistrationGone: (reg) => this.#reap(reg),
    });
  }

  #onMessage(conn: SimConnection, payload: Buffer): void {
    const fault = this.#requestFaults.length > 0 ? this.#faultFor(payload) : undefined;
    if (fault && fault !== 'lose-reply') {
      this.#refuse(conn, payload, fault.retval);
      return;
    }
    try {
      this.#dispatcher.dispatch(conn, payload);
      // link_state_process runs after the handler: its events follow the reply (transcripts
      // 26.06/31, 33, 37). GUESS: with pipelined requests VPP may run the process only after
      // several handlers, merging their events; the simulator runs it after every request.
      this.#vpp.interfaces.flushEvents();
    } catch (err) {
      if (err instanceof VppCrash) this.#crash(err.message);
      else throw err;
    }
    // Done, and the reply queued but not written: the connections die with it.
    if (fault === 'lose-reply') this.#server.dropAll();
  }

  /** The fault armed for this request, if any (used up by it). */
  #faultFor(payload: Buffer): RequestFault | undefined {
    if (payload.length < 2) return undefined;
    const name = this.#table.byId(payload.readUInt16BE(0))?.name;
    const i = this.#requestFaults.findIndex((f) => f.name === name);
    const armed = this.#requestFaults[i];
    if (!armed) return undefined;
    if (armed.skip > 0) {
      armed.skip--;
      return undefined;
    }
    this.#requestFaults.splice(i, 1);
    return armed.fault;
  }

  /** Answers a request with `retval` alone and does nothing, as a handler refusing it. */
  #refuse(conn: SimConnection, payload: Buffer, retval: number): void {
    const def = this.#table.byId(payload.readUInt16BE(0))?.def;
    if (!def?.reply || !conn.registration) return;
    let context = 0;
    try {
      const m = decodeMessage(def, payload) as { context?: unknown };
      if (typeof m.context === 'number') context = m.context;
    } catch {
      return; // truncated: VPP drops it unanswered
    }
    const frame = this.#dispatcher.encode(def.reply, { retval }, { context });
    if (frame) conn.push(frame);
  }

  /** Registration reapers: subscriptions die with their client. */
  #reap(reg: Registration): void {
    this.#vpp.interfaces.reap(reg.handle);
    const left = this.#server.registrations().length;
    const waiters = this.#clientWaiters;
    this.#clientWaiters = waiters.filter((w) => w.count < left);
    for (const w of waiters) if (w.count >= left) w.resolve();
  }

  /**
   * What VPP does where the simulator's model says it would dereference an invalid index: the
   * process dies (clients see their sockets close) and comes back with empty state.
   * GUESS: that a release VPP dies there (pool_elt_at_index (pool, ~0) is unchecked in release
   * builds and points far outside the pool); the process manager restarting it is assumed.
   */
  #crash(reason: string): void {
    this.#crashes.push(reason);
    this.#server.dropAll();
    this.#vpp.devices.releaseHost();
    this.#restarts++;
    this.#vpp = this.#newProcess();
  }

  /**
   * Resolves once at most `count` clients are registered: the simulator has seen the others'
   * sockets close and freed their registrations (what a test waits for instead of sleeping).
   */
  whenClientsAtMost(count: number): Promise<void> {
    if (this.#server.registrations().length <= count) return Promise.resolve();
    return new Promise((resolve) => this.#clientWaiters.push({ count, resolve }));
  }

  /** Stops listening, closes every client, removes the socket file. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#server.close();
    this.#vpp.devices.releaseHost();
  }

  // ------------------------------------------------------------------------------------------
  // Fault injection

  /** Like a crash: every client socket is destroyed without a goodbye. State is kept. */
  dropConnections(): void {
    this.#server.dropAll();
  }

  /** Keeps reading but answers nothing until turned off; then handles the backlog in order. */
  stallReplies(on: boolean): void {
    this.#stalled = on;
    this.#server.setStalled(on);
  }

  /**
   * Resolves once `count` requests are held by stallReplies: received, and not answered. Lets a
   * test prove "no reply while stalled" from the simulator's side instead of listening for a while.
   */
  whenHeld(count: number): Promise<void> {
    return this.#server.whenHeld(count);
  }

  /** Messages handled since this VPP process started (restart() starts a new count). */
  get handled(): number {
    return this.#server.handled;
  }

  /** Resolves once `count` messages are handled and their answers written to the sockets. */
  whenHandled(count: number): Promise<void> {
    return this.#server.whenHandled(count);
  }

  /** Bytes written to the clients connected now. */
  get bytesWritten(): number {
    return this.#server.bytesWritten;
  }

  /**
   * A VPP restart: connections dropped, the socket file gone for `downtimeMs`, all state lost
   * (persistent kernel taps stay), a new pid, and with `reshuffleIds` other message ids.
   */
  async restart(opts: { reshuffleIds?: boolean; downtimeMs?: number } = {}): Promise<void> {
    await this.#server.close();
    this.#vpp.devices.releaseHost();
    if (opts.reshuffleIds) this.#table.reshuffle(this.#reshuffleSeed++);
    this.#restarts++;
    if (opts.downtimeMs) await new Promise((r) => setTimeout(r, opts.downtimeMs));
    if (this.#closed) return;
    this.#server = this.#newServer();
    this.#vpp = this.#newProcess();
    await this.#server.listen();
    if (this.#stalled) this.#server.setStalled(true);
  }

  /**
   * The next request named `name`, after `skip` of them, meets `fault`: `{ retval }` answers it
   * with that retval alone and changes nothing (VPP refusing it); 'lose-reply' carries it out and
   * then drops every connection before the reply is written (a crash between the two). Each call
   * arms one request; several calls for one name fire in the order they were made.
   */
  failRequest(name: string, fault: RequestFault, opts: { skip?: number } = {}): void {
    this.#requestFaults.push({ name, skip: opts.skip ?? 0, fault });
  }

  /** As if the plugin providing `name` were not loaded: gone from the table from now on. */
  removeMessage(name: string): void {
    this.#table.remove(name);
  }

  /** Publishes `name` with another CRC (from the next handshake on); its id keeps working. */
  changeCrc(name: string, crc: string): void {
    this.#table.changeCrc(name, crc);
  }

  /**
   * A dataplane event the API cannot cause: a neighbour answering ARP/ND on `swIfIndex`. VPP then
   * installs an adjacency host route (source "adjacency"), which takes a load-balance index and
   * shows in route dumps. The design transcript's memif peer did this between steps 02 and 03.
   * A learned entry is dynamic: the one kind a full neighbour table with recycle on evicts. Returns
   * ip_neighbor_add's rv (LIMIT_EXCEEDED when the table is full and recycles nothing).
   */
  learnNeighbor(swIfIndex: number, address: string, mac = '02:00:00:00:00:01'): number {
    const addr = address.includes(':') ? ipv6(address) : ipv4(address);
    return this.#vpp.ipNeighbor.learn(addr, macBytes(mac), swIfIndex);
  }

  /**
   * A dataplane event the API cannot cause: the carrier of `swIfIndex` going up or down (a cable,
   * a memif peer). VPP then signals LINK_UP/LINK_DOWN to event subscribers.
   */
  setLinkState(swIfIndex: number, up: boolean): void {
    const sw = this.#vpp.interfaces.get(swIfIndex);
    if (!sw) throw new Error(`the simulated VPP has no interface ${swIfIndex}`);
    this.#vpp.interfaces.setLink(sw, up);
    this.#vpp.interfaces.flushEvents();
    this.#server.flushAll();
  }

  /**
   * What VPP's uRPF node would do with one packet (see Urpf.verdict in urpf.ts for what is and
   * is not modelled): 'no-check' when no uRPF check is enabled on the interface for that family
   * and direction, else 'pass' or 'drop'. The source is looked up in the configured table (the
   * interface's, or urpf_update_v2's table_id; urpf_update v1 always uses table 0). Throws where
   * VPP's behaviour is undefined (a freed custom table, an SR BSID as the source).
   */
  urpfVerdict(p: {
    swIfIndex: number;
    af: 4 | 6;
    src: string;
    dst: string;
    /** Default true: the RX check on the receiving interface; false: TX on the sending one. */
    isInput?: boolean;
    /** TX only: a packet VPP itself originated. */
    locallyOriginated?: boolean;
  }): UrpfVerdict {
    const bytes = (text: string): Buffer => {
      if (text.includes(':') !== (p.af === 6)) throw new Error(`${text} is not an IPv${p.af} address`);
      return p.af === 6 ? ip6Bytes(text) : ip4Bytes(text);
    };
    return this.#vpp.urpf.verdict({
      swIfIndex: p.swIfIndex,
      af: p.af,
      src: bytes(p.src),
      dst: bytes(p.dst),
      ...(p.isInput !== undefined ? { isInput: p.isInput } : {}),
      ...(p.locallyOriginated !== undefined ? { locallyOriginated: p.locallyOriginated } : {}),
    });
  }

  /**
   * What the ACL plugin's node on `swIfIndex` would do with one packet (see acl-dataplane.ts for
   * what is and is not modelled): 'no-acl' when the interface has no ACL in that direction, else
   * 'permit' (a permit or permit+reflect rule, or a session a permit+reflect rule left) or 'deny'
   * (a deny rule, or no rule matching: the implicit deny). Counts on the node as VPP does
   * (`show errors`): "checked packets" always, then "ACL deny packets", "ACL permit packets",
   * "new sessions added" or "existing session packets". The node is acl-plugin-in/out-ip4/ip6-fa
   * on an L3 interface, -l2 on a bridge port.
   */
  aclVerdict(p: {
    swIfIndex: number;
    af: 4 | 6;
    src: string;
    dst: string;
    /** The IP protocol; default 0 (matches only rules with proto 0, "any"). */
    proto?: number;
    /** TCP/UDP ports, ICMP type (srcPort) and code (dstPort); default 0. */
    srcPort?: number;
    dstPort?: number;
    /** TCP only: the flags byte, for rules with tcp_flags_mask; default 0. */
    tcpFlags?: number;
    /** Default true: the input ACLs of the receiving interface; false: output ACLs of the sending one. */
    isInput?: boolean;
  }): AclVerdict {
    const bytes = (text: string): Buffer => {
      if (text.includes(':') !== (p.af === 6)) throw new Error(`${text} is not an IPv${p.af} address`);
      return p.af === 6 ? ip6Bytes(text) : ip4Bytes(text);
    };
    return this.#vpp.aclDataplane.verdict({ ...p, src: bytes(p.src), dst: bytes(p.dst) });
  }

  /**
   * What l2-input-acl would do with one frame arriving on the bridge port `swIfIndex` because of
   * its MACIP ACL (see macip-dataplane.ts for the classifier model): 'no-macip' when there is no
   * check (no MACIP ACL, one without rules, or the port lost the l2-input-acl feature by going
   * through L3 mode), else 'permit' or 'deny' — a frame no rule matches, of any other ethertype
   * included, is denied. Counts on l2-input-acl as VPP does ("input ACL hits", "input ACL hits
   * after chain walk", "input ACL misses", "input ACL session deny drops", "input ACL table-miss
   * drops"). Throws for an interface with a MACIP ACL that is not a bridge port (L3, BVI), and
   * where a rule looks at bytes not given (a prefix length longer than the address).
   */
  macipVerdict(p: {
    swIfIndex: number;
    /** After any VLAN tags: 0x0800, 0x86dd, 0x0806, or any other. */
    ethertype: number;
    srcMac: string;
    /** IPv4/IPv6 frames: the source address (and, optionally, the destination). */
    srcIp?: string;
    dstIp?: string;
    /** ARP frames: the sender's MAC and IPv4 (and, optionally, the target's). */
    arp?: { senderMac: string; senderIp: string; targetMac?: string; targetIp?: string; opcode?: number };
    /** TPIDs of VLAN tags before the ethertype, outer first (0x8100, 0x88a8...); default none. */
    vlanTpids?: number[];
  }): MacipVerdict {
    const ipOf = (text: string, v6: boolean): Buffer => {
      if (text.includes(':') !== v6) throw new Error(`${text} is not an IPv${v6 ? 6 : 4} address`);
      return v6 ? ip6Bytes(text) : ip4Bytes(text);
    };
    const isIp = p.ethertype === 0x0800 || p.ethertype === 0x86dd;
    if (isIp && p.srcIp === undefined) throw new Error('MACIP verdict: an IP frame needs srcIp');
    if (p.ethertype === 0x0806 && !p.arp) throw new Error('MACIP verdict: an ARP frame needs arp');
    const v6 = p.ethertype === 0x86dd;
    const frame = ethFrame({
      srcMac: macBytes(p.srcMac),
      ethertype: p.ethertype,
      ...(p.vlanTpids ? { vlanTpids: p.vlanTpids } : {}),
      ...(isIp && p.srcIp !== undefined
        ? { ip: { src: ipOf(p.srcIp, v6), dst: p.dstIp === undefined ? undefined : ipOf(p.dstIp, v6) } }
        : {}),
      ...(p.ethertype === 0x0806 && p.arp
        ? {
            arp: {
              senderMac: macBytes(p.arp.senderMac),
              senderIp: ipOf(p.arp.senderIp, false),
              targetMac: p.arp.targetMac === undefined ? undefined : macBytes(p.arp.targetMac),
              targetIp: p.arp.targetIp === undefined ? undefined : ipOf(p.arp.targetIp, false),
              ...(p.arp.opcode !== undefined ? { opcode: p.arp.opcode } : {}),
            },
          }
        : {}),
    });
    return this.#vpp.macipDataplane.verdict(p.swIfIndex, frame);
  }

  /**
   * Which policer ip4-policer-classify (IPv4 addresses) or ip6-policer-classify (IPv6 addresses)
   * would hand one packet arriving on `swIfIndex` to, or with `l2Input` l2-policer-classify, the
   * frame entering l2-input from `swIfIndex` (a bridge port, or a BVI sending into its bridge; see
   * policer-classify.ts): the policer index the first matching session names (its
   * hit_next_index, whether or not such a policer exists), 'no-match' when no table of the chain
   * has a session for it, 'no-classify' when the interface has no policer-classify table of that
   * type (or inherited a binding without the feature, or for L2 is in no bridge). The node is
   * judged, not the arc before it: on a nat66 inside interface ip6-policer-classify is never
   * reached (policer-classify.ts). The
   * classifier reads from the start of the buffer: `l2HeaderBytes` (default 14, an untagged
   * Ethernet frame; 18 or 22 with VLAN tags) before the IP header. Known bytes: the ethertype (and
   * TPIDs), the MACs if given, the addresses, the L4 ports if given (right after the IP header: no
   * options, no extension headers), and for IPv4 version/IHL, TOS, TTL and protocol, for IPv6 the
   * first word (version, `tos` as the traffic class, `flowLabel`), next header (`proto`) and hop
   * limit (`ttl`); a table whose mask covers any other byte (lengths, IPv4 id, fragment and
   * checksum, payload) throws. Throws for a chain reaching a deleted table.
   */
  policerClassifyVerdict(p: {
    swIfIndex: number;
    src: string;
    dst: string;
    /** Default 17 (UDP). */
    proto?: number;
    srcPort?: number;
    dstPort?: number;
    tos?: number;
    /** IPv6 only; default 0. */
    flowLabel?: number;
    /** Default 64. */
    ttl?: number;
    srcMac?: string;
    dstMac?: string;
    /** Default 14. */
    l2HeaderBytes?: 14 | 18 | 22;
    /** l2-policer-classify on the frame entering l2-input from `swIfIndex`. */
    l2Input?: boolean;
  }): PolicerClassifyVerdict {
    const v6 = p.dst.includes(':');
    if (p.src.includes(':') !== v6) throw new Error('policerClassifyVerdict: src and dst of one family');
    const size = 512;
    const data = Buffer.alloc(size);
    const known = new Uint8Array(size);
    const put = (at: number, bytes: Uint8Array): void => {
      data.set(bytes, at);
      known.fill(1, at, at + bytes.length);
    };
    const u16 = (v: number): Buffer => {
      const b = Buffer.alloc(2);
      b.writeUInt16BE(v & 0xffff, 0);
      return b;
    };
    const l2 = p.l2HeaderBytes ?? 14;
    if (p.dstMac !== undefined) put(0, macBytes(p.dstMac));
    if (p.srcMac !== undefined) put(6, macBytes(p.srcMac));
    if (l2 === 22) put(12, u16(0x88a8));
    if (l2 >= 18) put(l2 - 6, u16(0x8100));
    put(l2 - 2, u16(v6 ? 0x86dd : 0x0800));
    let l4: number;
    if (v6) {
      const word = Buffer.alloc(4);
      word.writeUInt32BE(((6 << 28) | ((p.tos ?? 0) << 20) | ((p.flowLabel ?? 0) & 0xfffff)) >>> 0, 0);
      put(l2, word);
      put(l2 + 6, Buffer.from([p.proto ?? 17, p.ttl ?? 64]));
      put(l2 + 8, ip6Bytes(p.src));
      put(l2 + 24, ip6Bytes(p.dst));
      l4 = l2 + 40;
    } else {
      put(l2, Buffer.from([0x45, p.tos ?? 0]));
      put(l2 + 8, Buffer.from([p.ttl ?? 64, p.proto ?? 17]));
      put(l2 + 12, ip4Bytes(p.src));
      put(l2 + 16, ip4Bytes(p.dst));
      l4 = l2 + 20;
    }
    if (p.srcPort !== undefined) put(l4, u16(p.srcPort));
    if (p.dstPort !== undefined) put(l4 + 2, u16(p.dstPort));
    return this.#vpp.policerClassify.verdict(
      p.l2Input ? PolicerClassifyType.L2 : v6 ? PolicerClassifyType.IP6 : PolicerClassifyType.IP4,
      p.swIfIndex,
      data,
      known,
    );
  }

  /**
   * What a bridge domain's ARP termination (arp-term-l2bd, see arp-term.ts) would do with one ARP
   * frame arriving on the bridge port `swIfIndex`: 'reply' with the MAC VPP answers with (the
   * target IP is in the bridge domain's bd_ip_mac table), 'pass' (forwarded/flooded as usual: not
   * in the table, a gratuitous ARP, a port with a split-horizon group, another opcode), 'drop'
   * with the node and the error counted, or 'no-arp-term' (the bridge domain has arp_term off).
   * A MACIP ACL on the port is applied first (l2-input-acl). Counts as VPP does.
   */
  arpTermVerdict(p: {
    swIfIndex: number;
    senderMac: string;
    senderIp: string;
    targetIp: string;
    /** The Ethernet source; default senderMac. */
    srcMac?: string;
    /** Default 00:00:00:00:00:00. */
    targetMac?: string;
    /** Default 1 (request). */
    opcode?: number;
    /** Default 1 (Ethernet). */
    hwType?: number;
    /** Default 0x0800 (IPv4). */
    protoType?: number;
  }): ArpTermVerdict {
    const v4 = (text: string): Buffer => {
      if (text.includes(':')) throw new Error(`${text} is not an IPv4 address`);
      return ip4Bytes(text);
    };
    return this.#vpp.arpTerm.verdict({
      swIfIndex: p.swIfIndex,
      srcMac: macBytes(p.srcMac ?? p.senderMac),
      opcode: p.opcode ?? 1,
      hwType: p.hwType ?? 1,
      protoType: p.protoType ?? 0x0800,
      senderMac: macBytes(p.senderMac),
      senderIp: v4(p.senderIp),
      targetMac: macBytes(p.targetMac ?? '00:00:00:00:00:00'),
      targetIp: v4(p.targetIp),
    });
  }

  /** Makes cursor `_get` services answer EAGAIN after `n` details (0: never, the default). */
  setCursorPageLimit(n: number): void {
    this.#faults.cursorPageLimit = n;
  }

  /** The table the next handshake publishes: name_crc → id. */
  messageTable(): Map<string, number> {
    return this.#table.toMap();
  }

  /** Read-only snapshots of the simulated VPP's state. */
  get state(): SimState {
    return snapshot(this.#vpp, {
      clients: this.#server.registrations().map((r) => ({ index: r.index, handle: r.handle, name: r.name })),
      counts: this.#counts,
      restarts: this.#restarts,
      crashes: this.#crashes,
      stalled: this.#server.stalled,
    });
  }
}

function ipv4(text: string): Buffer {
  return Buffer.from(text.split('.').map(Number));
}

function ipv6(text: string): Buffer {
  const b = Buffer.alloc(16);
  const [head, tail] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const words = [...h, ...new Array<string>(8 - h.length - t.length).fill('0'), ...t];
  words.forEach((w, i) => b.writeUInt16BE(parseInt(w, 16), 2 * i));
  return b;
}
