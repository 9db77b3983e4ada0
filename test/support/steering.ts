/**
 * VPP's steering as tests and benchmarks see it from outside: what "someone else" does to it in
 * tests that check vppnet notices (deletes an entry exactly as a dump listed it), and what one VPP
 * steers, read back through the API (bench/fleet's "no change lost", the two-VPP fleet test).
 */
import { canonicalIp6 } from '../../src/net/ip.js';
import type { VppApi } from '../../src/vpp/client/vpp-api.js';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import type { Message } from '../../src/vpp/codec/schema.js';
import { msg } from '../../src/vpp/messages/index.js';
import { fromApiAddress, ipText } from '../../src/vpp/sim/ip-addr.js';

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

/** How a steering entry is named here: its table and prefix, e.g. "10 10.0.0.7/32". */
export function steeringKey(table: number, prefix: string): string {
  return `${table} ${prefix}`;
}

/** Steering key → the first SID of its policy ("?" when its BSID has no policy), as VPP steers. */
export async function dumpSteering(
  socketPath: string,
  clientName = 'vppnet-test',
): Promise<Map<string, string>> {
  const client = new VppClient({
    socketPath,
    clientName,
    healthCheckIntervalMs: 0,
    requestTimeoutMs: 120_000,
    retryStrategy: () => null,
  });
  await client.connect();
  try {
    const sidOf = new Map<string, string>();
    await client.dumpEach(msg.sr_policies_v2_dump, {}, (p) => {
      const sid = p.sid_lists[0]?.sids[0];
      if (sid !== undefined) sidOf.set(canonicalIp6(p.bsid), canonicalIp6(sid));
    });
    const out = new Map<string, string>();
    await client.dumpEach(msg.sr_steering_pol_dump, {}, (s) => {
      const prefix = `${ipText(fromApiAddress(s.prefix.address))}/${s.prefix.len}`;
      out.set(steeringKey(s.fib_table >>> 0, prefix), sidOf.get(canonicalIp6(s.bsid)) ?? '?');
    });
    return out;
  } finally {
    await client.close();
  }
}
