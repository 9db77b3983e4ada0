/**
 * The client loads etcd's protos from the generated JSON descriptor (generated/json-descriptor.ts),
 * never from the .proto files: what protoLoader.fromJSON makes of it must be what loadSync makes of
 * the protos, and the clients built on it must speak to a real etcd (generated-types.test.ts holds
 * that the checked-in descriptor is the generator's output).
 */
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { etcdProtos } from '../testing/etcd-protos.js';
import { ETCD_BACKEND } from '../testing/store-backends.js';
import { EtcdServer } from '../testing/etcd-server.js';
import { descriptorModule } from './generate-types.js';
import { ETCD_PROTO_DESCRIPTOR } from './generated/json-descriptor.js';
import { connectEtcd, type EtcdClients } from './grpc-api.js';
import { LOAD_OPTIONS } from './load-options.js';
import { PROTO_DIR } from './proto-files.js';
import type { AuthUserAddResponse__Output } from './generated/etcdserverpb/AuthUserAddResponse.js';
import type { AuthUserListResponse__Output } from './generated/etcdserverpb/AuthUserListResponse.js';
import type { DeleteRangeResponse__Output } from './generated/etcdserverpb/DeleteRangeResponse.js';
import type { PutResponse__Output } from './generated/etcdserverpb/PutResponse.js';
import type { RangeResponseMessage } from './range-response.js';
import type { WatchResponseMessage } from './watch-response.js';

/** A package definition as plain data: its functions (serializers) by name only. */
const plain = (def: protoLoader.PackageDefinition): unknown =>
  JSON.parse(
    JSON.stringify(def, (_key, value: unknown) =>
      typeof value === 'function' ? `function ${value.name}` : value,
    ),
  );

/** The descriptor a generated module holds: the JSON text it hands to JSON.parse. */
function descriptorOf(module: string): {
  nested: { mvccpb: { nested: { KeyValue: { fields: Record<string, unknown> } } } };
} {
  const text = /JSON\.parse\(`([^`]*)`\)/.exec(module)?.[1];
  assert.ok(text !== undefined, 'a JSON.parse of a template literal');
  return JSON.parse(text) as ReturnType<typeof descriptorOf>;
}

describe('the JSON descriptor of etcd’s protos', () => {
  it('loads into the package definition loadSync builds from the .proto files', () => {
    const fromFiles = etcdProtos();
    const fromJson = protoLoader.fromJSON(ETCD_PROTO_DESCRIPTOR, LOAD_OPTIONS);
    // Every message, enum and service, with its descriptor and its file descriptors (bytes).
    assert.deepEqual(plain(fromJson), plain(fromFiles));
    assert.ok(Object.keys(fromFiles).length > 100, 'the whole API, not an empty definition');
    // The serializers apply the options alike: an int64 as a number, an enum as its name.
    const request = { key: Buffer.from('k'), limit: 7, sort_order: 'Descend' };
    const range = (d: protoLoader.PackageDefinition) => {
      const method = (d['etcdserverpb.KV'] as protoLoader.ServiceDefinition).Range;
      assert.ok(method !== undefined);
      return method;
    };
    const bytes = range(fromJson).requestSerialize(request);
    assert.deepEqual(bytes, range(fromFiles).requestSerialize(request));
    const decoded = range(fromJson).requestDeserialize(bytes) as { limit: unknown; sort_order: unknown };
    assert.deepEqual(
      { limit: decoded.limit, sort_order: decoded.sort_order },
      { limit: 7, sort_order: 'Descend' },
    );
  });

  it('follows the protos: a field renamed in kv.proto is renamed in the descriptor', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-etcd-protos-'));
    try {
      await cp(PROTO_DIR, dir, { recursive: true });
      const kv = path.join(dir, 'kv.proto');
      const text = await readFile(kv, 'utf8');
      assert.match(text, /int64 mod_revision = 3;/);
      await writeFile(kv, text.replace('int64 mod_revision = 3;', 'int64 changed_at = 3;'));
      const keyValueFields = (module: string): string[] =>
        Object.keys(descriptorOf(module).nested.mvccpb.nested.KeyValue.fields).sort();
      assert.deepEqual(keyValueFields(descriptorModule()), [
        'create_revision',
        'key',
        'lease',
        'mod_revision',
        'value',
        'version',
      ]);
      assert.deepEqual(keyValueFields(descriptorModule(dir)), [
        'changed_at',
        'create_revision',
        'key',
        'lease',
        'value',
        'version',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('etcd clients built from the JSON descriptor', { skip: ETCD_BACKEND.skip }, () => {
  let etcd: EtcdServer;
  let clients: EtcdClients;
  const md = (): grpc.Metadata => new grpc.Metadata();
  /** A unary call's answer; `T` named by the caller, as the overloaded client methods hide it. */
  const unary = <T>(call: (done: grpc.requestCallback<T>) => void): Promise<T> =>
    new Promise((resolve, reject) =>
      call((err, res) => (err || res === undefined ? reject(err ?? new Error('no response')) : resolve(res))),
    );

  before(async () => {
    etcd = await EtcdServer.start();
    clients = connectEtcd(`127.0.0.1:${etcd.clientPort}`, grpc.credentials.createInsecure(), {});
  });
  after(async () => {
    clients?.close();
    await etcd?.stop();
  });

  it('put, range, watch, delete and an Auth user on a real etcd', async () => {
    const put = await unary<PutResponse__Output>((done) =>
      clients.kv.Put({ key: Buffer.from('/d/a'), value: Buffer.from('one') }, md(), {}, done),
    );
    const revision = Number(put.header?.revision);
    assert.ok(revision > 0, 'a revision, as a number (longs: Number)');

    const listed = await unary<RangeResponseMessage>((done) =>
      clients.range({ key: Buffer.from('/d/'), range_end: Buffer.from('/d0') }, md(), {}, done),
    );
    assert.deepEqual(
      listed.kvs.map((kv) => [kv.key, kv.value, kv.modRevision]),
      [['/d/a', 'one', revision]],
    );

    // The watch sees the next change: a put and then a delete of the same key.
    const stream = clients.watch(md());
    const responses: WatchResponseMessage[] = [];
    const twoEvents = new Promise<void>((resolve, reject) => {
      stream.on('error', reject);
      stream.on('data', (res: WatchResponseMessage) => {
        responses.push(res);
        if (responses.flatMap((r) => r.events).length >= 2) resolve();
      });
    });
    const created = new Promise<void>((resolve) =>
      stream.on('data', (res: WatchResponseMessage) => res.created && resolve()),
    );
    stream.write({
      create_request: {
        key: Buffer.from('/d/'),
        range_end: Buffer.from('/d0'),
        start_revision: revision + 1,
      },
    });
    await created;
    await unary<PutResponse__Output>((done) =>
      clients.kv.Put({ key: Buffer.from('/d/a'), value: Buffer.from('two') }, md(), {}, done),
    );
    const deleted = await unary<DeleteRangeResponse__Output>((done) =>
      clients.kv.DeleteRange({ key: Buffer.from('/d/a') }, md(), {}, done),
    );
    assert.equal(Number(deleted.deleted), 1);
    await twoEvents;
    stream.on('error', () => undefined);
    stream.cancel();
    assert.deepEqual(
      responses.flatMap((r) => r.events).map((e) => [e.type, e.key, e.type === 'put' ? e.value : '']),
      [
        ['put', '/d/a', 'two'],
        ['delete', '/d/a', ''],
      ],
    );

    // The Auth service, on the KV client's channel (a user added while auth is off, as an admin would).
    await unary<AuthUserAddResponse__Output>((done) =>
      clients.auth.UserAdd({ name: 'hv-test', password: 'secret' }, md(), {}, done),
    );
    const users = await unary<AuthUserListResponse__Output>((done) =>
      clients.auth.UserList({}, md(), {}, done),
    );
    assert.deepEqual(users.users, ['hv-test']);
  });
});
