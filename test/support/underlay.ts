/**
 * The "underlay NIC" of reconciler tests: a loopback that a second client creates, as someone
 * else's interface would be, and removes again with the IPv6 default route vppnet put through it
 * (VPP keeps an API route whose interface is deleted) and the ingress filter's ACL, so a real VPP
 * is left as found.
 */
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
  await client
    .call(msg.ip_route_add_del, {
      is_add: false,
      route: {
        table_id: 0,
        prefix: { address: { af: 1, un: { ip6: '::' } }, len: 0 },
        paths: [{ sw_if_index: u.swIfIndex, proto: 1, nh: { address: { ip6: gateway } } }],
      },
    })
    .catch(ignoreRetval);
  await client.call(msg.delete_loopback, { sw_if_index: u.swIfIndex }).catch(ignoreRetval);
  await removeIngressFilter(client);
}

/**
 * The SRv6 ingress filter vppnet bound to the underlay: an empty config still has a node, so its
 * ACL outlives the other objects, unbound once the underlay is gone.
 */
export async function removeIngressFilter(client: VppApi): Promise<void> {
  const acls = await client.dump(msg.acl_dump, { acl_index: 0xffffffff }).catch(() => []);
  for (const a of acls)
    if (a.tag === 'vppnet:srv6-ingress')
      await client.call(msg.acl_del, { acl_index: a.acl_index }).catch(ignoreRetval);
}
