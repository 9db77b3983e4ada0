/**
 * The checked-in types of etcd's gRPC API are exactly what proto-loader-gen-types makes from the
 * protos under the client's load options: a hand edit of ./generated, a proto changed, or a load
 * option changed without regenerating fails here (`npm run gen:etcd-types -- --check` is the same
 * check from the command line).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { firstDifference, generateEtcdTypes } from './generate-types.js';

describe('generated etcd gRPC types', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-etcd-types-'));
    await generateEtcdTypes(dir);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('are what the generator makes from src/datastore/etcd/proto', async () => {
    const difference = await firstDifference(dir);
    assert.equal(difference, undefined, `${difference}: run \`npm run build && npm run gen:etcd-types\``);
  });

  it('a changed file is found', async () => {
    await writeFile(path.join(dir, 'mvccpb/KeyValue.ts'), '// edited by hand\n');
    assert.equal(await firstDifference(dir), "mvccpb/KeyValue.ts differs from the generator's output");
  });
});
