/**
 * The ACL plugin's session table (src/plugins/acl/session_inlines.h, sess_mgmt_node.c in VPP
 * 26.06): what a `permit+reflect` rule leaves behind so that the rest of the flow, and its return
 * traffic, pass without an ACL lookup.
 *
 * - A session is added (acl_fa_add_session) under its packet's key, the 5-tuple as the node
 *   extracted it plus the direction (FA_SK_L4_FLAG_IS_INPUT) and the interface (the key holds
 *   the low 16 bits of sw_if_index; the node drops a hit whose session is on another interface,
 *   which needs 64K interfaces: the model keys on the whole index), and under the reverse key
 *   (reverse_session_add_del_ip4/6): addresses swapped, direction flipped, ports swapped. So the
 *   same flow keeps hitting it in the direction it was created in, and replies hit it in the
 *   other direction *of the same interface* (an output ACL node must be on for that to happen).
 * - ICMP (ICMPv4 in IPv4, ICMPv6 in IPv6) has type and code for ports. Only echo, timestamp,
 *   information and address-mask requests (ICMPv6: echo and node-information requests) get a
 *   reverse key, the reply type with the same code (icmp4/6_invmap, icmp4/6_valid_new); other
 *   types get only the forward key. GUESS: ICMPv4 type 18 and ICMPv6 type 140 make VPP read one
 *   past those tables (`type <= size`), undefined; the model gives them no reverse key.
 * - Tracking (acl_fa_track_session): TCP flags seen are ORed per direction of the node that saw
 *   them (tcp_flags_seen.as_u8[is_input]); the timeout type (fa_session_get_timeout_type) is TCP
 *   idle once both directions have seen SYN and ACK and neither FIN nor RST, else TCP transient;
 *   UDP idle for every other protocol. A change restarts the timer, counted by the node.
 * - Sessions go (ACL_FA_CLEANER_DELETE_BY_SW_IF_INDEX, every session of the interface, both
 *   directions) when acl_interface_set_inout_acl_list changes which ACLs an interface has in a
 *   direction (not their order; reclassify-sessions is off by default, so a replaced ACL's
 *   sessions stay), and when the interface is deleted.
 *   GUESS (equivalent for verdicts): VPP's cleaner skips a deleted interface's index, leaving its
 *   sessions to time out, but they are cleared as soon as a new interface with that index gets
 *   an ACL (a change from none), before any node could see them.
 *
 * Not modelled: idle timeouts (UDP 600 s, TCP transient 120 s, TCP established 24 h: the
 * simulator never expires a session), the 500000-session limit and TCP-transient recycling,
 * reclassify-sessions and policy epochs, non-first fragments.
 */
import type { Af } from './ip-addr.js';
import { ipText } from './ip-addr.js';

const TCP = 6;
/** TCP_FLAGS_RSTFINACKSYN and TCP_FLAGS_ACKSYN (fa_node.h) */
const RSTFINACKSYN = 0x17;
const ACKSYN = 0x12;

export type TimeoutType = 'tcp-transient' | 'tcp-idle' | 'udp-idle';

/** The 5-tuple the node extracted (fa_5tuple_t), without the interface. */
export interface FiveTuple {
  readonly af: Af;
  readonly src: Buffer;
  readonly dst: Buffer;
  readonly proto: number;
  /** TCP/UDP ports; ICMP type and code; 0 and 0 for other protocols. */
  readonly port: readonly [number, number];
  /** The packet is ICMP of its family (ports are type and code). */
  readonly icmp: boolean;
}

export interface AclSession {
  readonly swIfIndex: number;
  readonly af: Af;
  readonly proto: number;
  /** tcp_flags_seen.as_u8: [output, input] */
  readonly tcpFlagsSeen: [number, number];
  readonly keys: readonly string[];
}

/** icmp4_invmap / icmp6_invmap: request type → reply type, for the types that may start a session. */
const ICMP_REPLY: Readonly<Record<Af, ReadonlyMap<number, number>>> = {
  4: new Map([
    [8, 0],
    [13, 14],
    [15, 16],
    [17, 18],
  ]),
  6: new Map([
    [128, 129],
    [139, 140],
  ]),
};

function key(swIfIndex: number, isInput: boolean, t: FiveTuple): string {
  return `${t.af}|${swIfIndex}|${isInput ? 'in' : 'out'}|${ipText(t.src)}|${ipText(t.dst)}|${t.proto}|${t.port[0]}|${t.port[1]}`;
}

export function timeoutType(s: AclSession): TimeoutType {
  if (s.proto !== TCP) return 'udp-idle';
  const mask = (RSTFINACKSYN << 8) | RSTFINACKSYN;
  const seen = ((s.tcpFlagsSeen[1] << 8) | s.tcpFlagsSeen[0]) & mask;
  return seen === ((ACKSYN << 8) | ACKSYN) ? 'tcp-idle' : 'tcp-transient';
}

export class AclSessions {
  readonly #byKey = new Map<string, AclSession>();
  readonly #all = new Set<AclSession>();

  /** acl_fa_find_session: the session this packet's key hits, if any. */
  find(swIfIndex: number, isInput: boolean, t: FiveTuple): AclSession | undefined {
    return this.#byKey.get(key(swIfIndex, isInput, t));
  }

  /** acl_fa_add_session: forward key, and the reverse key where there is one. */
  add(swIfIndex: number, isInput: boolean, t: FiveTuple): AclSession {
    const keys = [key(swIfIndex, isInput, t)];
    let reverse: FiveTuple | undefined;
    if (!t.icmp) {
      reverse = { ...t, src: t.dst, dst: t.src, port: [t.port[1], t.port[0]] };
    } else {
      const reply = ICMP_REPLY[t.af].get(t.port[0]);
      if (reply !== undefined) reverse = { ...t, src: t.dst, dst: t.src, port: [reply, t.port[1]] };
    }
    if (reverse) keys.push(key(swIfIndex, !isInput, reverse));
    const s: AclSession = { swIfIndex, af: t.af, proto: t.proto, tcpFlagsSeen: [0, 0], keys };
    // clib_bihash_add_del overwrites an existing key's value
    for (const k of keys) this.#byKey.set(k, s);
    this.#all.add(s);
    return s;
  }

  /**
   * acl_fa_track_session on a hit (process_established_session): ORs the packet's TCP flags into
   * the direction's seen flags. True when that changed the timeout type (the timer restarts).
   */
  track(s: AclSession, isInput: boolean, tcpFlags: number | undefined): boolean {
    const before = timeoutType(s);
    if (tcpFlags !== undefined) s.tcpFlagsSeen[isInput ? 1 : 0] |= tcpFlags;
    return timeoutType(s) !== before;
  }

  /** ACL_FA_CLEANER_DELETE_BY_SW_IF_INDEX */
  clearInterface(swIfIndex: number): void {
    for (const s of this.#all) {
      if (s.swIfIndex !== swIfIndex) continue;
      this.#all.delete(s);
      // clib_bihash_add_del (..., 0) removes the key whatever session it names
      for (const k of s.keys) this.#byKey.delete(k);
    }
  }

  get size(): number {
    return this.#all.size;
  }
}
