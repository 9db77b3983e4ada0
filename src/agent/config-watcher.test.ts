import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ManualTimers } from '../util/testing/manual-timers.js';
import { ConfigFileWatcher } from './config-watcher.js';
import { makeTempDir } from './testing/agent-fixtures.js';

// The file system events are real; only the debounce's time is the test's (ManualTimers): the
// tests see each event as an armed debounce and run it when they choose, so "one change, not
// two" is read from the armed timers instead of waited for.
describe('ConfigFileWatcher', () => {
  let tmp: Awaited<ReturnType<typeof makeTempDir>>;
  let timers: ManualTimers;
  let watcher: ConfigFileWatcher | undefined;
  let changes: number;
  let errors: string[];

  beforeEach(async () => {
    tmp = await makeTempDir();
    timers = new ManualTimers();
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
      timers,
    }));

  it('reports a burst of events in the directory as one change', async () => {
    const w = watch(tmp.dir, 100);
    assert.equal(w.ensureWatching(), true);
    for (let i = 0; i < 5; i++) writeFileSync(join(tmp.dir, 'config.yaml'), `n: ${i}\n`);
    // Creating the file and writing it are two events at least (inotify folds repeated writes).
    await timers.whenArmed(2);
    assert.deepEqual(timers.armed, [100], 'each event restarts the one debounce');
    assert.equal(changes, 0, 'nothing is reported before the quiet time');
    timers.advance(100);
    assert.equal(changes, 1);
    assert.deepEqual(timers.armed, []);
  });

  it('reports a missing directory once, and starts watching when it appears', async () => {
    const dir = join(tmp.dir, 'later');
    const w = watch(dir);
    assert.equal(w.ensureWatching(), false);
    assert.equal(w.ensureWatching(), false);
    assert.equal(errors.length, 1);
    assert.match(errors[0] ?? '', /cannot watch .*later: ENOENT/);
    assert.deepEqual(timers.armed, []);

    await mkdir(dir);
    assert.equal(w.ensureWatching(), true);
    assert.deepEqual(timers.armed, [30], 'the file may have appeared unseen: a re-read is due');
    timers.advance(30);
    assert.equal(changes, 1);
  });

  it('re-arms on a replaced directory', async () => {
    const dir = join(tmp.dir, 'etc');
    await mkdir(dir);
    const w = watch(dir);
    w.ensureWatching();
    await rename(dir, join(tmp.dir, 'old-etc'));
    // The old watch sees its directory move away.
    await timers.whenArmed(1);
    timers.advance(30);
    await mkdir(dir);
    changes = 0;
    assert.deepEqual(timers.armed, []);

    assert.equal(w.ensureWatching(), true);
    assert.deepEqual(timers.armed, [30], 'events may have been missed while re-arming: a re-read is due');
    timers.advance(30);
    assert.equal(changes, 1);

    const seen = timers.armedTotal;
    await writeFile(join(dir, 'config.yaml'), 'x: 1\n');
    await timers.whenArmed(seen + 1);
    timers.advance(30);
    assert.equal(changes, 2, 'events in the new directory are seen');
  });

  it('stops reporting after close()', async () => {
    const w = watch(tmp.dir);
    w.ensureWatching();
    await writeFile(join(tmp.dir, 'config.yaml'), 'x: 1\n');
    w.close();
    assert.deepEqual(timers.armed, [], 'a debounce the write armed is cancelled');
    timers.advance(1_000);
    assert.equal(changes, 0);
    assert.equal(w.ensureWatching(), false);
  });
});
