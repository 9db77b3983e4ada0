/**
 * How a remote SID gets its BSID (the binding SID of its single-SID policy), for full passes
 * (overlay.ts allocateBsids) and route deltas (hypervisor/route-delta.ts) alike: a SID that has a
 * policy keeps its BSID (steering keeps pointing at it, no churn after restarts), and new SIDs,
 * in sorted order, take the lowest free indexes of the BSID prefix. One function, so a delta and
 * the full pass after it agree on every BSID.
 */
import { ip6AddressInPrefix, ip6IndexInPrefix, type Ip6Prefix } from '../net/ip.js';

/**
 * BSIDs for `sids` (distinct, sorted) that have none yet, at the lowest indexes of `block` that
 * no BSID in `inUse` holds; added to `out`, which is returned.
 */
export function assignNewBsids(
  sids: readonly string[],
  inUse: Iterable<string>,
  block: Ip6Prefix,
  out: Map<string, string> = new Map(),
): Map<string, string> {
  const used = new Set<bigint>();
  for (const bsid of inUse) used.add(ip6IndexInPrefix(bsid, block));
  let next = 1n;
  for (const sid of sids) {
    if (out.has(sid)) continue;
    while (used.has(next)) next++;
    out.set(sid, ip6AddressInPrefix(block, next));
    used.add(next);
  }
  return out;
}
