/**
 * bench/api: how fast vppnet's VPP client talks to VPP.
 *   npm run bench:api                      # against the simulator
 *   VPP_API_SOCKET=/run/vpp/api.sock npm run bench:api
 * Rows: request/reply waiting for each reply (sequential) and pipelined, dump entries per second,
 * and ip_route_add_del for 60k routes. Latencies are per request, from send to reply.
 * Each row with a VPP-side ceiling has VPP's own rate under it, measured by vppblast (C,
 * pre-encoded frames) on the same socket in rounds alternated with the client's.
 */
import { performance } from 'node:perf_hooks';
import { ignoreRetval } from '../../src/vpp/client/retval-error.js';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import { msg } from '../../src/vpp/messages/index.js';
import { fmt, peakRssMiB, percentile, printTable, type Row } from '../support/report.js';
import { vppUnderTest } from '../support/vpp-under-test.js';
import {
  comparisonRow,
  limitRow,
  median,
  medianRun,
  RATIO_COLUMN,
  rate,
  ratioText,
  type Timed,
} from './limit-rows.js';
import { prepareVppLimit, type VppblastWork, type VppLimit } from './vpp-limit.js';

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

interface Measured extends Timed {
  readonly lat: number[];
}

function ip4(n: number): string {
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

async function sequential(n: number, send: () => Promise<unknown>): Promise<Measured> {
  const lat: number[] = new Array<number>(n);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    await send();
    lat[i] = performance.now() - s;
  }
  return { count: n, seconds: (performance.now() - t0) / 1000, lat };
}

/** Keeps `window` requests in flight until `n` are done. */
async function pipelined(
  n: number,
  window: number,
  send: (i: number) => Promise<unknown>,
): Promise<Measured> {
  const lat: number[] = new Array<number>(n);
  let next = 0;
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
  return { count: n, seconds: (performance.now() - t0) / 1000, lat };
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
    'peak RSS MiB': fmt(peakRssMiB(), 0),
    [RATIO_COLUMN]: ratio,
  };
}

/** A benchmark with a VPP-side ceiling: the client's and vppblast's runs, alternated by round. */
interface Ceiling {
  readonly name: string;
  readonly vppnet: Measured[];
  readonly limit: Timed[] | undefined;
}

async function alternated(
  name: string,
  limit: VppLimit,
  work: VppblastWork,
  n: number,
  window: number,
  client: () => Promise<Measured>,
): Promise<Ceiling> {
  const ours: Measured[] = [];
  const theirs: Timed[] = [];
  const vppblast = async (): Promise<void> => {
    if (limit.available) {
      const m = await limit.measure(work, n, window);
      theirs.push({ count: m.requests, seconds: m.seconds });
    }
  };
  for (let round = 0; round < ROUNDS; round++) {
    // Who goes first swaps each round, so a slow spell of the machine does not favour one side.
    if (round % 2 === 0) {
      ours.push(await client());
      await vppblast();
    } else {
      await vppblast();
      ours.push(await client());
    }
  }
  return { name, vppnet: ours, limit: limit.available ? theirs : undefined };
}

function ceilingRows(c: Ceiling): Row[] {
  const ours = row(
    c.name,
    c.vppnet,
    ratioText(median(c.vppnet.map(rate)), c.limit && median(c.limit.map(rate))),
  );
  return [ours, limitRow(ours, c.limit)];
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
  const rows: Row[] = [];
  let limit: VppLimit | undefined;
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
    // Warm-up: JIT and socket buffers.
    await pipelined(5000, 256, () => client.call(msg.control_ping, {}));

    const ping = (): Promise<unknown> => client.call(msg.control_ping, {});
    const showVersion = (): Promise<unknown> => client.call(msg.show_version, {});
    const pingSeq = await alternated('control_ping sequential', limit, 'ping', N_SEQ, 1, () =>
      sequential(N_SEQ, ping),
    );
    const pingPipe = await alternated(
      `control_ping pipelined (window ${WINDOW})`,
      limit,
      'ping',
      N_PIPE,
      WINDOW,
      () => pipelined(N_PIPE, WINDOW, ping),
    );
    rows.push(...ceilingRows(pingSeq), ...ceilingRows(pingPipe));
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
    const ceilings = [pingSeq, pingPipe, versionPipe];

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
    try {
      rows.push(
        row(`ip_route_add_del pipelined (window ${WINDOW})`, [
          await pipelined(N_ROUTES, WINDOW, (i) => route(i, true)),
        ]),
      );

      const t0 = performance.now();
      const entries = await client.dump(msg.ip_route_dump, {
        table: { table_id: BENCH_TABLE, is_ip6: false },
      });
      const seconds = (performance.now() - t0) / 1000;
      rows.push({
        benchmark: `ip_route_dump (${fmt(entries.length)} entries)`,
        count: fmt(entries.length),
        seconds: fmt(seconds, 2),
        'ops/s': fmt(entries.length / seconds),
        'p50 ms': '-',
        'p99 ms': '-',
        'p99.9 ms': '-',
        'peak RSS MiB': fmt(peakRssMiB(), 0),
        [RATIO_COLUMN]: '-',
      });
    } finally {
      // Routes first: VPP leaks the API routes of a table deleted with them inside.
      await pipelined(N_ROUTES, WINDOW, (i) => route(i, false).catch(ignoreRetval));
      await client.call(msg.ip_table_add_del, {
        is_add: false,
        table: { table_id: BENCH_TABLE, is_ip6: false },
      });
    }
    printTable(
      `bench/api against ${vpp.description} — VPP ${version.version}, node ${process.version}`,
      rows,
    );
    const limitNote = limit.available
      ? `VPP's own limit: vppblast (C, pre-encoded frames) on the same socket; ${ROUNDS} rounds alternated with the client's, medians shown`
      : `VPP's own limit n/a: ${limit.reason}`;
    process.stdout.write(`${limitNote}\n`);
    printTable(
      `vppnet ÷ VPP's own limit, ${ROUNDS} alternated rounds`,
      ceilings.map((c) => comparisonRow(c.name, c.vppnet, c.limit)),
    );
    const ratio = median(pingPipe.vppnet.map(rate)) / median(pingSeq.vppnet.map(rate));
    process.stdout.write(`\npipelined / sequential (control_ping): ${fmt(ratio, 1)}x\n`);
  } finally {
    if (limit?.available) await limit.dispose();
    await client.close();
    await vpp.stop();
  }
}

await main();
