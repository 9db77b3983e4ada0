/**
 * bench/packet-rate as a function of its inputs (argv, environment, output streams) returning the
 * exit code, so tests can run it in-process: 0 done, 1 failed, 2 refused (usage, no real VPP, VPP
 * not fresh), 3 --strict and vppnet missing a target (10 % below the hand configuration, 5 % on
 * the IPv6 paths) or not measured.
 */
import { writeFile } from 'node:fs/promises';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import { printTable } from '../support/report.js';
import { collectWindow, nicInstructions, nicTopology, printNodes, programNic } from './nic.js';
import { parseOptions, USAGE, type Options } from './options.js';
import { buildPgTestbed, datapathInfo, measureAll, runMeta } from './pg-bench.js';
import {
  breakdownRows,
  chartOf,
  comparisons,
  reportJson,
  resultRows,
  verdictRows,
  type Measurement,
  type NotMeasured,
  type RunMeta,
} from './report.js';
import { interfaceMacs, vppnetBviName } from './setup.js';
import { renderBarChart } from './svg.js';
import { TOLERANCE } from './metrics.js';
import { IP6_TOLERANCE, PATH_IDS, PATH_TITLES } from './paths.js';
import { BenchError, ensureRealVpp, type VppFacts } from './vpp-checks.js';

export interface RunIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

export async function runPacketRate(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  io: RunIo,
): Promise<number> {
  const log = (line: string): void => void io.stderr.write(`${line}\n`);
  try {
    const opts = parseOptions(argv);
    if (opts.help) {
      io.stdout.write(USAGE);
      return 0;
    }
    const socketPath = env.VPP_API_SOCKET;
    if (
      opts.mode === 'nic' &&
      opts.nic.program === undefined &&
      opts.nic.collectSeconds === undefined &&
      !socketPath
    ) {
      io.stdout.write(nicInstructions(nicTopology(opts.nic), opts.nic, undefined, undefined));
      return 0;
    }
    if (!socketPath) {
      throw new BenchError(
        'VPPNET_BENCH_NO_SOCKET',
        'VPP_API_SOCKET is required: bench/packet-rate measures a real VPP 26.06 (e.g. VPP_API_SOCKET=/run/vpp/api.sock npm run bench:packet-rate); the simulator forwards no packets',
      );
    }
    return await withVpp(socketPath, opts, async (client, facts) => {
      const info = await datapathInfo(client);
      log(
        `VPP ${facts.version} at ${socketPath}: ${info.workers} worker${info.workers === 1 ? '' : 's'}, ${info.cpuModel ?? 'CPU ?'}${info.ghz ? ` at ${info.ghz} GHz` : ''}`,
      );
      if (opts.mode === 'nic') return runNicMode(client, socketPath, opts, info, facts, io, log);
      const { plans, notMeasured } = await buildPgTestbed(client, socketPath, opts, log);
      const measurements = await measureAll(client, plans, info, opts, log);
      const meta = runMeta('pg', facts, info, opts);
      await writeReport(measurements, notMeasured, meta, opts, io);
      // --strict judges vppnet against hand (before the checks) only; hand+checks is read, not judged.
      const misses = [
        ...comparisons(measurements).filter((c) => !c.withinTolerance),
        ...notMeasured.filter((n) => n.config === 'vppnet'),
      ];
      return opts.strict && misses.length > 0 ? 3 : 0;
    });
  } catch (e) {
    if (e instanceof BenchError) {
      io.stderr.write(`bench/packet-rate: ${e.message}\n`);
      return e.refusal ? 2 : 1;
    }
    io.stderr.write(`bench/packet-rate: ${(e as Error).stack ?? String(e)}\n`);
    return 1;
  }
}

async function withVpp(
  socketPath: string,
  opts: Options,
  body: (client: VppClient, facts: VppFacts) => Promise<number>,
): Promise<number> {
  const client = new VppClient({
    socketPath,
    clientName: 'vppnet-bench-packet-rate',
    healthCheckIntervalMs: 0,
    requestTimeoutMs: 120_000,
  });
  try {
    await client.connect();
  } catch (e) {
    throw new BenchError(
      'VPPNET_BENCH_SETUP',
      `cannot connect to VPP at ${socketPath}: ${(e as Error).message}`,
    );
  }
  try {
    const facts = await ensureRealVpp(client, socketPath, { anyVersion: opts.anyVersion });
    return await body(client, facts);
  } finally {
    await client.close();
  }
}

async function runNicMode(
  client: VppClient,
  socketPath: string,
  opts: Options,
  info: Awaited<ReturnType<typeof datapathInfo>>,
  facts: VppFacts,
  io: RunIo,
  log: (l: string) => void,
): Promise<number> {
  const t = nicTopology(opts.nic);
  if (opts.nic.program) await programNic(client, socketPath, t, opts.nic, log);
  if (opts.nic.collectSeconds === undefined) {
    const macs = await interfaceMacs(client);
    for (const iface of [t.vppnet.vm1, t.vppnet.underlay]) {
      if (!macs.has(iface)) throw new BenchError('VPPNET_BENCH_USAGE', `VPP has no interface named ${iface}`);
    }
    const bvi = opts.nic.program === 'vppnet' ? await vppnetBviName(client) : undefined;
    io.stdout.write(nicInstructions(t, opts.nic, { macOf: (i) => macs.get(i) ?? `<MAC of ${i}>` }, bvi));
    return 0;
  }
  const { measurement, rows } = await collectWindow(client, t, opts, info, facts, log);
  const meta = runMeta('nic', facts, info, { duration: opts.nic.collectSeconds, warmup: 0, flows: 0 });
  printTable(`bench/packet-rate --nic: VPP ${facts.version}, ${info.workers} worker(s)`, rows, io.stdout);
  printNodes(measurement.figures, io.stdout);
  if (opts.json) await writeFile(opts.json, `${JSON.stringify(reportJson([measurement], meta), null, 2)}\n`);
  return 0;
}

/** The tables on stdout (both comparisons, then the per-node breakdowns), and --json / --svg. */
export async function writeReport(
  ms: readonly Measurement[],
  notMeasured: readonly NotMeasured[],
  meta: RunMeta,
  opts: Pick<Options, 'json' | 'svg'>,
  io: RunIo,
): Promise<void> {
  const who = `VPP ${meta.vppVersion}, ${meta.workers === 0 ? 'no workers' : `${meta.workers} worker(s)`}, ${meta.cpuModel ?? 'CPU ?'}${meta.ghz ? ` (${meta.ghz} GHz)` : ''}`;
  printTable(
    `bench/packet-rate (pg, ${meta.durationSeconds} s windows, ${meta.flows} flows) — ${who}`,
    resultRows(ms, meta, notMeasured),
    io.stdout,
  );
  for (const n of notMeasured) io.stdout.write(`${n.config} ${n.path} not measured: ${n.reason}\n`);
  // Two questions, each with its IPv4 (10 %) and IPv6 (5 %) tables: what vppnet costs against
  // the paths as they were before the source checks (the checks' cost included; what --strict
  // judges), and whether it programs the same datapath as well as an expert does by hand.
  const questions = [
    { against: 'hand', title: 'vppnet vs the same paths configured by hand, without source checks' },
    { against: 'hand-checks', title: 'vppnet vs the same paths by hand with the same source checks' },
  ] as const;
  for (const q of questions) {
    for (const tolerance of [TOLERANCE, IP6_TOLERANCE]) {
      const rows = verdictRows(ms, tolerance, notMeasured, q.against);
      const which = tolerance === IP6_TOLERANCE ? ', IPv6 paths' : '';
      const judged = q.against === 'hand' ? '; --strict judges this one' : '';
      if (rows.length > 0)
        printTable(
          `${q.title}${which} (target: within ${Math.round(tolerance * 100)} %${judged})`,
          rows,
          io.stdout,
        );
    }
  }
  for (const path of PATH_IDS) {
    // The first size class measured on this path ("64B", or "78B" on the IPv6 paths).
    const first = ms.find((m) => m.path === path)?.size;
    const same = ms.filter((m) => m.path === path && m.size === first);
    if (same.length > 0)
      printTable(`${PATH_TITLES[path]}, ${first}: clocks per packet by node`, breakdownRows(same), io.stdout);
  }
  if (opts.json) {
    await writeFile(opts.json, `${JSON.stringify(reportJson(ms, meta, notMeasured), null, 2)}\n`);
    io.stderr.write(`wrote ${opts.json}\n`);
  }
  if (opts.svg) {
    await writeFile(opts.svg, renderBarChart(chartOf(ms, meta)));
    io.stderr.write(`wrote ${opts.svg}\n`);
  }
}
