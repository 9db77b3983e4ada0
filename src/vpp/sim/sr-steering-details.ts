/**
 * A steering entry (sr_steering.c's ip6_sr_steering_policy_t) and its encoded
 * sr_steering_pol_details, kept between dumps. fleet mode's drift check dumps a node's
 * 100k entries every minute, and while this one Node thread encoded them it answered no other connection (VPP's C handler takes a fraction of that): a dump of
 * unchanged entries copies frames instead. Its own module because the cache and the wire form of
 * a steering entry are a concern of their own beside SR's policy and steering rules (sr.ts).
 */
import { msg } from '../messages/index.js';
import type { Dispatcher } from './dispatcher.js';
import type { MessageTable } from './message-table.js';

/** sr_steer traffic types */
export const STEER = { L2: 2, IPV4: 4, IPV6: 6 } as const;

export interface SteeringPolicy {
  readonly trafficType: number;
  readonly fibTable: number;
  /** IPv4 or IPv6 prefix (ip46 semantics kept separately). */
  readonly prefix: Buffer;
  readonly prefixLen: number;
  readonly swIfIndex: number;
  policy: number;
  /** The BSID when last pointed; a deleted policy's pool slot still holds it in VPP. */
  bsid: Buffer;
}

/** An L2 steering entry's prefix as its details show it: IPv4 0.0.0.0. */
const NO_IP4 = new Uint8Array(4);

/**
 * Valid for the message table and the BSID each frame was made with. In columns by pool index —
 * the frame, the entry and BSID it shows — rather than an object per entry (100k objects less to
 * keep and to mark); one message table for all, the frames dropped with it.
 */
export class SteeringFrames {
  readonly #frames: (Buffer | undefined)[] = [];
  readonly #entries: (SteeringPolicy | undefined)[] = [];
  readonly #bsids: (Buffer | undefined)[] = [];
  #table: MessageTable | undefined;

  /** Entry `i` is gone: its frame with it. */
  forget(i: number): void {
    this.#frames[i] = undefined;
    this.#entries[i] = undefined;
    this.#bsids[i] = undefined;
  }

  /**
   * The details frame of steering entry `i` showing `bsid`, from the cache when it is this
   * entry's with the message table and BSID, else encoded and cached; undefined when the table
   * has no id for the details message.
   */
  frame(d: Dispatcher, i: number, s: SteeringPolicy, bsid: Buffer): Buffer | undefined {
    const table = d.table;
    if (this.#table !== table) {
      this.#frames.length = this.#entries.length = this.#bsids.length = 0;
      this.#table = table;
    }
    const cached = this.#frames[i];
    if (cached && this.#entries[i] === s && this.#bsids[i] === bsid) return cached;
    const isV6 = s.trafficType === STEER.IPV6;
    const frame = d.encode(
      msg.sr_steering_pol_details,
      {
        traffic_type: s.trafficType,
        fib_table: s.fibTable,
        // ip_address_encode (IP46_TYPE_ANY): an IPv4 prefix (or none, for L2) reads as IPv4, and
        // so does an IPv6 one whose first 96 bits are zero (ip46_address_is_ip4: ::/1 comes back
        // as 0.0.0.0/1, checked on a real VPP 26.06). The bytes themselves, not their text:
        // formatting each address for the encoder to parse it back was most of the encoding's time.
        prefix: {
          address:
            isV6 && !isIp46Ip4(s.prefix)
              ? { af: 1, un: { ip6: s.prefix } }
              : {
                  af: 0,
                  un: {
                    ip4: s.trafficType === STEER.L2 ? NO_IP4 : isV6 ? s.prefix.subarray(12, 16) : s.prefix,
                  },
                },
          len: s.prefixLen,
        },
        // htonl (classify.l2.sw_if_index): a union with classify.l3.prefix, so an IPv6 entry
        // shows its prefix's first four bytes read as a little-endian u32 (an IPv4 one, the
        // ip46 padding: 0)
        sw_if_index: isV6 ? s.prefix.readUInt32LE(0) : s.swIfIndex,
        bsid,
      },
      { context: 0 },
    );
    if (frame) {
      this.#frames[i] = frame;
      this.#entries[i] = s;
      this.#bsids[i] = bsid;
    }
    return frame;
  }
}

/** ip46_address_is_ip4: the first 12 bytes of an ip46 address are zero. */
function isIp46Ip4(address: Buffer): boolean {
  for (let i = 0; i < 12; i++) if (address[i] !== 0) return false;
  return true;
}
