/**
 * Fleet mode's drift check of SR policies and steering: VPP's dumps compared with the steering
 * model (steering-model.ts) entry by entry as they stream in, instead of deriving the whole
 * config and planning 100k desired entries against 100k dumped ones. On a node steering 100k
 * prefixes that plan was seconds of one thread's work in large synchronous chunks, and every
 * route delta due meanwhile waited behind it (bench/fleet's (c) tail). Here the work comes in
 * pieces the size of a socket read, and the walk over the model yields every few thousand
 * entries.
 *
 * The model is what VPP must hold: a converged full pass's state plus the deltas applied since,
 * each confirmed by VPP. Whether the model still matches the records is the datastore source's
 * own audit (FleetSource.audit); together they are the drift check of the remote routes.
 */
import { keys } from '../dataplane/keys.js';
import { steeredIp6Value, STEERING_DETAILS_FIELDS } from '../srv6/reading.js';
import { bigIntToIp6, intToIp4, ip6InPrefix } from '../net/ip.js';
import { nextTurn } from '../util/next-turn.js';
import type { VppApi } from '../vpp/client/vpp-api.js';
import { msg } from '../vpp/messages/index.js';
import type { SteeringModel } from './steering-model.js';

/** One way VPP differs from the model, by the key a route delta's op on it would have. */
export interface SteeringDifference {
  readonly key: string;
  readonly what: string;
}

export interface SteeringAudit {
  readonly policies: number;
  readonly entries: number;
  readonly differences: readonly SteeringDifference[];
}

const STEER_IPV4 = msg.sr_steer_t.values.SR_STEER_API_IPV4;
const STEER_IPV6 = msg.sr_steer_t.values.SR_STEER_API_IPV6;

/** Model entries visited between two yields to the event loop. */
const SLICE = 4096;

/**
 * Compares VPP's vppnet policies (BSID in the model's BSID prefix) and the steering entries
 * pointing at them with the model. What a route delta changes while this runs shows up as a
 * difference too: the caller leaves out the keys deltas touched meanwhile.
 */
export async function auditSteering(
  client: VppApi,
  model: SteeringModel,
  yieldNow: () => Promise<void> = nextTurn,
): Promise<SteeringAudit> {
  const { bsidPrefix, encapSource } = model.basis;
  const differences: SteeringDifference[] = [];
  const expected = model.policies(); // remote SID → BSID
  const sidOfBsid = new Map<string, string>();
  for (const [sid, bsid] of expected) sidOfBsid.set(bsid, sid);

  // Policies: a few per remote node and VPC, a plain comparison.
  const seenPolicies = new Set<string>();
  await client.dumpEach(msg.sr_policies_v2_dump, {}, (p) => {
    if (!ip6InPrefix(p.bsid, bsidPrefix)) return;
    seenPolicies.add(p.bsid);
    const sid = sidOfBsid.get(p.bsid);
    const list = p.sid_lists[0];
    const sids = p.num_sid_lists === 1 && list ? list.sids.slice(0, list.num_sids) : [];
    if (sid === undefined) differences.push({ key: keys.srPolicy(p.bsid), what: 'not in the model' });
    else if (sids.length !== 1 || sids[0] !== sid || p.encap_src !== encapSource || p.fib_table !== 0)
      differences.push({
        key: keys.srPolicy(p.bsid),
        what: `steers to [${sids.join(', ')}] from ${p.encap_src} in table ${p.fib_table}, the model to ${sid}`,
      });
  });
  for (const [sid, bsid] of expected)
    if (!seenPolicies.has(bsid)) differences.push({ key: keys.srPolicy(bsid), what: `missing (to ${sid})` });

  // Steering: each entry checked on arrival, remembered compactly for the walk over the model.
  const seen = new Map<number, Set<number>>();
  const seen6 = new Map<number, Set<bigint>>();
  const ownBsid = new Map<string, boolean>();
  let entries = 0;
  await client.dumpEach(
    msg.sr_steering_pol_dump,
    {},
    (d) => {
      if (d.traffic_type !== STEER_IPV4 && d.traffic_type !== STEER_IPV6) return;
      let own = ownBsid.get(d.bsid);
      if (own === undefined) ownBsid.set(d.bsid, (own = ip6InPrefix(d.bsid, bsidPrefix)));
      if (!own) return;
      entries++;
      if (d.traffic_type === STEER_IPV6) {
        // As IPv4 below, the address as a 128-bit number, as the model keeps it.
        const address6 = steeredIp6Value(d.prefix.address);
        const len6 = d.prefix.len;
        const group6 = d.fib_table * 256 + len6;
        let inGroup6 = seen6.get(group6);
        if (!inGroup6) seen6.set(group6, (inGroup6 = new Set()));
        inGroup6.add(address6);
        const sid = model.sidAt6(d.fib_table, address6, len6);
        if (sid === undefined || expected.get(sid) !== d.bsid)
          differences.push(
            steeringDifference(
              keys.srSteering(d.fib_table, `${bigIntToIp6(address6)}/${len6}`, true),
              d.bsid,
              sid,
            ),
          );
        return;
      }
      const address = d.prefix.address.un.ip4;
      const len = d.prefix.len;
      const group = d.fib_table * 64 + len;
      let inGroup = seen.get(group);
      if (!inGroup) seen.set(group, (inGroup = new Set()));
      inGroup.add(address | 0);
      const sid = model.sidAtNumber(d.fib_table, address, len);
      if (sid === undefined || expected.get(sid) !== d.bsid)
        differences.push(
          steeringDifference(keys.srSteering(d.fib_table, `${intToIp4(address)}/${len}`), d.bsid, sid),
        );
    },
    { fields: STEERING_DETAILS_FIELDS, reuse: true },
  );
  let visited = 0;
  for (const [table, len, addresses] of model.entryGroups()) {
    const seenInGroup = seen.get(table * 64 + len);
    for (const address of addresses) {
      if (!seenInGroup?.has(address)) {
        const prefix = `${intToIp4(address >>> 0)}/${len}`;
        differences.push({ key: keys.srSteering(table, prefix), what: 'missing' });
      }
      if (++visited % SLICE === 0) await yieldNow();
    }
  }
  for (const [table, len, addresses] of model.entryGroups6()) {
    const seenInGroup = seen6.get(table * 256 + len);
    for (const address of addresses) {
      if (!seenInGroup?.has(address)) {
        const prefix = `${bigIntToIp6(address)}/${len}`;
        differences.push({ key: keys.srSteering(table, prefix, true), what: 'missing' });
      }
      if (++visited % SLICE === 0) await yieldNow();
    }
  }
  return { policies: seenPolicies.size, entries, differences };

  function steeringDifference(key: string, bsid: string, sid: string | undefined): SteeringDifference {
    return {
      key,
      what:
        sid === undefined
          ? `to ${bsid}, not in the model`
          : `to ${bsid}, the model to ${sid} (${expected.get(sid)})`,
    };
  }
}
