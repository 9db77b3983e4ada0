/**
 * A model of ARP termination in a bridge domain (src/vnet/l2/l2_arp_term.c arp_term_l2bd,
 * l2_input_node.c classify_and_dispatch in VPP 26.06) for one ARP frame arriving on a bridge
 * port: whether VPP answers it from the bridge domain's IP-to-MAC table (bd-ip-mac.ts), passes it
 * on (learning, forwarding, flooding as usual), or drops it; and the error counters.
 *
 * The node runs when the frame's l2-input feature bitmap has L2INPUT_FEAT_ARP_TERM: the port's
 * config always has it (set_int_l2_mode), the bridge domain's only with arp_term set (bd_flags
 * L2_ARP_TERM), and l2-input keeps it for ARP frames whatever their destination MAC; without it
 * the verdict is 'no-arp-term'. Features run highest bit first, so l2-input-acl (a MACIP ACL,
 * macip-dataplane.ts) comes before it: a frame MACIP drops never gets here.
 *
 * arp_term_l2bd, in order:
 * 1. the port's split-horizon group is not 0 ("Terminate only local (SHG == 0) ARP"): passed on;
 * 2. an opcode other than request (1) or reply (2): passed on (the IPv6 ND check finds no IPv6);
 * 3. hardware type not Ethernet (1): drop "L2 type not ethernet"; protocol type not IPv4
 *    (0x0800): drop "L3 type not IP4" (checked second, so it wins);
 * 4. the Ethernet source is not the ARP sender MAC, or the sender MAC is a group address: drop
 *    "ARP hw addr does not match L2 frame src addr", unless the sender MAC starts 00:00:5e:00:01
 *    (VRRP);
 * 5. a multicast sender IP (224.0.0.0/4): drop "IP4 source address not local to subnet";
 *    any drop of 3-5 counts "ARP probe or announcement dropped" instead when the sender IP is
 *    0.0.0.0 or equals the target IP;
 * 6. the target IP is not in mac_by_ip4: passed on;
 * 7. sender IP = target IP (gratuitous ARP): passed on, even with the target in the table;
 * 8. otherwise VPP answers: the frame becomes a reply from the table's MAC (ARP sender = target
 *    IP + that MAC, ARP target = the original sender, Ethernet destination = the frame's source,
 *    source = the MAC) sent back out of the port it came in on; "ARP replies sent". This is done
 *    for opcode 2 (a reply) as well as for requests.
 * Nothing looks at whether the *sender* is in the table (it is only published to
 * want_l2_arp_term_events subscribers); the Ethernet destination does not matter either.
 *
 * Not modelled, and refused: an interface that is not a bridge port (ARP goes to arp-input), the
 * BVI (what comes out of it is VPP's own, VNET_BUFFER_F_LOCALLY_ORIGINATED: passed on), bridge
 * domain 0 (its feature bitmap is DROP alone: feature-bitmap-drop takes every frame); IPv6 ND
 * termination (vnet_ip6_nd_term: a neighbor solicitation with a source link-layer option whose
 * target is in mac_by_ip6 is answered with an advertisement).
 */
import { readMac } from '../codec/text-format.js';
import { ARP_TERM_ERROR } from './error-counters.js';
import { ethFrame } from './macip-dataplane.js';
import type { Vpp } from './vpp.js';

export type ArpTermVerdict =
  | { readonly verdict: 'reply'; readonly mac: string }
  | { readonly verdict: 'pass' }
  | { readonly verdict: 'drop'; readonly node: string; readonly reason: string }
  | { readonly verdict: 'no-arp-term' };

export interface ArpFrame {
  readonly swIfIndex: number;
  /** The Ethernet source. */
  readonly srcMac: Buffer;
  readonly opcode: number;
  readonly hwType: number;
  readonly protoType: number;
  readonly senderMac: Buffer;
  readonly senderIp: Buffer;
  readonly targetMac?: Buffer | undefined;
  readonly targetIp: Buffer;
}

const NODE = 'arp-term-l2bd';
/** vrrp_prefix */
const VRRP_PREFIX = Buffer.from([0x00, 0x00, 0x5e, 0x00, 0x01]);

export class ArpTerm {
  readonly #vpp: Vpp;

  constructor(vpp: Vpp) {
    this.#vpp = vpp;
  }

  verdict(p: ArpFrame): ArpTermVerdict {
    const vpp = this.#vpp;
    if (!vpp.interfaces.isValid(p.swIfIndex))
      throw new Error(`ARP termination: the simulated VPP has no interface ${p.swIfIndex}`);
    const port = vpp.l2.portOf(p.swIfIndex);
    if (!port) throw new Error(`ARP termination: interface ${p.swIfIndex} is not a bridge port`);
    if (port.bvi) throw new Error(`ARP termination: interface ${p.swIfIndex} is a BVI (not modelled)`);
    if (port.bdId === 0) throw new Error('ARP termination: bridge domain 0 drops every frame (not modelled)');

    // l2-input-acl first
    const frame = ethFrame({
      srcMac: p.srcMac,
      ethertype: 0x0806,
      arp: {
        hwType: p.hwType,
        protoType: p.protoType,
        opcode: p.opcode,
        senderMac: p.senderMac,
        senderIp: p.senderIp,
        targetMac: p.targetMac,
        targetIp: p.targetIp,
      },
    });
    const macip = vpp.macipDataplane.classify(p.swIfIndex, frame);
    if (macip.verdict === 'deny')
      return { verdict: 'drop', node: 'l2-input-acl', reason: macip.reason as string };

    const bd = vpp.l2.byId(port.bdId);
    if (!bd?.arpTerm) return { verdict: 'no-arp-term' };
    if (port.shg !== 0) return { verdict: 'pass' };
    if (p.opcode !== 1 && p.opcode !== 2) return { verdict: 'pass' };

    let error: string | undefined;
    if (p.hwType !== 1) error = ARP_TERM_ERROR.l2_type_not_ethernet;
    if (p.protoType !== 0x0800) error = ARP_TERM_ERROR.l3_type_not_ip4;
    if (
      error === undefined &&
      (!p.srcMac.equals(p.senderMac) || ((p.senderMac[0] as number) & 1) !== 0) &&
      !p.senderMac.subarray(0, 5).equals(VRRP_PREFIX)
    )
      error = ARP_TERM_ERROR.l2_address_mismatch;
    if (error === undefined && ((p.senderIp[0] as number) & 0xf0) === 0xe0)
      error = ARP_TERM_ERROR.l3_src_address_not_local;
    if (error !== undefined) {
      if (p.senderIp.every((b) => b === 0) || p.senderIp.equals(p.targetIp))
        error = ARP_TERM_ERROR.gratuitous_arp;
      vpp.errors.count(NODE, error);
      return { verdict: 'drop', node: NODE, reason: error };
    }

    const mac = vpp.bdIpMac.lookup4(bd, p.targetIp);
    if (!mac) return { verdict: 'pass' };
    if (p.senderIp.equals(p.targetIp)) return { verdict: 'pass' }; // GARP
    vpp.errors.count(NODE, ARP_TERM_ERROR.replies_sent);
    return { verdict: 'reply', mac: readMac(mac, 0) };
  }
}
