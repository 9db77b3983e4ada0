/**
 * The ACL plugin's lists and interface bindings (src/plugins/acl/acl.c in VPP 26.06): ACLs in a
 * pool (index = acl_index, freed indices reused), rules stored decoded and dumped re-encoded,
 * per-interface input and output lists, and the session table those bindings clear (the
 * sessions themselves and the nodes' verdicts: acl-sessions.ts, acl-dataplane.ts).
 */
import type { Message } from '../codec/schema.js';
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import { apiAddress, fromApiAddress, masked } from './ip-addr.js';
import { AclSessions } from './acl-sessions.js';
import { Rv } from './retval.js';
import type { Vpp } from './vpp.js';
import { VppPool } from './vpp-pool.js';

type ApiRule = Message<typeof msg.acl_add_replace>['r'][number];

export interface AclRule {
  readonly isPermit: number;
  readonly isIpv6: boolean;
  readonly src: Buffer;
  readonly srcLen: number;
  readonly dst: Buffer;
  readonly dstLen: number;
  readonly proto: number;
  readonly srcPortFirst: number;
  readonly srcPortLast: number;
  readonly dstPortFirst: number;
  readonly dstPortLast: number;
  readonly tcpFlagsMask: number;
  readonly tcpFlagsValue: number;
}

export interface Acl {
  rules: AclRule[];
  tag: string;
}

export class AclPlugin {
  readonly #vpp: Vpp;
  readonly acls = new VppPool<Acl>();
  readonly input = new Map<number, number[]>();
  readonly output = new Map<number, number[]>();
  readonly sessions = new AclSessions();
  /**
   * am->session_timeout_sec[ACL_TIMEOUT_UDP_IDLE]: UDP_SESSION_IDLE_TIMEOUT_SEC (600) until
   * "set acl-plugin session timeout udp idle N" (vpe.ts). Kept, not applied: the session model
   * does not age sessions.
   */
  udpIdleSeconds = 600;

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
    vpp.interfaces.deleteHooks.push((sw) => {
      // acl_sw_interface_add_del: both lists reset (acl_interface_reset_inout_acls), sessions
      // cleared (see acl-sessions.ts for why clearing at once is what a verdict can see)
      this.input.delete(sw.swIfIndex);
      this.output.delete(sw.swIfIndex);
      this.sessions.clearInterface(sw.swIfIndex);
    });
  }

  /**
   * acl_interface_set_inout_acl_list after its checks: the new list; when the *set* of ACLs
   * changed (not just their order), every session of the interface is cleared, once per API
   * call (may_clear_sessions).
   */
  #setList(lists: Map<number, number[]>, sw: number, acls: number[], mayClear: { v: boolean }): void {
    const old = new Set(lists.get(sw) ?? []);
    const changed = old.size !== new Set(acls).size || acls.some((a) => !old.has(a));
    lists.set(sw, acls);
    if (changed && mayClear.v) {
      this.sessions.clearInterface(sw);
      mayClear.v = false;
    }
  }

  #usedBy(aclIndex: number, lists: Map<number, number[]>): boolean {
    for (const l of lists.values()) if (l.includes(aclIndex)) return true;
    return false;
  }

  /** acl_add_list */
  addReplace(
    index: number,
    rules: readonly ApiRule[],
    tag: string,
    tagBytes: number,
  ): { rv: number; index: number } {
    if (tagBytes >= 64) return { rv: Rv.INVALID_VALUE, index };
    for (const r of rules) {
      if (invalidPrefix(r.src_prefix)) return { rv: Rv.INVALID_SRC_ADDRESS, index };
      if (invalidPrefix(r.dst_prefix)) return { rv: Rv.INVALID_DST_ADDRESS, index };
      if (r.src_prefix.address.af !== r.dst_prefix.address.af) return { rv: Rv.INVALID_SRC_ADDRESS, index };
      if (r.srcport_or_icmptype_first > r.srcport_or_icmptype_last) return { rv: Rv.INVALID_VALUE_2, index };
      if (r.dstport_or_icmpcode_first > r.dstport_or_icmpcode_last) return { rv: Rv.INVALID_VALUE_2, index };
    }
    if (index !== 0xffffffff && !this.acls.has(index)) return { rv: Rv.NO_SUCH_ENTRY, index };
    const decoded: AclRule[] = rules.map((r) => ({
      isPermit: r.is_permit,
      isIpv6: r.src_prefix.address.af === 1,
      src: fromApiAddress(r.src_prefix.address),
      srcLen: r.src_prefix.len,
      dst: fromApiAddress(r.dst_prefix.address),
      dstLen: r.dst_prefix.len,
      proto: r.proto,
      srcPortFirst: r.srcport_or_icmptype_first,
      srcPortLast: r.srcport_or_icmptype_last,
      dstPortFirst: r.dstport_or_icmpcode_first,
      dstPortLast: r.dstport_or_icmpcode_last,
      tcpFlagsMask: r.tcp_flags_mask,
      tcpFlagsValue: r.tcp_flags_value,
    }));
    if (index === 0xffffffff) {
      index = this.acls.add(() => ({ rules: decoded, tag }));
    } else {
      const a = this.acls.get(index) as Acl;
      a.rules = decoded;
      a.tag = tag;
    }
    return { rv: 0, index };
  }

  register(d: Dispatcher): void {
    d.on(msg.acl_add_replace, (m, call) => {
      const tagBytes = Buffer.byteLength(m.tag);
      const r = this.addReplace(m.acl_index >>> 0, m.r, m.tag, tagBytes);
      call.reply({ retval: r.rv, acl_index: r.index });
    });

    d.on(msg.acl_del, (m, call) => {
      const i = m.acl_index >>> 0;
      let rv = 0;
      if (!this.acls.has(i)) rv = Rv.NO_SUCH_ENTRY;
      else if (this.#usedBy(i, this.input)) rv = Rv.ACL_IN_USE_INBOUND;
      else if (this.#usedBy(i, this.output)) rv = Rv.ACL_IN_USE_OUTBOUND;
      else this.acls.remove(i);
      call.reply({ retval: rv });
    });

    d.on(msg.acl_dump, (m, call) => {
      if (!call.reg) return;
      const send = (index: number, a: Acl): void =>
        call.details(msg.acl_details, {
          acl_index: index,
          tag: a.tag,
          r: a.rules.map((r) => ({
            is_permit: r.isPermit,
            src_prefix: { address: apiAddress(r.src) as never, len: r.srcLen },
            dst_prefix: { address: apiAddress(r.dst) as never, len: r.dstLen },
            proto: r.proto,
            srcport_or_icmptype_first: r.srcPortFirst,
            srcport_or_icmptype_last: r.srcPortLast,
            dstport_or_icmpcode_first: r.dstPortFirst,
            dstport_or_icmpcode_last: r.dstPortLast,
            tcp_flags_mask: r.tcpFlagsMask,
            tcp_flags_value: r.tcpFlagsValue,
          })),
        });
      if (m.acl_index >>> 0 === 0xffffffff) {
        for (const [i, a] of this.acls.entries()) send(i, a);
      } else {
        const a = this.acls.get(m.acl_index >>> 0);
        if (a) send(m.acl_index >>> 0, a);
      }
    });

    d.on(msg.acl_interface_set_acl_list, (m, call) => {
      if (!this.#vpp.interfaces.isValid(m.sw_if_index)) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      for (const a of m.acls) if (!this.acls.has(a >>> 0)) return call.reply({ retval: Rv.NO_SUCH_ENTRY });
      const ins = m.acls.slice(0, m.n_input).map((x) => x >>> 0);
      const outs = m.acls.slice(m.n_input).map((x) => x >>> 0);
      // acl_interface_set_inout_acl_list, output first then input: an ACL twice in one list fails
      // with ENTRY_ALREADY_EXISTS, which the handler's `rv = rv || set (input)` turns into 1.
      const dup = (l: number[]): boolean => new Set(l).size !== l.length;
      const mayClear = { v: true };
      if (dup(outs)) return call.reply({ retval: 1 });
      this.#setList(this.output, m.sw_if_index, outs, mayClear);
      if (dup(ins)) return call.reply({ retval: 1 });
      this.#setList(this.input, m.sw_if_index, ins, mayClear);
      call.reply({ retval: 0 });
    });

    d.on(msg.acl_interface_list_dump, (m, call) => {
      if (!call.reg) return;
      const send = (sw: number): void => {
        const ins = this.input.get(sw) ?? [];
        const outs = this.output.get(sw) ?? [];
        call.details(msg.acl_interface_list_details, {
          sw_if_index: sw,
          n_input: ins.length,
          acls: [...ins, ...outs],
        });
      };
      if (m.sw_if_index >>> 0 === 0xffffffff) {
        for (const sw of this.#vpp.interfaces.pool.values()) send(sw.swIfIndex);
      } else if (this.#vpp.interfaces.isValid(m.sw_if_index)) {
        send(m.sw_if_index);
      }
    });
  }
}

/** acl_api_invalid_prefix: bad family, length, or host bits set (ip_prefix_decode2) */
function invalidPrefix(p: ApiRule['src_prefix']): boolean {
  if (p.address.af !== 0 && p.address.af !== 1) return true;
  const max = p.address.af === 0 ? 32 : 128;
  if (p.len > max) return true;
  const a = fromApiAddress(p.address);
  return !masked(a, p.len).equals(a);
}
