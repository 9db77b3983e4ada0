/**
 * The vppnet-agent executable as the kubelet runs it: a real process, real signals. VPP is absent
 * (the socket does not exist), which is exactly when liveness must still answer; then present (the
 * simulator), in file mode and in fleet mode with a real etcd, until Ready.
 *
 * Twice: tsc's output (dist/src/agent/main.js, which `npm run` and the other tests use) and the
 * one-file bundle that `npm run build` makes of it (dist/bundle/vppnet-agent.js,
 * scripts/bundle-agent.mjs), which the image and bench/fleet run.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { EtcdStore } from '../datastore/etcd-store.js';
import { KeySchema } from '../datastore/keys.js';
import { EtcdServer } from '../datastore/testing/etcd-server.js';
import { ETCD_BACKEND } from '../datastore/testing/store-backends.js';
import { until } from '../util/testing/until.js';
import { VPP_API_RELEASE, VPPNET_VERSION, versionLine } from '../util/version.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { msg } from '../vpp/messages/index.js';
import { VppSimulator } from '../vpp/sim/index.js';
import { USAGE } from './agent-flags.js';
import { configYaml, makeTempDir } from './testing/agent-fixtures.js';

const EXECUTABLES = [
  { name: 'dist/src/agent/main.js', path: fileURLToPath(new URL('./main.js', import.meta.url)) },
  {
    name: 'the bundle, dist/bundle/vppnet-agent.js',
    path: fileURLToPath(new URL('../../bundle/vppnet-agent.js', import.meta.url)),
  },
] as const;

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

function startAgent(
  MAIN: string,
  args: string[],
): {
  child: ChildProcess;
  lines: LogLine[];
  waitFor: (msg: RegExp) => Promise<LogLine>;
} {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: LogLine[] = [];
  const waiters: { msg: RegExp; resolve: (l: LogLine) => void }[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (text) => {
    const line = JSON.parse(text) as LogLine;
    lines.push(line);
    for (const w of waiters.filter((w) => w.msg.test(line.msg))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(line);
    }
  });
  const waitFor = (msg: RegExp): Promise<LogLine> => {
    const seen = lines.find((l) => msg.test(l.msg));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => waiters.push({ msg, resolve }));
  };
  return { child, lines, waitFor };
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
}

/** Runs the agent with `args` until it exits: what a run that ends by itself prints. */
async function runToExit(
  MAIN: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  const { code, stderr } = await exitOf(child);
  return { code, stdout, stderr };
}

function httpGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

/** Process start to Ready, against a simulator, on a loaded 2-core machine: seconds; a failure after 30. */
const WAIT = { timeoutMs: 30_000, everyMs: 20 };

/** The flags of the agent's own files and listener, under `dir`. */
const localFlags = (dir: string): string[] => [
  '--agent-socket',
  join(dir, 'agent.sock'),
  '--service-map-socket',
  join(dir, 'services', 'service-map.sock'),
  '--state-dir',
  join(dir, 'state'),
  '--listen',
  '127.0.0.1:0',
];

/** What VPP holds of vppnet's: IPv4 tables, local SIDs, and steering as "prefix>remote SID". */
async function vppState(
  socketPath: string,
): Promise<{ tables: number[]; sids: string[]; steering: string[] }> {
  const c = new VppClient({ socketPath, clientName: 'main-test', healthCheckIntervalMs: 0 });
  await c.connect();
  try {
    const [tables, sids, policies, entries] = await Promise.all([
      c.dump(msg.ip_table_dump, {}),
      c.dump(msg.sr_localsids_dump, {}),
      c.dump(msg.sr_policies_v2_dump, {}),
      c.dump(msg.sr_steering_pol_dump, {}),
    ]);
    const sidOf = new Map(policies.map((p) => [p.bsid, p.sid_lists[0]?.sids[0] ?? '?']));
    return {
      tables: tables
        .filter((t) => !t.table.is_ip6)
        .map((t) => t.table.table_id)
        .sort((a, b) => a - b),
      sids: sids.map((s) => s.addr),
      steering: entries
        .map((e) => `${e.prefix.address.un.ip4}/${e.prefix.len}>${sidOf.get(e.bsid) ?? 'no policy'}`)
        .sort(),
    };
  } finally {
    await c.close();
  }
}

for (const { name, path: MAIN } of EXECUTABLES)
  describe(`vppnet-agent (${name})`, () => {
    let tmp: Awaited<ReturnType<typeof makeTempDir>>;
    let configPath: string;

    beforeEach(async () => {
      tmp = await makeTempDir();
      await mkdir(join(tmp.dir, 'etc'));
      configPath = join(tmp.dir, 'etc', 'config.yaml');
      await writeFile(configPath, configYaml());
    });
    afterEach(() => tmp.remove());

    it('runs without VPP, answers liveness, and exits 0 on SIGTERM', async () => {
      const { child, lines, waitFor } = startAgent(MAIN, [
        ...localFlags(tmp.dir),
        '--config',
        configPath,
        '--vpp-socket',
        join(tmp.dir, 'no-vpp.sock'),
        '--log-level',
        'debug',
      ]);
      const exited = exitOf(child);
      const starting = await waitFor(/^vppnet-agent starting$/);
      assert.deepEqual(
        { version: starting.version, vppApi: starting.vppApi },
        { version: VPPNET_VERSION, vppApi: VPP_API_RELEASE },
        'the start line says which release runs',
      );
      const serving = await waitFor(/^serving /);
      const port = serving.port as number;
      await waitFor(/^config loaded$/);

      assert.equal((await httpGet(port, '/healthz')).status, 200);
      const readyz = await httpGet(port, '/readyz');
      assert.equal(readyz.status, 503);
      assert.match(readyz.body, /is not connected/);
      await waitFor(/^VPP connection failed; retrying$/);

      child.kill('SIGTERM');
      const { code, stderr } = await exited;
      assert.equal(code, 0, stderr);
      assert.ok(lines.some((l) => l.msg === 'vppnet-agent exited cleanly'));
      assert.ok(
        lines.every((l) => l.level < 50),
        'nothing logged as an error',
      );
    });

    it('exits 2 with the problem and the usage on a bad flag', async () => {
      const { code, stderr } = await runToExit(MAIN, ['--listen', 'nowhere']);
      assert.equal(code, 2);
      assert.match(stderr, /^vppnet-agent: --listen: expected HOST:PORT/);
      assert.match(stderr, /usage: vppnet-agent/);
    });

    it('prints its version line for --version and -V, and exits 0 without starting', async () => {
      for (const flag of ['--version', '-V'])
        assert.deepEqual(
          await runToExit(MAIN, [flag]),
          { code: 0, stdout: `${versionLine('vppnet-agent')}\n`, stderr: '' },
          flag,
        );
    });

    it('prints its usage for --help and -h, and exits 0 without starting', async () => {
      for (const flag of ['--help', '-h'])
        assert.deepEqual(await runToExit(MAIN, [flag]), { code: 0, stdout: `${USAGE}\n`, stderr: '' }, flag);
    });

    it('file mode: programs the simulator from the config file and becomes Ready', async () => {
      const sim = await VppSimulator.start({
        socketPath: join(tmp.dir, 'api.sock'),
        initialInterfaces: [{ name: 'memif1/0' }],
      });
      const { child, waitFor } = startAgent(MAIN, [
        ...localFlags(tmp.dir),
        '--config',
        configPath,
        '--vpp-socket',
        sim.socketPath,
      ]);
      const exited = exitOf(child);
      try {
        const port = (await waitFor(/^serving /)).port as number;
        const pass = await waitFor(/^reconcile finished$/);
        assert.equal(pass.outcome, 'ok');
        await until(async () => (await httpGet(port, '/readyz')).status === 200, '/readyz 200', WAIT);
        // The config's VPC, as its IPv4 table and its End.DT4 SID at the locator + the VPC id.
        assert.deepEqual(await vppState(sim.socketPath), {
          tables: [0, 10],
          sids: ['fc00:1::a'],
          steering: [],
        });
      } finally {
        child.kill('SIGTERM');
        assert.equal((await exited).code, 0);
        await sim.close();
      }
    });

    it(
      'fleet mode: takes its slice from a real etcd, steers to the other node and becomes Ready',
      {
        skip: ETCD_BACKEND.skip,
      },
      async () => {
        const sim = await VppSimulator.start({
          socketPath: join(tmp.dir, 'api.sock'),
          initialInterfaces: [{ name: 'memif1/0' }, { name: 'memif2/0' }],
        });
        const etcd = await EtcdServer.start();
        const writer = new EtcdStore({ endpoints: [etcd.endpoint] });
        const schema = new KeySchema('/main-test/v1/');
        const node = (n: number) =>
          JSON.stringify({
            underlay: { interface: 'memif1/0', address: `2001:db8::${n}/64`, gateway: '2001:db8::ff' },
            srv6: { locator: `fc00:${n}::/48` },
          });
        const endpoint = (ip: string) => schema.endpoint('vpc-a', { address: ip, len: 32 });
        await writer.commit([
          { type: 'put', key: schema.node('hv1'), value: node(1) },
          { type: 'put', key: schema.node('hv2'), value: node(2) },
          {
            type: 'put',
            key: schema.vpc('vpc-a'),
            value: JSON.stringify({ id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' }),
          },
          {
            type: 'put',
            key: schema.port('hv1', 'vm1'),
            value: JSON.stringify({
              vpc: 'vpc-a',
              mac: '52:54:00:00:00:05',
              ip: '10.0.0.5',
              attach: { type: 'interface', name: 'memif2/0' },
            }),
          },
          { type: 'put', key: endpoint('10.0.0.5'), value: JSON.stringify({ node: 'hv1' }) },
          { type: 'put', key: endpoint('10.0.0.7'), value: JSON.stringify({ node: 'hv2' }) },
        ]);
        const { child, waitFor } = startAgent(MAIN, [
          ...localFlags(tmp.dir),
          '--datastore',
          'etcd',
          '--node-name',
          'hv1',
          '--etcd-endpoints',
          etcd.endpoint,
          '--datastore-prefix',
          '/main-test/v1/',
          '--vpp-socket',
          sim.socketPath,
        ]);
        const exited = exitOf(child);
        try {
          const port = (await waitFor(/^serving /)).port as number;
          await until(async () => (await httpGet(port, '/readyz')).status === 200, '/readyz 200', WAIT);
          assert.deepEqual(await vppState(sim.socketPath), {
            tables: [0, 10],
            sids: ['fc00:1::a'],
            steering: ['10.0.0.7/32>fc00:2::a'],
          });
        } finally {
          child.kill('SIGTERM');
          assert.equal((await exited).code, 0);
          await writer.close();
          await etcd.stop();
          await sim.close();
        }
      },
    );

    it('refuses etcd without TLS beyond loopback, and with --etcd-insecure starts warning of it', async () => {
      const base = [
        '--datastore',
        'etcd',
        '--node-name',
        'hv1',
        '--etcd-endpoints',
        '192.0.2.1:2379', // TEST-NET-1: never reached, the refusal comes first
        ...localFlags(tmp.dir),
        '--vpp-socket',
        join(tmp.dir, 'no-vpp.sock'),
      ];
      const refused = spawn(process.execPath, [MAIN, ...base], { stdio: ['ignore', 'pipe', 'pipe'] });
      const { code, stderr } = await exitOf(refused);
      assert.equal(code, 2);
      assert.match(stderr, /^vppnet-agent: etcd at 192\.0\.2\.1:2379 without TLS: .*--etcd-insecure/);

      const { child, lines, waitFor } = startAgent(MAIN, [...base, '--etcd-insecure']);
      const exited = exitOf(child);
      const warning = await waitFor(/^etcd without TLS beyond loopback/);
      assert.equal(warning.level, 40, 'a warning');
      assert.deepEqual(warning.insecureEndpoints, ['192.0.2.1:2379']);
      // Logged after the signal handlers are in place (serving ... is logged just before them).
      await waitFor(/^local API listening$/);
      child.kill('SIGTERM');
      assert.equal((await exited).code, 0);
      assert.ok(lines.some((l) => l.msg === 'vppnet-agent exited cleanly'));
    });
  });
