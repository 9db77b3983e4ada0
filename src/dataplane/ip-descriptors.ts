/**
 * Descriptors for IP tables, routes and proxy-ARP ranges.
 */
import { defineKind } from '../reconcile/kind.js';
import { keys } from './keys.js';
import { msg } from '../vpp/messages/index.js';
import type { DataplaneContext } from './context.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';
import { vppAddress, vppPrefix } from './ip-values.js';

export interface IpTableValue {
  readonly table: number;
  readonly ip6: boolean;
  readonly name: string;
}

export const ipTableDescriptor = defineKind<IpTableValue, DataplaneContext>({
  kind: 'ip-table',
  messages: { required: [msg.ip_table_add_del] },
  key: (v) => keys.ipTable(v.table, v.ip6),
  async create(ctx, { value }) {
    await ctx.client.call(msg.ip_table_add_del, {
      is_add: true,
      table: { table_id: value.table, is_ip6: value.ip6, name: value.name },
    });
  },
  async delete(ctx, { value }) {
    await ctx.client.call(msg.ip_table_add_del, {
      is_add: false,
      table: { table_id: value.table, is_ip6: value.ip6 },
    });
  },
});

/**
 * A path: out of an interface to a next hop, or "look up again in table N". `attached`: a host
 * route's path to its own address, sent without a next hop, so VPP marks the route attached
 * (fib_table_route_path_fixup gives it the address back as its next hop, which is what a dump
 * shows either way).
 */
export type RoutePath =
  | { readonly iface: string; readonly nh: string; readonly attached?: true }
  | { readonly lookupTable: number };

export interface RouteValue {
  readonly table: number;
  readonly ip6: boolean;
  readonly prefix: string;
  readonly paths: readonly RoutePath[];
}

function apiPaths(ctx: DataplaneContext, v: RouteValue): object[] {
  const proto = v.ip6 ? 1 : 0;
  return v.paths.map((p) =>
    'lookupTable' in p
      ? { sw_if_index: NO_INDEX, table_id: p.lookupTable, proto }
      : {
          sw_if_index: ctx.interfaces.index(p.iface),
          table_id: 0,
          proto,
          nh: { address: vppAddress(p.attached ? (v.ip6 ? '::' : '0.0.0.0') : p.nh).un },
        },
  );
}

async function setRoute(ctx: DataplaneContext, v: RouteValue, isAdd: boolean): Promise<void> {
  await ctx.client.call(msg.ip_route_add_del, {
    is_add: isAdd,
    is_multipath: false,
    route: { table_id: v.table, prefix: vppPrefix(v.prefix), paths: apiPaths(ctx, v) },
  });
}

export const routeDescriptor = defineKind<RouteValue, DataplaneContext>({
  kind: 'route',
  messages: { required: [msg.ip_route_add_del] },
  key: (v) => keys.route(v.table, v.prefix, v.ip6),
  create: (ctx, { value }) => setRoute(ctx, value, true),
  async delete(ctx, { value }) {
    // A path through an interface that is already gone went with it.
    if (value.paths.some((p) => 'iface' in p && !ctx.interfaces.has(p.iface))) return;
    await setRoute(ctx, value, false);
  },
  // Re-adding without is_multipath replaces the paths.
  update: (ctx, desired) => setRoute(ctx, desired.value, true),
});

export interface ProxyArpValue {
  readonly table: number;
  readonly low: string;
  readonly hi: string;
}

async function setProxyArp(ctx: DataplaneContext, v: ProxyArpValue, isAdd: boolean): Promise<void> {
  await ctx.client.call(msg.proxy_arp_add_del, {
    is_add: isAdd,
    proxy: { table_id: v.table, low: v.low, hi: v.hi },
  });
}

export const proxyArpDescriptor = defineKind<ProxyArpValue, DataplaneContext>({
  kind: 'proxy-arp',
  messages: { required: [msg.proxy_arp_add_del] },
  key: (v) => keys.proxyArp(v.table, v.low, v.hi),
  deps: (v) => [keys.ipTable(v.table)],
  create: (ctx, { value }) => setProxyArp(ctx, value, true),
  delete: (ctx, { value }) => setProxyArp(ctx, value, false),
});
