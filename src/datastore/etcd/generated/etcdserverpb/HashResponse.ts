// Original file: src/datastore/etcd/proto/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';

export interface HashResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  /**
   * hash is the hash value computed from the responding member's KV's backend.
   */
  'hash'?: (number);
}

export interface HashResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  /**
   * hash is the hash value computed from the responding member's KV's backend.
   */
  'hash': (number);
}
