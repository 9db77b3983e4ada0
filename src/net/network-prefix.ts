/**
 * A network-only prefix: a route, a subnet or an allowed source names a network, so its host bits
 * are clear (10.0.0.0/24, not 10.0.0.1/24). One rule and one message for the agent config, fleet
 * records and route changes.
 */
import {
  ip4Mask,
  ip4Network,
  ip4ToInt,
  ip6HasHostBits,
  ip6Network,
  type Ip4Prefix,
  type Ip6Prefix,
} from './ip.js';
import { Ip6PrefixWords } from './ip6-prefix-words.js';

/** Why `p` (parsed, of `family`) is not a network-only prefix, or undefined when it is. */
export function hostBitsProblem(p: Ip4Prefix | Ip6Prefix, family: 4 | 6): string | undefined {
  if (family === 4) {
    // By integers: only a refused prefix formats its network.
    if ((ip4ToInt(p.address) & ~ip4Mask(p.len)) >>> 0 === 0) return undefined;
    return `host bits set: the network is ${ip4Network(p)}/${p.len}`;
  }
  // ip6HasHostBits reads bytes: asked of 100k routes, only a refused one formats a string.
  return ip6HasHostBits(p) ? `host bits set: the network is ${ip6Network(p)}/${p.len}` : undefined;
}

/**
 * Whether `text` is an IPv6 prefix with its host bits clear, read as numbers (Ip6PrefixWords), no
 * text made: the format check of each of a node's 100k remote routes, whose check pass reads the
 * prefix again for itself.
 */
export function isIp6Network(text: string): boolean {
  const p = Ip6PrefixWords.read(text);
  return p !== undefined && !ip6HasHostBits(p);
}
