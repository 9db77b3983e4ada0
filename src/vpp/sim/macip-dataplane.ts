/**
 * A model of what a MACIP ACL does to a frame arriving on a bridge port (src/plugins/acl/acl.c
 * macip_create_classify_tables, src/vnet/classify/vnet_classify.c, in_out_acl.c and
 * src/vnet/l2/l2_in_out_acl.c in VPP 26.06), for tests that cannot send frames: the verdict and
 * the error counters.
 *
 * No ACL code runs per frame: macip_acl_add_replace turns the rules into chained classifier
 * tables, and macip_acl_interface_add_del hands the chain's head to vnet_set_input_acl_intfc as
 * the interface's ip4, ip6 *and* l2 input table. The l2 one sets L2INPUT_FEAT_ACL in the port's
 * l2-input feature bitmap, so the port's frames go through `l2-input-acl`, which classifies
 * them from the start of the Ethernet header (tables without current_data_flag). (The ip4/ip6
 * tables act through ip4-inacl/ip6-inacl on an L3 interface: not modelled here.)
 *
 * The tables (macip_create_classify_tables, ingress part; built here byte for byte):
 * - the rules are grouped into match types {src_mac_mask, prefix length, is_ipv6 (the rule's
 *   address family, as given)}, each counting its rules, sorted ascending by
 *   prefix_len + bits set in the MAC mask + is_ipv6 + 10 * rules (vec_sort_with_function, i.e.
 *   libc qsort; GUESS: glibc's, a stable merge sort for arrays this small, so equal metrics keep
 *   first-seen order);
 * - tables are created, each chained to the previous one created, first for every IPv4 match
 *   type the ARP tables (dot1ad, dot1q, untagged), then for every match type the IP tables
 *   (dot1ad, dot1q, untagged). The last one created is the head, so a frame is looked up in the
 *   IP tables of the highest-metric match type first (untagged, dot1q, dot1ad), down to the
 *   lowest, then in the ARP tables the same way. The first table created (the chain's end) has
 *   miss_next_index 0: a frame no table matches is dropped.
 * - masks (byte offsets from the Ethernet header; L = 14, 18, 22 untagged/dot1q/dot1ad): the
 *   source MAC under the MAC mask (6..11); the TPIDs and the ethertype (12..13, 16..17, 20..21,
 *   as far as the tags go; sessions want 0x8100 for dot1q, 0x88a8 then 0x8100 for dot1ad);
 *   IP tables: the source address's first prefix_len bits (L+12 for IPv4, L+8 for IPv6); ARP
 *   tables: the ARP sender MAC under the MAC mask (L+8) and the sender IPv4's first prefix_len
 *   bits (L+14). Mask lengths are rounded up to 16 bytes.
 * - each rule adds one session to each of its match type's IP tables (ethertype 0x0800 or
 *   0x86dd) and, for IPv4, to its ARP tables (0x0806, the rule's MAC as both the Ethernet and the
 *   ARP sender MAC, its address as the ARP sender IP); hit_next_index ~0 (go on: permit) for any
 *   is_permit but 0, 0 (drop) for 0. Keys are stored masked, and an equal key replaces the
 *   session: of two rules with the same match type and the same masked MAC and address, the
 *   *later* one decides. A prefix length beyond the address (not checked by the API) masks the
 *   bytes after it; the session bytes there are what the C code's reused buffer holds.
 *
 * So, for an untagged frame: IPv4 and IPv6 frames are matched on (source MAC, source address),
 * ARP frames on (source MAC, ARP sender MAC, ARP sender IPv4), both against the rules of their
 * family; a frame of any other ethertype, IPv6 on an ACL without IPv6 rules, ARP on one without
 * IPv4 rules, or a frame whose Ethernet source differs from its ARP sender MAC where the mask
 * looks at them: no table matches, dropped.
 *
 * l2-input-acl (l2_in_out_acl_node_fn) per frame: a hit in the head table counts "input ACL
 * hits"; a hit further down the chain "input ACL hits" and "input ACL hits after chain walk"; a
 * session with next index 0 drops the frame with "input ACL session deny drops". No hit counts
 * "input ACL misses" and, miss_next_index being 0, drops it with "input ACL table-miss drops".
 *
 * When there is no check ('no-macip'): no MACIP ACL on the interface; its MACIP ACL has no rules
 * (no tables: vnet_set_input_acl_intfc is given ~0 and enables nothing); the port lost
 * L2INPUT_FEAT_ACL because set_int_l2_mode (MODE_L3) reset its feature bitmap after the ACL was
 * applied (sw_interface_set_l2_bridge enable 0 and back: the binding stays, the check is gone
 * until the ACL is applied or replaced again). Refused (an Error): frames on an L3 interface or
 * coming out of the BVI, ports of bridge domain 0 (whose feature bitmap drops everything). Not
 * modelled: egress (is_permit 3's output tables on l2-output-acl); whether VPP delivers the frame
 * at all (admin state, features before l2-input-acl such as SPAN or policers).
 */
import { L2_INACL_ERROR } from './error-counters.js';
import type { Vpp } from './vpp.js';

export type MacipVerdict = 'permit' | 'deny' | 'no-macip';

/** What the tables are built from: a MACIP ACL's rules as acl.c stores them. */
export interface MacipTableRule {
  readonly isPermit: number;
  /** The rule's address family value as given (0 IPv4; anything else takes the IPv6 path). */
  readonly isIpv6: number;
  readonly srcMac: Buffer;
  readonly srcMacMask: Buffer;
  /** ip46_address_t: IPv4 in the last 4 bytes. */
  readonly srcIp: Buffer;
  readonly srcPrefixLen: number;
}

interface Session {
  /** hit_next_index: 0 drop, 0xffff go on */
  readonly hitNext: number;
  readonly rule: number;
}

interface ClassifyTable {
  readonly what: string;
  readonly mask: Buffer;
  /** next_table_index (undefined: ~0) */
  readonly next: number | undefined;
  /** miss_next_index: 0 drop, ~0 go on */
  readonly missNext: number;
  /** By masked key (hex). */
  readonly sessions: Map<string, Session>;
}

/** A MACIP ACL's classifier chain; head undefined when the ACL has no rules (no tables). */
export interface MacipTables {
  readonly tables: readonly ClassifyTable[];
  readonly head: number | undefined;
}

interface MatchType {
  readonly macMask: Buffer;
  readonly prefixLen: number;
  readonly isIpv6: number;
  count: number;
  /** table indices by tag count (0 untagged, 1 dot1q, 2 dot1ad) */
  readonly arp: number[];
  readonly ip: number[];
}

/** mask[5 * 16] in macip_create_classify_tables */
const MASK_BYTES = 80;
const ETH_HDR = 14;

function popcount(b: Uint8Array): number {
  let n = 0;
  for (let x of b) for (; x; x >>= 1) n += x & 1;
  return n;
}
/** match_type_metric */
const metric = (m: MatchType): number => m.prefixLen + popcount(m.macMask) + m.isIpv6 + 10 * m.count;
/** ((n + sizeof (u32x4) - 1) / sizeof (u32x4)) * sizeof (u32x4) */
const vectors = (n: number): number => Math.ceil(n / 16) * 16;
/** get_l3_src_offset */
const l3SrcOffset = (is6: boolean): number => ETH_HDR + (is6 ? 8 : 12);

function prefixBits(mask: Buffer, at: number, len: number): void {
  for (let i = 0; i < Math.floor(len / 8); i++) mask[at + i] = 0xff;
  if (len % 8) mask[at + Math.floor(len / 8)] = 0xff - ((1 << (8 - (len % 8))) - 1);
}

/** The tag fields a table masks: (12..13), (16..17), (20..21) as far as `tags` goes. */
function tagFields(mask: Buffer, tags: number): void {
  for (let t = 0; t <= tags; t++) mask.fill(0xff, 12 + 4 * t, 14 + 4 * t);
}

/** The TPIDs and ethertype a session wants at 12.. for `tags` tags. */
function tagValues(buf: Buffer, tags: number, ethertype: number): number {
  if (tags === 2) {
    buf.writeUInt16BE(0x88a8, 12);
    buf.writeUInt16BE(0x8100, 16);
  } else if (tags === 1) {
    buf.writeUInt16BE(0x8100, 12);
  }
  buf.writeUInt16BE(ethertype, 12 + 4 * tags);
  return ETH_HDR + 4 * tags;
}

function maskedHex(bytes: Buffer, mask: Buffer): string {
  const k = Buffer.alloc(mask.length);
  for (let i = 0; i < mask.length; i++) k[i] = (bytes[i] as number) & (mask[i] as number);
  return k.toString('hex');
}

/** macip_create_classify_tables, the ingress tables and sessions. */
export function macipClassifyTables(rules: readonly MacipTableRule[]): MacipTables {
  const find = (mv: MatchType[], r: MacipTableRule): MatchType | undefined =>
    mv.find((m) => m.prefixLen === r.srcPrefixLen && m.isIpv6 === r.isIpv6 && m.macMask.equals(r.srcMacMask));
  const mvec: MatchType[] = [];
  for (const r of rules) {
    let mt = find(mvec, r);
    if (!mt) {
      mt = { macMask: r.srcMacMask, prefixLen: r.srcPrefixLen, isIpv6: r.isIpv6, count: 0, arp: [], ip: [] };
      mvec.push(mt);
    }
    mt.count++;
  }
  mvec.sort((a, b) => metric(a) - metric(b)); // stable, as glibc's merge sort

  const tables: ClassifyTable[] = [];
  let last: number | undefined;
  const create = (what: string, mask: Buffer, len: number): number => {
    tables.push({
      what,
      mask: Buffer.from(mask.subarray(0, len)),
      next: last,
      missNext: last === undefined ? 0 : 0xffffffff,
      sessions: new Map(),
    });
    last = tables.length - 1;
    return last;
  };
  const label = (kind: string, mt: MatchType, tags: number): string =>
    `${kind} ${['untagged', 'dot1q', 'dot1ad'][tags] as string} mac-mask ${mt.macMask.toString('hex')} /${mt.prefixLen}`;

  // First the ARP tables...
  for (const mt of mvec) {
    if (mt.isIpv6) continue;
    for (let tags = 2; tags >= 0; tags--) {
      const mask = Buffer.alloc(MASK_BYTES);
      mask.set(mt.macMask, 6);
      tagFields(mask, tags);
      const l3 = ETH_HDR + 4 * tags;
      mask.set(mt.macMask, l3 + 8);
      prefixBits(mask, l3 + 14, mt.prefixLen);
      mt.arp[tags] = create(
        label('arp', mt, tags),
        mask,
        vectors(l3 + 14 + Math.floor((mt.prefixLen + 7) / 8)),
      );
    }
  }
  // ...then the IP ones.
  for (const mt of mvec) {
    const is6 = mt.isIpv6 !== 0;
    for (let tags = 2; tags >= 0; tags--) {
      const mask = Buffer.alloc(MASK_BYTES);
      mask.set(mt.macMask, 6);
      tagFields(mask, tags);
      const src = 4 * tags + l3SrcOffset(is6);
      prefixBits(mask, src, mt.prefixLen);
      const len = vectors(src + Math.floor((mt.prefixLen + 7) / 8));
      mt.ip[tags] = create(label(is6 ? 'ip6' : 'ip4', mt, tags), mask, len);
    }
  }

  const addSession = (table: number, match: Buffer, hitNext: number, rule: number): void => {
    const t = tables[table] as ClassifyTable;
    t.sessions.set(maskedHex(match, t.mask), { hitNext, rule });
  };
  rules.forEach((r, i) => {
    const mt = find(mvec, r) as MatchType;
    const is6 = r.isIpv6 !== 0;
    const hitNext = r.isPermit ? 0xffff : 0;
    const mask = Buffer.alloc(MASK_BYTES);
    for (let tags = 2; tags >= 0; tags--) {
      mask.fill(0);
      mask.set(r.srcMac, 6);
      const l3 = tagValues(mask, tags, is6 ? 0x86dd : 0x0800);
      mask.set(is6 ? r.srcIp : r.srcIp.subarray(12), l3 + (is6 ? 8 : 12));
      addSession(mt.ip[tags] as number, mask, hitNext, i);
      mask.fill(0, 12);
    }
    if (!is6 && mt.arp[0] !== undefined) {
      // one buffer for the three tag variants, not cleared in between (as in acl.c)
      mask.fill(0);
      mask.set(r.srcMac, 6);
      for (let tags = 2; tags >= 0; tags--) {
        const l3 = tagValues(mask, tags, 0x0806);
        mask.set(r.srcMac, l3 + 8);
        mask.set(r.srcIp.subarray(12), l3 + 14);
        addSession(mt.arp[tags] as number, mask, hitNext, i);
      }
    }
  });
  return { tables, head: last };
}

/** FRAME_BYTES covers every mask (at most 80 bytes). */
const FRAME_BYTES = 128;

/** A frame as far as the model knows it: bytes from the Ethernet header, and which are known. */
export class Frame {
  readonly bytes = Buffer.alloc(FRAME_BYTES);
  readonly known = new Uint8Array(FRAME_BYTES);

  put(at: number, data: Uint8Array): void {
    this.bytes.set(data.subarray(0, Math.max(0, FRAME_BYTES - at)), at);
    this.known.fill(1, at, Math.min(FRAME_BYTES, at + data.length));
  }

  putU16(at: number, v: number): void {
    const b = Buffer.alloc(2);
    b.writeUInt16BE(v & 0xffff, 0);
    this.put(at, b);
  }
}

export interface FrameSpec {
  readonly srcMac: Uint8Array;
  readonly dstMac?: Uint8Array;
  /** VLAN tags' TPIDs, outer first (their TCIs are not known to the model). */
  readonly vlanTpids?: readonly number[];
  /** After the tags. */
  readonly ethertype: number;
  /** IPv4 (0x0800) / IPv6 (0x86dd) addresses. */
  readonly ip?: { readonly src: Uint8Array; readonly dst?: Uint8Array | undefined };
  /** ARP (0x0806) fields; the fixed ones default to an Ethernet/IPv4 request. */
  readonly arp?: {
    readonly hwType?: number;
    readonly protoType?: number;
    readonly opcode?: number;
    readonly senderMac: Uint8Array;
    readonly senderIp: Uint8Array;
    readonly targetMac?: Uint8Array | undefined;
    readonly targetIp?: Uint8Array | undefined;
  };
}

/** The bytes a classifier would see of such a frame. */
export function ethFrame(s: FrameSpec): Frame {
  const f = new Frame();
  if (s.dstMac) f.put(0, s.dstMac);
  f.put(6, s.srcMac);
  let at = 12;
  for (const tpid of s.vlanTpids ?? []) {
    f.putU16(at, tpid);
    at += 4;
  }
  f.putU16(at, s.ethertype);
  const l3 = at + 2;
  if (s.ip) {
    const v6 = s.ip.src.length === 16;
    f.put(l3 + (v6 ? 8 : 12), s.ip.src);
    if (s.ip.dst) f.put(l3 + (v6 ? 24 : 16), s.ip.dst);
  }
  if (s.arp) {
    f.putU16(l3, s.arp.hwType ?? 1);
    f.putU16(l3 + 2, s.arp.protoType ?? 0x0800);
    f.put(l3 + 4, Buffer.from([6, 4]));
    f.putU16(l3 + 6, s.arp.opcode ?? 1);
    f.put(l3 + 8, s.arp.senderMac);
    f.put(l3 + 14, s.arp.senderIp);
    if (s.arp.targetMac) f.put(l3 + 18, s.arp.targetMac);
    if (s.arp.targetIp) f.put(l3 + 24, s.arp.targetIp);
  }
  return f;
}

/** vnet_classify_find_entry on one table; throws where unknown bytes would decide. */
function lookup(t: ClassifyTable, f: Frame): Session | undefined {
  const unknown: number[] = [];
  for (let i = 0; i < t.mask.length; i++) if (t.mask[i] && !f.known[i]) unknown.push(i);
  if (unknown.length === 0) return t.sessions.get(maskedHex(f.bytes, t.mask));
  for (const [k, s] of t.sessions) {
    const key = Buffer.from(k, 'hex');
    let differs = false;
    for (let i = 0; i < t.mask.length && !differs; i++) {
      if (t.mask[i] && f.known[i] && ((f.bytes[i] as number) & (t.mask[i] as number)) !== key[i])
        differs = true;
    }
    if (!differs) {
      throw new Error(
        `MACIP verdict: the ${t.what} table (rule ${s.rule}) also compares frame bytes ${unknown.join(',')}, ` +
          'which the model was not given (a prefix length beyond the address?)',
      );
    }
  }
  return undefined;
}

export class MacipDataplane {
  readonly #vpp: Vpp;

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
  }

  /** The tables l2-input-acl uses for frames arriving on `swIfIndex`, or undefined: no check. */
  #tablesOf(swIfIndex: number): MacipTables | undefined {
    const vpp = this.#vpp;
    if (!vpp.interfaces.isValid(swIfIndex))
      throw new Error(`MACIP verdict: the simulated VPP has no interface ${swIfIndex}`);
    const aclIndex = vpp.macip.aclOf(swIfIndex);
    const acl = aclIndex === undefined ? undefined : vpp.macip.acls.get(aclIndex);
    if (!acl || acl.tables.head === undefined) return undefined;
    const port = vpp.l2.portOf(swIfIndex);
    if (!port || port.bvi) {
      throw new Error(
        `MACIP verdict: interface ${swIfIndex} is not a bridge port (an L3 interface or a BVI): ` +
          'its MACIP ACL acts through ip4-inacl/ip6-inacl there, which the model does not cover',
      );
    }
    // bridge domain 0's feature bitmap is DROP alone: l2-input masks L2INPUT_FEAT_ACL away and
    // feature-bitmap-drop takes the frame
    if (port.bdId === 0) throw new Error('MACIP verdict: bridge domain 0 drops every frame (not modelled)');
    return vpp.l2.hasInputAclFeature(swIfIndex) ? acl.tables : undefined;
  }

  /**
   * One frame through l2-input-acl on `swIfIndex`; counts as the node does. `reason` is the
   * error the drop node counts for a deny.
   */
  classify(swIfIndex: number, f: Frame): { verdict: MacipVerdict; reason?: string } {
    const chain = this.#tablesOf(swIfIndex);
    if (!chain) return { verdict: 'no-macip' };
    const node = 'l2-input-acl';
    const errors = this.#vpp.errors;
    let at = chain.head as number;
    for (let first = true; ; first = false) {
      const t = chain.tables[at] as ClassifyTable;
      const hit = lookup(t, f);
      if (hit) {
        errors.count(node, L2_INACL_ERROR.HIT);
        if (!first) errors.count(node, L2_INACL_ERROR.CHAIN_HIT);
        if (hit.hitNext === 0) {
          errors.count(node, L2_INACL_ERROR.SESSION_DENY);
          return { verdict: 'deny', reason: L2_INACL_ERROR.SESSION_DENY };
        }
        return { verdict: 'permit' };
      }
      if (t.next === undefined) {
        errors.count(node, L2_INACL_ERROR.MISS);
        if (t.missNext === 0) {
          errors.count(node, L2_INACL_ERROR.TABLE_MISS);
          return { verdict: 'deny', reason: L2_INACL_ERROR.TABLE_MISS };
        }
        return { verdict: 'permit' };
      }
      at = t.next;
    }
  }

  verdict(swIfIndex: number, f: Frame): MacipVerdict {
    return this.classify(swIfIndex, f).verdict;
  }
}
