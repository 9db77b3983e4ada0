/**
 * What `vppnet plan --vpp` and `vppnet status` say about the underlay's neighbour advertisement
 * (srv6/underlay-neighbours.ts). Sending one leaves nothing in VPP to read back: only the agent's
 * memory knows it was sent on this VPP process. Without that memory whether it was sent is
 * unknown: plan still lists the operation (the agent may need it), but status does not count it
 * as a difference, since a converged node whose agent keeps its state elsewhere would otherwise
 * never be "in sync". With the memory, the plan is exact and nothing is unknown.
 */
import type { Op, Plan } from '../reconcile/resource.js';
import type { SrGlobalsMemory } from '../srv6/actual.js';
import type { AgentMemorySource } from './sr-globals-notes.js';

/** An operation of the plan that rests on something neither VPP nor the agent's memory could tell. */
export interface UnknownItem {
  /** The operation's resource key, e.g. neighbor-announcement:…. */
  readonly key: string;
  readonly note: string;
}

export function underlayAnnouncementUnknowns(
  plan: Plan,
  memory: SrGlobalsMemory | undefined,
  source: AgentMemorySource,
): UnknownItem[] {
  if (memory !== undefined) return [];
  const op = plan.ops.find((o) => o.action === 'create' && o.resource.kind === 'neighbor-announcement');
  if (!op) return [];
  const why = source.loadProblem ?? `${source.path} holds nothing`;
  return [
    {
      key: op.resource.key,
      note: `${op.resource.key} not checked: the underlay's neighbour advertisement cannot be read from VPP, nor from the agent's memory (${why}); whether it was sent is unknown, so plan shows it as to be sent and status does not count it as a difference`,
    },
  ];
}

/** The plan's operations that are differences, not unknowns. */
export function knownOps(plan: Plan, unknown: readonly UnknownItem[]): Op[] {
  const keys = new Set(unknown.map((u) => u.key));
  return plan.ops.filter((o) => !keys.has(o.resource.key));
}
