/**
 * The checked-in types of etcd's gRPC API and the JSON descriptor the client loads are exactly
 * what the generator makes from the protos under the client's load options: a hand edit of
 * ./generated, a proto changed, or a load option changed without regenerating fails here
 * (`npm run gen:etcd-types -- --check` is the same check from the command line).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DESCRIPTOR_FILE, firstDifference, generateEtcdTypes } from './generate-types.js';

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

  it('a changed descriptor is found', async () => {
    const file = path.join(dir, DESCRIPTOR_FILE);
    const fresh = await readFile(file, 'utf8');
    await writeFile(file, fresh.replace('"mod_revision"', '"modRevision"'));
    assert.equal(await firstDifference(dir), "json-descriptor.ts differs from the generator's output");
    await writeFile(file, fresh);
  });

  it('a changed file is found', async () => {
    await writeFile(path.join(dir, 'mvccpb/KeyValue.ts'), '// edited by hand\n');
    assert.equal(await firstDifference(dir), "mvccpb/KeyValue.ts differs from the generator's output");
  });
});
