/**
 * The benchmark against vppnet's simulator: it must refuse before changing anything, saying why,
 * both as a function and as the script `npm run bench:packet-rate` runs.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { VppSimulator } from '../../src/vpp/sim/index.js';
import { runPacketRate } from './run.js';

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  return {
    stream: new Writable({
      write(chunk: Buffer | string, _enc, cb) {
        chunks.push(chunk.toString());
        cb();
      },
    }),
    text: () => chunks.join(''),
  };
}

async function run(
  argv: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = capture();
  const err = capture();
  const code = await runPacketRate(argv, env, { stdout: out.stream, stderr: err.stream });
  return { code, stdout: out.text(), stderr: err.text() };
}

describe('bench/packet-rate refuses what cannot forward packets', () => {
  let dir: string;
  let sim: VppSimulator;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-packet-rate-'));
    sim = await VppSimulator.start({ socketPath: path.join(dir, 'api.sock'), checkHostInterfaces: false });
  });
  after(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('the simulator: exit 2, the reason on stderr, nothing configured', async () => {
    const before = sim.state;
    const r = await run(['--duration', '1'], { VPP_API_SOCKET: sim.socketPath });
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /needs a real VPP 26\.06 that forwards packets/);
    assert.match(r.stderr, /vppnet's VPP simulator \("vpp v26\.06-release built by vppnet on sim/);
    assert.match(r.stderr, /forwards no packets/);
    const after = sim.state;
    assert.deepEqual(after.interfaces, before.interfaces);
    assert.deepEqual(after.tables, before.tables);
  });

  it('the simulator in --nic mode too, before programming or collecting', async () => {
    const r = await run(
      ['--nic', '--vm-if', 'memif1/0', '--underlay-if', 'memif2/0', '--collect-seconds', '1'],
      { VPP_API_SOCKET: sim.socketPath },
    );
    assert.equal(r.code, 2);
    assert.match(r.stderr, /simulator/);
  });

  it('the script itself, as npm run bench:packet-rate starts it', async () => {
    const main = fileURLToPath(new URL('./main.js', import.meta.url));
    const child = spawn(process.execPath, [main, '--duration', '1'], {
      env: { ...process.env, VPP_API_SOCKET: sim.socketPath },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 2);
    assert.match(
      stderr,
      /^bench\/packet-rate: bench\/packet-rate needs a real VPP 26\.06 that forwards packets, but VPP_API_SOCKET=.* is vppnet's VPP simulator/,
    );
  });

  it('no VPP_API_SOCKET: exit 2, saying it is required', async () => {
    const r = await run([], {});
    assert.equal(r.code, 2);
    assert.match(r.stderr, /VPP_API_SOCKET is required/);
  });

  it('bad options: exit 2 before connecting', async () => {
    const r = await run(['--sizes', '128'], { VPP_API_SOCKET: '/nonexistent/api.sock' });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--sizes: 128 not one of 64, imix/);
    assert.equal((await run(['--program', 'hand'], {})).code, 2, '--nic options without --nic');
  });

  it('--nic without a VPP prints the configuration to use', async () => {
    const r = await run(
      ['--nic', '--vm-if', 'TenGigabitEthernet3/0/0', '--underlay-if', 'TenGigabitEthernet3/0/1'],
      {},
    );
    assert.equal(r.code, 0);
    assert.match(r.stdout, /cpu \{ main-core 1 {2}corelist-workers 2 \}/);
    assert.match(r.stdout, /attach:\n {6}type: interface\n {6}name: TenGigabitEthernet3\/0\/0/);
    assert.match(r.stdout, /sr localsid address fc00:11::6e fib-table 1 behavior end\.dt4 110/);
    assert.match(
      r.stdout,
      /## vm-to-remote: send on TenGigabitEthernet3\/0\/0, expect it out of TenGigabitEthernet3\/0\/1/,
    );
  });
});
