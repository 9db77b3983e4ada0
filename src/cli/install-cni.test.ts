import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import {
  copyFile,
  chmod,
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';

import { installCni, installCniCommand, InstallCniError } from './install-cni.js';
import { main } from './vppnet.js';

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function sink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

void describe('vppnet install-cni', () => {
  let dir = '';
  let n = 0;
  /** A fresh, empty destination dir per test. */
  const newDest = async (): Promise<string> => {
    const dest = join(dir, `bin${n++}`);
    await mkdir(dest);
    return dest;
  };
  const newSource = async (content: Buffer | string, mode = 0o755): Promise<string> => {
    const path = join(dir, `src${n++}`);
    await writeFile(path, content, { mode });
    await chmod(path, mode);
    return path;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vppnet-install-cni-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  void it('installs as 0755 under the default name, leaving no temp file', async () => {
    const dest = await newDest();
    const source = await newSource('#!/bin/sh\necho new\n', 0o700);
    const result = await installCni({ source, dest });
    assert.deepEqual(result, { path: join(dest, 'vppnet-cni'), bytes: 19, replaced: false });
    assert.equal(await readFile(result.path, 'utf8'), '#!/bin/sh\necho new\n');
    assert.equal((await stat(result.path)).mode & 0o7777, 0o755);
    assert.deepEqual(await readdir(dest), ['vppnet-cni']);
    // The source is left as it was.
    assert.equal((await stat(source)).mode & 0o7777, 0o700);
  });

  void it('replaces an older binary by rename: an open old file keeps its content', async () => {
    const dest = await newDest();
    const old = Buffer.from('old binary\n');
    await writeFile(join(dest, 'vppnet-cni'), old, { mode: 0o755 });
    const held = await open(join(dest, 'vppnet-cni'), 'r');
    try {
      const oldIno = (await held.stat()).ino;
      const result = await installCni({ source: await newSource('new binary, longer\n'), dest });
      assert.equal(result.replaced, true);
      assert.equal(await readFile(result.path, 'utf8'), 'new binary, longer\n');
      assert.notEqual((await stat(result.path)).ino, oldIno, 'a new inode, not an in-place write');
      assert.deepEqual(await held.readFile(), old, 'the old inode was never written to');
    } finally {
      await held.close();
    }
    assert.deepEqual(await readdir(dest), ['vppnet-cni']);
  });

  void it('replaces an executable that is running (an in-place write would fail with ETXTBSY)', async () => {
    const dest = await newDest();
    const target = join(dest, 'vppnet-cni');
    await copyFile('/bin/sleep', target);
    await chmod(target, 0o755);
    const running = spawn(target, ['30'], { stdio: 'ignore' });
    await once(running, 'spawn');
    try {
      await assert.rejects(writeFile(target, 'x'), { code: 'ETXTBSY' });
      const source = await newSource('#!/bin/sh\nexit 0\n');
      await installCni({ source, dest });
      assert.equal(await readFile(target, 'utf8'), '#!/bin/sh\nexit 0\n');
      assert.equal(running.exitCode, null, 'the running plugin goes on');
    } finally {
      running.kill();
    }
  });

  void it('concurrent readers see the old or the new file, never a part of one', async (t) => {
    const dest = await newDest();
    const target = join(dest, 'vppnet-cni');
    // Different sizes and contents: a torn read shows as an unknown hash.
    const a = Buffer.alloc(16 << 20, 0xaa);
    const b = Buffer.alloc(24 << 20, 0xbb);
    b.write('version b', 1 << 20);
    const [sourceA, sourceB] = [await newSource(a), await newSource(b)];
    const known = new Map([
      [sha256(a), 'a'],
      [sha256(b), 'b'],
    ]);
    await installCni({ source: sourceA, dest });

    // Readers in another process, so they truly run alongside the install (not between its awaits).
    const readerScript = `
      import { createHash } from 'node:crypto';
      import { readFileSync } from 'node:fs';
      const seen = {};
      const until = Date.now() + Number(process.argv[2]);
      let reads = 0;
      while (Date.now() < until) {
        let key;
        try { key = createHash('sha256').update(readFileSync(process.argv[1])).digest('hex'); }
        catch (err) { key = err.code; }
        seen[key] = (seen[key] ?? 0) + 1;
        reads++;
      }
      process.stdout.write(JSON.stringify({ reads, seen }));`;
    const readers = Array.from({ length: 2 }, () => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', readerScript, target, '2500'], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      return once(child, 'exit').then(
        () => JSON.parse(out) as { reads: number; seen: Record<string, number> },
      );
    });
    // Installs go on for as long as any reader reads, whatever the machine's speed.
    let readersDone = false;
    const results = Promise.all(readers).finally(() => (readersDone = true));
    let installs = 0;
    while (!readersDone) {
      await installCni({ source: installs % 2 === 0 ? sourceB : sourceA, dest });
      installs++;
    }
    for (const { reads, seen } of await results) {
      const unknown = Object.keys(seen).filter((hash) => !known.has(hash));
      assert.deepEqual(unknown, [], `a reader saw something else than a or b (${reads} reads)`);
      assert.equal(Object.keys(seen).length, 2, `a reader saw both versions: ${JSON.stringify(seen)}`);
    }
    t.diagnostic(
      `${installs} installs; reads per version: ${(await results).map((r) => JSON.stringify(Object.values(r.seen))).join(' ')}`,
    );
    assert.deepEqual(await readdir(dest), ['vppnet-cni']);
  });

  void it('follows a symlinked source and honours --name', async () => {
    const dest = await newDest();
    const real = await newSource('#!/bin/sh\n');
    const link = join(dir, `link${n++}`);
    await symlink(real, link);
    const result = await installCni({ source: link, dest, name: 'vppnet-cni-test' });
    assert.equal(result.path, join(dest, 'vppnet-cni-test'));
    assert.ok((await stat(result.path)).isFile());
  });

  void it('refuses sources that are not executable regular files, changing nothing', async () => {
    const dest = await newDest();
    await writeFile(join(dest, 'vppnet-cni'), 'old', { mode: 0o755 });
    const cases: [string, string, RegExp][] = [
      ['missing', join(dir, 'no-such-file'), /ENOENT/],
      ['a directory', dir, /not a regular file/],
      ['not executable', await newSource('#!/bin/sh\n', 0o644), /not executable/],
      ['empty', await newSource('', 0o755), /is empty/],
    ];
    for (const [what, source, message] of cases) {
      await assert.rejects(
        installCni({ source, dest }),
        (err: unknown) => err instanceof InstallCniError && message.test(err.message),
        what,
      );
    }
    assert.deepEqual(await readdir(dest), ['vppnet-cni']);
    assert.equal(await readFile(join(dest, 'vppnet-cni'), 'utf8'), 'old');
  });

  void it('refuses a destination that is missing or not a directory, and names with a path', async () => {
    const source = await newSource('#!/bin/sh\n');
    await assert.rejects(installCni({ source, dest: join(dir, 'no-such-dir') }), /ENOENT/);
    await assert.rejects(installCni({ source, dest: source }), /not a directory/);
    const dest = await newDest();
    for (const name of ['', '.', '..', '../escape', 'a/b']) {
      await assert.rejects(installCni({ source, dest, name }), /plain file name/, JSON.stringify(name));
    }
    assert.deepEqual(await readdir(dest), []);
    assert.deepEqual((await readdir(dir)).includes('escape'), false);
  });

  void it('is wired into the vppnet CLI', async () => {
    const dest = await newDest();
    const source = await newSource('#!/bin/sh\n');
    const out = sink();
    assert.equal(await main(['install-cni', '--source', source, '--dest', dest], out.stream), 0);
    assert.equal(out.text(), `vppnet install-cni: installed ${join(dest, 'vppnet-cni')} (10 bytes)\n`);
    const again = sink();
    assert.equal(await installCniCommand(['--source', source, '--dest', dest], again.stream), 0);
    assert.match(again.text(), /replaced/);
    // Usage errors (exit 2) with the usage on stderr, nothing on stdout and nothing installed.
    for (const [args, said] of [
      [[], /--source and --dest are required/],
      [['--dest', dest], /--source and --dest are required/],
      [['--source', source, '--dest', dest, '--force'], /Unknown option '--force'/],
    ] as const) {
      const o = sink();
      const e = sink();
      assert.equal(await main(['install-cni', ...args], o.stream, {}, e.stream), 2, args.join(' '));
      assert.equal(o.text(), '');
      assert.match(e.text(), said);
      assert.match(e.text(), /\nusage:\n {2}vppnet install-cni --source FILE --dest DIR/);
    }
    assert.deepEqual(await readdir(dest), ['vppnet-cni']);
  });

  void it('prints its usage on stdout for --help and -h, and succeeds', async () => {
    for (const flag of ['--help', '-h']) {
      const o = sink();
      const e = sink();
      assert.equal(await main(['install-cni', flag], o.stream, {}, e.stream), 0, flag);
      assert.match(o.text(), /^usage:\n {2}vppnet install-cni --source FILE --dest DIR/);
      assert.equal(e.text(), '');
    }
  });
});
