/**
 * How vppnet datastore finds etcd: the agent's flag names and the CLI's earlier ones, and what
 * it says when nothing answers. The real built CLI where exit status and stderr matter, a real
 * etcd otherwise.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONNECTION_FLAGS } from '../datastore/connection-flags.js';
import { ETCD_BINARY, freePort } from '../datastore/testing/etcd-server.js';
import { USAGE as AGENT_USAGE } from '../agent/agent-flags.js';
import { DatastoreUsageError } from './datastore.js';
import { runCli, startCliEtcd, type CliEtcd } from './testing/cli-etcd.js';

const skip = existsSync(ETCD_BINARY) ? false : `no etcd at ${ETCD_BINARY} (apt-get install etcd-server)`;
const CLI = fileURLToPath(new URL('./vppnet.js', import.meta.url));

async function spawnCli(
  argv: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [CLI, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => out.push(c));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout: Buffer.concat(out).toString(), stderr, ms: Date.now() - started };
}

/** The test's environment without any VPPNET_* setting of the machine's. */
function bareEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VPPNET_')));
}

test('the usage names the agent’s connection flags, and the earlier names as their aliases', async () => {
  for (const args of [
    ['datastore', '--help'],
    ['plan', '--help'],
    ['status', '--help'],
  ]) {
    const { out } = await runCli(args, {});
    for (const flag of Object.values(CONNECTION_FLAGS)) {
      assert.match(out, new RegExp(`\\n {2}${flag} `), `${args.join(' ')} names ${flag}`);
      assert.ok(AGENT_USAGE.includes(`  ${flag} `), `vppnet-agent --help names ${flag} too`);
    }
    assert.ok(out.includes('--endpoints is an alias of --etcd-endpoints'), args.join(' '));
    assert.ok(out.includes('--prefix is an alias of --datastore-prefix'), args.join(' '));
    assert.ok(out.includes('--password-file is an alias of --etcd-password-file'), args.join(' '));
  }
});

test('a setting given by both spellings with different values is a usage error', async () => {
  for (const args of [
    ['datastore', 'get', '--endpoints', 'http://a:2379', '--etcd-endpoints', 'http://b:2379'],
    ['plan', '--datastore', 'etcd', '--node-name', 'hv1', '--prefix', '/a/', '--datastore-prefix', '/b/'],
  ]) {
    await assert.rejects(runCli(args, {}), (err: unknown) => {
      assert.ok(err instanceof DatastoreUsageError || (err as Error).name === 'CliUsageError', String(err));
      assert.match(
        (err as Error).message,
        /--(endpoints|prefix) is an alias of --(etcd-endpoints|datastore-prefix): give one value/,
      );
      return true;
    });
  }
  const spawned = await spawnCli(['datastore', 'get', '--ca', 'a.pem', '--etcd-ca', 'b.pem'], bareEnv());
  assert.equal(spawned.code, 2);
  assert.equal(
    spawned.stderr,
    'vppnet datastore get: --ca is an alias of --etcd-ca: give one value, not "b.pem" and "a.pem"\n',
  );
});

test('etcd down: get and put fail naming the endpoint, the deadline and the cause, with no stack trace', async () => {
  const endpoint = `http://127.0.0.1:${await freePort()}`;
  const env = { ...bareEnv(), VPPNET_ETCD_ENDPOINTS: endpoint };
  const records = path.join(tmpdir(), `vppnet-down-${process.pid}.yaml`);
  writeFileSync(records, 'vpcs:\n  vpc-a: { id: 10, subnets: [10.0.0.0/24], gateway: 10.0.0.1 }\n');
  const runs = await Promise.all([
    spawnCli(['datastore', 'get'], env),
    spawnCli(['datastore', 'put', '-f', records], env),
  ]).finally(() => rmSync(records, { force: true }));
  for (const r of runs) {
    assert.deepEqual(
      { code: r.code, stdout: r.stdout, stderr: r.stderr },
      {
        code: 1,
        stdout: '',
        stderr: `vppnet: cannot reach etcd at ${endpoint} within 5 s: connection refused\n`,
      },
    );
    // The call's deadline, and the probe's second at most, not gRPC's reconnects without end.
    assert.ok(r.ms < 15_000, `${r.ms} ms`);
  }
});

describe('vppnet datastore against a real etcd', { skip }, () => {
  let etcd: CliEtcd;
  before(async () => {
    etcd = await startCliEtcd('/conn/v1/');
  });
  after(() => etcd?.stop());

  test('the agent’s flag names and the earlier ones reach the same etcd and prefix', async () => {
    const f = path.join(etcd.dir, 'vpc.yaml');
    writeFileSync(f, 'vpcs:\n  vpc-a: { id: 10, subnets: [10.0.0.0/24], gateway: 10.0.0.1 }\n');
    // No environment: only the flags say where etcd is.
    const canonical = ['--etcd-endpoints', etcd.server.endpoint, '--datastore-prefix', '/conn/v1/'];
    const alias = ['--endpoints', etcd.server.endpoint, '--prefix', '/conn/v1/'];
    assert.equal((await runCli(['datastore', 'put', '-f', f, ...canonical], {})).code, 0);
    const a = await runCli(['datastore', 'get', ...canonical], {});
    const b = await runCli(['datastore', 'get', ...alias], {});
    assert.match(a.out, /, 1 records\nvpcs:\n {2}vpc-a:/);
    assert.equal(b.out, a.out);
    // Both spellings with one value are one setting, not a conflict.
    const both = await runCli(['datastore', 'get', ...canonical, '--endpoints', etcd.server.endpoint], {});
    assert.equal(both.out, a.out);
  });

  test('get prints a listing larger than a pipe holds whole into the pipe', async () => {
    // 4000 endpoints (about 90 kB), by 100 a transaction: etcd's default --max-txn-ops is 128.
    const f = path.join(etcd.dir, 'many.yaml');
    for (let from = 0; from < 4000; from += 100) {
      const lines = Array.from(
        { length: 100 },
        (_, j) => `    10.0.${(from + j) >> 8}.${(from + j) & 255}/32: hv1`,
      );
      writeFileSync(f, ['endpoints:', '  vpc-big:', ...lines, ''].join('\n'));
      assert.equal((await runCli(['datastore', 'put', '-f', f], etcd.env)).code, 0);
    }
    const inProcess = await runCli(['datastore', 'get', 'endpoints/vpc-big/'], etcd.env);
    assert.ok(inProcess.out.length > 1 << 16, `${inProcess.out.length} bytes: more than a pipe holds`);
    const piped = await spawnCli(['datastore', 'get', 'endpoints/vpc-big/'], { ...bareEnv(), ...etcd.env });
    assert.equal(piped.code, 0, piped.stderr);
    // Byte for byte what the in-process run printed (nothing was written in between).
    assert.equal(piped.stdout.length, inProcess.out.length);
    assert.equal(piped.stdout, inProcess.out);
  });
});
