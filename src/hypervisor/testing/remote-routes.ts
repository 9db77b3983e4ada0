/**
 * Remote routes as the route-delta tests write them: "vpc prefix" → SID, and those routes with a
 * batch of changes applied.
 */
import type { RemoteRouteChange } from '../route-delta.js';

/** Remote routes as "vpc prefix sid". */
export type Routes = ReadonlyMap<string, string>; // "vpc prefix" → sid

export function applied(routes: Routes, changes: readonly RemoteRouteChange[]): Map<string, string> {
  const out = new Map(routes);
  for (const c of changes) {
    const key = `${c.vpc} ${c.prefix.address}/${c.prefix.len}`;
    if (c.sid === undefined) out.delete(key);
    else out.set(key, c.sid);
  }
  return out;
}
