/**
 * bench/reconcile: how long vppnet-agent takes to converge a large node, and its memory.
 *   npm run bench:reconcile                         # against the simulator
 *   VPP_API_SOCKET=/run/vpp/api.sock npm run bench:reconcile
 * Default size: 1,000 VPCs x 100 remote routes = 100,000 steering entries (BENCH_VPCS,
 * BENCH_ROUTES to change). Rows: from empty, no-change, and after a VPP restart (simulator only).
 */
import { performance } from 'node:perf_hooks';
import { memoryStore, reconcile } from '../../src/agent/reconciler.js';
import type { AgentConfig } from '../../src/config/model.js';
import { validateConfig } from '../../src/config/validate.js';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import { msg } from '../../src/vpp/messages/index.js';
import { noHostLinks } from '../support/no-host-links.js';
import { fmt, peakRssMiB, printTable, rssMiB, type Row } from '../support/report.js';
import { vppUnderTest } from '../support/vpp-under-test.js';

const N_VPCS = Number(process.env.BENCH_VPCS ?? 1000);
const N_ROUTES = Number(process.env.BENCH_ROUTES ?? 100);


function benchConfig(underlay: string): AgentConfig {
  const vpcs = Array.from({ length: N_VPCS }, (_, i) => ({ name: `vpc-${i}`, id: 1000 + i, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' }));
  const remoteRoutes = vpcs.flatMap((v, i) =>
    Array.from({ length: N_ROUTES }, (_, j) => ({ vpc: v.name, prefix: `10.${1 + (j >> 8)}.${j & 255}.0/24`, sid: `fc00:2::${(1000 + i).toString(16)}` })),
  );
  return validateConfig({
    node: { name: 'bench', underlay: { interface: underlay, address: '2001:db8::1/64', gateway: '2001:db8::2' }, srv6: { locator: 'fc00:1::/48' } },
    vpcs,
    ports: [],
    remoteRoutes,
  });
}

async function main(): Promise<void> {
  const vpp = await vppUnderTest();
  const client = new VppClient({ socketPath: vpp.socketPath, clientName: 'vppnet-bench', healthCheckIntervalMs: 0, maxPending: 1_000_000, requestTimeoutMs: 120_000, retryStrategy: () => 50 });
  await client.connect();
  const globals = memoryStore();
  const rows: Row[] = [];
  const makeUnderlay = async (): Promise<string> => {
    const lo = await client.call(msg.create_loopback_instance, {});
    const [d] = await client.dump(msg.sw_interface_dump, { sw_if_index: lo.sw_if_index });
    return d!.interface_name;
  };
  try {
    let config = benchConfig(await makeUnderlay());
    const pass = async (name: string): Promise<void> => {
      const t0 = performance.now();
      const out = await reconcile(config, { client, host: noHostLinks, globals });
      const seconds = (performance.now() - t0) / 1000;
      const failed = out.result?.failed.length ?? 0;
      if (failed) throw new Error(`${name}: ${failed} operations failed, first: ${out.result?.failed[0]?.error.message}`);
      rows.push({
        pass: name,
        'operations': fmt(out.result?.applied ?? 0),
        seconds: fmt(seconds, 2),
        'ops/s': fmt((out.result?.applied ?? 0) / seconds),
        'RSS MiB': fmt(rssMiB()),
        'peak RSS MiB': fmt(peakRssMiB()),
      });
    };
    await pass(`from empty (${fmt(N_VPCS)} VPCs x ${N_ROUTES} routes)`);
    await pass('no change');
    if (vpp.restart) {
      const ready = new Promise<void>((r) => client.once('ready', () => r()));
      await vpp.restart();
      await ready;
      config = benchConfig(await makeUnderlay());
      await pass('after a VPP restart');
    } else {
      process.stdout.write('(after a VPP restart: restart your VPP and run again; the simulator row needs no VPP_API_SOCKET)\n');
    }
    printTable(`bench/reconcile against ${vpp.description}, node ${process.version}`, rows);
  } finally {
    await client.close();
    await vpp.stop();
  }
}

await main();
