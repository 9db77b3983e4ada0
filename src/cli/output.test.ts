/**
 * The CLI's output as a reader of its pipe gets it: complete however large, and a reader that
 * stops early ends the CLI quietly. The real built CLI in its own process, with real pipes.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { writeLargeConfig } from './testing/large-config.js';
import { main } from './vppnet.js';

const CLI = fileURLToPath(new URL('./vppnet.js', import.meta.url));

function envWithout(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VPPNET_')));
}

describe('vppnet output', () => {
  let dir: string;
  /** 5000 remote routes: a JSON plan of about 1.4 MB, a text plan of about 400 kB. */
  let big: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-cli-output-'));
    big = path.join(dir, 'big.json');
    await writeLargeConfig(big, 5000);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('writes a plan larger than a pipe holds whole into the pipe, as into a file (plan --json | wc -c)', async () => {
    const args = [CLI, 'plan', '--json', '--config', big];
    // Into a file, whose writes are synchronous: the reference.
    const file = path.join(dir, 'plan.json');
    const fd = openSync(file, 'w');
    try {
      const toFile = spawn(process.execPath, args, { env: envWithout(), stdio: ['ignore', fd, 'inherit'] });
      assert.deepEqual(await once(toFile, 'close'), [0, null]);
    } finally {
      closeSync(fd);
    }
    const expected = readFileSync(file);
    assert.ok(expected.length > 1 << 20, `${expected.length} bytes: far more than a pipe's 64 KiB`);

    const child = spawn(process.execPath, args, { env: envWithout(), stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const [code] = (await once(child, 'close')) as [number | null];
    const piped = Buffer.concat(chunks);
    assert.deepEqual({ code, stderr, bytes: piped.length }, { code: 0, stderr: '', bytes: expected.length });
    const plan = JSON.parse(piped.toString()) as { ops: unknown[] };
    assert.equal(plan.ops.length, (JSON.parse(expected.toString()) as { ops: unknown[] }).ops.length);
  });

  it('ends quietly, status 0, when its reader stops in the middle of a large plan (plan | head -1)', async () => {
    const child = spawn(process.execPath, [CLI, 'plan', '--config', big], {
      env: envWithout(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // The first chunk read, the reader goes away while most of the plan is still to be written.
    const [first] = (await once(child.stdout, 'data')) as [Buffer];
    child.stdout.destroy();
    assert.match(first.toString(), /^vppnet plan: /);
    const [code, signal] = (await once(child, 'close')) as [number | null, string | null];
    assert.deepEqual({ code, signal, stderr }, { code: 0, signal: null, stderr: '' });
  });

  it('prints the text plan of 200k remote routes (no spread of every key into one call)', async () => {
    const huge = path.join(dir, 'huge.json');
    await writeLargeConfig(huge, 200_000);
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    assert.equal(await main(['plan', '--config', huge], out, envWithout()), 0);
    const text = Buffer.concat(chunks).toString();
    // The last route is there, padded to the longest key, and the summary counts every one.
    assert.match(text, /create {2}sr-steering:ip4:10:10\.4\.13\.63\/32 +\(/);
    const total = Number(/\n(\d+) operations: \1 create, 0 update, 0 delete;/.exec(text)?.[1]);
    assert.ok(total >= 200_000, `${total} operations`);
  });
});
