/**
 * bench/reconcile: how long vppnet-agent takes to converge a large node, and its memory.
 *   npm run bench:reconcile                         # against the simulator
 *   VPP_API_SOCKET=/run/vpp/api.sock npm run bench:reconcile
 * Default size: 1,000 VPCs x 100 remote routes = 100,000 steering entries (BENCH_VPCS,
 * BENCH_ROUTES to change), measured twice in one run: an IPv4 node (remote /24s in IPv4-only VPCs) and an IPv6 node (remote /128s, the endpoints of IPv6-only VPCs), each in a process
 * of its own so that each has its own peak RSS (BENCH_FAMILIES=4 or 6 for one of them). Rows per
 * node: loading the config file, from empty, no-change, and after a VPP restart (simulator
 * only); then IPv6 ÷ IPv4 of each. The config is loaded as the agent loads it: a YAML file read
 * with loadConfigFile, so that its cost is part of this process's memory.
 * Against a real VPP the from-empty pass's frames are recorded and replayed raw by vppblast
 * (../shared/tools/vppblast) against VPP in the same start state: VPP's own time on the same
 * work, printed beside vppnet's. At the end VPP is left as it was found.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import { reconcile } from '../../src/agent/reconciler.js';
import { memoryStore } from '../../src/hypervisor/reconcile.js';
import { loadConfigFile } from '../../src/config/load.js';
import type { AgentConfig } from '../../src/config/model.js';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import { msg } from '../../src/vpp/messages/index.js';
import { UnixSocketTransport } from '../../src/vpp/transport/unix-socket-transport.js';
import { prepareVppLimit, type ReplayMeasurement, type VppLimit } from '../api/vpp-limit.js';
import { FrameRecorder } from './frame-recorder.js';
import { noHostLinks } from '../support/no-host-links.js';
import { leaveMemoryLimit, underMemoryLimit } from '../support/memory-limit.js';
import { fmt, peakRssMiB, printTable, rssMiB, type Row } from '../support/report.js';
import { vppUnderTest } from '../support/vpp-under-test.js';

type Family = 4 | 6;

const N_VPCS = Number(process.env.BENCH_VPCS ?? 1000);
const N_ROUTES = Number(process.env.BENCH_ROUTES ?? 100);
/** Replies vppblast keeps in flight when it replays the from-empty pass. */
const REPLAY_WINDOW = Number(process.env.BENCH_REPLAY_WINDOW ?? 64);
/**
 * A shell command that restarts the real VPP under test (state lost), for the "after a VPP
 * restart" row; the simulator restarts itself.
 */
const RESTART_COMMAND = process.env.BENCH_VPP_RESTART;
/**
 * A file to write a V8 CPU profile of the no-change pass to (open it in Chrome's DevTools or
 * speedscope); the other passes are not profiled. `node --cpu-prof` would profile the whole run.
 */
const CPU_PROFILE_FILE = process.env.BENCH_CPU_PROFILE;
/** As BENCH_CPU_PROFILE, for the from-empty pass. */
const CPU_PROFILE_FROM_EMPTY_FILE = process.env.BENCH_CPU_PROFILE_FROM_EMPTY;
/** show_version_reply.build_directory of vppnet's simulator (src/vpp/sim/simulator.ts). */
const SIM_BUILD_DIRECTORY = '/vppnet-sim';
/** The nodes measured, in this order, each in a process of its own: IPv4, IPv6 ("4,6"). */
const FAMILIES = process.env.BENCH_FAMILIES ?? '4,6';
/** Set in a node's process: the family it measures, and the file its summary goes to. */
const FAMILY_ENV = 'VPPNET_BENCH_RECONCILE_FAMILY';
const SUMMARY_ENV = 'VPPNET_BENCH_RECONCILE_SUMMARY';
/** The target of every IPv6 ÷ IPv4 ratio (issue 23: IPv6 steering at IPv4's scale). */
const FAMILY_RATIO_TARGET = 1.2;

/**
 * Writes the agent config a node with N_VPCS x N_ROUTES remote routes would get, one VPC at a
 * time, so that making it costs this process (whose RSS is measured) next to nothing. IPv4: VPCs
 * with an IPv4 subnet, remote /24s to the remote End.DT4 SIDs. IPv6: IPv6-only VPCs, each its own
 * /64, remote /128s (SLAAC-like endpoints) to the remote End.DT6 SIDs.
 */
function writeBenchConfig(file: string, underlay: string, family: Family): void {
  const fd = openSync(file, 'w');
  try {
    writeSync(
      fd,
      `node:\n  name: bench\n  underlay:\n    interface: ${underlay}\n    address: 2001:db8::1/64\n    gateway: 2001:db8::2\n`,
    );
    writeSync(fd, '  srv6:\n    locator: fc00:1::/48\nports: []\nvpcs:\n');
    const subnet6 = (i: number): string => `2001:db8:${(0x1000 + i).toString(16)}`;
    for (let i = 0; i < N_VPCS; i++) {
      writeSync(
        fd,
        family === 4
          ? `  - name: vpc-${i}\n    id: ${1000 + i}\n    subnets: [10.0.0.0/24]\n    gateway: 10.0.0.1\n`
          : `  - name: vpc-${i}\n    id: ${1000 + i}\n    subnets: ['${subnet6(i)}::/64']\n`,
      );
    }
    writeSync(fd, 'remoteRoutes:\n');
    for (let i = 0; i < N_VPCS; i++) {
      // The remote node's End.DT4 SID for the VPC, or its End.DT6 SID (the DT4 one + 2^24).
      const sid = `fc00:2::${family === 4 ? '' : '100:'}${(1000 + i).toString(16)}`;
      let routes = '';
      for (let j = 0; j < N_ROUTES; j++) {
        const prefix =
          family === 4
            ? `10.${1 + (j >> 8)}.${j & 255}.0/24`
            : `'${subnet6(i)}:0:5054:ff:fe${(j >> 16).toString(16).padStart(2, '0')}:${(j & 0xffff).toString(16)}/128'`;
        routes += `  - vpc: vpc-${i}\n    prefix: ${prefix}\n    sid: ${sid}\n`;
      }
      writeSync(fd, routes);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Runs a shell command outside this process's memory cgroup (a VPP it starts must not share the
 * agent's limit): the shell waits for a line on stdin until it has been moved out.
 */
async function runShellOutsideLimit(command: string): Promise<void> {
  const child = spawn('/bin/sh', ['-c', 'read _ && exec /bin/sh -c "$0"', command], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr.on('data', (b: Buffer) => (output += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (child.pid !== undefined) await leaveMemoryLimit(child.pid);
  child.stdin.end('\n');
  const code = await exited;
  if (code !== 0) throw new Error(`BENCH_VPP_RESTART exited with ${code}: ${output}`);
}

/** What a node's process hands the comparison (compareFamilies). */
interface FamilySummary {
  readonly family: Family;
  /** Each pass's seconds and the peak RSS at its end, by pass name (load config, from empty, …). */
  readonly passes: Readonly<Record<string, { readonly seconds: number; readonly peakRssMiB: number }>>;
  /** vppblast's seconds replaying the pass's frames, by pass name, where measured. */
  readonly replays: Readonly<Record<string, number>>;
}

/** One node's rows (family 4 or 6), in this process (under the memory limit, re-run in its cgroup). */
async function measureFamily(family: Family): Promise<void> {
  const limit = await underMemoryLimit();
  if ('exitCode' in limit) {
    process.exitCode = limit.exitCode;
    return;
  }
  if (!(REPLAY_WINDOW >= 1))
    throw new Error(`BENCH_REPLAY_WINDOW must be a positive number, got ${process.env.BENCH_REPLAY_WINDOW}`);
  const vpp = await vppUnderTest();
  const recorder = new FrameRecorder();
  const client = new VppClient({
    socketPath: vpp.socketPath,
    transportFactory: recorder.wrap(
      (t) => new UnixSocketTransport({ path: t.path, connectTimeoutMs: t.connectTimeoutMs }),
    ),
    clientName: 'vppnet-bench',
    healthCheckIntervalMs: 0,
    maxPending: 1_000_000,
    requestTimeoutMs: 120_000,
    retryStrategy: () => 50,
  });
  await client.connect();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-bench-reconcile-'));
  const configFile = path.join(dir, 'agent.yaml');
  const globals = memoryStore();
  const rows: Row[] = [];
  const passes: Record<string, { seconds: number; peakRssMiB: number }> = {};
  const replays: Record<string, number> = {};
  const row = (
    pass: string,
    operations: number | undefined,
    seconds: number,
    ratio = '-',
    rss = true,
    cpuSeconds?: number,
  ): void => {
    passes[pass.replace(/ \(.*/, '')] ??= { seconds, peakRssMiB: peakRssMiB() };
    rows.push({
      pass,
      operations: operations === undefined ? '-' : fmt(operations),
      seconds: fmt(seconds, 2),
      'CPU s': cpuSeconds === undefined ? '-' : fmt(cpuSeconds, 2),
      'ops/s': operations === undefined ? '-' : fmt(operations / seconds),
      'vppnet ÷ replay': ratio,
      'RSS MiB': rss ? fmt(rssMiB()) : '-',
      'peak RSS MiB': rss ? fmt(peakRssMiB()) : '-',
    });
  };
  /** The underlay loopback this run created (and deletes), undefined once deleted. */
  let underlayIndex: number | undefined;
  const makeUnderlay = async (): Promise<{ name: string; swIfIndex: number }> => {
    const lo = await client.call(msg.create_loopback_instance, {});
    underlayIndex = lo.sw_if_index;
    const [d] = await client.dump(msg.sw_interface_dump, { sw_if_index: lo.sw_if_index });
    return { name: d!.interface_name, swIfIndex: lo.sw_if_index };
  };
  const loadConfig = async (underlay: string): Promise<AgentConfig> => {
    writeBenchConfig(configFile, underlay, family);
    const t0 = performance.now();
    const config = await loadConfigFile(configFile);
    const size = (await stat(configFile)).size / (1024 * 1024);
    row(`load config (${fmt(size, 1)} MiB of YAML)`, undefined, (performance.now() - t0) / 1000);
    return config;
  };
  let config: AgentConfig | undefined;
  /** Back to the start state: an empty-config pass removes what vppnet made, then the underlay goes. */
  const tearDown = async (): Promise<void> => {
    if (config) {
      const out = await reconcile(
        { ...config, vpcs: [], ports: [], remoteRoutes: [] },
        { client, host: noHostLinks, globals },
      );
      const failed = out.result?.failed ?? [];
      if (failed.length)
        throw new Error(`tear-down: ${failed.length} operations failed, first: ${failed[0]?.error.message}`);
    }
    if (underlayIndex !== undefined) {
      await client.call(msg.delete_loopback, { sw_if_index: underlayIndex });
      underlayIndex = undefined;
    }
  };
  let vppLimit: VppLimit | undefined;
  let replayNote = '';
  try {
    const version = await client.call(msg.show_version, {});
    const simulator = vpp.restart !== undefined || version.build_directory === SIM_BUILD_DIRECTORY;
    vppLimit = await prepareVppLimit({ socketPath: vpp.socketPath, simulator });
    /** Restarts VPP and waits for the client to be connected to the new one. */
    const restartWith = (run: () => Promise<void>) => async (): Promise<void> => {
      const ready = new Promise<void>((r) => client.once('ready', () => r()));
      await run();
      await ready;
    };
    const restartReal =
      RESTART_COMMAND === undefined || vpp.restart
        ? undefined
        : restartWith(async () => {
            // The underlay goes with VPP's state; the tear-down must not delete it again.
            underlayIndex = undefined;
            await runShellOutsideLimit(RESTART_COMMAND);
          });
    const restart = vpp.restart ? restartWith(vpp.restart) : restartReal;
    // The from-empty replay needs VPP as the pass found it, interface indexes included: a
    // fresh VPP, restarted again for the replay.
    if (restartReal) await restartReal();
    const underlay = await makeUnderlay();
    config = await loadConfig(underlay.name);
    const pass = async (name: string, profileTo?: string): Promise<number> => {
      const profiler = profileTo === undefined ? undefined : new Session();
      if (profiler) {
        profiler.connect();
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.start');
      }
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const out = await reconcile(config!, { client, host: noHostLinks, globals });
      const seconds = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(cpu0);
      if (profiler) {
        const { profile } = await profiler.post('Profiler.stop');
        profiler.disconnect();
        await writeFile(profileTo!, JSON.stringify(profile));
      }
      const failed = out.result?.failed.length ?? 0;
      if (failed)
        throw new Error(
          `${name}: ${failed} operations failed, first: ${out.result?.failed[0]?.error.message}`,
        );
      row(name, out.result?.applied ?? 0, seconds, '-', true, (cpu.user + cpu.system) / 1e6);
      return seconds;
    };
    const replayRow = (label: string, r: ReplayMeasurement): Row => ({
      pass: label,
      operations: fmt(r.requests),
      seconds: fmt(r.seconds, 2),
      'CPU s': '-',
      'ops/s': fmt(r.requests / r.seconds),
      'vppnet ÷ replay': '-',
      'RSS MiB': '-',
      'peak RSS MiB': '-',
    });
    /** Puts `ratio` on row `at` and the replay's own row under it. */
    const addReplay = (at: number, seconds: number, label: string, r: ReplayMeasurement): void => {
      rows[at] = { ...rows[at]!, 'vppnet ÷ replay': `${fmt(seconds / r.seconds, 2)}×` };
      replays[String(rows[at].pass).replace(/ \(.*/, '')] = r.seconds;
      rows.splice(at + 1, 0, replayRow(label, r));
    };
    const fromEmptyPrefix = path.join(dir, 'from-empty');
    const noChangePrefix = path.join(dir, 'no-change');
    recorder.start();
    const fromEmpty = await pass(
      `from empty (${fmt(N_VPCS)} VPCs x ${N_ROUTES} ${family === 4 ? 'IPv4 /24s' : 'IPv6 /128s'})`,
      CPU_PROFILE_FROM_EMPTY_FILE,
    );
    recorder.stop();
    /** What the recorder wrote (not the frames vppblast cannot replay: FrameRecorder.write). */
    const leftOutNote = (w: { leftOut: ReadonlyMap<string, number> }): string =>
      [...w.leftOut].map(([name, n]) => `; ${n} ${name} left out`).join('');
    const fromEmptyWritten = vppLimit.available ? await recorder.write(fromEmptyPrefix) : undefined;
    const fromEmptyRow = rows.length - 1;
    recorder.start();
    const noChange = await pass('no change', CPU_PROFILE_FILE);
    recorder.stop();
    const noChangeRow = rows.length - 1;
    // The same pass again in the same process: the first one runs the code that matches 100k
    // found entries for the first time (the from-empty pass found none), before V8 has optimized
    // it, and collects the from-empty pass's garbage. Printed beside it, judged by nothing.
    const noChangeAgain = await pass('no change, again (its code warm)');
    /** The from-empty replay, for the restart row too. */
    let fromEmptyReplay: ReplayMeasurement | undefined;
    if (vppLimit.available) {
      // Its dumps change nothing: replayed at once, against the state the pass read.
      const written = await recorder.write(noChangePrefix);
      const r = await vppLimit.replay(noChangePrefix, REPLAY_WINDOW, 0, written.frames);
      if (r.nonzeroRetval === 0) {
        addReplay(
          noChangeRow,
          noChange,
          `  VPP's own limit (vppblast replay of its ${fmt(written.frames)} frames, dumps${leftOutNote(written)})`,
          r,
        );
        // Below the replay's row now; against the same replay (the same dumps of the same state).
        const againRow = noChangeRow + 2;
        rows[againRow] = { ...rows[againRow]!, 'vppnet ÷ replay': `${fmt(noChangeAgain / r.seconds, 2)}×` };
      } else replayNote = `no-change replay n/a: ${r.nonzeroRetval} replies with a non-zero retval\n`;
      // Same start state. With a restart command: a fresh VPP, which numbers interfaces as the
      // one the pass ran on did. Without: what vppnet made removed and the underlay re-created;
      // VPP then reuses the freed interface indexes last-freed first, so the VPC loopbacks get
      // other indexes than the frames name, and frames on a loopback sent soon after its
      // creation (a smaller window) can find none yet.
      if (restartReal) await restartReal();
      else await tearDown();
      const again = await makeUnderlay();
      const frames = fromEmptyWritten!.frames;
      const label = `  VPP's own limit (vppblast replay of those ${fmt(frames)} frames, window ${REPLAY_WINDOW}${leftOutNote(fromEmptyWritten!)})`;
      if (again.swIfIndex !== underlay.swIfIndex) {
        replayNote += `replay n/a: the re-created underlay got sw_if_index ${again.swIfIndex}, the recording names ${underlay.swIfIndex}`;
      } else {
        const r = await vppLimit.replay(fromEmptyPrefix, REPLAY_WINDOW, 0, frames);
        if (r.nonzeroRetval !== 0) {
          replayNote += `replay n/a: ${r.nonzeroRetval} replies with a non-zero retval (VPP was not in the recording's start state)`;
        } else {
          fromEmptyReplay = r;
          addReplay(fromEmptyRow, fromEmpty, label, r);
          replayNote += `vppnet ÷ replay: vppnet's seconds ÷ vppblast's (C, the recorded request frames sent raw on the same socket, ${REPLAY_WINDOW} replies in flight; its operations are frames, dumps and pings included); after a VPP restart: against the from-empty replay (the same requests on an empty VPP)`;
        }
      }
    } else {
      replayNote = `replay n/a: ${vppLimit.reason}`;
    }
    if (restart) {
      await restart();
      const underlayAgain = await makeUnderlay();
      // An agent keeps its config across a VPP restart: the same one while the restarted VPP named
      // the underlay as before (a fresh VPP does). Loading a second copy while the first was still
      // held was the benchmark's own peak RSS (171–185 MiB), not the agent's.
      if (underlayAgain.name !== underlay.name) {
        config = undefined;
        config = await loadConfig(underlayAgain.name);
      }
      const seconds = await pass('after a VPP restart');
      if (fromEmptyReplay && !vpp.restart)
        rows[rows.length - 1] = {
          ...rows[rows.length - 1]!,
          'vppnet ÷ replay': `${fmt(seconds / fromEmptyReplay.seconds, 2)}×`,
        };
    } else {
      process.stdout.write(
        '(after a VPP restart: BENCH_VPP_RESTART="command that restarts it" for a real VPP; the simulator row needs no VPP_API_SOCKET)\n',
      );
    }
    // RSS depends on the V8 heap limit Node picks (from the machine's or the container's memory).
    const heapLimit = v8.getHeapStatistics().heap_size_limit / (1024 * 1024);
    printTable(
      `bench/reconcile, ${family === 4 ? 'IPv4' : 'IPv6'} node, against ${vpp.description}, node ${process.version}, ${limit.description}, V8 heap limit ${fmt(heapLimit)} MiB`,
      rows,
    );
    process.stdout.write(`${replayNote}\n`);
    const summaryFile = process.env[SUMMARY_ENV];
    if (summaryFile !== undefined) {
      const summary: FamilySummary = { family, passes, replays };
      await writeFile(summaryFile, JSON.stringify(summary));
    }
  } finally {
    // Leave a real VPP as it was found (the simulator is stopped below).
    if (!vpp.restart) await tearDown();
    if (vppLimit?.available) await vppLimit.dispose();
    await client.close();
    await vpp.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Runs each node of FAMILIES in a process of its own, one after the other, then prints IPv6 ÷
 * IPv4 of what both measured: seconds, peak RSS and, against a real VPP, the replays' seconds.
 */
async function compareFamilies(): Promise<void> {
  const families = FAMILIES.split(',').map((f) => f.trim());
  if (families.length === 0 || families.some((f) => f !== '4' && f !== '6'))
    throw new Error(`BENCH_FAMILIES must list 4 and/or 6, e.g. "4,6", got ${FAMILIES}`);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-bench-families-'));
  try {
    const summaries = new Map<string, FamilySummary>();
    for (const family of families) {
      const file = path.join(dir, `family-${family}.json`);
      const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
        stdio: 'inherit',
        env: { ...process.env, [FAMILY_ENV]: family, [SUMMARY_ENV]: file },
      });
      const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
      if (code !== 0) {
        // The other node is still measured: its figures stand on their own.
        process.stderr.write(`bench/reconcile: the IPv${family} node failed (exit status ${code})\n`);
        process.exitCode = code;
        continue;
      }
      summaries.set(family, JSON.parse(await readFile(file, 'utf8')) as FamilySummary);
    }
    const v4 = summaries.get('4');
    const v6 = summaries.get('6');
    if (v4 && v6) printFamilyRatios(v4, v6);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The IPv6 node's figures over the IPv4 node's, each against FAMILY_RATIO_TARGET. */
function printFamilyRatios(v4: FamilySummary, v6: FamilySummary): void {
  const rows: Row[] = [];
  /** `judged`: the target applies (vppnet's seconds and memory; the replays are VPP's, for scale). */
  const ratioRow = (
    what: string,
    a: number | undefined,
    b: number | undefined,
    digits: number,
    judged = true,
  ): void => {
    if (a === undefined || b === undefined) return;
    const ratio = b / a;
    rows.push({
      measure: what,
      IPv4: fmt(a, digits),
      IPv6: fmt(b, digits),
      'IPv6 ÷ IPv4': `${fmt(ratio, 2)}×`,
      [`≤ ${FAMILY_RATIO_TARGET}×`]: !judged ? '-' : ratio <= FAMILY_RATIO_TARGET ? 'yes' : 'no',
    });
  };
  for (const pass of Object.keys(v4.passes)) {
    ratioRow(`${pass}: seconds`, v4.passes[pass]?.seconds, v6.passes[pass]?.seconds, 2);
    ratioRow(`${pass}: peak RSS MiB`, v4.passes[pass]?.peakRssMiB, v6.passes[pass]?.peakRssMiB, 0);
  }
  for (const pass of Object.keys(v4.replays)) {
    const [a, b] = [v4.replays[pass], v6.replays[pass]];
    ratioRow(`${pass}: VPP's own limit (replay) seconds`, a, b, 2, false);
    const [pa, pb] = [v4.passes[pass]?.seconds, v6.passes[pass]?.seconds];
    if (a !== undefined && b !== undefined && pa !== undefined && pb !== undefined)
      ratioRow(`${pass}: vppnet ÷ replay`, pa / a, pb / b, 2, false);
  }
  printTable(
    `bench/reconcile: the IPv6 node (${fmt(N_VPCS * N_ROUTES)} remote /128s) over the IPv4 node (${fmt(N_VPCS * N_ROUTES)} remote /24s), target ≤ ${FAMILY_RATIO_TARGET}×`,
    rows,
  );
}

const family = process.env[FAMILY_ENV];
if (family === undefined) await compareFamilies();
else await measureFamily(Number(family) as Family);
