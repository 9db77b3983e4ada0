/**
 * bench/api: how fast vppnet's VPP client talks to VPP.
 *   npm run bench:api                      # against the simulator
 *   VPP_API_SOCKET=/run/vpp/api.sock npm run bench:api
 * Rows: request/reply waiting for each reply (sequential) and pipelined, dump entries per second,
 * and ip_route_add_del for 60k routes. Latencies are per request, from send to reply.
 * Each row with a VPP-side ceiling has VPP's own rate under it, measured by vppblast (C,
 * pre-encoded frames; the dump's recorded frames replayed) on the same socket in rounds alternated
 * with the client's, and control_ping has VPP's Python client (vpp_papi) beside it for scale.
 * BENCH_HOG=1 measures all of that a second time while a CPU-bound process runs, and compares.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ignoreRetval } from '../../src/vpp/client/retval-error.js';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import { msg } from '../../src/vpp/messages/index.js';
import { fmt, peakRssMiB, percentile, printTable, type Row } from '../support/report.js';
import { vppUnderTest } from '../support/vpp-under-test.js';
import { FrameRecorder } from '../reconcile/frame-recorder.js';
import { UnixSocketTransport } from '../../src/vpp/transport/unix-socket-transport.js';
import { startCpuHog } from './cpu-hog.js';
import { preparePapi, type PapiClient } from './papi-client.js';
import {
  comparisonRow,
  CPU_COLUMN,
  FLOOR_LABEL,
  cpuPerRequestText,
  limitRow,
  median,
  medianRun,
  RATIO_COLUMN,
  rate,
  ratioText,
  type Timed,
} from './limit-rows.js';
import { prepareVppLimit, type VppblastWork, type VppLimit } from './vpp-limit.js';
import { openNodeFloor, type NodeFloor } from './node-floor.js';

const BENCH_TABLE = 4243;
/**
 * The most routes a run may add on a real VPP 26.06. Every route here has the same path (lookup in
 * table 0), so they share one path-list and one lookup DPO, locked once per route with a u16 count
 * (lookup_dpo_t.lkd_locks): past 65,535 it wraps, and when it next falls to 0 VPP frees the DPO and
 * unlocks table 0, which is destroyed (NO_SUCH_FIB, VPP's IPv4 table 0 gone). Spreading the routes
 * over tables does not help: the path-list is shared across tables.
 */
const VPP_MAX_LOOKUP_ROUTES = 65_535;
/** Alternated rounds of vppnet and VPP's limit for each row with a ceiling. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** show_version_reply.build_directory of vppnet's simulator (src/vpp/sim/simulator.ts). */
const SIM_BUILD_DIRECTORY = '/vppnet-sim';
const N_SEQ = Number(process.env.BENCH_SEQ ?? 20_000);
const N_PIPE = Number(process.env.BENCH_PIPE ?? 200_000);
const N_ROUTES = Number(process.env.BENCH_ROUTES ?? 60_000);
/** Requests in flight at once when pipelining. */
const WINDOW = Number(process.env.BENCH_WINDOW ?? 4096);
/** vpp_papi is ~10-50× slower than vppnet: fewer requests keep its rounds short. */
const N_PAPI_SEQ = Number(process.env.BENCH_PAPI_SEQ ?? Math.ceil(N_SEQ / 4));
const N_PAPI_PIPE = Number(process.env.BENCH_PAPI_PIPE ?? Math.ceil(N_PIPE / 10));
/** Set to 1: every ceiling row measured again while a second CPU-bound process runs. */
const HOG = process.env.BENCH_HOG === '1';
/** Replies vppblast keeps in flight when it replays the dump: one dump, one ping. */
const DUMP_REPLAY_WINDOW = 64;

interface Measured extends Timed {
  readonly lat: number[];
}

function ip4(n: number): string {
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

/** CPU seconds (user + system) this process spent since `from` (process.cpuUsage()). */
function cpuSince(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1e6;
}

async function sequential(n: number, send: () => Promise<unknown>): Promise<Measured> {
  const lat: number[] = new Array<number>(n);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    await send();
    lat[i] = performance.now() - s;
  }
  return { count: n, seconds: (performance.now() - t0) / 1000, cpuSeconds: cpuSince(cpu0), lat };
}

/** Keeps `window` requests in flight until `n` are done. */
async function pipelined(
  n: number,
  window: number,
  send: (i: number) => Promise<unknown>,
): Promise<Measured> {
  const lat: number[] = new Array<number>(n);
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const worker = async (): Promise<void> => {
    while (next < n) {
      const i = next++;
      const s = performance.now();
      await send(i);
      lat[i] = performance.now() - s;
    }
  };
  await Promise.all(Array.from({ length: Math.min(window, n) }, worker));
  return { count: n, seconds: (performance.now() - t0) / 1000, cpuSeconds: cpuSince(cpu0), lat };
}

/** A vppnet row: the median round's figures, and its rate ÷ the limit's median (`-`: no ceiling). */
function row(name: string, rounds: readonly Measured[], ratio = '-'): Row {
  const r = medianRun(rounds);
  const sorted = [...r.lat].sort((a, b) => a - b);
  return {
    benchmark: name,
    count: fmt(r.count),
    seconds: fmt(r.seconds, 2),
    'ops/s': fmt(median(rounds.map(rate))),
    'p50 ms': fmt(percentile(sorted, 50), 3),
    'p99 ms': fmt(percentile(sorted, 99), 3),
    'p99.9 ms': fmt(percentile(sorted, 99.9), 3),
    [CPU_COLUMN]: cpuPerRequestText(rounds),
    'peak RSS MiB': fmt(peakRssMiB(), 0),
    [RATIO_COLUMN]: ratio,
  };
}

/** A benchmark with a VPP-side ceiling: the client's and vppblast's runs, alternated by round. */
interface Ceiling {
  readonly name: string;
  readonly vppnet: Measured[];
  readonly limit: Timed[] | undefined;
  /** Node's own floor (control_ping only), measured in the same rounds. */
  readonly floor?: Timed[];
}

async function alternated(
  name: string,
  limit: VppLimit,
  work: VppblastWork,
  n: number,
  window: number,
  client: () => Promise<Measured>,
  floor?: () => Promise<Timed>,
): Promise<Ceiling> {
  const ours: Measured[] = [];
  const theirs: Timed[] = [];
  const floors: Timed[] = [];
  const vppblast = async (): Promise<void> => {
    if (limit.available) {
      const m = await limit.measure(work, n, window);
      theirs.push({
        count: m.requests,
        seconds: m.seconds,
        ...(m.cpuSeconds === undefined ? {} : { cpuSeconds: m.cpuSeconds }),
      });
    }
  };
  for (let round = 0; round < ROUNDS; round++) {
    // Who goes first swaps each round, so a slow spell of the machine does not favour one side.
    // The floor runs between the two, so it too swaps sides with each.
    if (round % 2 === 0) {
      ours.push(await client());
      if (floor) floors.push(await floor());
      await vppblast();
    } else {
      await vppblast();
      if (floor) floors.push(await floor());
      ours.push(await client());
    }
  }
  return {
    name,
    vppnet: ours,
    limit: limit.available ? theirs : undefined,
    ...(floor ? { floor: floors } : {}),
  };
}

function ceilingRows(c: Ceiling): Row[] {
  const ours = row(
    c.name,
    c.vppnet,
    ratioText(median(c.vppnet.map(rate)), c.limit && median(c.limit.map(rate))),
  );
  const rows = [ours, limitRow(ours, c.limit)];
  if (c.floor) {
    const floorRate = median(c.floor.map(rate));
    rows.push({
      ...limitRow(ours, c.floor, FLOOR_LABEL),
      [RATIO_COLUMN]: ratioText(floorRate, c.limit && median(c.limit.map(rate))),
    });
  }
  return rows;
}

/** One dump: the client's rate in entries/s is count ÷ seconds, as the limit's (its replay). */
async function timedDump(client: VppClient): Promise<Timed> {
  const t0 = performance.now();
  const entries = await client.dump(msg.ip_route_dump, {
    table: { table_id: BENCH_TABLE, is_ip6: false },
  });
  return { count: entries.length, seconds: (performance.now() - t0) / 1000 };
}

/** What a caller that checks routes reads of each: prefix and each path's interface and table. */
const ROUTE_KEY_FIELDS = {
  route: {
    prefix: { len: true, address: { af: true, un: { ip4: true } } },
    paths: { sw_if_index: true, table_id: true },
  },
} as const;

/** The same dump streamed through dumpEach with only ROUTE_KEY_FIELDS decoded, nothing kept. */
async function timedSelectedDump(client: VppClient): Promise<Timed> {
  const t0 = performance.now();
  let n = 0;
  await client.dumpEach(
    msg.ip_route_dump,
    { table: { table_id: BENCH_TABLE, is_ip6: false } },
    (d) => {
      if (d.route.prefix.len > 0) n++;
    },
    { fields: ROUTE_KEY_FIELDS },
  );
  return { count: n, seconds: (performance.now() - t0) / 1000 };
}

/** The dump's frames as the client sends them, recorded on a connection of their own for vppblast. */
async function recordDump(socketPath: string, prefix: string): Promise<number> {
  const recorder = new FrameRecorder();
  const recording = new VppClient({
    socketPath,
    clientName: 'vppnet-bench-recorder',
    healthCheckIntervalMs: 0,
    transportFactory: recorder.wrap(
      (t) => new UnixSocketTransport({ path: t.path, connectTimeoutMs: t.connectTimeoutMs }),
    ),
  });
  await recording.connect();
  try {
    recorder.start();
    const { count } = await timedDump(recording);
    recorder.stop();
    await recorder.write(prefix);
    return count;
  } finally {
    await recording.close();
  }
}

interface PapiRounds {
  readonly sequential: Timed[] | undefined;
  readonly pipelined: Timed[] | undefined;
}

/** Everything with a ceiling, measured once (quiet, or under the CPU hog). */
interface Phase {
  readonly rows: Row[];
  readonly ceilings: Ceiling[];
  readonly pingSeq: Ceiling;
  readonly pingPipe: Ceiling;
  readonly dump: { readonly vppnet: Timed[]; readonly limit: Timed[] | undefined };
  readonly selectedDump: Timed[];
  readonly papi: PapiRounds;
}

async function measurePhase(
  client: VppClient,
  floor: NodeFloor,
  limit: VppLimit,
  papi: PapiClient,
  dumpPrefix: string | undefined,
): Promise<Phase> {
  const rows: Row[] = [];
  const ping = (): Promise<unknown> => client.call(msg.control_ping, {});
  const showVersion = (): Promise<unknown> => client.call(msg.show_version, {});
  const pingSeq = await alternated(
    'control_ping sequential',
    limit,
    'ping',
    N_SEQ,
    1,
    () => sequential(N_SEQ, ping),
    () => floor.measure(N_SEQ, 1),
  );
  const pingPipe = await alternated(
    `control_ping pipelined (window ${WINDOW})`,
    limit,
    'ping',
    N_PIPE,
    WINDOW,
    () => pipelined(N_PIPE, WINDOW, ping),
    () => floor.measure(N_PIPE, WINDOW),
  );
  rows.push(...ceilingRows(pingSeq), ...ceilingRows(pingPipe));
  const papiRounds: PapiRounds = { sequential: undefined, pipelined: undefined };
  if (papi.available) {
    const seq: Timed[] = [];
    const pipe: Timed[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      seq.push(await papi.measure(N_PAPI_SEQ, 1));
      pipe.push(await papi.measure(N_PAPI_PIPE, WINDOW));
    }
    Object.assign(papiRounds, { sequential: seq, pipelined: pipe });
  }
  rows.push(
    papiRow('  vpp_papi sync (Python), control_ping sequential', papiRounds.sequential),
    papiRow(`  vpp_papi asyncio (Python), control_ping pipelined (window ${WINDOW})`, papiRounds.pipelined),
  );
  rows.push(row('show_version sequential', [await sequential(N_SEQ, showVersion)]));
  const versionPipe = await alternated(
    `show_version pipelined (window ${WINDOW})`,
    limit,
    'version',
    N_PIPE,
    WINDOW,
    () => pipelined(N_PIPE, WINDOW, showVersion),
  );
  rows.push(...ceilingRows(versionPipe));

  const dumpOurs: Timed[] = [];
  const dumpTheirs: Timed[] = [];
  const selectedOurs: Timed[] = [];
  let entries = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const replay = async (): Promise<void> => {
      if (!limit.available || dumpPrefix === undefined) return;
      const r = await limit.replay(dumpPrefix, DUMP_REPLAY_WINDOW, 0, 2);
      if (r.nonzeroRetval !== 0) throw new Error(`vppblast dump replay: ${r.nonzeroRetval} non-zero retvals`);
      // Its entries are the client's: the same dump of the same table.
      dumpTheirs.push({ count: entries, seconds: r.seconds });
    };
    if (round % 2 === 1) {
      entries = entries || (await timedDump(client)).count;
      await replay();
    }
    const ours = await timedDump(client);
    entries = ours.count;
    dumpOurs.push(ours);
    selectedOurs.push(await timedSelectedDump(client));
    if (round % 2 === 0) await replay();
  }
  const dumpLimit = limit.available && dumpPrefix !== undefined ? dumpTheirs : undefined;
  const dumpName = `ip_route_dump (${fmt(entries)} entries), entries/s`;
  const dumpRow: Row = {
    benchmark: dumpName,
    count: fmt(entries),
    seconds: fmt(medianRun(dumpOurs).seconds, 2),
    'ops/s': fmt(median(dumpOurs.map(rate))),
    'p50 ms': '-',
    'p99 ms': '-',
    'p99.9 ms': '-',
    [CPU_COLUMN]: '-',
    'peak RSS MiB': fmt(peakRssMiB(), 0),
    [RATIO_COLUMN]: ratioText(median(dumpOurs.map(rate)), dumpLimit && median(dumpLimit.map(rate))),
  };
  const selectedName = 'ip_route_dump, dumpEach decoding prefix and path ids only';
  const selectedRow: Row = {
    ...dumpRow,
    benchmark: selectedName,
    seconds: fmt(medianRun(selectedOurs).seconds, 2),
    'ops/s': fmt(median(selectedOurs.map(rate))),
    [RATIO_COLUMN]: ratioText(median(selectedOurs.map(rate)), dumpLimit && median(dumpLimit.map(rate))),
  };
  rows.push(dumpRow, selectedRow, limitRow(dumpRow, dumpLimit));
  const selectedCeiling: Ceiling = {
    name: selectedName,
    vppnet: selectedOurs.map((t) => ({ ...t, lat: [] })),
    limit: dumpLimit,
  };
  const dumpCeiling: Ceiling = {
    name: dumpName,
    vppnet: dumpOurs.map((t) => ({ ...t, lat: [] })),
    limit: dumpLimit,
  };
  return {
    rows,
    ceilings: [pingSeq, pingPipe, versionPipe, dumpCeiling, selectedCeiling],
    pingSeq,
    pingPipe,
    dump: { vppnet: dumpOurs, limit: dumpLimit },
    selectedDump: selectedOurs,
    papi: papiRounds,
  };
}

/** A vpp_papi row in the main table's columns: its median round. */
function papiRow(name: string, rounds: readonly Timed[] | undefined): Row {
  const r = rounds && rounds.length > 0 ? medianRun(rounds) : undefined;
  return {
    benchmark: name,
    count: r ? fmt(r.count) : 'n/a',
    seconds: r ? fmt(r.seconds, 2) : 'n/a',
    'ops/s': r && rounds ? fmt(median(rounds.map(rate))) : 'n/a',
    'p50 ms': '-',
    'p99 ms': '-',
    'p99.9 ms': '-',
    [CPU_COLUMN]: '-',
    'peak RSS MiB': '-',
    [RATIO_COLUMN]: '-',
  };
}

/** The ratios of one phase: vppnet ÷ limit (median, best), judged by bench/README.md's targets, and ÷ vpp_papi, a peer for scale. */
function phaseRatios(p: Phase): Record<string, number | undefined> {
  const out: Record<string, number | undefined> = {};
  for (const c of p.ceilings) {
    const ours = c.vppnet.map(rate);
    const theirs = c.limit?.map(rate);
    out[`${c.name}: ÷ limit, median`] = theirs ? median(ours) / median(theirs) : undefined;
    out[`${c.name}: ÷ limit, best`] = theirs ? Math.max(...ours) / Math.max(...theirs) : undefined;
    if (c.floor)
      out[`${c.name}: Node's floor ÷ limit, median`] = theirs
        ? median(c.floor.map(rate)) / median(theirs)
        : undefined;
  }
  const seqPapi = p.papi.sequential && median(p.papi.sequential.map(rate));
  const pipePapi = p.papi.pipelined && median(p.papi.pipelined.map(rate));
  out['control_ping sequential: ÷ vpp_papi sync'] = seqPapi && median(p.pingSeq.vppnet.map(rate)) / seqPapi;
  out['control_ping pipelined: ÷ vpp_papi asyncio'] =
    pipePapi && median(p.pingPipe.vppnet.map(rate)) / pipePapi;
  return out;
}

function ratioCell(x: number | undefined): string {
  return x === undefined ? 'n/a' : `${fmt(x, 2)}x`;
}

async function main(): Promise<void> {
  if (!(ROUNDS >= 1))
    throw new Error(`BENCH_ROUNDS must be a positive number, got ${process.env.BENCH_ROUNDS}`);
  const vpp = await vppUnderTest();
  const client = new VppClient({
    socketPath: vpp.socketPath,
    clientName: 'vppnet-bench',
    healthCheckIntervalMs: 0,
    maxPending: 1_000_000,
  });
  await client.connect();
  const floor = await openNodeFloor(vpp.socketPath);
  const rows: Row[] = [];
  let limit: VppLimit | undefined;
  let recordDir: string | undefined;
  try {
    const version = await client.call(msg.show_version, {});
    const simulator = vpp.restart !== undefined || version.build_directory === SIM_BUILD_DIRECTORY;
    if (!simulator && N_ROUTES > VPP_MAX_LOOKUP_ROUTES)
      throw new Error(
        `BENCH_ROUTES=${N_ROUTES} is more than VPP 26.06 takes: from the ${fmt(VPP_MAX_LOOKUP_ROUTES + 1)}th route ` +
          "with one path it can destroy VPP's IPv4 table 0 (lookup_dpo_t's u16 lock count wraps); " +
          `use at most ${fmt(VPP_MAX_LOOKUP_ROUTES)}`,
      );
    limit = await prepareVppLimit({ socketPath: vpp.socketPath, simulator });
    const papi = await preparePapi({ socketPath: vpp.socketPath, simulator });
    // Warm-up: JIT and socket buffers.
    await pipelined(5000, 256, () => client.call(msg.control_ping, {}));
    await floor.measure(5000, 256);

    const route = (i: number, isAdd: boolean): Promise<unknown> =>
      client.call(msg.ip_route_add_del, {
        is_add: isAdd,
        route: {
          table_id: BENCH_TABLE,
          prefix: { address: { af: 0, un: { ip4: ip4(i) } }, len: 32 },
          paths: [{ sw_if_index: 0xffffffff, table_id: 0, proto: 0 }],
        },
      });
    await client.call(msg.ip_table_add_del, {
      is_add: true,
      table: { table_id: BENCH_TABLE, is_ip6: false, name: 'vppnet-bench' },
    });
    const phases: { readonly label: string; readonly phase: Phase }[] = [];
    try {
      const routeRow = row(`ip_route_add_del pipelined (window ${WINDOW})`, [
        await pipelined(N_ROUTES, WINDOW, (i) => route(i, true)),
      ]);
      let dumpPrefix: string | undefined;
      if (limit.available) {
        recordDir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-bench-api-'));
        dumpPrefix = path.join(recordDir, 'ip-route-dump');
        await recordDump(vpp.socketPath, dumpPrefix);
      }
      const quiet = await measurePhase(client, floor, limit, papi, dumpPrefix);
      phases.push({ label: 'quiet', phase: quiet });
      rows.push(...quiet.rows, routeRow);
      if (HOG) {
        const hog = await startCpuHog();
        try {
          phases.push({
            label: 'CPU hog',
            phase: await measurePhase(client, floor, limit, papi, dumpPrefix),
          });
        } finally {
          await hog.stop();
        }
      }
    } finally {
      // Routes first: VPP leaks the API routes of a table deleted with them inside.
      await pipelined(N_ROUTES, WINDOW, (i) => route(i, false).catch(ignoreRetval));
      await client.call(msg.ip_table_add_del, {
        is_add: false,
        table: { table_id: BENCH_TABLE, is_ip6: false },
      });
    }
    const title = `bench/api against ${vpp.description} — VPP ${version.version}, node ${process.version}`;
    printTable(title, rows);
    const limitNote = limit.available
      ? `VPP's own limit: vppblast (C, pre-encoded frames; for the dump, the client's recorded dump and ping replayed) on the same socket; ${ROUNDS} rounds alternated with the client's, medians shown`
      : `VPP's own limit n/a: ${limit.reason}`;
    process.stdout.write(`${limitNote}
`);
    process.stdout.write(
      papi.available
        ? `vpp_papi: VPP's Python client as VPP installs it (bench/api/papi-rate.py), ${fmt(N_PAPI_SEQ)} sequential and ${fmt(N_PAPI_PIPE)} asyncio pings a round, ${ROUNDS} rounds after the client's\n`
        : `vpp_papi n/a: ${papi.reason}\n`,
    );
    process.stdout.write(
      "Node's own floor: control_ping over a plain net.Socket in this process (bench/api/node-floor.ts: frames encoded by hand, one write per burst, reads into one buffer), in the same rounds: what the runtime costs before any client code\n",
    );
    for (const { label, phase } of phases) {
      if (label !== 'quiet') printTable(`${title} — under a CPU-bound process (BENCH_HOG=1)`, phase.rows);
      printTable(
        `vppnet ÷ VPP's own limit, ${ROUNDS} alternated rounds (${label})`,
        phase.ceilings.map((c) => comparisonRow(c.name, c.vppnet, c.limit)),
      );
    }
    const [quiet, hogged] = phases;
    if (quiet) {
      const q = phaseRatios(quiet.phase);
      const h = hogged && phaseRatios(hogged.phase);
      printTable(
        h
          ? 'ratios quiet and under a CPU-bound process (target: within 0.15)'
          : 'ratios (BENCH_HOG=1 adds the same under a CPU-bound process)',
        Object.entries(q).map(([name, x]) => {
          const y = h?.[name];
          return {
            ratio: name,
            quiet: ratioCell(x),
            ...(h
              ? {
                  'CPU hog': ratioCell(y),
                  difference: x !== undefined && y !== undefined ? fmt(y - x, 2) : 'n/a',
                }
              : {}),
          };
        }),
      );
      const ratio =
        median(quiet.phase.pingPipe.vppnet.map(rate)) / median(quiet.phase.pingSeq.vppnet.map(rate));
      process.stdout.write(`\npipelined / sequential (control_ping): ${fmt(ratio, 1)}x\n`);
    }
  } finally {
    if (limit?.available) await limit.dispose();
    if (recordDir !== undefined) await rm(recordDir, { recursive: true, force: true });
    floor.close();
    await client.close();
    await vpp.stop();
  }
}

await main();
