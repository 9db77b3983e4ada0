/**
 * The processes bench/fleet runs (simulators and agents), their /proc figures, and the list of
 * everything to undo, which the benchmark runs on every way out (success, failure, Ctrl-C).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, watch } from 'node:fs';
import { readFileSync } from 'node:fs';
import { readFile, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentMain } from '../support/agent-main.js';
import { daemonSetNodeArgs } from '../support/daemonset-agent.js';
import { SteeringMirror } from './steering-mirror.js';

const SIM_PROCESS = fileURLToPath(new URL('../support/sim-process.js', import.meta.url));
/** Loaded into every agent: its live heap after GC on SIGUSR2 (heap-probe.ts). */
const HEAP_PROBE = new URL('./heap-probe.js', import.meta.url).href;

/** SIGTERM, then SIGKILL if the process has not exited within `graceMs`. */
export async function stopProcess(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export interface SimProcess {
  readonly socketPath: string;
  readonly pid: number;
  readonly mirror: SteeringMirror;
  stop(): Promise<void>;
}

/** A simulator with the given interfaces, reporting its steering replies into a mirror. */
export async function startSimulator(socketPath: string, interfaces: readonly string[]): Promise<SimProcess> {
  const child = fork(
    SIM_PROCESS,
    [socketPath, ...interfaces.flatMap((i) => ['--interface', i]), '--steering-events'],
    // The steering events of 100k entries and more outgrow the default heap's comfort.
    {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // BENCH_SIM_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=DIR": Node flags for the simulators.
      execArgv: [
        '--max-old-space-size=4096',
        // One V8 worker thread, not four: a simulator stands in for a VPP, which has its own cores
        // and no garbage collector. With four, the 20 simulators' collections (a 100k-entry one
        // marks ~150 MB) put dozens of helper threads on the run queue of this machine's 2 cores,
        // and the agents waited behind them (bench/README.md, bench/fleet, session 7).
        '--v8-pool-size=1',
        ...flagsFromEnv('BENCH_SIM_NODE_OPTIONS'),
      ],
    },
  );
  const mirror = new SteeringMirror();
  child.on('message', (m: unknown) => {
    const lines = (m as { steering?: unknown } | null)?.steering;
    if (typeof lines === 'string') for (const l of lines.split('\n')) mirror.line(l);
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`simulator for ${socketPath} exited with ${code}`)));
  });
  return { socketPath, pid: child.pid!, mirror, stop: () => stopProcess(child) };
}

export interface AgentProcess {
  readonly name: string;
  readonly pid: number;
  /** Where it serves /readyz. */
  readonly listenPort: number;
  /** Wall-clock ms just before it was spawned. */
  readonly startedAt: number;
  /** The last 8 KiB of its stdout and stderr, for the error when something goes wrong. */
  output(): string;
  /** Its live heap after a full GC, in bytes (heap-probe.ts, in the agent). */
  liveHeap(): Promise<number>;
  /** Rejects if the agent exits before stop(). */
  readonly exited: Promise<never>;
  stop(): Promise<void>;
}

export interface AgentOptions {
  readonly name: string;
  readonly etcdEndpoint: string;
  readonly prefix: string;
  readonly vppSocket: string;
  readonly dir: string;
  readonly listenPort: number;
  /** cgroup.procs of the memory cgroup to start it in (it moves there before exec'ing node). */
  readonly cgroupProcs?: string | undefined;
  /** Names its log in BENCH_AGENT_LOG_DIR when one node runs more than once (default: `name`). */
  readonly logTag?: string;
}

/** Node flags from an environment variable of this benchmark (space-separated). */
function flagsFromEnv(name: string): string[] {
  return (process.env[name] ?? '').split(/\s+/).filter(Boolean);
}

/**
 * The Node flags every agent runs with: the DaemonSet's NODE_OPTIONS (agent.nodeOptions), then
 * BENCH_AGENT_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/prof" for diagnosis.
 */
export function agentNodeFlags(): { readonly deployed: string[]; readonly extra: string[] } {
  return { deployed: daemonSetNodeArgs(), extra: flagsFromEnv('BENCH_AGENT_NODE_OPTIONS') };
}

/** For a benchmark's title: the Node.js options the agents run with. */
export function agentNodeOptions(): string {
  const { deployed, extra } = agentNodeFlags();
  return `agents with NODE_OPTIONS '${deployed.join(' ')}' (the DaemonSet's)${extra.length > 0 ? ` and ${extra.join(' ')}` : ''}`;
}

export function startAgent(o: AgentOptions): AgentProcess {
  const { deployed, extra } = agentNodeFlags();
  const heapFile = path.join(o.dir, 'live-heap');
  const args = [
    ...deployed,
    ...extra,
    // For liveHeap(): gc() for the probe, which does nothing until SIGUSR2.
    '--expose-gc',
    `--import=${HEAP_PROBE}`,
    agentMain(),
    '--datastore',
    'etcd',
    '--node-name',
    o.name,
    '--etcd-endpoints',
    o.etcdEndpoint,
    '--datastore-prefix',
    o.prefix,
    '--vpp-socket',
    o.vppSocket,
    '--state-dir',
    o.dir,
    '--agent-socket',
    path.join(o.dir, 'agent.sock'),
    '--service-map-socket',
    path.join(o.dir, 'services', 'service-map.sock'),
    '--listen',
    `127.0.0.1:${o.listenPort}`,
    '--log-level',
    process.env.BENCH_AGENT_LOG_LEVEL ?? (process.env.BENCH_AGENT_LOG_DIR ? 'info' : 'warn'),
  ];
  const env = { ...process.env, VPPNET_BENCH_HEAP_FILE: heapFile };
  const startedAt = performance.timeOrigin + performance.now();
  // Through a shell that enters the cgroup and then becomes node: Node sizes its heap from the
  // cgroup's limit at start-up, as under the DaemonSet.
  const child = o.cgroupProcs
    ? spawn(
        '/bin/sh',
        ['-c', 'echo $$ > "$1" && shift && exec "$@"', 'sh', o.cgroupProcs, process.execPath, ...args],
        { stdio: ['ignore', 'pipe', 'pipe'], env },
      )
    : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let tail = '';
  const keep = (d: Buffer): void => {
    tail = (tail + d.toString()).slice(-8192);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  // BENCH_AGENT_LOG_DIR=DIR: each agent's info log in DIR/NAME.log, for where its time went.
  const logDir = process.env.BENCH_AGENT_LOG_DIR;
  if (logDir) child.stdout.pipe(createWriteStream(path.join(logDir, `${o.logTag ?? o.name}.log`)));
  let stopping = false;
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) => {
      if (!stopping) reject(new Error(`agent ${o.name} exited (${code ?? signal}):\n${tail}`));
    }),
  );
  exited.catch(() => undefined);
  return {
    name: o.name,
    pid: child.pid!,
    listenPort: o.listenPort,
    startedAt,
    output: () => tail,
    liveHeap: async () => {
      await rm(heapFile, { force: true });
      // The probe renames the file into place once written: its appearance is the answer.
      const written = new Promise<void>((resolve) => {
        const watcher = watch(o.dir, () => {
          if (!existsSync(heapFile)) return;
          watcher.close();
          resolve();
        });
      });
      child.kill('SIGUSR2');
      await Promise.race([written, exited]);
      return Number(await readFile(heapFile, 'utf8'));
    },
    exited,
    stop: () => {
      stopping = true;
      return stopProcess(child);
    },
  };
}

/** Removes a cgroup once its processes are gone. */
export function removeCgroup(dir: string): Promise<void> {
  return rmdir(dir);
}

/** VmHWM (peak RSS) and VmRSS of a process, in MiB. */
export function memoryOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: kb('VmRSS') / 1024, peakMiB: kb('VmHWM') / 1024 };
}

/** CPU seconds (user + system) a process has used, from /proc/PID/stat. */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command (which may hold spaces) start after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** sysconf(_SC_CLK_TCK): 100 on every Linux Node runs on (USER_HZ is fixed in the ABI). */
const CLOCK_TICKS = 100;
