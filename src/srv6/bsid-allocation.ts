/**
 * The one BSID allocator (the binding SID of each remote SID's single-SID policy), used by full
 * passes (overlay.ts configBsids) and route deltas (hypervisor/route-delta.ts) alike, so a delta
 * and the full pass after it agree on every BSID: a SID that has a policy keeps its BSID
 * (steering keeps pointing at it, no churn after restarts), and new SIDs, in sorted order, take
 * the lowest free indexes of the BSID prefix.
 */
import { ip6AddressInPrefix, ip6InPrefix, ip6IndexInPrefix, type Ip6Prefix } from '../net/ip.js';

const NONE: ReadonlyMap<string, string> = new Map();

/**
 * BSIDs for `sids` (distinct, sorted): a SID whose BSID in `existing` lies in `block` keeps it;
 * the others take the lowest indexes of `block` that neither a kept BSID nor one in `reserved`
 * holds (a route delta reserves every BSID its model holds, one whose policy the batch deletes
 * included: that one goes only after the entries moved off it).
 */
export function allocateBsids(
  sids: readonly string[],
  block: Ip6Prefix,
  existing: ReadonlyMap<string, string> = NONE,
  reserved: Iterable<string> = [],
): Map<string, string> {
  const out = new Map<string, string>();
  const used = new Set<bigint>();
  for (const bsid of reserved) used.add(ip6IndexInPrefix(bsid, block));
  for (const sid of sids) {
    const bsid = existing.get(sid);
    if (bsid !== undefined && ip6InPrefix(bsid, block)) {
      out.set(sid, bsid);
      used.add(ip6IndexInPrefix(bsid, block));
    }
  }
  let next = 1n;
  for (const sid of sids) {
    if (out.has(sid)) continue;
    while (used.has(next)) next++;
    out.set(sid, ip6AddressInPrefix(block, next));
    used.add(next);
  }
  return out;
}
