/**
 * A model of the ACL plugin's interface nodes (src/plugins/acl/dataplane_node.c,
 * public_inlines.h, session_inlines.h in VPP 26.06) for one packet, for tests that cannot send
 * packets: the verdict and the error counters the node increments.
 *
 * Which node: acl_interface_set_acl_list enables, for a direction with at least one ACL, both
 * the L3 nodes (acl-plugin-{in,out}-ip{4,6}-fa on ip4/ip6-unicast and ip4/ip6-output) and the L2
 * ones (acl-plugin-{in,out}-ip{4,6}-l2 on l2-input/l2-output); the packet meets the L3 node on an
 * L3 interface and the L2 node on a bridge port (not the BVI, which is an L3 interface). An empty
 * list disables them: no node, no counters ('no-acl').
 *
 * What the node does (acl_fa_inner_node_fn; the session hash is initialised as soon as any
 * interface has an ACL, so the stateful path is always taken):
 * 1. the session lookup (see acl-sessions.ts): a hit passes the packet without an ACL lookup
 *    ("existing session packets"; "restart session timer" when tracking changed the session's
 *    timeout type);
 * 2. else the ACL lookup: the interface's ACLs for that direction in order, each ACL's rules in
 *    order, the first rule that matches decides (use_hash_acl_matching is on by default; the hash
 *    lookup returns the lowest applied-entry index that matches, the same rule as the linear
 *    single_acl_match_5tuple); nothing matches: action 0, deny. A rule matches when its family
 *    is the packet's (a rule of the other family never matches), the packet's destination and
 *    source, masked to the rule's lengths, equal the rule's addresses (length 0 matches all),
 *    and, when the rule's proto is not 0: the proto is the packet's, the source and destination
 *    ports (ICMP type and code) are in the rule's ranges, and for TCP the packet's flags masked
 *    by tcp_flags_mask equal tcp_flags_value. A proto-0 rule ignores ports and flags.
 * 3. action 0 drops the packet with "ACL deny packets" (counted by the drop node); 1 passes it
 *    and counts "ACL permit packets"; 2 (permit+reflect) adds a session, counts "new sessions
 *    added" and passes it. Every packet counts "checked packets".
 *    Actions above 2 (acl_add_replace does not check is_permit): the packet passes with nothing
 *    but "checked packets" (b->error names another counter but is only counted on a drop).
 *
 * The packet's 5-tuple as acl_fill_5tuple_l4_and_pkt_data reads it: ports for TCP and UDP, type
 * and code for ICMP of the packet's family (1 in IPv4, 58 in IPv6), nothing (0, 0) for any other
 * protocol; TCP flags only for TCP. Not modelled: IPv6 extension headers (`proto` is the upper-
 * layer protocol the plugin finds after them), fragments, packets too short for their L4 header,
 * the session limit (see acl-sessions.ts), per-ACE counters (acl_stats_intf_counters_enable), and
 * whether VPP would deliver the packet to the node at all (interface up, IP enabled, other
 * features before it on the arc).
 *
 * Seen on a v26.06 build fed by the packet generator: the deny / permit / implicit-deny counters;
 * permit+reflect counting "new sessions added" (no "ACL permit packets") and the reply on the
 * output node "existing session packets"; the interface's sessions cleared when its ACL set
 * changed; a GRE packet missing a proto-47 rule whose port range leaves out 0.
 */
import type { AclRule } from './acl.js';
import { AclSessions, type FiveTuple } from './acl-sessions.js';
import { ACL_FA_ERROR } from './error-counters.js';
import { masked, type Af } from './ip-addr.js';
import type { Vpp } from './vpp.js';

export type AclVerdict = 'permit' | 'deny' | 'no-acl';

export interface AclPacket {
  /** Input: the interface it arrived on; output: the one it leaves by. */
  readonly swIfIndex: number;
  readonly af: Af;
  /** 4 or 16 bytes, network order. */
  readonly src: Buffer;
  readonly dst: Buffer;
  /** The IP protocol (after any IPv6 extension headers); default 0. */
  readonly proto?: number;
  /** TCP/UDP source port, ICMP type; ignored for other protocols. */
  readonly srcPort?: number;
  /** TCP/UDP destination port, ICMP code; ignored for other protocols. */
  readonly dstPort?: number;
  /** TCP only: the header's flags byte; default 0. */
  readonly tcpFlags?: number;
  /** Default true (the input node); false: the output node. */
  readonly isInput?: boolean;
}

const TCP = 6;
const UDP = 17;

function byteRange(name: string, v: number, max: number): number {
  if (!Number.isInteger(v) || v < 0 || v > max) throw new Error(`ACL verdict: ${name} ${v} is not 0..${max}`);
  return v;
}

/** fa_acl_match_ip4_addr / fa_acl_match_ip6_addr */
function addrMatch(pkt: Buffer, rule: Buffer, len: number): boolean {
  return len === 0 || masked(pkt, len).equals(rule);
}

/** single_rule_match_5tuple */
function ruleMatches(r: AclRule, t: FiveTuple, tcpFlags: number | undefined): boolean {
  if (r.isIpv6 !== (t.af === 6)) return false;
  if (!addrMatch(t.dst, r.dst, r.dstLen) || !addrMatch(t.src, r.src, r.srcLen)) return false;
  if (r.proto === 0) return true;
  if (r.proto !== t.proto) return false;
  if (t.port[0] < r.srcPortFirst || t.port[0] > r.srcPortLast) return false;
  if (t.port[1] < r.dstPortFirst || t.port[1] > r.dstPortLast) return false;
  return tcpFlags === undefined || (tcpFlags & r.tcpFlagsMask) === r.tcpFlagsValue;
}

export class AclDataplane {
  readonly #vpp: Vpp;

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
  }

  get #sessions(): AclSessions {
    return this.#vpp.acl.sessions;
  }

  /** The node the packet meets: acl-plugin-{in,out}-ip{4,6}-{fa,l2}. */
  nodeName(swIfIndex: number, af: Af, isInput: boolean): string {
    const port = this.#vpp.l2.portOf(swIfIndex);
    return `acl-plugin-${isInput ? 'in' : 'out'}-ip${af}-${port && !port.bvi ? 'l2' : 'fa'}`;
  }

  /** acl_plugin_match_5tuple_inline: the action of the first matching rule, or undefined. */
  match(acls: readonly number[], t: FiveTuple, tcpFlags: number | undefined): number | undefined {
    for (const i of acls) {
      // a freed ACL matches nothing (it cannot be: acl_del refuses an ACL in use)
      const acl = this.#vpp.acl.acls.get(i);
      for (const r of acl?.rules ?? []) if (ruleMatches(r, t, tcpFlags)) return r.isPermit;
    }
    return undefined;
  }

  /** One packet through the interface's ACL node; counts as the node does. */
  verdict(p: AclPacket): AclVerdict {
    const len = p.af === 4 ? 4 : 16;
    if (p.src.length !== len || p.dst.length !== len)
      throw new Error(`ACL verdict: addresses must be IPv${p.af}`);
    if (!this.#vpp.interfaces.isValid(p.swIfIndex))
      throw new Error(`ACL verdict: the simulated VPP has no interface ${p.swIfIndex}`);
    const isInput = p.isInput ?? true;
    const proto = byteRange('proto', p.proto ?? 0, 255);
    const icmp = proto === (p.af === 4 ? 1 : 58);
    const srcPort = byteRange('srcPort', p.srcPort ?? 0, icmp ? 255 : 65535);
    const dstPort = byteRange('dstPort', p.dstPort ?? 0, icmp ? 255 : 65535);
    const flags = byteRange('tcpFlags', p.tcpFlags ?? 0, 255);
    const withPorts = icmp || proto === TCP || proto === UDP;
    const t: FiveTuple = {
      af: p.af,
      src: p.src,
      dst: p.dst,
      proto,
      port: withPorts ? [srcPort, dstPort] : [0, 0],
      icmp,
    };
    const tcpFlags = proto === TCP ? flags : undefined;

    const acls = (isInput ? this.#vpp.acl.input : this.#vpp.acl.output).get(p.swIfIndex) ?? [];
    if (acls.length === 0) return 'no-acl';
    const node = this.nodeName(p.swIfIndex, p.af, isInput);
    const errors = this.#vpp.errors;
    errors.count(node, ACL_FA_ERROR.ACL_CHECK);

    const sessions = this.#sessions;
    const hit = sessions.find(p.swIfIndex, isInput, t);
    if (hit) {
      errors.count(node, ACL_FA_ERROR.ACL_EXIST_SESSION);
      if (sessions.track(hit, isInput, tcpFlags)) errors.count(node, ACL_FA_ERROR.ACL_RESTART_SESSION_TIMER);
      return 'permit';
    }

    const action = this.match(acls, t, tcpFlags) ?? 0;
    switch (action) {
      case 0:
        errors.count(node, ACL_FA_ERROR.ACL_DROP);
        return 'deny';
      case 1:
        errors.count(node, ACL_FA_ERROR.ACL_PERMIT);
        return 'permit';
      case 2: {
        const s = sessions.add(p.swIfIndex, isInput, t);
        // the new session's accounting: flags from one direction cannot make it established
        if (sessions.track(s, isInput, tcpFlags)) errors.count(node, ACL_FA_ERROR.ACL_RESTART_SESSION_TIMER);
        errors.count(node, ACL_FA_ERROR.ACL_NEW_SESSION);
        return 'permit';
      }
      default:
        return 'permit';
    }
  }
}
