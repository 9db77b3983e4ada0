/**
 * NAT sessions per VM, from NAT44-EI's users (a user is an inside address in a table: one VM's
 * port). nat44_ei_user_dump walks each thread's user pool, which is empty, not freed, while the
 * plugin is disabled (nat44_ei_api.c), so it is safe to send at any time; only users with
 * sessions exist.
 */
import type { AgentConfig } from '../config/model.js';
import type { VppApi } from '../vpp/client/vpp-api.js';
import { msg } from '../vpp/messages/index.js';

/** Port name → NAT sessions it holds (dynamic and static-mapping ones), for the config's VM ports. */
export async function readNatSessionsPerPort(
  client: VppApi,
  config: AgentConfig,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (!config.services || !client.supports(msg.nat44_ei_user_dump)) return out;
  const tableOf = new Map(config.vpcs.map((v) => [v.name, v.table]));
  const portOf = new Map<string, string>();
  for (const p of config.ports) {
    const table = tableOf.get(p.vpc);
    if (p.ip !== undefined && table !== undefined) portOf.set(`${table} ${p.ip}`, p.name);
  }
  for (const u of await client.dump(msg.nat44_ei_user_dump, {})) {
    const port = portOf.get(`${u.vrf_id} ${u.ip_address}`);
    if (port !== undefined) out.set(port, (out.get(port) ?? 0) + u.nsessions + u.nstaticsessions);
  }
  return out;
}
