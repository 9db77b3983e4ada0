import assert from 'node:assert/strict';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { writeFileAtomic } from './atomic-file.js';
import { makeTempDir } from '../agent/testing/agent-fixtures.js';

describe('writeFileAtomic', () => {
  let tmp: Awaited<ReturnType<typeof makeTempDir>>;
  beforeEach(async () => (tmp = await makeTempDir()));
  afterEach(() => tmp.remove());

  it('creates missing directories and replaces the file whole', async () => {
    const path = join(tmp.dir, 'a', 'b', 'f.json');
    await writeFileAtomic(path, 'one');
    await writeFileAtomic(path, 'two');
    assert.equal(await readFile(path, 'utf8'), 'two');
    assert.deepEqual(await readdir(join(tmp.dir, 'a', 'b')), ['f.json']);
  });

  it('leaves the old content and no temporary file when the rename fails', async () => {
    const path = join(tmp.dir, 'occupied');
    await mkdir(join(path, 'child'), { recursive: true });
    await assert.rejects(writeFileAtomic(path, 'x'));
    assert.deepEqual((await readdir(tmp.dir)).sort(), ['occupied']);
  });
});
