/**
 * The ACL plugin's MACIP ACLs (src/plugins/acl/acl.c in VPP 26.06: macip_acl_add_list,
 * macip_acl_del_list, macip_acl_interface_add_acl / _del_acl and the vl_api_macip_acl_*
 * handlers). What a bound MACIP ACL does to frames: macip-dataplane.ts.
 *
 * - MACIP ACLs live in their own pool (am->macip_acls; index = acl_index, freed indices reused
 *   LIFO). Rules are stored as given: the MAC and the MAC mask unmasked, the address decoded into
 *   an ip46_address_t with its host bits, the prefix length unchecked, is_ipv6 = the address
 *   family value; the dump encodes them back (IPv6 for any family value but 0).
 * - macip_acl_add_replace: a tag without a NUL in its 64 bytes → INVALID_VALUE (acl_index echoed:
 *   ~0 for a new one); acl_index not ~0 and not an existing MACIP ACL → NO_SUCH_ENTRY (nothing
 *   created, acl_index echoed); otherwise 0 and the index. `count` rules are read (the message
 *   must hold them: msg_handler_internal drops it unanswered otherwise); count 0 is allowed (a
 *   warning, and an ACL without classifier tables). A replace unapplies the old tables from every
 *   interface that has the ACL, rebuilds them and applies the new ones (an interface keeps its
 *   binding).
 * - macip_acl_del: NO_SUCH_ENTRY when absent; otherwise the ACL is first removed from every
 *   interface that has it (their macip_acl_interface_get entries become ~0), then freed. 0.
 * - macip_acl_interface_add_del: a sw_if_index that is not an interface → INVALID_SW_IF_INDEX.
 *   Add: the ACL must exist (NO_SUCH_ENTRY, checked first); one MACIP ACL per interface: an
 *   existing binding is removed first, so adding replaces; 0. Delete: acl_index is not looked
 *   at: whatever MACIP ACL the interface has is removed (0), NO_SUCH_ENTRY when it has none.
 * - macip_acl_interface_get: count = vec_len (macip_acl_by_sw_if_index), which grows to one past
 *   the highest sw_if_index an ACL was ever added to (vec_validate_init_empty, ~0 filled) and
 *   never shrinks; acls[i] the ACL on sw_if_index i or ~0.
 * - An interface being deleted loses its binding (acl_sw_interface_add_del →
 *   macip_acl_interface_del_acl): its entry becomes ~0, the vector keeps its length.
 *
 * Applying an ACL (vnet_set_input_acl_intfc with the tables' head as ip4, ip6 and l2 table) sets
 * L2INPUT_FEAT_ACL on the interface's l2-input config; unapplying clears it. An ACL without rules
 * has no tables (~0): applying and unapplying it change nothing.
 */
import type { Message } from '../codec/schema.js';
import { readMac } from '../codec/text-format.js';
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import { apiAddress, fromApiAddress, macBytes } from './ip-addr.js';
import { macipClassifyTables, type MacipTableRule, type MacipTables } from './macip-dataplane.js';
import { Rv } from './retval.js';
import type { Vpp } from './vpp.js';
import { VppPool } from './vpp-pool.js';

type ApiRule = Message<typeof msg.macip_acl_add_replace>['r'][number];

export type MacipRule = MacipTableRule;

export interface MacipAcl {
  rules: MacipRule[];
  tag: string;
  tables: MacipTables;
}

const NONE = 0xffffffff;

/** macip_acl_add_list's decoding of one rule. */
function decodeRule(r: ApiRule): MacipRule {
  const af = r.src_prefix.address.af;
  // ip_address_decode into an ip46_address_t: IPv4 in the last 4 bytes; another family: zeros
  const srcIp = Buffer.alloc(16);
  if (af === 0) srcIp.set(fromApiAddress(r.src_prefix.address), 12);
  else if (af === 1) srcIp.set(fromApiAddress(r.src_prefix.address), 0);
  return {
    isPermit: r.is_permit,
    isIpv6: af,
    srcMac: macBytes(r.src_mac),
    srcMacMask: macBytes(r.src_mac_mask),
    srcIp,
    srcPrefixLen: r.src_prefix.len,
  };
}

export class MacipPlugin {
  readonly #vpp: Vpp;
  readonly acls = new VppPool<MacipAcl>();
  /** am->macip_acl_by_sw_if_index */
  readonly bySwIfIndex: number[] = [];

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
    vpp.interfaces.deleteHooks.push((sw) => {
      // acl_sw_interface_add_del: "also unapply any ACLs in case the users did not do so"
      this.interfaceDel(sw.swIfIndex);
    });
  }

  /** The MACIP ACL on an interface, if any. */
  aclOf(swIfIndex: number): number | undefined {
    const a = this.bySwIfIndex[swIfIndex];
    return a === undefined || a === NONE ? undefined : a;
  }

  /** vnet_set_input_acl_intfc (..., is_add) with the ACL's tables: the l2 part. */
  #apply(swIfIndex: number, acl: MacipAcl, on: boolean): void {
    if (acl.tables.head !== undefined) this.#vpp.l2.setInputAclFeature(swIfIndex, on);
  }

  /** macip_acl_add_list */
  addReplace(
    index: number,
    rules: readonly ApiRule[],
    tag: string,
    tagBytes: number,
  ): { rv: number; index: number } {
    if (tagBytes >= 64) return { rv: Rv.INVALID_VALUE, index };
    if (index !== NONE && !this.acls.has(index)) return { rv: Rv.NO_SUCH_ENTRY, index };
    const decoded = rules.map(decodeRule);
    const tables = macipClassifyTables(decoded);
    if (index === NONE) return { rv: 0, index: this.acls.add(() => ({ rules: decoded, tag, tables })) };
    const acl = this.acls.get(index) as MacipAcl;
    const bound = this.bySwIfIndex.flatMap((a, sw) => (a === index ? [sw] : []));
    for (const sw of bound) this.#apply(sw, acl, false);
    acl.rules = decoded;
    acl.tag = tag;
    acl.tables = tables;
    for (const sw of bound) this.#apply(sw, acl, true);
    return { rv: 0, index };
  }

  /** macip_acl_del_list */
  del(index: number): number {
    if (!this.acls.has(index)) return Rv.NO_SUCH_ENTRY;
    this.bySwIfIndex.forEach((a, sw) => {
      if (a === index) this.interfaceDel(sw);
    });
    this.acls.remove(index);
    return 0;
  }

  /** macip_acl_interface_add_acl (the interface is valid) */
  interfaceAdd(swIfIndex: number, index: number): number {
    const acl = this.acls.get(index);
    if (!acl) return Rv.NO_SUCH_ENTRY;
    while (this.bySwIfIndex.length <= swIfIndex) this.bySwIfIndex.push(NONE);
    if (this.bySwIfIndex[swIfIndex] !== NONE) this.interfaceDel(swIfIndex);
    this.bySwIfIndex[swIfIndex] = index;
    this.#apply(swIfIndex, acl, true);
    return 0;
  }

  /** macip_acl_interface_del_acl */
  interfaceDel(swIfIndex: number): number {
    const index = this.aclOf(swIfIndex);
    if (index === undefined) return Rv.NO_SUCH_ENTRY;
    this.#apply(swIfIndex, this.acls.get(index) as MacipAcl, false);
    this.bySwIfIndex[swIfIndex] = NONE;
    return 0;
  }

  register(d: Dispatcher): void {
    d.on(msg.macip_acl_add_replace, (m, call) => {
      const r = this.addReplace(m.acl_index >>> 0, m.r, m.tag, Buffer.byteLength(m.tag));
      call.reply({ retval: r.rv, acl_index: r.index });
    });

    d.on(msg.macip_acl_del, (m, call) => {
      call.reply({ retval: this.del(m.acl_index >>> 0) });
    });

    d.on(msg.macip_acl_interface_add_del, (m, call) => {
      const sw = m.sw_if_index >>> 0;
      if (!this.#vpp.interfaces.isValid(sw)) return call.reply({ retval: Rv.INVALID_SW_IF_INDEX });
      call.reply({ retval: m.is_add ? this.interfaceAdd(sw, m.acl_index >>> 0) : this.interfaceDel(sw) });
    });

    d.on(msg.macip_acl_dump, (m, call) => {
      if (!call.reg) return;
      const send = (index: number, a: MacipAcl): void =>
        call.details(msg.macip_acl_details, {
          acl_index: index,
          tag: a.tag,
          r: a.rules.map((r) => ({
            is_permit: r.isPermit,
            src_mac: readMac(r.srcMac, 0),
            src_mac_mask: readMac(r.srcMacMask, 0),
            src_prefix: {
              address: apiAddress(r.isIpv6 ? r.srcIp : r.srcIp.subarray(12)) as never,
              len: r.srcPrefixLen,
            },
          })),
        });
      const index = m.acl_index >>> 0;
      if (index === NONE) {
        for (const [i, a] of this.acls.entries()) send(i, a);
      } else {
        const a = this.acls.get(index);
        if (a) send(index, a);
      }
    });

    d.on(msg.macip_acl_interface_get, (_m, call) => {
      if (!call.reg) return;
      call.reply({ acls: [...this.bySwIfIndex] }); // count = vec_len
    });
  }
}
