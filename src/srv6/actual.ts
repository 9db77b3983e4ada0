/**
 * vppnet's SRv6 objects as found in VPP. SR objects carry no tag: local SIDs are vppnet's when
 * inside the node's locator, policies when their BSID is in vppnet's BSID prefix, steering when it
 * points at such a BSID. Encap source and hop limit have no dump in VPP 26.06; the snapshot reads
 * them from VPP's CLI (sr-encaps.ts). Only when that answer is not understood do they
 * come from elsewhere: the source from vppnet's policies, both from what this agent set on this
 * VPP process (its memory).
 */
import type { AgentConfig } from '../config/model.js';
import type { Srv6View } from './reading.js';
import { UNSET_ENCAP_SOURCE } from './sr-encaps.js';
import { ip6InPrefix } from '../net/ip.js';
import type { Resource } from '../reconcile/resource.js';
import { msg } from '../vpp/messages/index.js';
import {
  encapSourceDescriptor,
  hopLimitDescriptor,
  localSidDescriptor,
  policyDescriptor,
  type LocalSidValue,
  type PolicyValue,
} from './descriptors.js';
import type { SteeringSides } from './steering-resources.js';
import type { UnderlayAnnouncementMemory } from './underlay-neighbours.js';

/** What the agent set on a given VPP process (by pid): survives agent restarts when persisted. */
export interface SrGlobalsMemory {
  readonly vppPid: number;
  readonly encapSource?: string;
  readonly hopLimit?: number;
  /** The underlay's neighbour advertisement sent on this process (underlay-neighbours.ts). */
  readonly underlayAnnouncement?: UnderlayAnnouncementMemory;
  /** The acl plugin's UDP idle timeout set on this process (services/acl-session-descriptors.ts). */
  readonly aclUdpIdleSeconds?: number;
}

const DT4 = msg.sr_behavior_t.values.SR_BEHAVIOR_API_DT4;
const DT6 = msg.sr_behavior_t.values.SR_BEHAVIOR_API_DT6;

function behaviorName(behavior: number): LocalSidValue['behavior'] {
  if (behavior === DT4) return 'end.dt4';
  if (behavior === DT6) return 'end.dt6';
  // Never desired, so a SID of another behaviour in the locator is replaced.
  return `behavior-${behavior}` as LocalSidValue['behavior'];
}

/** Remote SID → BSID of vppnet's single-SID policies found in VPP (for stable BSID allocation). */
export function existingBsids(s: Srv6View, config: AgentConfig): Map<string, string> {
  return existingBsidsOf(s.policies, config);
}

/** existingBsids from the policies dump alone (read before the rest of the snapshot is in). */
export function existingBsidsOf(policies: Srv6View['policies'], config: AgentConfig): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of policies) {
    if (!ip6InPrefix(p.bsid, config.node.srv6.bsidPrefix)) continue;
    const list = p.sid_lists[0];
    if (p.num_sid_lists === 1 && list && list.num_sids === 1 && list.sids[0]) out.set(list.sids[0], p.bsid);
  }
  return out;
}

/** vppnet's SRv6 objects in VPP but the steering entries (actualSteering). */
export function actualSrv6(
  s: Srv6View,
  config: AgentConfig,
  memory: SrGlobalsMemory | undefined,
): Resource[] {
  const out: Resource[] = [];
  const { locator, bsidPrefix } = config.node.srv6;
  const remembered = memory && memory.vppPid === s.vppPid ? memory : undefined;

  const ownPolicies = s.policies.filter((p) => ip6InPrefix(p.bsid, bsidPrefix));
  // VPP's initial '::' is no source at all: the plan creates one rather than "updating" nothing.
  const reported = s.srEncaps.source === UNSET_ENCAP_SOURCE ? null : s.srEncaps.source;
  const encapSource =
    reported === undefined ? (ownPolicies[0]?.encap_src ?? remembered?.encapSource) : reported;
  if (encapSource !== undefined && encapSource !== null) {
    out.push(encapSourceDescriptor.resource({ address: encapSource }));
  }
  const hopLimit = s.srEncaps.hopLimit ?? remembered?.hopLimit;
  if (hopLimit !== undefined) {
    out.push(hopLimitDescriptor.resource({ hopLimit }));
  }

  for (const l of s.localSids) {
    if (!ip6InPrefix(l.addr, locator)) continue;
    const value: LocalSidValue = {
      sid: l.addr,
      behavior: behaviorName(l.behavior),
      table: l.xconnect_iface_or_vrf_table,
      fibTable: l.fib_table,
    };
    out.push(localSidDescriptor.resource(value));
  }

  for (const p of ownPolicies) {
    const list = p.sid_lists[0];
    const value: PolicyValue = {
      bsid: p.bsid,
      sids: p.num_sid_lists === 1 && list ? list.sids.slice(0, list.num_sids) : [],
      encapSource: p.encap_src,
      fibTable: p.fib_table,
    };
    out.push(policyDescriptor.resource(value));
  }
  return out;
}

/** vppnet's steering entries in VPP, IPv4 and IPv6: those that point at a BSID in its BSID prefix. */
export function actualSteering(s: Srv6View, config: AgentConfig): SteeringSides {
  const { bsidPrefix } = config.node.srv6;
  const own = (bsid: string): boolean => ip6InPrefix(bsid, bsidPrefix);
  return { steering: s.steering.filterByBsid(own), steering6: s.steering6.filterByBsid(own) };
}
