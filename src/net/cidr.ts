/**
 * "address/len" as an interface address or a route destination is written (10.0.0.5/24: host bits
 * allowed), the form the CNI result and the agent API's attach request carry. A network-only
 * prefix (no host bits) is network-prefix.ts's.
 */
import { ipLiteralFamily } from './ip-literal.js';

/** 4 or 6 for "address/len" with a length valid for the family; 0 otherwise. */
export function cidrFamily(value: string): 0 | 4 | 6 {
  const slash = value.indexOf('/');
  if (slash < 0) return 0;
  const family = ipLiteralFamily(value.slice(0, slash));
  const lenText = value.slice(slash + 1);
  if (family === 0 || !/^\d{1,3}$/.test(lenText)) return 0;
  const len = Number(lenText);
  if (family === 4) return len <= 32 ? 4 : 0;
  return len <= 128 ? 6 : 0;
}
