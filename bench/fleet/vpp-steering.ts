/**
 * What one VPP steers, read back through the API (not from the event stream): each steering
 * entry's table and prefix, and the SID its policy encapsulates to. Compared with what the
 * agent should hold after every change, it is the benchmark's "no change lost".
 */
import { canonicalIp6 } from '../../src/net/ip.js';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import { msg } from '../../src/vpp/messages/index.js';
import { fromApiAddress, ipText } from '../../src/vpp/sim/ip-addr.js';
import { steeringKey } from './changes.js';

/** Steering key → the first SID of its policy ("?" when its BSID has no policy). */
export async function dumpSteering(socketPath: string): Promise<Map<string, string>> {
  const client = new VppClient({
    socketPath,
    clientName: 'vppnet-bench-fleet',
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

export interface SteeringDiff {
  readonly missing: number;
  readonly extra: number;
  readonly wrongSid: number;
  /** A few examples, for the report. */
  readonly examples: readonly string[];
}

export function diffSteering(
  expected: ReadonlyMap<string, string>,
  found: ReadonlyMap<string, string>,
): SteeringDiff {
  let missing = 0;
  let extra = 0;
  let wrongSid = 0;
  const examples: string[] = [];
  const note = (s: string): void => {
    if (examples.length < 3) examples.push(s);
  };
  for (const [key, sid] of expected) {
    const got = found.get(key);
    if (got === undefined) {
      missing++;
      note(`missing ${key} → ${sid}`);
    } else if (got !== canonicalIp6(sid)) {
      wrongSid++;
      note(`${key} → ${got}, expected ${sid}`);
    }
  }
  for (const key of found.keys())
    if (!expected.has(key)) {
      extra++;
      note(`extra ${key}`);
    }
  return { missing, extra, wrongSid, examples };
}
