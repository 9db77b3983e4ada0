/**
 * What `vppnet plan --vpp` and `vppnet status` say about the underlay's neighbour advertisement
 * (srv6/underlay-neighbours.ts). Sending one leaves nothing in VPP to read back: only the agent's
 * memory knows it was sent on this VPP process. Without that memory the plan counts it as not
 * sent, which an agent with its state directory may not need; with it, the plan is exact.
 */
import type { Plan } from '../reconcile/resource.js';
import type { SrGlobalsMemory } from '../srv6/actual.js';
import type { AgentMemorySource } from './sr-globals-notes.js';

export function underlayAnnouncementNotes(
  plan: Plan,
  memory: SrGlobalsMemory | undefined,
  source: AgentMemorySource,
): string[] {
  if (memory !== undefined) return [];
  const op = plan.ops.find((o) => o.action === 'create' && o.resource.kind === 'neighbor-announcement');
  if (!op) return [];
  const why = source.loadProblem ?? `${source.path} holds nothing`;
  return [
    `the underlay's neighbour advertisement cannot be read from VPP, nor from the agent's memory (${why}): it counts as not sent, so a ${op.resource.key} operation may be shown that the agent would not need`,
  ];
}
