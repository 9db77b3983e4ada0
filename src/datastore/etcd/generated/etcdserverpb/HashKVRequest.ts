// Original file: src/datastore/etcd/proto/rpc.proto

import type { Long } from '@grpc/proto-loader';

export interface HashKVRequest {
  /**
   * revision is the key-value store revision for the hash operation.
   */
  'revision'?: (number | string | Long);
}

export interface HashKVRequest__Output {
  /**
   * revision is the key-value store revision for the hash operation.
   */
  'revision': (number);
}
