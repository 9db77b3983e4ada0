import v8 from 'node:v8';

/**
 * The memory the agent runs under: Node sizes V8's heap from the cgroup limit it starts in (the
 * DaemonSet's limits.memory); without one the heap may grow to a quarter of the machine's memory
 * and RSS with it, garbage and all (see bench/README.md, bench/reconcile).
 */
export function memoryFields(): { memoryLimitMiB: number | null; heapLimitMiB: number } {
  const MiB = 1024 * 1024;
  const constrained = process.constrainedMemory?.() ?? 0;
  // cgroup v1 reports "no limit" as a near-2^64 number, v2 and no cgroup as 0.
  const limited = constrained > 0 && constrained < Number.MAX_SAFE_INTEGER;
  return {
    memoryLimitMiB: limited ? Math.round(constrained / MiB) : null,
    heapLimitMiB: Math.round(v8.getHeapStatistics().heap_size_limit / MiB),
  };
}
