/**
 * Running a benchmark under a memory limit, as Kubernetes runs the agent: in a memory cgroup whose
 * limit Node reads at start-up (uv_get_constrained_memory) to size V8's heap. Under the
 * DaemonSet's 256 Mi that gives a ~259 MiB heap limit instead of the 4 GiB Node picks on a 24 GiB
 * machine, and V8 collects garbage accordingly: peak RSS is the agent's as deployed, not as it
 * would be with a whole machine to spend. The process re-run in the cgroup also gets the
 * DaemonSet's Node options (agent.nodeOptions): the agent's code runs in it.
 *
 * BENCH_MEMORY_LIMIT: `daemonset` (default: the agent's limits.memory from
 * deploy/values/default.yaml), a quantity such as `512Mi`, or `none`. Needs root and a writable
 * cgroup filesystem (v1 memory controller or v2); otherwise the benchmark says so and runs without.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseQuantity } from '../../deploy/render/quantity.js';
import { daemonSetAgent, daemonSetNodeArgs } from './daemonset-agent.js';

const INSIDE = 'VPPNET_BENCH_MEMORY_LIMIT_BYTES';

export interface MemoryLimit {
  /** The limit this process runs under, in bytes; undefined without one. */
  readonly bytes: number | undefined;
  /**
   * For the table's title, e.g. "256 MiB memory cgroup (the DaemonSet's limits.memory), NODE_OPTIONS
   * '--v8-pool-size=1' (the DaemonSet's)".
   */
  readonly description: string;
}

/**
 * Re-runs this process inside a memory cgroup and returns its exit code, or returns the limit the
 * process already runs under (the child, or no limit wanted or possible).
 */
export async function underMemoryLimit(): Promise<MemoryLimit | { readonly exitCode: number }> {
  const inside = process.env[INSIDE];
  if (inside !== undefined) return { bytes: Number(inside), description: describe(Number(inside)) };
  const deployed = daemonSetNodeArgs();
  const noOptions =
    deployed.length > 0 ? `; without the DaemonSet's NODE_OPTIONS '${deployed.join(' ')}'` : '';
  const bytes = wantedMemoryLimit();
  if (bytes === undefined)
    return { bytes: undefined, description: `no memory limit (BENCH_MEMORY_LIMIT=none)${noOptions}` };
  const cgroup = await createCgroup(bytes).catch((err: Error) => err);
  if (cgroup instanceof Error) {
    return {
      bytes: undefined,
      description: `no memory limit: cannot make a memory cgroup (${cgroup.message})${noOptions}`,
    };
  }
  try {
    // The shell moves itself into the cgroup, then becomes node: Node sees the limit from its start.
    // The agent's code runs in this process, so it gets the DaemonSet's Node options too (as
    // arguments: NODE_OPTIONS would reach the helper processes the benchmark starts as well).
    const child = spawn(
      '/bin/sh',
      [
        '-c',
        'echo $$ > "$1" && shift && exec "$@"',
        'sh',
        path.join(cgroup, 'cgroup.procs'),
        process.execPath,
        ...deployed,
        ...process.execArgv,
        ...process.argv.slice(1),
      ],
      { stdio: 'inherit', env: { ...process.env, [INSIDE]: String(bytes) } },
    );
    const exitCode = await new Promise<number>((resolve) =>
      child.on('close', (code, signal) => {
        // SIGKILL with nothing printed is most likely the cgroup's OOM killer (the kernel's log says).
        if (signal !== null)
          process.stderr.write(
            `benchmark process killed by ${signal}${signal === 'SIGKILL' ? ` (out of memory in its ${bytes / (1024 * 1024)} MiB cgroup?)` : ''}\n`,
          );
        resolve(code ?? 1);
      }),
    );
    return { exitCode };
  } finally {
    await rmdir(cgroup).catch(() => undefined);
  }
}

/** The limit BENCH_MEMORY_LIMIT asks for, in bytes: the DaemonSet's by default; undefined for `none`. */
export function wantedMemoryLimit(): number | undefined {
  const wanted = process.env.BENCH_MEMORY_LIMIT ?? 'daemonset';
  if (wanted === 'none') return undefined;
  const bytes = wanted === 'daemonset' ? daemonSetLimit() : parseQuantity(wanted, 'memory');
  if (bytes === undefined)
    throw new Error(`BENCH_MEMORY_LIMIT=${wanted}: not a memory quantity (e.g. 256Mi) or 'none'`);
  return bytes;
}

/** The agent's limits.memory in deploy/values/default.yaml, in bytes. */
export function daemonSetLimit(): number | undefined {
  return parseQuantity(daemonSetAgent().resources.limits.memory, 'memory');
}

function describe(bytes: number): string {
  const fromValues =
    process.env.BENCH_MEMORY_LIMIT === undefined || process.env.BENCH_MEMORY_LIMIT === 'daemonset';
  const deployed = daemonSetNodeArgs();
  const options = deployed.length > 0 ? `, NODE_OPTIONS '${deployed.join(' ')}' (the DaemonSet's)` : '';
  return `${bytes / (1024 * 1024)} MiB memory cgroup${fromValues ? " (the DaemonSet's limits.memory)" : ''}${options}`;
}

/** A fresh memory cgroup with the limit, v2 or v1, named after this process unless named. */
export async function createCgroup(bytes: number, name = `vppnet-bench-${process.pid}`): Promise<string> {
  const v2 = existsSync('/sys/fs/cgroup/cgroup.controllers');
  const dir = v2 ? path.join('/sys/fs/cgroup', name) : path.join('/sys/fs/cgroup/memory', name);
  await mkdir(dir);
  try {
    await writeFile(path.join(dir, v2 ? 'memory.max' : 'memory.limit_in_bytes'), String(bytes));
  } catch (err) {
    await rmdir(dir).catch(() => undefined);
    throw err;
  }
  return dir;
}

/**
 * Moves a helper process (the simulator standing in for VPP) out of this benchmark's memory cgroup:
 * VPP is not the agent, and its memory must not count against the agent's limit. It should be
 * started with an explicit heap size, since Node sized its heap under the limit when it started.
 */
export async function leaveMemoryLimit(pid: number): Promise<void> {
  if (process.env[INSIDE] === undefined) return;
  const root = existsSync('/sys/fs/cgroup/cgroup.controllers') ? '/sys/fs/cgroup' : '/sys/fs/cgroup/memory';
  await writeFile(path.join(root, 'cgroup.procs'), String(pid));
}

/** execArgv for a helper process that leaves the limit: a heap of its own size. */
export function helperExecArgv(): string[] {
  return process.env[INSIDE] === undefined ? [] : ['--max-old-space-size=8192'];
}
