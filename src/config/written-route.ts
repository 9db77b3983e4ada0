/**
 * A remote route of a config file as checkRemoteRoutes accepts it (check-routes.ts): its VPC and
 * SID (strings shared with every route like it) and its prefix, kept without an object of its own
 * and made when `prefix` is read. Fleet mode's routes are EndpointRoutes (datastore/), for the
 * same reason.
 *
 * Why not a plain RemoteRouteConfig: a file may list 100k routes (bench/reconcile's node), and as
 * `{ vpc, prefix: { address, len }, family, sid }` each held three heap objects, ~128 bytes: the
 * route (56), its prefix (40) and the address text (32). The config stays live for as long as the
 * agent runs, and how far V8 grows the heap in a reconcile pass follows what is live before it: a
 * ballast of 6.5 MB beside the config raised a from-empty pass's peak RSS by 10–17 MiB (a
 * 256 MiB cgroup, VPP 26.06). Here a route is one object and nothing else: an IPv4 route's address
 * is a 32-bit number (56 bytes in all), an IPv6 route's four (72 bytes, where the text alone took
 * 48).
 */
import { intToIp4 } from '../net/ip.js';
import { formatIp6, writeIp6Literal } from '../net/ip-literal.js';
import { Ip6PrefixWords } from '../net/ip6-prefix-words.js';
import type { RemoteRouteConfig } from './model.js';

type Prefix = RemoteRouteConfig['prefix'];

/**
 * A route as a plain object, as a config file writes it: what a printed config shows of a route
 * that makes its prefix when read (these classes, fleet mode's EndpointRoute).
 */
export function routeAsWritten(r: RemoteRouteConfig): RemoteRouteConfig {
  return { vpc: r.vpc, prefix: r.prefix, family: r.family, sid: r.sid };
}

export class Ip4WrittenRoute implements RemoteRouteConfig {
  readonly vpc: string;
  readonly sid: string;
  /** The address as a signed 32-bit integer: a small integer in V8, held in the object itself. */
  readonly #address: number;
  readonly #len: number;

  /** `address`: the IPv4 address as its unsigned 32-bit value (10.0.0.1 → 0x0a000001). */
  constructor(vpc: string, address: number, len: number, sid: string) {
    this.vpc = vpc;
    this.sid = sid;
    this.#address = address | 0;
    this.#len = len;
  }

  get family(): 4 {
    return 4;
  }

  /** Made on each read: the steering entries are built from it once per config. */
  get prefix(): Prefix {
    return { address: intToIp4(this.#address >>> 0), len: this.#len };
  }

  /** The route as the config file writes it: what a printed config shows. */
  toJSON(): RemoteRouteConfig {
    return routeAsWritten(this);
  }
}

export class Ip6WrittenRoute implements RemoteRouteConfig {
  readonly vpc: string;
  readonly sid: string;
  /** The address's four 32-bit words, most significant first, each a signed small integer. */
  readonly #w0: number;
  readonly #w1: number;
  readonly #w2: number;
  readonly #w3: number;
  readonly #len: number;

  /**
   * `address`: an IPv6 address in any valid spelling, or the address of a prefix already read
   * (checkRemoteRoutes: its words are copied, its text never made); `prefix` gives it back
   * canonical.
   */
  constructor(vpc: string, address: string | Ip6PrefixWords, len: number, sid: string) {
    this.vpc = vpc;
    this.sid = sid;
    this.#len = len;
    if (address instanceof Ip6PrefixWords) {
      this.#w0 = address.w0;
      this.#w1 = address.w1;
      this.#w2 = address.w2;
      this.#w3 = address.w3;
      return;
    }
    if (!writeIp6Literal(address, scratch, 0))
      throw new TypeError(`not an IPv6 address: ${JSON.stringify(address)}`);
    this.#w0 = scratch.readInt32BE(0);
    this.#w1 = scratch.readInt32BE(4);
    this.#w2 = scratch.readInt32BE(8);
    this.#w3 = scratch.readInt32BE(12);
  }

  get family(): 6 {
    return 6;
  }

  get prefix(): Prefix {
    this.writeAddress(scratch, 0);
    return { address: formatIp6(scratch, 0), len: this.#len };
  }

  /** The prefix's length: `prefix.len` without making its text. */
  get length(): number {
    return this.#len;
  }

  /**
   * Writes the address's 16 bytes at `offset`: what the desired steering entries keep of it
   * (srv6/desired-steering.ts), without making its text to parse it back.
   */
  writeAddress(buf: Buffer, offset: number): void {
    buf.writeInt32BE(this.#w0, offset);
    buf.writeInt32BE(this.#w1, offset + 4);
    buf.writeInt32BE(this.#w2, offset + 8);
    buf.writeInt32BE(this.#w3, offset + 12);
  }

  toJSON(): RemoteRouteConfig {
    return routeAsWritten(this);
  }
}

/** One address's bytes at a time: read or written in full by each call above. */
const scratch = Buffer.alloc(16);
