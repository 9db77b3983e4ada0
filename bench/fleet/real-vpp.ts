/**
 * bench/fleet's (a) against a real VPP (BENCH_FLEET_VPP_SOCKET, with BENCH_VPP_RESTART): hv0's
 * agent process cold-starts against it, and VPP's own time for the frames that cold start sends
 * is measured as bench/reconcile measures a pass's: recorded, then replayed raw by vppblast
 * against a VPP in the same start state. Three runs, each on a freshly restarted VPP with hv0's
 * interfaces created again in the same order:
 *
 * 1. recorded: hv0 through a recording proxy on its API socket path (recording-proxy.ts), until
 *    Ready; the proxy is in this run only;
 * 2. timed: hv0 straight on VPP's socket, between two bare reads of its scope from etcd, from
 *    its process's start to Ready (/readyz 200: its first pass ended); VPP then read back and
 *    compared with the records;
 * 3. replayed: vppblast sends the recorded frames (bench/api/vpp-limit.ts).
 *
 * A replay is refused when VPP gave the interfaces other indexes than in the recorded run (the
 * frames name them), when the agent connected more than once while recorded (frames missing),
 * and when a replayed request answered a non-zero retval (VPP was not in the recording's state).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import { freePort } from '../../src/datastore/testing/etcd-server.js';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import { msg } from '../../src/vpp/messages/index.js';
import { prepareVppLimit, type ReplayMeasurement, type VppLimit } from '../api/vpp-limit.js';
import { FrameRecorder } from '../reconcile/frame-recorder.js';
import { createCgroup } from '../support/memory-limit.js';
import { fmt } from '../support/report.js';
import { bareRead, type ScopeRanges } from './bare-read.js';
import { memoryOf, removeCgroup, startAgent, type AgentProcess } from './processes.js';
import { RecordingProxy } from './recording-proxy.js';
import type { SoloSetting } from './solo-agent.js';
import { diffSteering, dumpSteering } from './vpp-steering.js';
import { now, readyz, withDeadline } from './waits.js';

export interface RealVpp {
  readonly socketPath: string;
  /** A shell command that restarts it with an empty configuration, e.g. '/tmp/startvpp.sh 2'. */
  readonly restartCommand: string;
}

/** BENCH_FLEET_VPP_SOCKET and BENCH_VPP_RESTART, or undefined for the simulator alone. */
export function realVppFromEnv(env: NodeJS.ProcessEnv = process.env): RealVpp | undefined {
  const socketPath = env.BENCH_FLEET_VPP_SOCKET;
  if (socketPath === undefined || socketPath === '') return undefined;
  const restartCommand = env.BENCH_VPP_RESTART;
  if (restartCommand === undefined || restartCommand === '')
    throw new Error(
      'BENCH_FLEET_VPP_SOCKET needs BENCH_VPP_RESTART (a shell command that restarts that VPP empty): ' +
        'the replay needs VPP in the cold start’s start state',
    );
  return { socketPath, restartCommand };
}

/** Interface name → sw_if_index, as VPP numbered them. */
export type StartState = ReadonlyMap<string, number>;

/** Why a VPP in state `now` is not in the recorded run's start state, or undefined if it is. */
export function startStateDiffers(recorded: StartState, current: StartState): string | undefined {
  const differ: string[] = [];
  for (const [name, index] of recorded) {
    const got = current.get(name);
    if (got !== index)
      differ.push(`${name} is ${got === undefined ? 'missing' : `sw_if_index ${got}`}, was ${index}`);
  }
  for (const name of current.keys()) if (!recorded.has(name)) differ.push(`${name} was not there`);
  return differ.length === 0 ? undefined : differ.join('; ');
}

/** Runs a shell command; rejects with its output unless it exits 0. */
async function runShell(command: string): Promise<void> {
  const child = spawn('/bin/sh', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr.on('data', (b: Buffer) => (output += b.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`BENCH_VPP_RESTART exited with ${code}: ${output.trim()}`);
}

/**
 * Restarts VPP and gives it hv0's interfaces, in order: a loopback each, renamed to the name the
 * node's records give (the underlay NIC, the ports' interfaces), as NICs someone else made.
 */
export async function freshVpp(vpp: RealVpp, names: readonly string[]): Promise<StartState> {
  await runShell(vpp.restartCommand);
  const client = new VppClient({
    socketPath: vpp.socketPath,
    clientName: 'vppnet-bench-fleet-setup',
    healthCheckIntervalMs: 0,
    retryStrategy: () => 100,
  });
  // Retried until ready: a restart command may return before VPP's socket is there.
  client.start();
  try {
    await client.whenReady(60_000);
    const state = new Map<string, number>();
    for (const name of names) {
      const { sw_if_index } = await client.call(msg.create_loopback_instance, {});
      const [d] = await client.dump(msg.sw_interface_dump, { sw_if_index });
      if (!d) throw new Error(`loopback ${sw_if_index} not in VPP's dump`);
      await client.cli(`set interface name ${d.interface_name} ${name}`);
      const [renamed] = await client.dump(msg.sw_interface_dump, { sw_if_index });
      if (renamed?.interface_name !== name)
        throw new Error(
          `VPP did not rename ${d.interface_name} to ${name} (it is ${renamed?.interface_name})`,
        );
      state.set(name, sw_if_index);
    }
    return state;
  } finally {
    await client.close();
  }
}

export interface RealColdStartSetting {
  readonly solo: SoloSetting;
  readonly agent: { readonly name: string; readonly prefix: string };
  /** hv0's interfaces: the underlay first, then its ports'. */
  readonly interfaces: readonly string[];
  /** What hv0 must steer (steering key → SID). */
  readonly expected: ReadonlyMap<string, string>;
  readonly scope: ScopeRanges;
  /** vppblast's replies in flight. */
  readonly window: number;
  /** The target of cold start ÷ (bare read + replay). */
  readonly target: number;
}

export interface RealColdStart {
  readonly seconds: number;
  /** The recorded run's cold start, the proxy in the path: for scale, not timed for the ratio. */
  readonly recordedSeconds: number;
  readonly peakMiB: number;
  /** Steering entries in VPP that differ from the records after the timed cold start. */
  readonly wrong: number;
  readonly readBefore: { readonly seconds: number; readonly keys: number };
  readonly readAfter: { readonly seconds: number; readonly keys: number };
  readonly frames: number;
  readonly leftOut: ReadonlyMap<string, number>;
  readonly replay: ReplayMeasurement | { readonly reason: string };
}

/** One run of hv0 against `vppSocket` until Ready; stopped after `measure`. */
async function runAgent<T>(
  s: RealColdStartSetting,
  tag: string,
  vppSocket: string,
  measure: (agent: AgentProcess, readyAt: number) => Promise<T>,
): Promise<T> {
  const { solo } = s;
  let cgroupProcs: string | undefined;
  if (solo.limit !== undefined) {
    const cg = await createCgroup(solo.limit, `vppnet-bench-fleet-${process.pid}-${tag}`);
    solo.cleanup.add(`cgroup ${cg}`, () => removeCgroup(cg));
    cgroupProcs = path.join(cg, 'cgroup.procs');
  }
  const dir = path.join(solo.dir, `agent-${tag}`);
  await mkdir(dir);
  const port = await freePort();
  const agent = startAgent({
    ...s.agent,
    etcdEndpoint: solo.etcdEndpoint,
    vppSocket,
    dir,
    listenPort: port,
    cgroupProcs,
    logTag: tag,
  });
  solo.cleanup.add(`agent ${tag}`, () => agent.stop());
  try {
    // Polled every 10 ms: a cold start of seconds, read to within 1 %.
    const readyAt = await withDeadline(
      readyz(port, agent, 10).then(now),
      solo.timeoutMs,
      `agent ${tag} ready`,
    );
    return await measure(agent, readyAt);
  } finally {
    await agent.stop();
  }
}

/** (a)'s rows against the real VPP (step, figure, target, met), measured as the header says. */
export async function realVppColdStartRows(
  vpp: RealVpp,
  s: RealColdStartSetting,
): Promise<[string, string, string?, string?][]> {
  const vppLimit = await prepareVppLimit({ socketPath: vpp.socketPath, simulator: false });
  try {
    const r = await coldStartAgainstRealVpp(vpp, vppLimit, s);
    return realVppRows(r, { socketPath: vpp.socketPath, entries: s.expected.size, ...s });
  } finally {
    if (vppLimit.available) await vppLimit.dispose();
  }
}

export async function coldStartAgainstRealVpp(
  vpp: RealVpp,
  vppLimit: VppLimit,
  s: RealColdStartSetting,
): Promise<RealColdStart> {
  const { solo } = s;
  // 1. Recorded.
  const recordedState = await freshVpp(vpp, s.interfaces);
  const recorder = new FrameRecorder();
  const proxySocket = path.join(solo.dir, 'vpp-recording-proxy.sock');
  const proxy = await RecordingProxy.listen(proxySocket, vpp.socketPath, recorder);
  solo.cleanup.add('recording proxy', () => proxy.close());
  recorder.start();
  // Stopped at Ready, before the agent is: its sockclnt_delete and what its stop sends are no
  // part of the cold start.
  const recordedSeconds = await runAgent(s, 'hv0-recorded', proxySocket, (agent, readyAt) => {
    recorder.stop();
    return Promise.resolve((readyAt - agent.startedAt) / 1000);
  });
  await proxy.close();
  const prefix = path.join(solo.dir, 'cold-start');
  const written = await recorder.write(prefix);

  // 2. Timed, without the proxy.
  let refused = startStateDiffers(recordedState, await freshVpp(vpp, s.interfaces));
  const readBefore = await bareRead(solo.etcdEndpoint, s.scope);
  const timed = await runAgent(s, 'hv0-real', vpp.socketPath, async (agent, readyAt) => {
    const { peakMiB } = memoryOf(agent.pid);
    const d = diffSteering(s.expected, await dumpSteering(vpp.socketPath, 'vppnet-bench-fleet'));
    return { seconds: (readyAt - agent.startedAt) / 1000, peakMiB, wrong: d.missing + d.extra + d.wrongSid };
  });
  const readAfter = await bareRead(solo.etcdEndpoint, s.scope);

  // 3. Replayed, on VPP in the same start state again.
  let replay: RealColdStart['replay'];
  refused ??= startStateDiffers(recordedState, await freshVpp(vpp, s.interfaces));
  if (proxy.connections !== 1)
    replay = { reason: `the agent connected ${proxy.connections} times while recorded (one is replayed)` };
  else if (proxy.error)
    replay = { reason: `the recording proxy could not parse a frame: ${proxy.error.message}` };
  else if (refused !== undefined)
    replay = { reason: `VPP not in the recorded run's start state: ${refused}` };
  else if (!vppLimit.available) replay = { reason: vppLimit.reason };
  else {
    const r = await vppLimit.replay(prefix, s.window, 0, written.frames);
    replay =
      r.nonzeroRetval === 0
        ? r
        : {
            reason: `${r.nonzeroRetval} replayed requests answered a non-zero retval (VPP not in the recording's start state)`,
          };
  }
  // Left empty, as found.
  await runShell(vpp.restartCommand);
  return {
    ...timed,
    recordedSeconds,
    readBefore,
    readAfter,
    frames: written.frames,
    leftOut: written.leftOut,
    replay,
  };
}

/** (a)'s rows against the real VPP from what was measured: step, figure, target, met. */
export function realVppRows(
  r: RealColdStart,
  s: {
    readonly socketPath: string;
    readonly entries: number;
    readonly window: number;
    readonly target: number;
  },
): [string, string, string?, string?][] {
  const bare = (r.readBefore.seconds + r.readAfter.seconds) / 2;
  const leftOut = [...r.leftOut].map(([name, n]) => `, ${fmt(n)} ${name} left out`).join('');
  const rows: [string, string, string?, string?][] = [
    [
      `(a) against the real VPP at ${s.socketPath}: hv0 cold start, process start to Ready (/readyz), ${fmt(s.entries)} steering entries`,
      `${fmt(r.seconds, 2)} s, peak RSS ${fmt(r.peakMiB, 1)} MiB; VPP = records: ${r.wrong === 0 ? 'yes' : `NO (${r.wrong} differ)`}`,
    ],
    [
      "(a) real VPP: the recorded run's cold start (through the recording proxy; not the one timed above)",
      `${fmt(r.recordedSeconds, 2)} s`,
    ],
    [
      `(a) real VPP: bare read of hv0's scope (${fmt(r.readBefore.keys)} keys): before / after that cold start`,
      `${fmt(r.readBefore.seconds, 2)} / ${fmt(r.readAfter.seconds, 2)} s`,
    ],
  ];
  if ('reason' in r.replay) {
    rows.push([
      '(a) cold start ÷ (bare read + replay of its frames to VPP)',
      `n/a (${r.replay.reason}); ÷ the bare read alone: ${fmt(r.seconds / bare, 2)}×`,
      `≤ ${s.target}×`,
      r.seconds / bare <= s.target ? 'yes' : 'unknown',
    ]);
    return rows;
  }
  const ratio = r.seconds / (bare + r.replay.seconds);
  rows.push(
    [
      `(a) VPP's own limit: vppblast replay of the ${fmt(r.frames)} frames that cold start sent (recorded in a run of its own; window ${s.window}${leftOut})`,
      `${fmt(r.replay.seconds, 2)} s`,
    ],
    [
      '(a) cold start ÷ (bare read + replay of its frames to VPP)',
      `${fmt(ratio, 2)}× (${fmt(r.seconds, 2)} ÷ (${fmt(bare, 2)} + ${fmt(r.replay.seconds, 2)})); ÷ the bare read alone: ${fmt(r.seconds / bare, 2)}×`,
      `≤ ${s.target}×`,
      r.wrong === 0 && ratio <= s.target ? 'yes' : 'NO',
    ],
  );
  return rows;
}
