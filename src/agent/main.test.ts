/**
 * The vppnet-agent executable as the kubelet runs it: a real process, real signals. VPP is absent
 * (the socket does not exist), which is exactly when liveness must still answer.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { VPP_API_RELEASE, VPPNET_VERSION, versionLine } from '../util/version.js';
import { configYaml, makeTempDir } from './testing/agent-fixtures.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

function startAgent(args: string[]): {
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

function httpGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

describe('vppnet-agent (main)', () => {
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
    const { child, lines, waitFor } = startAgent([
      '--config',
      configPath,
      '--agent-socket',
      join(tmp.dir, 'agent.sock'),
      '--service-map-socket',
      join(tmp.dir, 'services', 'service-map.sock'),
      '--vpp-socket',
      join(tmp.dir, 'no-vpp.sock'),
      '--state-dir',
      join(tmp.dir, 'state'),
      '--listen',
      '127.0.0.1:0',
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
    const child = spawn(process.execPath, [MAIN, '--listen', 'nowhere'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const { code, stderr } = await exitOf(child);
    assert.equal(code, 2);
    assert.match(stderr, /^vppnet-agent: --listen: expected HOST:PORT/);
    assert.match(stderr, /usage: vppnet-agent/);
  });

  it('prints its version line for --version and -V, and exits 0 without starting', async () => {
    for (const flag of ['--version', '-V']) {
      const child = spawn(process.execPath, [MAIN, flag], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
      const { code, stderr } = await exitOf(child);
      assert.deepEqual(
        { code, stdout, stderr },
        { code: 0, stdout: `${versionLine('vppnet-agent')}\n`, stderr: '' },
        flag,
      );
    }
  });

  it('refuses etcd without TLS beyond loopback, and with --etcd-insecure starts warning of it', async () => {
    const base = [
      '--datastore',
      'etcd',
      '--node-name',
      'hv1',
      '--etcd-endpoints',
      '192.0.2.1:2379', // TEST-NET-1: never reached, the refusal comes first
      '--agent-socket',
      join(tmp.dir, 'agent.sock'),
      '--service-map-socket',
      join(tmp.dir, 'services', 'service-map.sock'),
      '--vpp-socket',
      join(tmp.dir, 'no-vpp.sock'),
      '--state-dir',
      join(tmp.dir, 'state'),
      '--listen',
      '127.0.0.1:0',
    ];
    const refused = spawn(process.execPath, [MAIN, ...base], { stdio: ['ignore', 'pipe', 'pipe'] });
    const { code, stderr } = await exitOf(refused);
    assert.equal(code, 2);
    assert.match(stderr, /^vppnet-agent: etcd at 192\.0\.2\.1:2379 without TLS: .*--etcd-insecure/);

    const { child, lines, waitFor } = startAgent([...base, '--etcd-insecure']);
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
