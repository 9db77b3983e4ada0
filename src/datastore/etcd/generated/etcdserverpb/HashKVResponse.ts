// Original file: src/datastore/etcd/proto/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { Long } from '@grpc/proto-loader';

export interface HashKVResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  /**
   * hash is the hash value computed from the responding member's MVCC keys up to a given revision.
   */
  'hash'?: (number);
  /**
   * compact_revision is the compacted revision of key-value store when hash begins.
   */
  'compact_revision'?: (number | string | Long);
}

export interface HashKVResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  /**
   * hash is the hash value computed from the responding member's MVCC keys up to a given revision.
   */
  'hash': (number);
  /**
   * compact_revision is the compacted revision of key-value store when hash begins.
   */
  'compact_revision': (number);
}
