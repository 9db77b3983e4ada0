import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { SrGlobalsFileStore } from './sr-globals-file-store.js';
import { makeTempDir, RecordingLogger } from './testing/agent-fixtures.js';

describe('SrGlobalsFileStore', () => {
  let tmp: Awaited<ReturnType<typeof makeTempDir>>;
  let path: string;
  let logger: RecordingLogger;

  beforeEach(async () => {
    tmp = await makeTempDir();
    path = join(tmp.dir, 'state', 'sr-globals.json');
    logger = new RecordingLogger();
  });
  afterEach(() => tmp.remove());

  it('reads back in a new instance (an agent restart) what an earlier one saved', async () => {
    const first = new SrGlobalsFileStore(path, logger);
    assert.equal(await first.load(), undefined, 'no file yet is simply empty');
    await first.save({ vppPid: 1234, encapSource: '2001:db8::1', hopLimit: 64 });

    const restarted = new SrGlobalsFileStore(path, logger);
    assert.deepEqual(await restarted.load(), { vppPid: 1234, encapSource: '2001:db8::1', hopLimit: 64 });
    assert.deepEqual(JSON.parse(await readFile(path, 'utf8')), {
      version: 1,
      vppPid: 1234,
      encapSource: '2001:db8::1',
      hopLimit: 64,
    });
    assert.deepEqual(await readdir(join(tmp.dir, 'state')), ['sr-globals.json'], 'no temporary file is left');
    assert.deepEqual(logger.records, []);
  });

  it('keeps optional fields optional', async () => {
    await new SrGlobalsFileStore(path).save({ vppPid: 7 });
    assert.deepEqual(await new SrGlobalsFileStore(path).load(), { vppPid: 7 });
  });

  it('remembers the underlay advertisement with the MAC it carried', async () => {
    const memory = {
      vppPid: 8,
      underlayAnnouncement: { iface: 'memif0/0', address: '2001:db8::1', mac: '02:fe:00:00:00:01' },
    };
    await new SrGlobalsFileStore(path).save(memory);
    assert.deepEqual(await new SrGlobalsFileStore(path).load(), memory);
  });

  it('rewrites the file only when the value changed', async () => {
    const store = new SrGlobalsFileStore(path, logger);
    await store.save({ vppPid: 1, hopLimit: 64 });
    const before = await stat(path);
    await store.save({ vppPid: 1, hopLimit: 64 });
    assert.equal((await stat(path)).ino, before.ino, 'an equal value is not written again');
    await store.save({ vppPid: 2, hopLimit: 64 });
    assert.notEqual((await stat(path)).ino, before.ino, 'a new value replaces the file (by rename)');
  });

  it('treats a corrupt file as empty, says so, and replaces it on the next save', async () => {
    await mkdir(join(tmp.dir, 'state'));
    await writeFile(path, '{"version":1,"vppPid":12');
    const store = new SrGlobalsFileStore(path, logger);
    assert.equal(await store.load(), undefined);
    assert.match(logger.at('warn')[0]?.message ?? '', /corrupt; treating it as empty/);

    await store.save({ vppPid: 12, hopLimit: 3 });
    assert.deepEqual(await new SrGlobalsFileStore(path).load(), { vppPid: 12, hopLimit: 3 });
  });

  it('treats a file of the wrong shape as corrupt', async () => {
    await mkdir(join(tmp.dir, 'state'));
    for (const text of [
      '[]',
      'null',
      '{"version":1,"vppPid":"12"}',
      '{"version":2,"vppPid":12}',
      '{"version":1,"vppPid":1,"hopLimit":"64"}',
      '{"version":1,"vppPid":1,"underlayAnnouncement":"memif0/0"}',
      '{"version":1,"vppPid":1,"underlayAnnouncement":{"iface":"memif0/0","address":"2001:db8::1"}}',
    ]) {
      await writeFile(path, text);
      assert.equal(await new SrGlobalsFileStore(path, logger).load(), undefined, text);
    }
  });

  it('logs a failed write and still remembers the value for this process', async () => {
    await writeFile(join(tmp.dir, 'not-a-dir'), '');
    const store = new SrGlobalsFileStore(join(tmp.dir, 'not-a-dir', 'sr-globals.json'), logger);
    await store.save({ vppPid: 5, hopLimit: 9 });
    assert.match(logger.at('error')[0]?.message ?? '', /cannot persist the SRv6 globals/);
    assert.deepEqual(await store.load(), { vppPid: 5, hopLimit: 9 });
  });

  it('removes temporary files a crash left behind', async () => {
    await mkdir(join(tmp.dir, 'state'));
    await writeFile(join(tmp.dir, 'state', '.sr-globals.json.999.abcd1234.tmp'), '{"version":1,"vppPid"');
    await new SrGlobalsFileStore(path, logger).load();
    assert.deepEqual(await readdir(join(tmp.dir, 'state')), []);
  });
});
