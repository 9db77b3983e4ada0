/**
 * Routes through an interface that was deleted and created again under the same index (an
 * operator re-creating the uplink's memif or af_packet interface, a NIC unbound and bound again).
 *
 * VPP keeps an API route whose interface is deleted, and its path stays unresolved (a drop) when
 * an interface comes back with that index: the FIB path was told of the deletion and is never told
 * of the new interface. The route reads back exactly as it was written, so a pass would see nothing
 * to do. Re-adding it is not enough either: the new route shares the old path-list (VPP shares
 * path-lists by their paths), which stays unresolved as long as any route holds it. Measured on
 * VPP 26.06: after the uplink was re-created, `::/0` via the gateway stayed "unresolved, drop"
 * through a re-add and through a delete and add; deleting every route through the interface (the
 * default route and the SRv6 ingress filter's source routes) and adding them again resolved it.
 *
 * What gives a re-created interface away in a snapshot: VPP removes an interface's addresses and
 * unnumbered setting when it deletes it, so an interface that vppnet addresses but that has none of
 * its addresses (or has lost its unnumbered setting) while API routes through it remain has been
 * reset. Those routes are marked stale: the planner deletes all of them before it creates any,
 * which frees the path-list, then creates them again.
 */
import type { Resource } from '../reconcile/resource.js';
import { addressDescriptor, unnumberedDescriptor } from './interface-descriptors.js';
import { routeDescriptor, type RouteValue } from './ip-descriptors.js';

/** `actual`, with the routes through a reset interface marked stale (the rest as they are). */
export function withStaleRoutes(desired: readonly Resource[], actual: readonly Resource[]): Resource[] {
  const found = new Set(actual.map((r) => r.key));
  // Per interface vppnet gives addresses or an unnumbered setting: whether any of them is in VPP.
  const l3 = new Map<string, boolean>();
  for (const r of desired) {
    if (r.kind !== addressDescriptor.kind && r.kind !== unnumberedDescriptor.kind) continue;
    const iface = (r.value as { readonly iface: string }).iface;
    l3.set(iface, (l3.get(iface) ?? false) || found.has(r.key));
  }
  const reset = new Set([...l3].filter(([, present]) => !present).map(([iface]) => iface));
  if (reset.size === 0) return [...actual];
  return actual.map((r) => {
    if (r.kind !== routeDescriptor.kind) return r;
    const through = (r.value as RouteValue).paths.find((p) => 'iface' in p && reset.has(p.iface));
    if (through === undefined || !('iface' in through)) return r;
    return {
      ...r,
      stale: `${through.iface} has lost its addresses (deleted and created again?): VPP resolves no path through the old one`,
    };
  });
}
