/**
 * What one VPP steers, read back through the API (not from the event stream): each steering
 * entry's table and prefix, and the SID its policy encapsulates to. Compared with what the
 * agent should hold after every change, it is the benchmark's "no change lost".
 */
import { canonicalIp6 } from '../../src/net/ip.js';

// The read-back is shared with the two-VPP fleet test (test/integration/fleet-two-vpps.test.ts).
export { dumpSteering } from '../../test/support/steering.js';

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
