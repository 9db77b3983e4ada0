/**
 * The common endpoint record read without the general validator: a prefix key and the value
 * `{"node":"NAME"}` exactly as the CLI and bench/fleet write it. An agent's cold start
 * reads 100k of them, and the general path (records.ts validateRecord) made per record a parsed
 * object, a Checker, a closure, the prefix written out and parsed again, and its network spelled
 * to compare, while GC scavenges in a 256 MiB DaemonSet's 1 MB young generation cost their share
 * of every allocation.
 *
 * It only ever accepts: whatever it does not accept (another spelling of the value, a refused
 * name, host bits, a reserved range) takes the general path, so the refusals and their messages
 * are the general path's alone. Where it accepts, the general path accepts the same record:
 * quick-endpoint.test.ts holds the two to it, over a table of near misses and random ones.
 */
import { remoteIp6Problem, reservedIp4Overlap } from '../config/lanes.js';
import { detached, isName, isNodeName } from '../config/validate.js';
import { ip4Mask, ip4ToInt, ip6HasHostBits } from '../net/ip.js';
import type { ParsedKey } from './keys.js';
import type { EndpointRecord } from './records.js';

const HEAD = '{"node":"';
const TAIL = '"}';

/** The record of an endpoint key and value of the common shape, or undefined: ask validateRecord. */
export function quickEndpointRecord(
  k: ParsedKey & { readonly kind: 'endpoint' },
  text: string,
): EndpointRecord | undefined {
  if (text.length <= HEAD.length + TAIL.length) return undefined;
  if (!text.startsWith(HEAD) || !text.endsWith(TAIL)) return undefined;
  // A node name holds no '"', '\' or control character: the text between is the JSON string
  // whole, unescaped, and the value's only field.
  const node = text.slice(HEAD.length, text.length - TAIL.length);
  if (!isNodeName(node) || !isName(k.vpc)) return undefined;
  if (k.family === 4) {
    // The key's address is a dotted quad without leading zeros (keys.ts): its integer has host
    // bits exactly when the general path's spelled network differs from it.
    if ((ip4ToInt(k.prefix.address) & ~ip4Mask(k.prefix.len)) >>> 0 !== 0) return undefined;
    if (reservedIp4Overlap(k.prefix) !== undefined) return undefined;
  } else if (ip6HasHostBits(k.prefix) || remoteIp6Problem(k.prefix, undefined) !== undefined) {
    // The key's IPv6 prefix is canonical (keys.ts): the general path's parse of it is the same.
    return undefined;
  }
  return { kind: 'endpoint', vpc: k.vpc, prefix: k.prefix, family: k.family, node: detached(node) };
}
