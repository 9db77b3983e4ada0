/**
 * bench/sim: how fast the VPP simulator answers, since the benchmarks and the reconciler tests
 * run 100k routes and 10k-entry dumps against it (its correctness under that volume is
 * src/vpp/sim/throughput.test.ts; speed is measured here, not asserted in a unit test).
 *   npm run bench:sim
 * Rows: control_pings pipelined in one write, ip_route_add_del pipelined, ip_route_dump of a
 * 10k-route table. Raw frames over the socket, so the client's own cost is not in the figures.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { encodeMessage } from '../../src/vpp/codec/message-codec.js';
import { msg } from '../../src/vpp/messages/index.js';
import { permissiveHost, VppSimulator } from '../../src/vpp/sim/index.js';
import { RawClient } from '../../test/support/raw-client.js';
import { fmt, peakRssMiB, printTable, type Row } from '../support/report.js';

const N_PINGS = Number(process.env.BENCH_PINGS ?? 10_000);
const N_ROUTES = Number(process.env.BENCH_ROUTES ?? 100_000);
const N_DUMP = Number(process.env.BENCH_DUMP ?? 10_000);
/** Route adds written per socket write. */
const BATCH = 20_000;

function row(name: string, count: number, ms: number): Row {
  return {
    benchmark: name,
    count: fmt(count),
    seconds: fmt(ms / 1000, 2),
    'ops/s': fmt(count / (ms / 1000)),
  };
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-bench-sim-'));
const sim = await VppSimulator.start({
  socketPath: path.join(dir, 'api.sock'),
  host: permissiveHost,
  vhostNet: false,
});
const c = await RawClient.connect(sim.socketPath);
try {
  await c.handshake();
  const rows: Row[] = [];

  const pingId = c.idOf(msg.control_ping);
  let base = c.received.length;
  const pings = Buffer.concat(
    Array.from({ length: N_PINGS }, (_, i) =>
      encodeMessage(msg.control_ping, pingId, {}, { context: i + 1, clientIndex: c.clientIndex }),
    ),
  );
  let t0 = performance.now();
  c.sendRaw(pings);
  await c.waitForCount(base + N_PINGS, 120_000);
  rows.push(row('control_ping pipelined', N_PINGS, performance.now() - t0));

  await c.call(msg.ip_table_add_del, { is_add: true, table: { table_id: 8 } }, 2);
  base = c.received.length;
  t0 = performance.now();
  for (let first = 0; first < N_ROUTES; first += BATCH)
    c.sendRaw(c.routeAddFrames(8, Math.min(BATCH, N_ROUTES - first), first, 100_000 + first));
  await c.waitForCount(base + N_ROUTES, 600_000);
  rows.push(row('ip_route_add_del pipelined', N_ROUTES, performance.now() - t0));

  await c.call(msg.ip_table_add_del, { is_add: true, table: { table_id: 7 } }, 1);
  base = c.received.length;
  c.sendRaw(c.routeAddFrames(7, N_DUMP, 0, 1000));
  await c.waitForCount(base + N_DUMP, 600_000);
  t0 = performance.now();
  const out = await c.dump(msg.ip_route_dump, { table: { table_id: 7 } }, 99);
  // The details, without the control_ping reply that ends the dump.
  rows.push(row('ip_route_dump (entries)', out.length - 1, performance.now() - t0));

  printTable('VPP simulator, raw frames over its socket', rows);
  process.stdout.write(`\npeak RSS ${fmt(peakRssMiB())} MiB (simulator and client in one process)\n`);
} finally {
  c.close();
  await sim.close();
  await rm(dir, { recursive: true, force: true });
}
