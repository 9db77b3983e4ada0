import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ConfigFileWatcher } from './config-watcher.js';
import { delay, makeTempDir } from './testing/agent-fixtures.js';

describe('ConfigFileWatcher', () => {
  let tmp: Awaited<ReturnType<typeof makeTempDir>>;
  let watcher: ConfigFileWatcher | undefined;
  let changes: number;
  let errors: string[];

  beforeEach(async () => {
    tmp = await makeTempDir();
    changes = 0;
    errors = [];
  });
  afterEach(async () => {
    watcher?.close();
    await tmp.remove();
  });

  const watch = (dir: string, debounceMs = 30): ConfigFileWatcher =>
    (watcher = new ConfigFileWatcher({
      path: join(dir, 'config.yaml'),
      debounceMs,
      onChange: () => changes++,
      onError: (m) => errors.push(m),
    }));

  it('reports a burst of events in the directory as one change', async () => {
    const w = watch(tmp.dir, 100);
    assert.equal(w.ensureWatching(), true);
    for (let i = 0; i < 5; i++) writeFileSync(join(tmp.dir, 'config.yaml'), `n: ${i}\n`);
    await delay(300);
    assert.equal(changes, 1);
  });

  it('reports a missing directory once, and starts watching when it appears', async () => {
    const dir = join(tmp.dir, 'later');
    const w = watch(dir);
    assert.equal(w.ensureWatching(), false);
    assert.equal(w.ensureWatching(), false);
    assert.equal(errors.length, 1);
    assert.match(errors[0] ?? '', /cannot watch .*later: ENOENT/);

    await mkdir(dir);
    assert.equal(w.ensureWatching(), true);
    await delay(80);
    assert.equal(changes, 1, 'the file may have appeared unseen: re-read it');
  });

  it('re-arms on a replaced directory', async () => {
    const dir = join(tmp.dir, 'etc');
    await mkdir(dir);
    const w = watch(dir);
    w.ensureWatching();
    await rename(dir, join(tmp.dir, 'old-etc'));
    await mkdir(dir);
    await delay(80);
    changes = 0;
    assert.equal(w.ensureWatching(), true);
    await delay(80);
    assert.equal(changes, 1);
    await writeFile(join(dir, 'config.yaml'), 'x: 1\n');
    await delay(80);
    assert.equal(changes, 2, 'events in the new directory are seen');
  });

  it('stops reporting after close()', async () => {
    const w = watch(tmp.dir);
    w.ensureWatching();
    await writeFile(join(tmp.dir, 'config.yaml'), 'x: 1\n');
    w.close();
    await delay(80);
    assert.equal(changes, 0);
    assert.equal(w.ensureWatching(), false);
  });
});
