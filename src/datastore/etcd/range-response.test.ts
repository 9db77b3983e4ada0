/**
 * decodeRangeResponse against protobufjs: the bytes a real etcd sends for Range (several pages,
 * an empty range, UTF-8 and non-UTF-8 keys, large values) read as proto-loader reads them; bytes
 * encoded by proto-loader from etcd's own rpc.proto for what etcd does not send (unknown fields);
 * broken bytes refused. EtcdStore's listings on it are store.test.ts's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { EtcdStore } from '../etcd-store.js';
import { EtcdServer } from '../testing/etcd-server.js';
import { ETCD_BACKEND } from '../testing/store-backends.js';
import type { RangeResponse__Output } from './generated/etcdserverpb/RangeResponse.js';
import {
  decodeRangeResponse,
  RangeResponseDecodeError,
  type RangeResponseMessage,
} from './range-response.js';
import { etcdProtos, keyValueFields, unknownField } from '../testing/etcd-protos.js';

const def = etcdProtos();
const kvService = def['etcdserverpb.KV'] as protoLoader.ServiceDefinition;
const range = kvService.Range as protoLoader.MethodDefinition<object, object, object, RangeResponse__Output>;
const put = kvService.Put as protoLoader.MethodDefinition<object, object>;
const encode = (response: object): Buffer => range.responseSerialize(response);

/** What proto-loader makes of the bytes, in the decoder's shape. */
function protoLoaderReads(bytes: Buffer): RangeResponseMessage {
  const res = range.responseDeserialize(bytes);
  assert.ok(res.header);
  return {
    revision: res.header.revision,
    kvs: res.kvs.map((kv) => ({
      key: kv.key.toString('utf8'),
      value: kv.value.toString('utf8'),
      modRevision: kv.mod_revision,
    })),
    more: res.more,
    count: res.count,
    lastKey: res.kvs.at(-1)?.key,
  };
}

const kv = keyValueFields;

describe('decodeRangeResponse', () => {
  it('reads the key-values as the store, with their mod revisions, UTF-8 text and the last key', () => {
    const bytes = encode({
      header: { cluster_id: 2 ** 60 + 4096, member_id: 99, revision: 2 ** 40 + 5, raft_term: 8 },
      kvs: [
        kv('/vppnet/v1/endpoints/vpc-ä/10.0.0.1/32', '{"node":"hv1","ü":"✓"}', 2 ** 40 + 4),
        kv('/vppnet/v1/empty', '', 6),
      ],
      more: true,
      count: 2 ** 33,
    });
    assert.deepEqual(decodeRangeResponse(bytes), {
      revision: 2 ** 40 + 5,
      kvs: [
        {
          key: '/vppnet/v1/endpoints/vpc-ä/10.0.0.1/32',
          value: '{"node":"hv1","ü":"✓"}',
          modRevision: 2 ** 40 + 4,
        },
        { key: '/vppnet/v1/empty', value: '', modRevision: 6 },
      ],
      more: true,
      count: 2 ** 33,
      lastKey: Buffer.from('/vppnet/v1/empty'),
    });
    assert.deepEqual(decodeRangeResponse(encode({ header: { revision: 3 } })), {
      revision: 3,
      kvs: [],
      more: false,
      count: 0,
      lastKey: undefined,
    });
  });

  it('keeps a key that is not UTF-8 byte for byte as the last key, where the next page starts', () => {
    const key = Buffer.from([0x2f, 0x6b, 0xff, 0xc3]);
    const res = decodeRangeResponse(encode({ header: { revision: 5 }, kvs: [kv(key, 'v', 5)], count: 1 }));
    assert.deepEqual(res.lastKey, key);
    assert.equal(res.kvs[0]?.key, key.toString('utf8'));
  });

  // Unread fields inside the header and the key-values are in the first test.
  it('skips fields it does not know, of every wire type', () => {
    const known = encode({ header: { revision: 5 }, kvs: [kv('/k', 'v', 5)], count: 1 });
    const extra = Buffer.concat([
      unknownField(5, 0, [0xff, 0xff, 0x03]),
      unknownField(6, 1, [1, 2, 3, 4, 5, 6, 7, 8]),
      unknownField(7, 2, [3, 0x61, 0x62, 0x63]),
      unknownField(8, 5, [1, 2, 3, 4]),
    ]);
    assert.deepEqual(decodeRangeResponse(Buffer.concat([extra, known, extra])), {
      revision: 5,
      kvs: [{ key: '/k', value: 'v', modRevision: 5 }],
      more: false,
      count: 1,
      lastKey: Buffer.from('/k'),
    });
  });

  it('refuses truncated or malformed bytes with its own error, never a listing short of keys', () => {
    const bytes = encode({
      header: { revision: 5 },
      kvs: [kv('/k1', 'value', 5), kv('/k2', 'value', 5)],
      more: true,
      count: 300,
    });
    // Cut right after the header, the bytes are a whole response of an empty range.
    const headerOnly = encode({ header: { revision: 5 } }).length;
    assert.deepEqual(decodeRangeResponse(bytes.subarray(0, headerOnly)).kvs, []);
    for (let cut = 0; cut < bytes.length; cut++) {
      if (cut === headerOnly) continue;
      assert.throws(
        () => decodeRangeResponse(bytes.subarray(0, cut)),
        RangeResponseDecodeError,
        `cut at ${cut} of ${bytes.length}`,
      );
    }
    assert.throws(() => decodeRangeResponse(Buffer.from([(9 << 3) | 3])), /unsupported wire type 3/);
    assert.throws(
      () => decodeRangeResponse(encode({ kvs: [kv('/k', 'v', 5)], count: 1 })),
      /etcd range response: no header/,
    );
    assert.throws(
      () => decodeRangeResponse(encode({ header: { revision: 5 }, kvs: [kv('/k', 'v', 5)] })),
      /etcd range response: 1 key-values but a count of 0/,
    );
  });
});

describe('decodeRangeResponse on what a real etcd sends', { skip: ETCD_BACKEND.skip }, () => {
  let server: EtcdServer;
  let client: grpc.Client;
  before(async () => {
    server = await EtcdServer.start();
    client = new grpc.Client(server.endpoint.replace(/^http:\/\//, ''), grpc.credentials.createInsecure(), {
      'grpc.max_receive_message_length': -1,
    });
  });
  after(async () => {
    client?.close();
    await server?.stop();
  });

  /** A unary KV call whose response is handed over as etcd sent it, undecoded. */
  const call = (
    method: Pick<protoLoader.MethodDefinition<object, object>, 'path' | 'requestSerialize'>,
    request: object,
  ): Promise<Buffer> =>
    new Promise((resolve, reject) =>
      client.makeUnaryRequest(
        method.path,
        method.requestSerialize,
        (bytes: Buffer) => bytes,
        request,
        (err, res) => (err || !res ? reject(err ?? new Error('no response')) : resolve(res)),
      ),
    );

  /** Both decoders on the bytes of one Range: they agree; the decoder's reading. */
  async function rangeBoth(request: object): Promise<RangeResponseMessage> {
    const bytes = await call(range, request);
    const ours = decodeRangeResponse(bytes);
    assert.deepEqual(ours, protoLoaderReads(bytes));
    return ours;
  }

  it('reads pages, an empty range, UTF-8 and large values as proto-loader does', async () => {
    const store = new EtcdStore({ endpoints: [server.endpoint] });
    try {
      const keys = Array.from({ length: 250 }, (_, i) => `/rr/${String(i).padStart(3, '0')}-ä✓`);
      for (let i = 0; i < keys.length; i += 100) {
        await store.commit(
          keys.slice(i, i + 100).map((key, j) => ({ type: 'put', key, value: `{"i":${i + j},"v":"ü€𝄞"}` })),
        );
      }
      const large = 'x'.repeat(1 << 20) + 'é';
      await store.commit([
        { type: 'put', key: '/rr/large', value: large },
        { type: 'put', key: '/rr/empty-value', value: '' },
      ]);

      // The whole range in one response; then in pages of 64 at its revision, as list() reads.
      const whole = await rangeBoth({ key: Buffer.from('/rr/'), range_end: Buffer.from('/rr0') });
      assert.equal(whole.kvs.length, 252);
      assert.equal(whole.kvs.find((e) => e.key === '/rr/large')?.value, large);
      const paged = [];
      let from = Buffer.from('/rr/');
      let pages = 0;
      for (;;) {
        const page = await rangeBoth({
          key: from,
          range_end: Buffer.from('/rr0'),
          limit: 64,
          revision: whole.revision,
        });
        pages++;
        paged.push(...page.kvs);
        if (!page.more || page.lastKey === undefined) break;
        from = Buffer.concat([page.lastKey, Buffer.from([0])]);
      }
      assert.equal(pages, 4);
      assert.deepEqual(paged, whole.kvs);

      const empty = await rangeBoth({ key: Buffer.from('/none/'), range_end: Buffer.from('/none0') });
      assert.deepEqual([empty.kvs, empty.more, empty.count], [[], false, 0]);
      const one = await rangeBoth({ key: Buffer.from('/rr/empty-value') });
      assert.deepEqual(
        one.kvs.map((e) => e.value),
        [''],
      );
    } finally {
      await store.close();
    }
  });

  it('lists a range holding a key that is not UTF-8 page by page, each key once', async () => {
    // Written by another client: etcd's keys are bytes. The next page starts after the key's own
    // bytes; after its text's (U+FFFD, EF BF BD < FF) it would start before it, again and again.
    await call(put, { key: Buffer.from([...Buffer.from('/nu/'), 0xff]), value: Buffer.from('raw') });
    const store = new EtcdStore({ endpoints: [server.endpoint], pageSize: 1 });
    try {
      await store.commit([
        { type: 'put', key: '/nu/a', value: 'a' },
        { type: 'put', key: '/nu/z', value: 'z' },
      ]);
      const listing = await store.list({ key: '/nu/', prefix: true });
      assert.deepEqual(
        listing.kvs.map((e) => [e.key, e.value]),
        [
          ['/nu/a', 'a'],
          ['/nu/z', 'z'],
          ['/nu/\ufffd', 'raw'],
        ],
      );
    } finally {
      await store.close();
    }
  });
});
