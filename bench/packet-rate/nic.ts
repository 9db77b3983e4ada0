/**
 * --nic mode: real NICs and an external traffic generator (TRex, another VPP, …). The benchmark
 * prints what to configure (startup.conf, vppnet's config or the hand CLI, the neighbours) and
 * what to send; with --program it configures a fresh VPP one way; with --collect-seconds it only
 * reads the runtime counters over a window while the user drives the traffic.
 * Ports the generator does not need to see (the second VM, the metadata pod) default to pg
 * interfaces: VPP transmits into them and frees the packets, which is all a sink has to do.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import { fmt, printTable, type Row } from '../support/report.js';
import { pathFigures, pathOnlyMppsPerCore, type PathFigures } from './metrics.js';
import type { NicOptions, Options } from './options.js';
import { runMeta, type DatapathInfo } from './pg-bench.js';
import type { Measurement } from './report.js';
import { parseShowRuntime } from './runtime.js';
import { attachPodPort, programVppnet, runSteps, vppnetBviName } from './setup.js';
import { IMIX, pgData, pgPacketBytes, SIZE_64 } from './streams.js';
import { baselineSteps, baselineWorldSteps, worldSteps } from './world-steps.js';
import {
  HAND,
  pgCreateCommands,
  pgIdOf,
  pgPeerMac,
  txNode,
  VPPNET,
  type Macs,
  type Peers,
  type PortSet,
  type Topology,
} from './topology.js';
import { handSteps } from './hand-config.js';
import { pathPlans } from './paths.js';
import { vppnetConfig, vppnetConfigInput } from './vppnet-config.js';
import type { VppClient } from '../../src/vpp/client/vpp-client.js';
import { BenchError, cli, ensureFresh, type VppFacts } from './vpp-checks.js';

/** A MAC with its last byte moved by `delta`. */
function macPlus(mac: string, delta: number): string {
  const parts = mac.split(':');
  parts[5] = ((parseInt(parts[5] as string, 16) + delta) & 0xff).toString(16).padStart(2, '0');
  return parts.join(':');
}

export function nicTopology(n: NicOptions): Topology {
  const ports: PortSet = {
    vm1: n.vmIf as string,
    vm2: n.vm2If ?? 'pg11',
    underlay: n.underlayIf as string,
    pod: n.podIf ?? 'pg13',
  };
  // One configuration at a time on the NICs: both sides name the same ports.
  return { vppnet: ports, hand: ports, baseline: { in: ports.vm1, out: ports.underlay } };
}

export function nicPeers(t: Topology, n: NicOptions): Peers {
  const p = t.vppnet;
  return {
    macBehind: (iface) => {
      const pg = pgIdOf(iface);
      if (pg !== undefined) return pgPeerMac(pg);
      if (iface === p.vm2) return macPlus(n.peerMac, 1);
      if (iface === p.pod) return macPlus(n.peerMac, 2);
      return n.peerMac;
    },
  };
}

/** The text --nic prints: startup.conf, vppnet's config, the hand CLI, the neighbours and the traffic. */
export function nicInstructions(
  t: Topology,
  n: NicOptions,
  macs: Macs | undefined,
  bvi: string | undefined,
): string {
  const p = t.vppnet;
  const peers = nicPeers(t, n);
  const pgs = [p.vm2, p.pod].map(pgIdOf).filter((x): x is number => x !== undefined);
  const config = vppnetConfigInput(p, { vm1: peers.macBehind(p.vm1), vm2: peers.macBehind(p.vm2) });
  const hand = handSteps(p, { globals: true }).map((s) => s.cmd);
  const plans = pathPlans(t, macs ?? { macOf: (iface) => `<MAC of ${iface}>` }, peers, 256).filter(
    (x) => x.config !== 'hand',
  );
  const out: string[] = [];
  out.push('# 1. startup.conf (one worker; for two: corelist-workers 2-3 and two rx queues per NIC)');
  out.push(
    [
      'unix { cli-listen /run/vpp/cli.sock }',
      'socksvr { socket-name /run/vpp/api.sock }',
      'cpu { main-core 1  corelist-workers 2 }',
      'buffers { buffers-per-numa 128000 }',
      `dpdk {`,
      `  dev <PCI of ${p.vm1}> { name ${p.vm1}  num-rx-queues 1 }`,
      `  dev <PCI of ${p.underlay}> { name ${p.underlay}  num-rx-queues 1 }`,
      '}',
      'plugins { plugin default { enable } }',
      '# rx placement with two workers: set interface rx-placement <if> queue <q> worker <w>',
    ].join('\n'),
  );
  out.push('');
  out.push(`# 2a. vppnet: this config, applied by vppnet-agent or by --program vppnet`);
  out.push(stringify(config).trimEnd());
  out.push('');
  out.push(
    '# 2b. or by hand (--program hand); {acl:NAME} = the index `set acl-plugin acl … tag NAME` printed',
  );
  out.push(hand.join('\n'));
  out.push('');
  out.push('# 2c. or the baseline, plain IPv4 in table 0 (--program baseline)');
  out.push([...baselineSteps(t.baseline), ...baselineWorldSteps(t.baseline, peers)].join('\n'));
  out.push('');
  out.push(
    `# 3. neighbours (--program adds them): the generator's MAC ${n.peerMac} stands for the VMs and the underlay gateway`,
  );
  if (pgs.length > 0) out.push(pgCreateCommands(pgs).join('\n'));
  out.push(
    worldSteps('vppnet', p, bvi ?? '<vppnet BVI: the loopback tagged vppnet:services:bvi>', peers).join('\n'),
  );
  out.push(
    `# (hand: the same with ${HAND.underlayGateway} for the underlay gateway and loop${HAND.bviLoopback}, bridge domain ${HAND.bridgeDomain})`,
  );
  out.push('');
  out.push('# 4. traffic to send, per path (frames incl. FCS: 64 B, and IMIX 7:4:1 of 64/570/1518 B)');
  for (const plan of plans) {
    if (pgIdOf(plan.ingress) !== undefined) continue;
    out.push(
      `## ${plan.path}${plan.config === 'baseline' ? ' (after --program baseline)' : ''}: send on ${plan.ingress}, expect it out of ${plan.egress}`,
    );
    out.push(
      `##   pg-equivalent packet at 64 B (${pgPacketBytes(plan.traffic, SIZE_64.parts[0]?.frame ?? 64)} bytes without FCS):`,
    );
    for (const line of pgData(plan.traffic, 64)) out.push(`##     ${line}`);
    out.push(
      `##   IMIX sizes on this port: ${IMIX.parts.map((x) => pgPacketBytes(plan.traffic, x.frame) + 4).join('/')} B`,
    );
  }
  out.push(
    `## (after --program hand, remote-to-vm goes to the SID ${HAND.localSid} from ${HAND.underlayGateway}; everything else is the same)`,
  );
  out.push('');
  out.push(
    '# 5. measure: VPP_API_SOCKET=… npm run bench:packet-rate -- --nic … --collect-seconds 30 --path vm-to-remote --config vppnet --size 64B',
  );
  return `${out.join('\n')}\n`;
}

/** --program: configures a fresh VPP for one configuration on the NICs. */
export async function programNic(
  client: VppClient,
  socketPath: string,
  t: Topology,
  n: NicOptions,
  log: (l: string) => void,
): Promise<void> {
  const p = t.vppnet;
  const peers = nicPeers(t, n);
  await ensureFresh(client, socketPath, {
    interfaces: [p.vm2, p.pod].filter((i) => pgIdOf(i) !== undefined),
    tables: [VPPNET.table, VPPNET.servicesTable, HAND.table, HAND.servicesTable],
  });
  const pgs = [p.vm2, p.pod].map(pgIdOf).filter((x): x is number => x !== undefined);
  await runSteps(client, pgCreateCommands(pgs));
  switch (n.program) {
    case 'vppnet': {
      const config = vppnetConfig(p, { vm1: peers.macBehind(p.vm1), vm2: peers.macBehind(p.vm2) });
      log(`vppnet: reconciler applied ${await programVppnet(client, config)} operations`);
      if (config.services) await attachPodPort(client, p.pod, config.services);
      await runSteps(client, worldSteps('vppnet', p, await vppnetBviName(client), peers));
      break;
    }
    case 'hand':
      await runSteps(client, handSteps(p, { globals: true }));
      await runSteps(client, worldSteps('hand', p, `loop${HAND.bviLoopback}`, peers));
      log('hand: configured through the CLI');
      break;
    case 'baseline':
      await runSteps(client, [...baselineSteps(t.baseline), ...baselineWorldSteps(t.baseline, peers)]);
      log(`baseline: IPv4 forwarding ${t.baseline.in} → ${t.baseline.out} in table 0`);
      break;
    case undefined:
      break;
  }
}

/** --collect-seconds: the runtime counters of a window the user fills with traffic. */
export async function collectWindow(
  client: VppClient,
  t: Topology,
  opts: Options,
  info: DatapathInfo,
  facts: VppFacts,
  log: (l: string) => void,
): Promise<{ measurement: Measurement; rows: Row[] }> {
  const n = opts.nic;
  const seconds = n.collectSeconds as number;
  const plan = n.path
    ? pathPlans(t, { macOf: () => '' }, nicPeers(t, n), 1).find(
        (x) => x.path === n.path && (x.config === (n.config ?? 'vppnet') || x.config === 'baseline'),
      )
    : undefined;
  const egress = n.egressIf ?? plan?.egress;
  if (!egress)
    throw new BenchError(
      'VPPNET_BENCH_USAGE',
      '--collect-seconds needs --path or --egress-if to know which interface the packets leave by',
    );
  await cli(client, 'clear errors');
  await cli(client, 'clear runtime');
  log(`collecting for ${seconds} s: drive the traffic now`);
  await sleep(seconds * 1000);
  const figures: PathFigures = pathFigures(parseShowRuntime(await cli(client, 'show runtime')), {
    egress: [txNode(egress)],
    expect: plan?.expect ?? [],
    forbid: plan?.forbid ?? [],
  });
  const meta = runMeta('nic', facts, info, { duration: seconds, warmup: 0, flows: 0 });
  const measurement: Measurement = {
    path: n.path ?? 'baseline',
    config: n.config ?? (n.path === 'baseline' ? 'baseline' : 'vppnet'),
    size: n.sizeLabel ?? 'unlabelled',
    ingress: plan?.ingress ?? '(external)',
    egress,
    streams: [],
    figures,
    runsMpps: [figures.mpps],
  };
  const rows: Row[] = [
    {
      window: `${measurement.path} ${measurement.size} ${measurement.config}`,
      seconds: fmt(figures.seconds, 1),
      'packets out': fmt(figures.packets),
      received: fmt(figures.received),
      Mpps: fmt(figures.mpps, 2),
      'path clk/pkt': fmt(figures.pathClocksPerPacket, 1),
      'graph clk/pkt': fmt(figures.graphClocksPerPacket, 1),
      'path-only Mpps/core': fmt(pathOnlyMppsPerCore(figures, meta.ghz), 1),
    },
  ];
  return { measurement, rows };
}

export function printNodes(figures: PathFigures, out: NodeJS.WritableStream): void {
  printTable(
    'per node (datapath threads)',
    figures.nodes.map((x) => ({
      node: x.name,
      kind: x.kind,
      vectors: fmt(x.vectors),
      'vec/call': fmt(x.vectorsPerCall, 1),
      'clk/vector': fmt(x.clocksPerVector, 1),
      'clk/pkt': fmt(x.clocksPerPacket, 1),
    })),
    out,
  );
}
