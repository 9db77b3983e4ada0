/**
 * The "underlay NIC" of reconciler tests: a loopback that a second client creates, as someone
 * else's interface would be, and removes again with the IPv6 default route vppnet put through it
 * (VPP keeps an API route whose interface is deleted) and the ingress filter's source table, so a
 * real VPP is left as found.
 */
import { UNDERLAY_SOURCE_TABLE } from '../../src/config/defaults.js';
import { ignoreRetval } from '../../src/vpp/client/retval-error.js';
import type { VppApi } from '../../src/vpp/client/vpp-api.js';
import { msg } from '../../src/vpp/messages/index.js';

export interface TestUnderlay {
  readonly name: string;
  readonly swIfIndex: number;
}

export async function createUnderlay(client: VppApi): Promise<TestUnderlay> {
  const lo = await client.call(msg.create_loopback_instance, {});
  const [d] = await client.dump(msg.sw_interface_dump, { sw_if_index: lo.sw_if_index });
  if (!d) throw new Error(`loopback ${lo.sw_if_index} not in the dump`);
  return { name: d.interface_name, swIfIndex: lo.sw_if_index };
}

export async function removeUnderlay(
  client: VppApi,
  u: TestUnderlay,
  gateway = '2001:db8::2',
): Promise<void> {
  await removeUnderlayRouting(client, u.swIfIndex, gateway);
  await client.call(msg.delete_loopback, { sw_if_index: u.swIfIndex }).catch(ignoreRetval);
}

/**
 * What vppnet put through an underlay interface that outlives an empty config: the IPv6 default
 * route and the SRv6 ingress filter. Called while the interface is there: routes through a
 * deleted one stay.
 */
export async function removeUnderlayRouting(
  client: VppApi,
  swIfIndex: number,
  gateway: string,
): Promise<void> {
  await client
    .call(msg.ip_route_add_del, {
      is_add: false,
      route: {
        table_id: 0,
        prefix: { address: { af: 1, un: { ip6: '::' } }, len: 0 },
        paths: [{ sw_if_index: swIfIndex, proto: 1, nh: { address: { ip6: gateway } } }],
      },
    })
    .catch(ignoreRetval);
  await removeIngressFilter(client, swIfIndex);
}

/**
 * The SRv6 ingress filter vppnet set up on the underlay: an empty config still has a node, so its
 * source table outlives the other objects. Its routes go first: VPP's FIB breaks when a table is
 * deleted with API routes in it.
 */
export async function removeIngressFilter(client: VppApi, uplinkSwIfIndex: number): Promise<void> {
  // The check first: VPP does not lock the table it looks in, nor forget it with the interface.
  await client
    .call(msg.urpf_update_v2, {
      is_input: true,
      mode: msg.urpf_mode_t.values.URPF_API_MODE_OFF,
      af: msg.address_family_t.values.ADDRESS_IP6,
      sw_if_index: uplinkSwIfIndex,
      table_id: 0xffffffff,
    })
    .catch(ignoreRetval);
  const table = { table_id: UNDERLAY_SOURCE_TABLE, is_ip6: true };
  const routes = await client.dump(msg.ip_route_dump, { table }).catch(() => []);
  for (const r of routes)
    await client.call(msg.ip_route_add_del, { is_add: false, route: r.route }).catch(ignoreRetval);
  await client.call(msg.ip_table_add_del, { is_add: false, table }).catch(ignoreRetval);
}
