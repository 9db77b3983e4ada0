/**
 * One agent measured on its own, beside the fleet's twenty: the empty agent whose memory is the
 * baseline of bytes per endpoint, and row (d)'s large node. Each gets its own simulator and
 * memory cgroup, is measured, and is stopped before the next step, so that nothing it holds is
 * charged to another row.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from '../../src/datastore/testing/etcd-server.js';
import { createCgroup } from '../support/memory-limit.js';
import type { Cleanup } from './cleanup.js';
import { memoryOf, removeCgroup, startAgent, startSimulator } from './processes.js';
import { diffSteering, dumpSteering } from './vpp-steering.js';
import { now, readyz, withDeadline } from './waits.js';

/** Where and how the benchmark runs its agents. */
export interface SoloSetting {
  readonly dir: string;
  readonly etcdEndpoint: string;
  readonly cleanup: Cleanup;
  /** The memory cgroup limit, or undefined to run without one. */
  readonly limit: number | undefined;
  readonly timeoutMs: number;
}

export interface SoloMeasure {
  readonly seconds: number;
  readonly peakMiB: number;
  readonly liveHeap: number;
  /** Steering entries in its VPP that differ from `expected` (0 without it). */
  readonly wrong: number;
}

/**
 * One agent on its own (with its own simulator and cgroup), measured and stopped: converged to
 * `expected` (or, without, Ready: /readyz answers 200), then its peak RSS, its live heap after
 * GC, and its VPP read back against `expected`. `tag` names its files, cgroup and cleanups.
 */
export async function measureAlone(
  setting: SoloSetting,
  agentOf: { readonly name: string; readonly tag: string; readonly prefix: string },
  interfaces: readonly string[],
  expected: ReadonlyMap<string, string> | undefined,
): Promise<SoloMeasure> {
  const { dir, cleanup, limit } = setting;
  const { name, tag, prefix } = agentOf;
  const sim = await startSimulator(path.join(dir, `vpp-${tag}.sock`), interfaces);
  cleanup.add(`simulator ${tag}`, () => sim.stop());
  let cgroupProcs: string | undefined;
  if (limit !== undefined) {
    const cg = await createCgroup(limit, `vppnet-bench-fleet-${process.pid}-${tag}`);
    cleanup.add(`cgroup ${cg}`, () => removeCgroup(cg));
    cgroupProcs = path.join(cg, 'cgroup.procs');
  }
  const agentDir = path.join(dir, `agent-${tag}`);
  await mkdir(agentDir);
  const port = await freePort();
  const agent = startAgent({
    name,
    etcdEndpoint: setting.etcdEndpoint,
    prefix,
    vppSocket: sim.socketPath,
    dir: agentDir,
    listenPort: port,
    cgroupProcs,
  });
  cleanup.add(`agent ${tag}`, () => agent.stop());
  try {
    const t = await withDeadline(
      expected
        ? Promise.race([sim.mirror.converged(new Set(expected.keys())), agent.exited])
        : readyz(port, agent).then(now),
      setting.timeoutMs,
      `agent ${tag} converging`,
    );
    const { peakMiB } = memoryOf(agent.pid);
    // Once its pass has ended (Ready), not at the last steering reply: the plan is garbage then.
    await readyz(port, agent);
    const liveHeap = await agent.liveHeap();
    let wrong = 0;
    if (expected) {
      const d = diffSteering(expected, await dumpSteering(sim.socketPath, 'vppnet-bench-fleet'));
      wrong = d.missing + d.extra + d.wrongSid;
    }
    return { seconds: (t - agent.startedAt) / 1000, peakMiB, liveHeap, wrong };
  } finally {
    await agent.stop();
    await sim.stop();
  }
}
