/**
 * decodeWatchResponse against protobufjs: responses encoded by proto-loader from etcd's own
 * rpc.proto (what etcd sends is that encoding) read back as the store's events, unknown fields
 * skipped, broken bytes refused. The watches against a real etcd are datastore.test.ts's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as protoLoader from '@grpc/proto-loader';
import { decodeWatchResponse, WatchResponseDecodeError } from './watch-response.js';
import { etcdProtos, keyValueFields, unknownField } from '../testing/etcd-protos.js';

const def = etcdProtos();
const watch = (def['etcdserverpb.Watch'] as protoLoader.ServiceDefinition)
  .Watch as protoLoader.MethodDefinition<object, object>;
const encode = (response: object): Buffer => watch.responseSerialize(response);

const kv = keyValueFields;

describe('decodeWatchResponse', () => {
  it('reads puts and deletes as the store events, with their mod revisions and UTF-8 text', () => {
    const bytes = encode({
      header: { cluster_id: 2 ** 60 + 4096, member_id: 99, revision: 2 ** 40 + 5, raft_term: 8 },
      watch_id: 4,
      events: [
        { type: 'Put', kv: kv('/vppnet/v1/endpoints/vpc-ä/10.0.0.1/32', '{"node":"hv1"}', 2 ** 40 + 4) },
        { type: 'Delete', kv: kv('/vppnet/v1/nodes/hv2', '', 2 ** 40 + 5), prev_kv: kv('/x', 'old', 1) },
        { type: 'Put', kv: kv('/vppnet/v1/empty', '', 2 ** 40 + 5) },
      ],
    });
    assert.deepEqual(decodeWatchResponse(bytes), {
      revision: 2 ** 40 + 5,
      clusterId: 2 ** 60 + 4096,
      created: false,
      canceled: false,
      compactRevision: 0,
      cancelReason: '',
      events: [
        {
          type: 'put',
          key: '/vppnet/v1/endpoints/vpc-ä/10.0.0.1/32',
          value: '{"node":"hv1"}',
          revision: 2 ** 40 + 4,
        },
        { type: 'delete', key: '/vppnet/v1/nodes/hv2', revision: 2 ** 40 + 5 },
        { type: 'put', key: '/vppnet/v1/empty', value: '', revision: 2 ** 40 + 5 },
      ],
    });
  });

  it('reads a created, a canceled (compacted) response and a progress notification', () => {
    assert.equal(decodeWatchResponse(encode({ header: { revision: 9 }, created: true })).created, true);
    const canceled = decodeWatchResponse(
      encode({
        header: { revision: 50 },
        canceled: true,
        compact_revision: 41,
        cancel_reason: 'mvcc: required revision has been compacted',
      }),
    );
    assert.deepEqual(
      [canceled.canceled, canceled.compactRevision, canceled.cancelReason],
      [true, 41, 'mvcc: required revision has been compacted'],
    );
    assert.deepEqual(decodeWatchResponse(encode({ header: { revision: 77 } })), {
      revision: 77,
      clusterId: 0,
      created: false,
      canceled: false,
      compactRevision: 0,
      cancelReason: '',
      events: [],
    });
  });

  // Unread fields inside the header, the events and their key-values are in the first test.
  it('skips fields it does not know, of every wire type', () => {
    const known = encode({ header: { revision: 5 }, events: [{ type: 'Put', kv: kv('/k', 'v', 5) }] });
    const extra = Buffer.concat([
      unknownField(8, 0, [0xff, 0xff, 0x03]),
      unknownField(9, 1, [1, 2, 3, 4, 5, 6, 7, 8]),
      unknownField(10, 2, [3, 0x61, 0x62, 0x63]),
      unknownField(12, 5, [1, 2, 3, 4]),
      // fragment = true
      Buffer.from([7 << 3, 1]),
    ]);
    assert.deepEqual(decodeWatchResponse(Buffer.concat([extra, known, extra])).events, [
      { type: 'put', key: '/k', value: 'v', revision: 5 },
    ]);
  });

  it('refuses truncated or malformed bytes with its own error', () => {
    const bytes = encode({ header: { revision: 5 }, events: [{ type: 'Put', kv: kv('/k', 'value', 5) }] });
    // Cut right after the header, the bytes are a whole response without events.
    const headerOnly = encode({ header: { revision: 5 } }).length;
    assert.deepEqual(decodeWatchResponse(bytes.subarray(0, headerOnly)).events, []);
    for (let cut = 1; cut < bytes.length; cut++) {
      if (cut === headerOnly) continue;
      assert.throws(
        () => decodeWatchResponse(bytes.subarray(0, cut)),
        WatchResponseDecodeError,
        `cut at ${cut} of ${bytes.length}`,
      );
    }
    assert.throws(() => decodeWatchResponse(Buffer.from([(9 << 3) | 3])), /unsupported wire type 3/);
    assert.throws(
      () => decodeWatchResponse(Buffer.from([(11 << 3) | 2, 0])),
      /an event without its key-value/,
    );
  });
});
