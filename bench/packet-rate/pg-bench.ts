/**
 * pg mode: builds the configurations of every path in one VPP on packet-generator interfaces
 * (vppnet's, the hand one, whose source checks hand+checks turns on around its own runs) and
 * measures each path, frame size and configuration on its own: create its streams, enable them,
 * let traffic settle (warmup), `clear runtime`, wait the duration, `show runtime`, disable and
 * delete the streams. All streams of a measurement start with one `packet-generator
 * enable-stream` (no name: every stream, enable_disable_stream in src/vnet/pg/cli.c).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { planFresh } from '../../src/hypervisor/desired-state.js';
import type { AgentConfig } from '../../src/config/model.js';
import type { VppClient } from '../../src/vpp/client/vpp-client.js';
import { pathFigures, pickRun, type PathFigures } from './metrics.js';
import { measuresConfig, type Options } from './options.js';
import { missingIp6Objects, readIp6Found } from './ip6-presence.js';
import type { Measurement, NotMeasured, RunMeta } from './report.js';
import { parseShowCpu, parseShowRuntime, parseShowThreads } from './runtime.js';
import { attachPodPort, programVppnet, runSteps, vppnetBviName } from './setup.js';
import { buildStreams, pgStreamCommand, sizeLabelFor, type SizeClass } from './streams.js';
import {
  allPgIds,
  HAND,
  pgCreateCommands,
  pgIdOf,
  pgMac,
  pgPeerMac,
  pgTopology,
  txNode,
  VPPNET,
  type Macs,
  type Peers,
} from './topology.js';
import { baselineSteps, baselineWorldSteps, ip6WorldSteps, worldSteps } from './world-steps.js';
import { handIp6Neighbours, handIp6Steps, handSteps } from './hand-config.js';
import { handCheckTableSteps, handCheckToggle } from './hand-checks.js';
import { handChecksPlans, IP6_PATH_IDS, ip6PathPlans, PATH_IDS, pathPlans, type PathPlan } from './paths.js';
import { vppnetConfig, vppnetDualStackConfig } from './vppnet-config.js';
import { BenchError, cli, ensureFresh, type VppFacts } from './vpp-checks.js';

export interface Log {
  (line: string): void;
}

export interface DatapathInfo {
  readonly workers: number;
  readonly cpuModel: string | undefined;
  readonly ghz: number | undefined;
}

export async function datapathInfo(client: VppClient): Promise<DatapathInfo> {
  const threads = parseShowThreads(await cli(client, 'show threads'));
  const cpu = parseShowCpu(await cli(client, 'show cpu'));
  return { workers: threads.workers, cpuModel: cpu.model, ghz: cpu.ghz };
}

const pgMacs: Macs = { macOf: (iface) => pgMac(pgIdOf(iface) ?? -1) };
const pgPeers: Peers = { macBehind: (iface) => pgPeerMac(pgIdOf(iface) ?? -1) };

/** Why the reconciler cannot plan a config, or undefined when it can. */
function dualStackPlanError(config: AgentConfig): string | undefined {
  try {
    planFresh(config);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

function missingIp6Reason(missing: readonly string[]): string | undefined {
  return missing.length === 0
    ? undefined
    : `vppnet's reconciler did not program its IPv6 side (its IPv6 kinds are missing): no ${missing.join(', no ')}`;
}

export interface Testbed {
  readonly plans: readonly PathPlan[];
  /** Selected paths of a configuration that cannot be measured (vppnet without its IPv6 kinds). */
  readonly notMeasured: readonly NotMeasured[];
}

/** Creates the pg interfaces and both configurations; returns the path plans to measure. */
export async function buildPgTestbed(
  client: VppClient,
  socketPath: string,
  opts: Options,
  log: Log,
): Promise<Testbed> {
  const t = pgTopology();
  await ensureFresh(client, socketPath, {
    interfaces: [
      ...allPgIds().map((id) => `pg${id}`),
      `loop${HAND.gatewayLoopback}`,
      `loop${HAND.bviLoopback}`,
    ],
    tables: [VPPNET.table, VPPNET.servicesTable, HAND.table, HAND.servicesTable],
  });
  log(`creating ${allPgIds().length} packet-generator interfaces`);
  await runSteps(client, pgCreateCommands());

  const macs = {
    vm1: pgPeerMac(pgIdOf(t.vppnet.vm1) ?? -1),
    vm2: pgPeerMac(pgIdOf(t.vppnet.vm2) ?? -1),
  };
  // The IPv6 paths need vppnet's IPv6 kinds. A reconciler without them cannot plan the
  // dual-stack config (it reads IPv6 routes as IPv4) or does not program its IPv6 side; then the
  // IPv4 config is programmed, and the vppnet IPv6 rows say what is missing instead of measuring
  // drops.
  const dualStack = vppnetDualStackConfig(t.vppnet, macs);
  const unplannable = dualStackPlanError(dualStack);
  const config = unplannable === undefined ? dualStack : vppnetConfig(t.vppnet, macs);
  const started = Date.now();
  const applied = await programVppnet(client, config);
  log(`vppnet: reconciler applied ${applied} operations in ${Date.now() - started} ms`);
  if (!config.services)
    throw new BenchError('VPPNET_BENCH_SETUP', 'the generated config has no service bridge');
  await attachPodPort(client, t.vppnet.pod, config.services);
  const bvi = await vppnetBviName(client);
  await runSteps(client, worldSteps('vppnet', t.vppnet, bvi, pgPeers));
  if (config.services.ip6) await runSteps(client, ip6WorldSteps('vppnet', t.vppnet, bvi, pgPeers));
  const why6 =
    unplannable !== undefined
      ? `vppnet's reconciler cannot plan the dual-stack config (${unplannable}): its IPv6 kinds are missing`
      : missingIp6Reason(missingIp6Objects(config, VPPNET.vpc, await readIp6Found(client, VPPNET.table)));
  const notMeasured: NotMeasured[] =
    why6 === undefined
      ? []
      : IP6_PATH_IDS.filter((path) => opts.paths.includes(path)).map((path) => ({
          path,
          config: 'vppnet' as const,
          reason: why6,
        }));
  for (const n of notMeasured) log(`vppnet ${n.path}: not measured: ${n.reason}`);

  const steps = [...handSteps(t.hand, { globals: false }), ...handIp6Steps(t.hand)];
  await runSteps(client, steps);
  await runSteps(client, [
    ...worldSteps('hand', t.hand, `loop${HAND.bviLoopback}`, pgPeers),
    ...handIp6Neighbours(t.hand, pgPeers),
    ...ip6WorldSteps('hand', t.hand, `loop${HAND.bviLoopback}`, pgPeers),
  ]);
  log(`hand: ${steps.length} CLI commands`);
  // The tables the hand+checks runs look sources up in; inert until its checks name them.
  const checkTables = handCheckTableSteps(t.hand, pgPeers);
  await runSteps(client, checkTables);
  log(`hand+checks: ${checkTables.length} CLI commands, its checks turned on around each of its runs`);

  await runSteps(client, [...baselineSteps(t.baseline), ...baselineWorldSteps(t.baseline, pgPeers)]);
  const vppnetAndHand = [
    ...pathPlans(t, pgMacs, pgPeers, opts.flows),
    ...ip6PathPlans(t, pgMacs, pgPeers, opts.flows),
  ];
  const plans = [...vppnetAndHand, ...handChecksPlans(vppnetAndHand, handCheckToggle(t.hand))];
  return {
    plans: plans.filter(
      (p) =>
        opts.paths.includes(p.path) &&
        measuresConfig(opts, p.config) &&
        !notMeasured.some((n) => n.path === p.path && n.config === p.config),
    ),
    notMeasured: notMeasured.filter((n) => measuresConfig(opts, n.config)),
  };
}

/** One run: the plan's streams for one size class, traffic for warmup + duration, figures of the window. */
export async function measureOnce(
  client: VppClient,
  plan: PathPlan,
  size: SizeClass,
  workers: number,
  opts: Pick<Options, 'duration' | 'warmup'>,
): Promise<{ figures: PathFigures; streams: string[]; errors: string | undefined }> {
  const source = pgIdOf(plan.ingress);
  if (source === undefined)
    throw new BenchError('VPPNET_BENCH_SETUP', `${plan.ingress} is not a pg interface`);
  const streams = buildStreams({
    prefix: `${plan.config}-${plan.path}-${size.label}`,
    source,
    traffic: plan.traffic,
    size,
    workers,
  });
  let text: string;
  try {
    for (const c of plan.toggle?.on ?? []) await cli(client, c);
    for (const s of streams) await cli(client, pgStreamCommand(s));
    await cli(client, 'clear errors');
    await cli(client, 'packet-generator enable-stream');
    if (opts.warmup > 0) await sleep(opts.warmup * 1000);
    await cli(client, 'clear runtime');
    await sleep(opts.duration * 1000);
    text = await cli(client, 'show runtime');
  } finally {
    await cli(client, 'packet-generator disable-stream').catch(() => undefined);
    for (const s of streams) await cli(client, `packet-generator delete ${s.name}`).catch(() => undefined);
    // Not caught: a check left on would put its node on the next configuration's paths.
    for (const c of plan.toggle?.off ?? []) await cli(client, c);
  }
  const figures = pathFigures(parseShowRuntime(text), {
    egress: [txNode(plan.egress)],
    expect: plan.expect,
    forbid: plan.forbid,
  });
  const broken =
    figures.packets === 0 || figures.missing.length > 0 || figures.dropped > 0.01 * figures.received;
  const errors = broken ? await cli(client, 'show errors').catch((e: Error) => e.message) : undefined;
  return { figures, streams: streams.map((s) => s.name), errors };
}

/** Every selected path × size × configuration, `repeat` times each, in an order that interleaves them. */
export async function measureAll(
  client: VppClient,
  plans: readonly PathPlan[],
  info: DatapathInfo,
  opts: Options,
  log: Log,
): Promise<Measurement[]> {
  const out: Measurement[] = [];
  // Per path and size, repeats alternate between the configurations (vppnet, hand, hand+checks,
  // vppnet, …) so that a slow spell of the machine falls on all of them rather than on one
  // configuration's runs.
  const groups = opts.sizes
    .flatMap((size) => PATH_IDS.map((path) => ({ size, plans: plans.filter((p) => p.path === path) })))
    .filter((g) => g.plans.length > 0);
  const total = groups.reduce((s, g) => s + g.plans.length, 0) * opts.repeat;
  let n = 0;
  for (const { size, plans: group } of groups) {
    const runs = new Map<PathPlan, { figures: PathFigures; streams: string[] }[]>(group.map((p) => [p, []]));
    for (let r = 0; r < opts.repeat; r++) {
      for (const plan of group) {
        n++;
        const run = await measureOnce(client, plan, size, info.workers, opts);
        runs.get(plan)?.push(run);
        const f = run.figures;
        log(
          `[${n}/${total}] ${plan.path} ${sizeLabelFor(plan.traffic, size)} ${plan.config}: ${f.mpps.toFixed(2)} Mpps, ${f.pathClocksPerPacket.toFixed(1)} path clocks/packet`,
        );
        if (f.missing.length > 0)
          log(`  WARNING: no packet went through ${f.missing.join(', ')}: the path is not the one intended`);
        if (f.forbidden.length > 0)
          log(`  WARNING: packets went through ${f.forbidden.join(', ')}: the path is not the one intended`);
        if (f.packets === 0) log(`  WARNING: nothing left ${plan.egress}`);
        if (f.dropped > 0.01 * f.received) log(`  WARNING: ${f.dropped} of ${f.received} packets dropped`);
        if (run.errors)
          log(
            `  show errors:\n${run.errors
              .split('\n')
              .slice(0, 25)
              .map((l) => `    ${l}`)
              .join('\n')}`,
          );
      }
    }
    for (const plan of group) {
      const planRuns = runs.get(plan) ?? [];
      const chosen = pickRun(planRuns, opts.pick);
      out.push({
        path: plan.path,
        config: plan.config,
        size: sizeLabelFor(plan.traffic, size),
        ingress: plan.ingress,
        egress: plan.egress,
        streams: chosen.streams,
        figures: chosen.figures,
        runsMpps: planRuns.map((r) => r.figures.mpps),
      });
    }
  }
  return out;
}

export function runMeta(
  mode: 'pg' | 'nic',
  facts: VppFacts,
  info: DatapathInfo,
  opts: Pick<Options, 'duration' | 'warmup' | 'flows'>,
): RunMeta {
  return {
    mode,
    vppVersion: facts.version,
    vppBanner: facts.banner,
    workers: info.workers,
    cpuModel: info.cpuModel,
    ghz: info.ghz,
    durationSeconds: opts.duration,
    warmupSeconds: opts.warmup,
    flows: opts.flows,
    date: new Date().toISOString(),
    node: process.version,
  };
}
