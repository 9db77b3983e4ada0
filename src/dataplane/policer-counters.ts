/**
 * What each policer let through and dropped, from VPP's own counters. The policer plugin has no
 * API message that reads them (they live in the stats segment, which needs the stats socket and
 * shared memory), so they are read with `show policer` over cli_inband. VPP 26.06 prints per
 * policer (policer_cli.c show_policer_command_fn, format_policer_instance):
 *
 *   Name "vppnet:vm-rate:vm1" type 1r2c cir 1000 …
 *   …
 *   conform 5 packets, 534 bytes
 *   exceed 0 packets, 0 bytes
 *   violate 0 packets, 0 bytes
 *   -----------
 *
 * counted over every thread.
 */
import type { VppApi } from '../vpp/client/vpp-api.js';
import { msg } from '../vpp/messages/index.js';

export const SHOW_POLICER_COMMAND = 'show policer';

export interface PolicerCounts {
  readonly conformPackets: number;
  readonly exceedPackets: number;
  readonly violatePackets: number;
}

/** Counts per policer name; a policer whose counters are not all there is left out. */
export function parseShowPolicer(text: string): Map<string, PolicerCounts> {
  const out = new Map<string, PolicerCounts>();
  let name: string | undefined;
  let counts: Partial<Record<'conform' | 'exceed' | 'violate', number>> = {};
  for (const line of text.split('\n')) {
    const named = /^Name "([^"]*)"/.exec(line);
    if (named) {
      name = named[1];
      counts = {};
      continue;
    }
    const counted = /^(conform|exceed|violate) (\d+) packets,/.exec(line.trim());
    if (counted && name !== undefined) {
      counts[counted[1] as 'conform' | 'exceed' | 'violate'] = Number(counted[2]);
      const { conform, exceed, violate } = counts;
      if (conform !== undefined && exceed !== undefined && violate !== undefined)
        out.set(name, { conformPackets: conform, exceedPackets: exceed, violatePackets: violate });
    }
  }
  return out;
}

/** Every policer's counters in this VPP process (empty without the policer plugin). */
export async function readPolicerCounts(client: VppApi): Promise<Map<string, PolicerCounts>> {
  if (!client.supports(msg.policer_dump_v2)) return new Map();
  return parseShowPolicer(await client.cli(SHOW_POLICER_COMMAND));
}
