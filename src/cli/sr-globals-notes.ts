/**
 * What `vppnet plan --vpp` and `vppnet status` say about the SRv6 encap globals when VPP's CLI did
 * not tell them (srv6/sr-encaps.ts): where the value came from instead, or, when nothing
 * knew it, that the verdict may count an operation the agent would not really need. Nothing is
 * said when VPP answered, which is the normal case.
 */
import type { AgentConfig } from '../config/model.js';
import type { VppSnapshot } from '../hypervisor/snapshot.js';
import { SR_ENCAPS_HOP_LIMIT_COMMAND, SR_ENCAPS_SOURCE_COMMAND } from '../srv6/sr-encaps.js';
import { ip6InPrefix } from '../net/ip.js';
import type { SrGlobalsMemory } from '../srv6/actual.js';

export interface AgentMemorySource {
  /** The agent's state file, as named to the operator. */
  readonly path: string;
  /** Why it gave nothing, after it was loaded. */
  readonly loadProblem: string | undefined;
}

export function srGlobalsNotes(
  snapshot: VppSnapshot,
  config: AgentConfig,
  memory: SrGlobalsMemory | undefined,
  source: AgentMemorySource,
): string[] {
  const notes: string[] = [];
  const { srEncaps } = snapshot;
  const problemOf = (command: string): string =>
    srEncaps.problems.find((p) => p.startsWith(command)) ?? command;
  const remembered = memory !== undefined && memory.vppPid === snapshot.vppPid ? memory : undefined;
  const whyNoMemory = (field: 'hopLimit' | 'encapSource'): string => {
    if (memory === undefined) return source.loadProblem ?? `${source.path} holds nothing`;
    if (memory.vppPid !== snapshot.vppPid) {
      return `${source.path} is of VPP pid ${memory.vppPid}, not of this VPP (pid ${snapshot.vppPid}): VPP restarted since`;
    }
    return `${source.path} holds no ${field === 'hopLimit' ? 'hop limit' : 'encap source'}`;
  };

  if (srEncaps.hopLimit === undefined) {
    const why = `not readable from VPP (${problemOf(SR_ENCAPS_HOP_LIMIT_COMMAND)})`;
    notes.push(
      remembered?.hopLimit !== undefined
        ? `SRv6 hop limit ${why}; taken from the agent's memory in ${source.path}`
        : `SRv6 hop limit ${why}, nor from the agent's memory (${whyNoMemory('hopLimit')}): it counts as not set, so an sr-hop-limit operation may be shown that the agent would not need`,
    );
  }
  if (srEncaps.source === undefined) {
    const why = `not readable from VPP (${problemOf(SR_ENCAPS_SOURCE_COMMAND)})`;
    const { bsidPrefix } = config.node.srv6;
    if (snapshot.policies.some((p) => ip6InPrefix(p.bsid, bsidPrefix))) {
      notes.push(`SRv6 encap source ${why}; taken from vppnet's SR policies`);
    } else if (remembered?.encapSource !== undefined) {
      notes.push(`SRv6 encap source ${why}; taken from the agent's memory in ${source.path}`);
    } else {
      notes.push(
        `SRv6 encap source ${why}, nor from the agent's memory (${whyNoMemory('encapSource')}): it counts as not set, so an sr-encap-source operation may be shown that the agent would not need`,
      );
    }
  }
  return notes;
}
