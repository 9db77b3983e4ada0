/**
 * bench/api: how fast vppnet's VPP client talks to VPP.
 *   npm run bench:api                      # against the simulator
 *   VPP_API_SOCKET=/run/vpp/api.sock npm run bench:api
 * Rows: request/reply waiting for each reply (sequential) and pipelined, dump entries per second,
 * and ip_route_add_del for 100k routes. Latencies are per request, from send to reply.
 */
import { performance } from 'node:perf_hooks';
import { ignoreRetval } from '../../src/vpp/client/retval-error.js';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import { msg } from '../../src/vpp/messages/index.js';
import { fmt, peakRssMiB, percentile, printTable, type Row } from '../support/report.js';
import { vppUnderTest } from '../support/vpp-under-test.js';

const BENCH_TABLE = 4243;
const N_SEQ = Number(process.env.BENCH_SEQ ?? 20_000);
const N_PIPE = Number(process.env.BENCH_PIPE ?? 200_000);
const N_ROUTES = Number(process.env.BENCH_ROUTES ?? 100_000);
/** Requests in flight at once when pipelining. */
const WINDOW = Number(process.env.BENCH_WINDOW ?? 4096);

function ip4(n: number): string {
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

async function sequential(
  n: number,
  send: () => Promise<unknown>,
): Promise<{ seconds: number; lat: number[] }> {
  const lat: number[] = new Array<number>(n);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    await send();
    lat[i] = performance.now() - s;
  }
  return { seconds: (performance.now() - t0) / 1000, lat };
}

/** Keeps `window` requests in flight until `n` are done. */
async function pipelined(
  n: number,
  window: number,
  send: (i: number) => Promise<unknown>,
): Promise<{ seconds: number; lat: number[] }> {
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
  return { seconds: (performance.now() - t0) / 1000, lat };
}

function row(name: string, count: number, r: { seconds: number; lat: number[] }): Row {
  const sorted = [...r.lat].sort((a, b) => a - b);
  return {
    benchmark: name,
    count: fmt(count),
    seconds: fmt(r.seconds, 2),
    'ops/s': fmt(count / r.seconds),
    'p50 ms': fmt(percentile(sorted, 50), 3),
    'p99 ms': fmt(percentile(sorted, 99), 3),
    'p99.9 ms': fmt(percentile(sorted, 99.9), 3),
    'peak RSS MiB': fmt(peakRssMiB(), 0),
  };
}

async function main(): Promise<void> {
  const vpp = await vppUnderTest();
  const client = new VppClient({
    socketPath: vpp.socketPath,
    clientName: 'vppnet-bench',
    healthCheckIntervalMs: 0,
    maxPending: 1_000_000,
  });
  await client.connect();
  const rows: Row[] = [];
  try {
    const version = await client.call(msg.show_version, {});
    // Warm-up: JIT and socket buffers.
    await pipelined(5000, 256, () => client.call(msg.control_ping, {}));

    const pingSeq = await sequential(N_SEQ, () => client.call(msg.control_ping, {}));
    const pingPipe = await pipelined(N_PIPE, WINDOW, () => client.call(msg.control_ping, {}));
    rows.push(row('control_ping sequential', N_SEQ, pingSeq));
    rows.push(row(`control_ping pipelined (window ${WINDOW})`, N_PIPE, pingPipe));
    rows.push(
      row('show_version sequential', N_SEQ, await sequential(N_SEQ, () => client.call(msg.show_version, {}))),
    );
    rows.push(
      row(
        `show_version pipelined (window ${WINDOW})`,
        N_PIPE,
        await pipelined(N_PIPE, WINDOW, () => client.call(msg.show_version, {})),
      ),
    );

    await client.call(msg.ip_table_add_del, {
      is_add: true,
      table: { table_id: BENCH_TABLE, is_ip6: false, name: 'vppnet-bench' },
    });
    try {
      const addRoute = (i: number): Promise<unknown> =>
        client.call(msg.ip_route_add_del, {
          is_add: true,
          route: {
            table_id: BENCH_TABLE,
            prefix: { address: { af: 0, un: { ip4: ip4(i) } }, len: 32 },
            paths: [{ sw_if_index: 0xffffffff, table_id: 0, proto: 0 }],
          },
        });
      rows.push(
        row(
          `ip_route_add_del pipelined (window ${WINDOW})`,
          N_ROUTES,
          await pipelined(N_ROUTES, WINDOW, addRoute),
        ),
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
      });
    } finally {
      // Routes first: VPP leaks the API routes of a table deleted with them inside.
      await pipelined(N_ROUTES, WINDOW, (i) =>
        client
          .call(msg.ip_route_add_del, {
            is_add: false,
            route: {
              table_id: BENCH_TABLE,
              prefix: { address: { af: 0, un: { ip4: ip4(i) } }, len: 32 },
              paths: [{ sw_if_index: 0xffffffff, table_id: 0, proto: 0 }],
            },
          })
          .catch(ignoreRetval),
      );
      await client.call(msg.ip_table_add_del, {
        is_add: false,
        table: { table_id: BENCH_TABLE, is_ip6: false },
      });
    }
    printTable(
      `bench/api against ${vpp.description} — VPP ${version.version}, node ${process.version}`,
      rows,
    );
    const ratio = N_PIPE / pingPipe.seconds / (N_SEQ / pingSeq.seconds);
    process.stdout.write(`\npipelined / sequential (control_ping): ${fmt(ratio, 1)}x\n`);
  } finally {
    await client.close();
    await vpp.stop();
  }
}

await main();
