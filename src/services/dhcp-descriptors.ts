/**
 * DHCP relay from a VPC into the service bridge (../shared/vpp-services.md §6): a proxy per VPC
 * table and its VSS (option 82 VPN id). VPP keys both by the receiving table; the VSS is only
 * visible in dhcp_proxy_dump, through the proxy of its table, so it depends on the proxy.
 */
import { defineKind } from '../reconcile/kind.js';
import { keys } from '../dataplane/keys.js';
import { msg } from '../vpp/messages/index.js';
import { vppAddress } from '../dataplane/ip-values.js';
import type { ServicesContext } from './context.js';

export interface DhcpServerValue {
  /** Table the server is reached in. */
  readonly table: number;
  readonly address: string;
}

export interface DhcpProxyValue {
  /** Table the clients' DISCOVERs arrive in. */
  readonly rxTable: number;
  /** Source of relayed packets (giaddr); the server answers it. */
  readonly src: string;
  readonly servers: readonly DhcpServerValue[];
}

async function setServer(
  ctx: ServicesContext,
  v: DhcpProxyValue,
  server: DhcpServerValue,
  isAdd: boolean,
): Promise<void> {
  await ctx.client.call(msg.dhcp_proxy_config, {
    rx_vrf_id: v.rxTable,
    server_vrf_id: server.table,
    is_add: isAdd,
    dhcp_server: vppAddress(server.address),
    dhcp_src_address: vppAddress(v.src),
  });
}

export const dhcpProxyDescriptor = defineKind<DhcpProxyValue, ServicesContext>({
  kind: 'dhcp-proxy',
  messages: { optional: [msg.dhcp_proxy_config] },
  key: (v) => keys.dhcpProxy(v.rxTable),
  deps: (v) => [...new Set([keys.ipTable(v.rxTable), ...v.servers.map((s) => keys.ipTable(s.table))])],
  async create(ctx, { value }) {
    for (const s of value.servers) await setServer(ctx, value, s, true);
  },
  // VPP drops the proxy (and its source address) with its last server.
  async delete(ctx, { value }) {
    for (const s of value.servers) await setServer(ctx, value, s, false);
  },
});

export const VSS_TYPE = msg.vss_type_t.values;

export interface DhcpVssValue {
  readonly table: number;
  /** ASCII VPN id sent in option 82 (VSS type 0). */
  readonly vpnId: string;
}

async function setVss(ctx: ServicesContext, v: DhcpVssValue, isAdd: boolean): Promise<void> {
  await ctx.client.call(msg.dhcp_proxy_set_vss, {
    tbl_id: v.table,
    vss_type: VSS_TYPE.VSS_TYPE_API_ASCII,
    vpn_ascii_id: v.vpnId,
    oui: 0,
    vpn_index: 0,
    is_ipv6: false,
    is_add: isAdd,
  });
}

export const dhcpVssDescriptor = defineKind<DhcpVssValue, ServicesContext>({
  kind: 'dhcp-vss',
  messages: { optional: [msg.dhcp_proxy_set_vss] },
  key: (v) => keys.dhcpVss(v.table),
  deps: (v) => [keys.ipTable(v.table), keys.dhcpProxy(v.table)],
  create: (ctx, { value }) => setVss(ctx, value, true),
  delete: (ctx, { value }) => setVss(ctx, value, false),
  // Setting the VSS of a table that has one replaces it.
  update: (ctx, desired) => setVss(ctx, desired.value, true),
});
