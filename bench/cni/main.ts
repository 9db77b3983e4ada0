/**
 * bench/cni: ADD and DEL latency of vppnet-cni as a container runtime sees it, sequential and with
 * 20 pods at once. Everything is real except VPP: the vppnet-agent executable (against the
 * simulator, or a real VPP with VPP_API_SOCKET), the plugin executable started per call as
 * Multus would, Debian's `static` IPAM plugin, and one network namespace per pod. Root only.
 *   sudo npm run bench:cni
 * BENCH_PODS (default 100) pods per round; BENCH_CONCURRENCY (default 20).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { VppClient } from '../../src/vpp/client/vpp-client.js';
import { reconcile } from '../../src/agent/reconciler.js';
import { memoryStore } from '../../src/hypervisor/reconcile.js';
import { validateConfig } from '../../src/config/validate.js';
import { createUnderlay, removeUnderlay, type TestUnderlay } from '../../test/support/underlay.js';
import { agentMain } from '../support/agent-main.js';
import { noHostLinks } from '../support/no-host-links.js';
import { fmt, percentile, printTable, type Row } from '../support/report.js';
import { vppUnderTest } from '../support/vpp-under-test.js';

const run = promisify(execFile);

const PODS = Number(process.env.BENCH_PODS ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const CNI_PATH = process.env.VPPNET_CNI_PLUGIN_DIR ?? '/usr/lib/cni';
/** The single executable if built (npm run build:cni-sea), else the plugin on Node. */
const SEA = fileURLToPath(new URL('../../sea/vppnet-cni', import.meta.url));
const PLUGIN_JS = fileURLToPath(new URL('../../src/cni/main.js', import.meta.url));
const RUN = `vbc${process.pid.toString(36)}`;

interface Env {
  readonly dir: string;
  readonly agentSocket: string;
}

function netConfig(env: Env, i: number): string {
  // Each pod its own static address: like many service pods across a fleet, measured on one node;
  // ten pods per network, as the agent takes at most 16 attachments of one network on a node.
  return JSON.stringify({
    cniVersion: '1.0.0',
    name: `vppnet-services-${Math.floor(i / 10)}`,
    type: 'vppnet-cni',
    agentSocket: env.agentSocket,
    mode: 'veth',
    ipam: {
      type: 'static',
      addresses: [{ address: `169.254.169.${10 + (i % 200)}/24`, gateway: '169.254.169.1' }],
      routes: [{ dst: '169.252.252.0/24', gw: '169.254.169.1' }],
    },
  });
}

function runPlugin(command: 'ADD' | 'DEL', env: Env, i: number): Promise<number> {
  const [file, args] = existsSync(SEA) ? [SEA, []] : [process.execPath, [PLUGIN_JS]];
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      env: {
        CNI_COMMAND: command,
        CNI_CONTAINERID: `${RUN}-${i}`,
        CNI_NETNS: `/run/netns/${RUN}-${i}`,
        CNI_IFNAME: 'net1',
        CNI_PATH,
        PATH: process.env.PATH ?? '/usr/bin:/bin',
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${command} pod ${i} exited ${code}: ${out}`));
      else resolve(performance.now() - started);
    });
    child.stdin.end(netConfig(env, i));
  });
}

/** The agent's "pod attached"/"pod detached" log lines (info level), in arrival order. */
interface AgentCall {
  readonly op: 'attach' | 'detach';
  readonly ms: number;
  readonly phasesMs: Readonly<Record<string, number>>;
}

const PHASES = ['queue', 'netns', 'vpp_lock', 'vpp', 'record'] as const;

/** An agent log line with the fields a round reads: a line without them is not counted. */
function isAgentCall(entry: Record<string, unknown>): entry is Record<string, unknown> & AgentCall {
  const { op, ms, phasesMs } = entry;
  return (
    (op === 'attach' || op === 'detach') &&
    typeof ms === 'number' &&
    typeof phasesMs === 'object' &&
    phasesMs !== null &&
    Object.values(phasesMs).every((v) => typeof v === 'number')
  );
}

/** The processes whose CPU time a round charges to each call. */
interface CpuProbe {
  readonly agentPid: number;
  /** 0 when unknown. */
  readonly vppPid: number;
  readonly ticksPerSecond: number;
}

/** utime+stime of a process (with its reaped children: cutime+cstime), in ms; 0 if unreadable. */
async function cpuMs(pid: number | 'self', withChildren: boolean, ticksPerSecond: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name: utime is the 14th field of the line.
    const f = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    const ticks = (f[11] ?? 0) + (f[12] ?? 0) + (withChildren ? (f[13] ?? 0) + (f[14] ?? 0) : 0);
    return (ticks * 1000) / ticksPerSecond;
  } catch {
    return 0;
  }
}

async function cpuSample(probe: CpuProbe): Promise<{ plugin: number; agent: number; vpp: number }> {
  const [plugin, agent, vpp] = await Promise.all([
    // The plugin processes this benchmark reaped, with the IPAM plugins they reaped.
    cpuMs('self', true, probe.ticksPerSecond).then(
      async (all) => all - (await cpuMs('self', false, probe.ticksPerSecond)),
    ),
    // The agent with the `ip` runs it reaped.
    cpuMs(probe.agentPid, true, probe.ticksPerSecond),
    probe.vppPid > 0 ? cpuMs(probe.vppPid, false, probe.ticksPerSecond) : Promise.resolve(NaN),
  ]);
  return { plugin, agent, vpp };
}

async function round(
  env: Env,
  name: string,
  concurrency: number,
  agentCalls: AgentCall[],
  probe: CpuProbe,
): Promise<{ rows: Row[]; phases: Row[]; cpu: Row[] }> {
  const add: number[] = [];
  const del: number[] = [];
  const seen = agentCalls.length;
  const cpu: Row[] = [];
  const run = async (command: 'ADD' | 'DEL', into: number[]): Promise<void> => {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < PODS) {
        const i = next++;
        into.push(await runPlugin(command, env, i));
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  };
  for (const [command, into] of [
    ['ADD', add],
    ['DEL', del],
  ] as const) {
    const before = await cpuSample(probe);
    await run(command, into);
    const after = await cpuSample(probe);
    const perCall = (k: keyof typeof before): string => fmt((after[k] - before[k]) / PODS, 1);
    cpu.push({
      round: name,
      op: command,
      'plugin+IPAM ms': perCall('plugin'),
      'agent+ip ms': perCall('agent'),
      'VPP ms': perCall('vpp'),
    });
  }
  await new Promise((r) => setTimeout(r, 100)); // the agent's last log lines
  const p = (values: readonly number[], q: number): number =>
    percentile(
      [...values].sort((a, b) => a - b),
      q,
    );
  const row = (op: string, lat: number[]): Row => ({
    round: name,
    op,
    pods: PODS,
    'p50 ms': fmt(p(lat, 50), 1),
    'p99 ms': fmt(p(lat, 99), 1),
    'max ms': fmt(Math.max(...lat), 1),
  });
  // Where the agent's part of each call went, p50 (p99) per phase.
  const calls = agentCalls.slice(seen);
  const phases = (['attach', 'detach'] as const).map((op): Row => {
    const mine = calls.filter((c) => c.op === op);
    const cell = (values: number[]): string => `${fmt(p(values, 50), 1)} (${fmt(p(values, 99), 1)})`;
    const out: Record<string, string | number> = {
      round: name,
      op: op === 'attach' ? 'ADD' : 'DEL',
      calls: mine.length,
      'agent ms': cell(mine.map((c) => c.ms)),
    };
    for (const phase of PHASES) out[phase] = cell(mine.map((c) => c.phasesMs[phase] ?? 0));
    return out;
  });
  return { rows: [row('ADD', add), row('DEL', del)], phases, cpu };
}

/** Collects the agent's attach/detach log lines from its stdout (JSON lines); passes the rest on. */
function collectAgentCalls(agent: ChildProcess, into: AgentCall[]): void {
  let pending = '';
  agent.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        process.stdout.write(`${line}\n`);
        continue;
      }
      if ((entry.msg === 'pod attached' || entry.msg === 'pod detached') && isAgentCall(entry))
        into.push(entry);
      else if (typeof entry.level === 'number' && entry.level >= 40) process.stdout.write(`${line}\n`);
    }
  });
}

async function main(): Promise<void> {
  if (process.getuid?.() !== 0)
    throw new Error('bench/cni needs root: it creates network namespaces and veth pairs');
  if (!existsSync(path.join(CNI_PATH, 'static')))
    throw new Error(`no static IPAM plugin in ${CNI_PATH} (apt-get install containernetworking-plugins)`);
  const vpp = await vppUnderTest();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-bench-cni-'));
  const env: Env = { dir, agentSocket: path.join(dir, 'agent.sock') };
  let agent: ChildProcess | undefined;
  let other: VppClient | undefined;
  let underlay: TestUnderlay | undefined;
  try {
    // The "underlay NIC": someone else's interface the config names.
    other = new VppClient({ socketPath: vpp.socketPath, healthCheckIntervalMs: 0 });
    await other.connect();
    underlay = await createUnderlay(other);
    const configPath = path.join(dir, 'config.yaml');
    await writeFile(configPath, stringify(benchConfig(underlay.name)));
    agent = spawn(
      process.execPath,
      [
        agentMain(),
        '--config',
        configPath,
        '--vpp-socket',
        vpp.socketPath,
        '--state-dir',
        path.join(dir, 'state'),
        '--agent-socket',
        env.agentSocket,
        '--service-map-socket',
        path.join(dir, 'services', 'service-map.sock'),
        '--listen',
        '127.0.0.1:0',
        '--log-level',
        'info',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const agentCalls: AgentCall[] = [];
    collectAgentCalls(agent, agentCalls);
    // Ready = the first reconcile built the bridge; STATUS through the plugin says when.
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (existsSync(env.agentSocket)) {
        const res = await fetchStatus(env.agentSocket);
        if (res) break;
      }
      if (Date.now() > deadline) throw new Error('vppnet-agent did not become ready');
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 500)); // let the first reconcile finish the bridge
    for (let i = 0; i < PODS; i++) await run('ip', ['netns', 'add', `${RUN}-${i}`]);
    const probe: CpuProbe = {
      agentPid: agent.pid ?? 0,
      vppPid: process.env.VPP_API_SOCKET ? other.vppPid : 0,
      ticksPerSecond: Number((await run('getconf', ['CLK_TCK'])).stdout.trim()) || 100,
    };
    const sequential = await round(env, 'sequential', 1, agentCalls, probe);
    const concurrent = await round(env, `${CONCURRENCY} at once`, CONCURRENCY, agentCalls, probe);
    printTable(
      `bench/cni: vppnet-cni ${existsSync(SEA) ? 'single executable' : 'on node'} + vppnet-agent (${path.relative(process.cwd(), agentMain())}) against ${vpp.description}, static IPAM, veth mode`,
      [...sequential.rows, ...concurrent.rows],
    );
    printTable('inside the agent, from its log: p50 (p99) ms per phase', [
      ...sequential.phases,
      ...concurrent.phases,
    ]);
    printTable(
      `CPU time per call (ms): what the latencies cost a node with ${os.cpus().length} CPUs; VPP's only when real`,
      [...sequential.cpu, ...concurrent.cpu],
    );
  } finally {
    for (let i = 0; i < PODS; i++) await run('ip', ['netns', 'del', `${RUN}-${i}`]).catch(() => undefined);
    if (agent) {
      agent.kill('SIGTERM');
      await new Promise((r) => agent?.once('exit', r));
    }
    // The agent leaves the dataplane programmed when it stops; a real VPP is left as found, so the
    // next run starts from the same place.
    if (other && underlay)
      await removeEverything(other, underlay).catch((err: Error) => console.error(`cleanup: ${err.message}`));
    await other?.close();
    await vpp.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

function benchConfig(underlay: string, withVpc = true): Record<string, unknown> {
  return {
    node: {
      name: 'bench',
      underlay: { interface: underlay, address: '2001:db8::1/64', gateway: '2001:db8::2' },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs: withVpc ? [{ name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' }] : [],
    ...(withVpc && { services: { dhcpServer: '169.254.169.103' } }),
  };
}

/** An empty desired state removes what vppnet owns; then the underlay goes with its default route. */
async function removeEverything(client: VppClient, underlay: TestUnderlay): Promise<void> {
  const outcome = await reconcile(validateConfig(benchConfig(underlay.name, false)), {
    client,
    host: noHostLinks,
    globals: memoryStore(),
  });
  const failed = outcome.result?.failed ?? [];
  if (failed.length > 0)
    throw new Error(failed.map((f) => `${f.op.action} ${f.op.resource.key}: ${f.error.message}`).join('; '));
  await removeUnderlay(client, underlay);
}

async function fetchStatus(socketPath: string): Promise<boolean> {
  const http = await import('node:http');
  return new Promise((resolve) => {
    const req = http.get({ socketPath, path: '/v1/status' }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
  });
}

await main();
