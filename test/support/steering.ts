/**
 * What "someone else" does to VPP's steering in tests that check vppnet notices: deletes an entry
 * exactly as a dump listed it.
 */
import type { VppApi } from '../../src/vpp/client/vpp-api.js';
import type { Message } from '../../src/vpp/codec/schema.js';
import { msg } from '../../src/vpp/messages/index.js';

export async function deleteDumpedSteering(
  client: VppApi,
  entry: Message<typeof msg.sr_steering_pol_details>,
): Promise<void> {
  await client.call(msg.sr_steering_add_del, {
    is_del: true,
    bsid_addr: entry.bsid,
    sr_policy_index: 0,
    table_id: entry.fib_table,
    prefix: entry.prefix,
    sw_if_index: 0,
    traffic_type: entry.traffic_type,
  });
}
